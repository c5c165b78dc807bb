//! gemini-rs's fields in `session/new`'s (and `session/load`'s,
//! `session/fork`'s) `_meta`: `trajectory`, the file that keeps the
//! session's ATIF trajectory (a relative path is taken from the session's
//! `cwd`).

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Error, ErrorCode};
use gemini_rs_protocol::lenient::present;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// gemini-rs's own fields of a session request's `_meta`, as sent (each
/// is checked by its reader, whose error names a wrong value).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OwnMeta {
    /// The trajectory file.
    #[serde(default, deserialize_with = "present")]
    pub trajectory: Option<Value>,
    /// The template folder of the session's working copy.
    #[serde(default, deserialize_with = "present")]
    pub workspace_from: Option<Value>,
}

impl OwnMeta {
    /// Our fields of `meta` (none when there is no `_meta`).
    pub fn of(meta: Option<&acp::Meta>) -> Self {
        meta.and_then(|m| serde_json::from_value(Value::Object(m.clone())).ok())
            .unwrap_or_default()
    }
}

/// `_meta.trajectory`, checked (an existing file must be a regular one,
/// and its folder must be able to hold it); a wrong value is refused with
/// `-32602` naming it.
pub fn trajectory(meta: Option<&acp::Meta>, cwd: &Path) -> Result<Option<PathBuf>, Error> {
    let invalid = |message: String| Error::new(ErrorCode::INVALID_PARAMS, message);
    let Some(value) = OwnMeta::of(meta).trajectory else {
        return Ok(None);
    };
    let Some(text) = value.as_str().filter(|t| !t.trim().is_empty()) else {
        return Err(invalid(format!(
            "`_meta.trajectory` must be a file path (a non-empty string), not {value}"
        )));
    };
    let path = cwd.join(text);
    gemini_rs_core::check_trajectory_path(&path)
        .map(Some)
        .map_err(|e| invalid(format!("`_meta.trajectory`: {e}")))
}
