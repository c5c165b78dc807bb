//! Plain translations between ACP and the session: prompt content blocks
//! to parts, and the session's events and history to `session/update`
//! payloads.

use super::rpc::{RpcError, code};
use gemini_rs_core::tools::{
    ConfirmationDetails, TodoItem, TodoStatus, ToolDisplay, ToolKind, ToolRegistry,
};
use gemini_rs_protocol::{Content, Part};
use serde_json::{Value, json};
use std::path::Path;

/// An ACP prompt as parts: text, resource links as `@path` references
/// (expanded like typed ones), embedded resources as framed text, images
/// and audio as inline data.
pub fn prompt_parts(blocks: &[Value]) -> Result<Vec<Part>, RpcError> {
    let mut parts = Vec::new();
    for block in blocks {
        let text = |k: &str| block.get(k).and_then(Value::as_str);
        match text("type") {
            Some("text") => parts.push(Part::text(text("text").unwrap_or_default())),
            Some("resource_link") => {
                let uri = text("uri").unwrap_or_default();
                match uri.strip_prefix("file://") {
                    Some(path) => parts.push(Part::text(format!("@{path}"))),
                    None => parts.push(Part::text(format!(
                        "[{}]({uri})",
                        text("name").unwrap_or(uri)
                    ))),
                }
            }
            Some("resource") => {
                let res = block.get("resource").unwrap_or(&Value::Null);
                let uri = res.get("uri").and_then(Value::as_str).unwrap_or_default();
                if let Some(body) = res.get("text").and_then(Value::as_str) {
                    parts.push(Part::text(format!(
                        "\n--- Content from referenced context: {uri} ---\n{body}\n--- End of content ---"
                    )));
                } else if let Some(blob) = res.get("blob").and_then(Value::as_str) {
                    let mime = res
                        .get("mimeType")
                        .and_then(Value::as_str)
                        .unwrap_or("application/octet-stream");
                    parts.push(Part::inline_data(mime, blob));
                }
            }
            Some("image" | "audio") => {
                let (Some(data), Some(mime)) = (text("data"), text("mimeType")) else {
                    return Err(RpcError::new(
                        code::INVALID_PARAMS,
                        "an image or audio block needs data and mimeType",
                    ));
                };
                parts.push(Part::inline_data(mime, data));
            }
            other => {
                return Err(RpcError::new(
                    code::INVALID_PARAMS,
                    format!("unsupported content block type {other:?}"),
                ));
            }
        }
    }
    Ok(parts)
}

/// ACP's tool kind for one of ours (ACP has no "communicate").
pub fn kind(kind: ToolKind) -> &'static str {
    match kind {
        ToolKind::Communicate => "other",
        ToolKind::Read
        | ToolKind::Edit
        | ToolKind::Delete
        | ToolKind::Move
        | ToolKind::Search
        | ToolKind::Execute
        | ToolKind::Think
        | ToolKind::Fetch
        | ToolKind::Other => kind.as_str(),
    }
}

/// The argument that says most about a call, for its title.
const SUBJECT_ARGS: [&str; 9] = [
    "file_path",
    "absolute_path",
    "dir_path",
    "path",
    "command",
    "pattern",
    "url",
    "query",
    "fact",
];

/// `tool_call`: a new call with its title, kind and locations (absolute,
/// relative ones taken from `root`).
pub fn tool_call(
    tools: &ToolRegistry,
    root: &Path,
    call_id: &str,
    name: &str,
    args: &Value,
) -> Value {
    let tool = tools.get(name);
    let display = tool.map_or(name, |t| t.tool.display_name());
    let subject = SUBJECT_ARGS
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str));
    let title = match subject {
        Some(s) => format!("{display}: {s}"),
        None => display.to_string(),
    };
    let kind = tool.map_or("other", |t| kind(t.tool.kind()));
    let locations: Vec<Value> = ["file_path", "absolute_path", "dir_path", "path"]
        .iter()
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .map(|p| json!({"path": root.join(p)}))
        .collect();
    json!({"sessionUpdate": "tool_call", "toolCallId": call_id, "title": title, "kind": kind,
        "status": "pending", "locations": locations, "rawInput": args})
}

/// What a confirmation shows as tool-call content (a diff for edits).
pub fn confirmation_content(details: &ConfirmationDetails) -> Vec<Value> {
    match details {
        ConfirmationDetails::Edit {
            file_path,
            original_content,
            new_content,
            ..
        } => vec![
            json!({"type": "diff", "path": file_path, "oldText": original_content,
            "newText": new_content}),
        ],
        ConfirmationDetails::Exec { command, .. } => vec![text_content(command)],
        ConfirmationDetails::Mcp {
            server_name,
            tool_name,
            ..
        } => vec![text_content(&format!(
            "{tool_name} (MCP server {server_name})"
        ))],
        ConfirmationDetails::Info { prompt, .. } => vec![text_content(prompt)],
    }
}

/// A text tool-call content item.
pub fn text_content(text: &str) -> Value {
    json!({"type": "content", "content": {"type": "text", "text": text}})
}

/// The content of a finished call.
pub fn result_content(display: &ToolDisplay, error: Option<&str>) -> Vec<Value> {
    if let Some(e) = error {
        return vec![text_content(e)];
    }
    match display {
        ToolDisplay::Text(t) if t.is_empty() => Vec::new(),
        ToolDisplay::Text(t) => vec![text_content(t)],
        ToolDisplay::FileDiff(d) => vec![json!({"type": "diff", "path": d.file_path,
            "oldText": d.original_content, "newText": d.new_content})],
        ToolDisplay::Todos(todos) => vec![text_content(&format!("{} todo(s)", todos.len()))],
    }
}

