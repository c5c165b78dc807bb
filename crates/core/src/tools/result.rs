//! `ToolResult`: what the model gets (`llm_content`) and what the user sees
//! (`display`).

use super::{ToolError, ToolErrorKind};
use gemini_rs_protocol::Part;

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

/// What the user sees of a result.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolDisplay {
    /// Markdown or plain text.
    Text(String),
    /// A file change.
    FileDiff(FileDiff),
}

impl ToolDisplay {
    /// The text form, if this is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ToolDisplay::Text(t) => Some(t),
            ToolDisplay::FileDiff(_) => None,
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
