//! `mcp serve --resources`: the workspace's files as read-only resources
//! (`file://` URIs; the ignore rules apply, as for the file tools), listed
//! with `resources/list`, read with `resources/read`, and reachable through
//! the `file:///{path}` template for files the list leaves out.

use base64::Engine;
use gemini_rs_core::workspace::{FileKind, MAX_FILE_BYTES, Workspace, detect_kind, mime_type};
use serde_json::{Value, json};
use std::io::Read;

/// Most files one `resources/list` returns.
const LIST_LIMIT: usize = 1000;

/// `resources/list`.
pub(super) fn list(ws: &Workspace) -> Value {
    let resources: Vec<Value> = ws
        .dirs()
        .iter()
        .flat_map(|d| ws.files_below(d, LIST_LIMIT))
        .take(LIST_LIMIT)
        .map(|p| {
            json!({"uri": gemini_rs_core::tools::mcp::file_uri(&p), "name": ws.relative(&p),
                "description": format!("Workspace file {}", ws.relative(&p)),
                "mimeType": mime_type(&p)})
        })
        .collect();
    json!({"resources": resources})
}

/// `resources/templates/list`.
pub(super) fn templates() -> Value {
    json!({"resourceTemplates": [{"uriTemplate": "file:///{path}", "name": "workspace-file",
        "description": "Any file of the workspace, by absolute path", "mimeType": "application/octet-stream"}]})
}

/// `resources/read`: a file of the workspace, as text or base64.
pub(super) fn read(ws: &Workspace, params: &Value) -> Result<Value, (i64, String)> {
    let uri = params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or((-32602, "resources/read needs `uri`".to_string()))?;
    let path = gemini_rs_core::tools::mcp::file_uri_path(uri)
        .ok_or((-32002, format!("Resource not found: {uri}")))?;
    ws.check_access(&path).map_err(|e| (-32002, e))?;
    if ws.is_ignored(&path, ws.filter_options()) {
        return Err((-32002, format!("Resource not found: {uri} (ignored)")));
    }
    let (mut file, _) = ws
        .open_regular(&path, Some(MAX_FILE_BYTES))
        .map_err(|_| (-32002, format!("Resource not found: {uri}")))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| (-32603, format!("{uri}: {e}")))?;
    let mime = mime_type(&path).unwrap_or_else(|| "application/octet-stream".to_string());
    let text = matches!(detect_kind(&path, &bytes), FileKind::Text);
    let content = match String::from_utf8(bytes) {
        Ok(t) if text => json!({"uri": uri, "mimeType": mime, "text": t}),
        Ok(t) => json!({"uri": uri, "mimeType": mime, "blob": b64(t.as_bytes())}),
        Err(e) => json!({"uri": uri, "mimeType": mime, "blob": b64(&e.into_bytes())}),
    };
    Ok(json!({"contents": [content]}))
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