/// The todo list as a `plan` update (ACP has no "cancelled": those entries
/// are left out).
pub fn plan(todos: &[TodoItem]) -> Value {
    let entries: Vec<Value> = todos
        .iter()
        .filter_map(|t| {
            let status = match t.status {
                TodoStatus::Pending => "pending",
                TodoStatus::InProgress => "in_progress",
                TodoStatus::Completed => "completed",
                TodoStatus::Cancelled => return None,
            };
            Some(json!({"content": t.description, "priority": "medium", "status": status}))
        })
        .collect();
    json!({"sessionUpdate": "plan", "entries": entries})
}

/// A recorded conversation as the updates that show it again
/// (`session/load`): user and agent text, thoughts, and each call with its
/// result.
pub fn history(tools: &ToolRegistry, root: &Path, contents: &[Content]) -> Vec<Value> {
    let mut out = Vec::new();
    for content in contents {
        let user = !content.is_model();
        for part in &content.parts {
            if let Some(text) = part.text.as_deref().filter(|t| !t.is_empty()) {
                let kind = match (user, part.is_thought()) {
                    (true, _) => "user_message_chunk",
                    (false, true) => "agent_thought_chunk",
                    (false, false) => "agent_message_chunk",
                };
                out.push(json!({"sessionUpdate": kind,
                    "content": {"type": "text", "text": text}}));
            }
            if let Some(call) = &part.function_call {
                let id = call.id.clone().unwrap_or_else(|| call.name.clone());
                let args = call.args.clone().unwrap_or(Value::Null);
                out.push(tool_call(tools, root, &id, &call.name, &args));
            }
            if let Some(fr) = &part.function_response {
                let id = fr.id.clone().unwrap_or_else(|| fr.name.clone());
                let failed = fr.response.get("error").is_some();
                let text = fr
                    .response
                    .get("output")
                    .or_else(|| fr.response.get("error"))
                    .and_then(Value::as_str)
                    .map_or_else(|| fr.response.to_string(), str::to_string);
                out.push(
                    json!({"sessionUpdate": "tool_call_update", "toolCallId": id,
                    "status": if failed { "failed" } else { "completed" },
                    "content": [text_content(&text)]}),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_blocks_become_parts() {
        let parts = prompt_parts(&[
            json!({"type": "text", "text": "look at"}),
            json!({"type": "resource_link", "uri": "file:///w/a.rs", "name": "a.rs"}),
            json!({"type": "resource", "resource": {"uri": "file:///w/b.rs", "text": "fn b() {}"}}),
            json!({"type": "image", "data": "AAAA", "mimeType": "image/png"}),
        ])
        .unwrap();
        assert_eq!(parts[1].text.as_deref(), Some("@/w/a.rs"));
        assert!(parts[2].text.as_deref().unwrap().contains("fn b() {}"));
        assert_eq!(
            parts[3].inline_data.as_ref().unwrap().mime_type,
            "image/png"
        );
        let err = prompt_parts(&[json!({"type": "video"})]).unwrap_err();
        assert_eq!(err.code, code::INVALID_PARAMS);
    }

    #[test]
    fn plans_leave_out_cancelled_items() {
        let todos = [
            TodoItem {
                description: "a".into(),
                status: TodoStatus::InProgress,
            },
            TodoItem {
                description: "b".into(),
                status: TodoStatus::Cancelled,
            },
        ];
        assert_eq!(
            plan(&todos)["entries"],
            json!([{"content": "a", "priority": "medium", "status": "in_progress"}])
        );
    }
}

/// Where a sub-agent's call is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum NestedState {
    /// Asked for.
    Pending,
    /// Executing.
    Running,
    /// Succeeded.
    Done,
    /// Failed or cancelled.
    Failed,
}

/// The tool calls of the sub-agents running under each delegating call.
#[derive(Default)]
pub struct NestedActivity {
    calls: std::collections::HashMap<String, Vec<(String, String, NestedState)>>,
    ended: std::collections::HashSet<String>,
}

impl NestedActivity {
    /// A call of the sub-agent under `parent` was asked for.
    pub fn started(&mut self, parent: &str, call_id: String, name: String) {
        self.calls.entry(parent.to_string()).or_default().push((
            call_id,
            name,
            NestedState::Pending,
        ));
    }

    /// A call under `parent` moved on.
    pub fn set(&mut self, parent: &str, call_id: &str, state: NestedState) {
        if let Some(call) = self
            .calls
            .get_mut(parent)
            .and_then(|c| c.iter_mut().find(|c| c.0 == call_id))
        {
            call.2 = state;
        }
    }

    /// The list shown as the delegating call's content.
    pub fn text(&self, parent: &str) -> String {
        let Some(calls) = self.calls.get(parent) else {
            return String::new();
        };
        calls
            .iter()
            .map(|(_, name, state)| {
                let mark = match state {
                    NestedState::Pending => "…",
                    NestedState::Running => "▶",
                    NestedState::Done => "✓",
                    NestedState::Failed => "✗",
                };
                format!("{mark} {name}")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The delegating call ended.
    pub fn forget(&mut self, parent: &str) {
        self.calls.remove(parent);
        self.ended.insert(parent.to_string());
    }

    /// True once the delegating call ended.
    pub fn ended(&self, parent: &str) -> bool {
        self.ended.contains(parent)
    }
}
