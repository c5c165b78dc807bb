//! `ToolResult`: what the model gets (`llm_content`) and what the user sees
//! (`display`).

use super::{ToolError, ToolErrorKind};
use gemini_rs_protocol::Part;
use serde::{Deserialize, Serialize};

/// A file change for display: the diff and both versions.
#[derive(Debug, Clone, PartialEq)]
pub struct FileDiff {
    /// Unified diff.
    pub file_diff: String,
    /// File name.
    pub file_name: String,
    /// Absolute path.
    pub file_path: String,
    /// Content before (`None` for a new file).
    pub original_content: Option<String>,
    /// Content after.
    pub new_content: String,
}

/// Where one item of the model's todo list stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one at a time).
    InProgress,
    /// Done.
    Completed,
    /// No longer needed.
    Cancelled,
}

impl TodoStatus {
    /// The wire name (`pending`, `in_progress`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TodoStatus::Pending => "pending",
            TodoStatus::InProgress => "in_progress",
            TodoStatus::Completed => "completed",
            TodoStatus::Cancelled => "cancelled",
        }
    }

    /// The status of a wire name.
    pub fn parse(name: &str) -> Option<TodoStatus> {
        match name {
            "pending" => Some(TodoStatus::Pending),
            "in_progress" => Some(TodoStatus::InProgress),
            "completed" => Some(TodoStatus::Completed),
            "cancelled" => Some(TodoStatus::Cancelled),
            _ => None,
        }
    }
}

/// One item of the model's todo list (`write_todos`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TodoItem {
    /// What the subtask is.
    pub description: String,
    /// Where it stands.
    pub status: TodoStatus,
}

/// What the user sees of a result.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolDisplay {
    /// Markdown or plain text.
    Text(String),
    /// A file change.
    FileDiff(FileDiff),
    /// The model's whole todo list after a `write_todos` call.
    Todos(Vec<TodoItem>),
}

impl ToolDisplay {
    /// The text form, if this is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ToolDisplay::Text(t) => Some(t),
            ToolDisplay::FileDiff(_) | ToolDisplay::Todos(_) => None,
        }
    }

    /// The JSON form hooks and chat recordings see as `returnDisplay`:
    /// a string, `{fileDiff, fileName, ...}` or `{todos: [...]}`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            ToolDisplay::Text(t) => serde_json::Value::String(t.clone()),
            ToolDisplay::FileDiff(d) => serde_json::json!({
                "fileDiff": d.file_diff, "fileName": d.file_name, "filePath": d.file_path,
                "originalContent": d.original_content, "newContent": d.new_content,
            }),
            ToolDisplay::Todos(todos) => serde_json::json!({ "todos": todos }),
        }
    }
}

/// The outcome of one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// Content for the model (text and inline-data parts).
    pub llm_content: Vec<Part>,
    /// Content for the user.
    pub display: ToolDisplay,
    /// Set when the call failed; the model then sees only its message.
    pub error: Option<ToolError>,
}

impl ToolResult {
    /// A successful text result.
    pub fn text(llm: impl Into<String>, display: impl Into<String>) -> Self {
        ToolResult {
            llm_content: vec![Part::text(llm)],
            display: ToolDisplay::Text(display.into()),
            error: None,
        }
    }

    /// A successful result with parts.
    pub fn parts(llm_content: Vec<Part>, display: ToolDisplay) -> Self {
        ToolResult {
            llm_content,
            display,
            error: None,
        }
    }

    /// A failed result; `display` is what the user sees.
    pub fn error(
        kind: ToolErrorKind,
        message: impl Into<String>,
        display: impl Into<String>,
    ) -> Self {
        let message = message.into();
        ToolResult {
            llm_content: vec![Part::text(message.clone())],
            display: ToolDisplay::Text(display.into()),
            error: Some(ToolError::new(kind, message)),
        }
    }

    /// A failed result from a [`ToolError`], displayed as its message.
    pub fn from_error(error: ToolError) -> Self {
        ToolResult {
            llm_content: vec![Part::text(error.message.clone())],
            display: ToolDisplay::Text(error.message.clone()),
            error: Some(error),
        }
    }

    /// The text parts joined with `\n`, as the model sees them.
    pub fn llm_text(&self) -> String {
        let texts: Vec<&str> = self
            .llm_content
            .iter()
            .filter_map(|p| p.text.as_deref())
            .collect();
        texts.join("\n")
    }
}
