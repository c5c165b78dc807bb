//! `mcp serve --resources`: the workspace's files as read-only resources
//! (`file://` URIs; the ignore rules apply, as for the file tools), listed
//! with `resources/list`, read with `resources/read`, and reachable through
//! the `file:///{path}` template for files the list leaves out.

use base64::Engine;
use gemini_rs_core::{FileReadError, SessionView};
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};

/// Most files one `resources/list` returns.
const LIST_LIMIT: usize = 1000;

/// `resources/list`.
pub(super) fn list(view: &SessionView) -> Vec<Resource> {
    view.workspace_files(LIST_LIMIT)
        .into_iter()
        .map(|f| {
            let resource = Resource::new(f.uri, f.relative.clone())
                .with_description(format!("Workspace file {}", f.relative));
            match f.mime_type {
                Some(mime) => resource.with_mime_type(mime),
                None => resource,
            }
        })
        .collect()
}

/// `resources/templates/list`.
pub(super) fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new("file:///{path}", "workspace-file")
            .with_description("Any file of the workspace, by absolute path")
            .with_mime_type("application/octet-stream"),
    ]
}

/// `resources/read`: a file of the workspace, as text or base64.
pub(super) fn read(view: &SessionView, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let file = view.read_workspace_file(uri).map_err(|e| match e {
        FileReadError::NotFound(_) => {
            // SEP-2164: the requested URI goes in the error's data.
            ErrorData::resource_not_found(e.to_string(), Some(serde_json::json!({"uri": uri})))
        }
        FileReadError::Unreadable { .. } => ErrorData::internal_error(e.to_string(), None),
    })?;
    let content = match String::from_utf8(file.bytes) {
        Ok(t) if file.is_text => ResourceContents::text(t, uri),
        Ok(t) => ResourceContents::blob(b64(t.as_bytes()), uri),
        Err(e) => ResourceContents::blob(b64(&e.into_bytes()), uri),
    };
    Ok(ReadResourceResult::new(vec![
        content.with_mime_type(file.mime_type),
    ]))
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
