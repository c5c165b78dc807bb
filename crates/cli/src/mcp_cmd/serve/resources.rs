//! `mcp serve --resources`: the workspace's files as read-only resources
//! (`file://` URIs; the ignore rules apply, as for the file tools), listed
//! with `resources/list`, read with `resources/read`, and reachable through
//! the `file:///{path}` template for files the list leaves out.

use base64::Engine;
use gemini_rs_core::workspace::{FileKind, MAX_FILE_BYTES, Workspace, detect_kind, mime_type};
use rmcp::ErrorData;
use rmcp::model::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use std::io::Read;

/// Most files one `resources/list` returns.
const LIST_LIMIT: usize = 1000;

/// `resources/list`.
pub(super) fn list(ws: &Workspace) -> Vec<Resource> {
    ws.dirs()
        .iter()
        .flat_map(|d| ws.files_below(d, LIST_LIMIT))
        .take(LIST_LIMIT)
        .map(|p| {
            let rel = ws.relative(&p);
            let resource = Resource::new(gemini_rs_core::tools::mcp::file_uri(&p), rel.clone())
                .with_description(format!("Workspace file {rel}"));
            match mime_type(&p) {
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
pub(super) fn read(ws: &Workspace, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let not_found = |why: String| ErrorData::resource_not_found(why, None);
    let path = gemini_rs_core::tools::mcp::file_uri_path(uri)
        .ok_or_else(|| not_found(format!("Resource not found: {uri}")))?;
    ws.check_access(&path).map_err(not_found)?;
    if ws.is_ignored(&path, ws.filter_options()) {
        return Err(not_found(format!("Resource not found: {uri} (ignored)")));
    }
    let (mut file, _) = ws
        .open_regular(&path, Some(MAX_FILE_BYTES))
        .map_err(|_| not_found(format!("Resource not found: {uri}")))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| ErrorData::internal_error(format!("{uri}: {e}"), None))?;
    let mime = mime_type(&path).unwrap_or_else(|| "application/octet-stream".to_string());
    let text = matches!(detect_kind(&path, &bytes), FileKind::Text);
    let content = match String::from_utf8(bytes) {
        Ok(t) if text => ResourceContents::text(t, uri),
        Ok(t) => ResourceContents::blob(b64(t.as_bytes()), uri),
        Err(e) => ResourceContents::blob(b64(&e.into_bytes()), uri),
    };
    Ok(ReadResourceResult::new(vec![content.with_mime_type(mime)]))
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
