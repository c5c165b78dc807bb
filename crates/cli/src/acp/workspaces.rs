//! Copy-on-write workspaces over ACP: `session/new` with
//! `_meta.workspaceFrom` (a template folder) runs the session in a copy of
//! it under the project's temp folder of `cwd`, and the
//! `_gemini-rs/patch` extension method returns the session's changes as a
//! unified diff. The template is never changed; a copy is released
//! (unmounted) when the connection ends.

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Error, ErrorCode, JsonRpcRequest, JsonRpcResponse};
use gemini_rs_core::{GeminiPaths, WorkingCopy};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// `_gemini-rs/patch`'s parameters.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcRequest)]
#[request(method = "_gemini-rs/patch", response = PatchResponse)]
#[serde(rename_all = "camelCase")]
pub struct PatchRequest {
    /// The session started with `workspaceFrom`.
    pub session_id: String,
}

/// `_gemini-rs/patch`'s answer.
#[derive(Debug, Clone, Serialize, Deserialize, JsonRpcResponse)]
pub struct PatchResponse {
    /// The changes as a unified diff (empty when nothing changed).
    pub patch: String,
    /// How the copy was made: `overlay`, `reflink` or `copy`.
    pub kind: String,
}

/// The working copies of this connection's sessions, by session id.
#[derive(Clone, Default)]
pub struct Workspaces(Arc<Mutex<HashMap<String, Arc<WorkingCopy>>>>);

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message)
}

/// `_meta.workspaceFrom` of a `session/new`, when given: a path.
pub fn requested(meta: Option<&acp::Meta>) -> Result<Option<PathBuf>, Error> {
    let Some(value) = super::meta::OwnMeta::of(meta).workspace_from else {
        return Ok(None);
    };
    match value.as_str() {
        Some(path) if !path.is_empty() => Ok(Some(PathBuf::from(path))),
        _ => Err(invalid(
            "`_meta.workspaceFrom` must be the path of a template folder".into(),
        )),
    }
}

impl Workspaces {
    /// Makes the copy of `template` for a session to be started in `cwd`.
    pub async fn create(
        &self,
        paths: &GeminiPaths,
        cwd: &Path,
        template: PathBuf,
    ) -> Result<Arc<WorkingCopy>, Error> {
        let dir = paths
            .project_temp_dir(cwd)
            .join("workspaces")
            .join(uuid::Uuid::new_v4().to_string());
        let made = tokio::task::spawn_blocking(move || {
            let started = std::time::Instant::now();
            let template = gemini_rs_core::check_template(&template, "`_meta.workspaceFrom`")
                .map_err(|e| invalid(e.to_string()))?;
            let copy = WorkingCopy::create(&template, &dir)
                .map_err(|e| Error::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?;
            tracing::debug!(
                "{} copy of {} made in {:?}",
                copy.kind.as_str(),
                template.display(),
                started.elapsed()
            );
            Ok::<_, Error>(copy)
        })
        .await
        .map_err(|e| Error::new(ErrorCode::INTERNAL_ERROR, e.to_string()))??;
        Ok(Arc::new(made))
    }

    /// Keeps `copy` as session `id`'s.
    pub fn keep(&self, id: String, copy: Arc<WorkingCopy>) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, copy);
    }

    /// The patch of session `id`'s copy.
    pub async fn patch(&self, id: &str) -> Result<PatchResponse, Error> {
        let copy = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
            .ok_or_else(|| {
                invalid(format!(
                    "Session `{id}` was not started with `_meta.workspaceFrom`"
                ))
            })?;
        tokio::task::spawn_blocking(move || {
            copy.patch()
                .map(|patch| PatchResponse {
                    patch,
                    kind: copy.kind.as_str().to_string(),
                })
                .map_err(|e| Error::new(ErrorCode::INTERNAL_ERROR, e.to_string()))
        })
        .await
        .map_err(|e| Error::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?
    }

    /// Unmounts session `id`'s copy, if it has one, and forgets it; its
    /// changes stay in its folder.
    pub fn release(&self, id: &str) {
        let copy = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(id);
        if let Some(copy) = copy {
            copy.release();
        }
    }

    /// Unmounts every copy (the connection ends); their changes stay.
    pub fn release_all(&self) {
        for (_, copy) in self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain()
        {
            copy.release();
        }
    }
}
