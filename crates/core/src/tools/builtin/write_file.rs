//! `write_file` (WriteFile): writes a whole file, exactly the content given,
//! atomically, with Gemini CLI v0.27.4's texts.
//!
//! Deliberate differences from v0.27.4: the content is written exactly as
//! given (v0.27.4 dropped a trailing newline when overwriting and unescaped
//! `\n` sequences for new files), and the write is atomic (temp file +
//! rename).

use super::common::{lenient, node_message, parse_params};
use super::{node_error, shorten_path};
use crate::tools::diff::unified_diff;
use crate::tools::{
    ConfirmationDetails, FileDiff, Tool, ToolContext, ToolDisplay, ToolError, ToolErrorKind,
    ToolInvocation, ToolKind, ToolResult,
};
use crate::workspace::write_atomic;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::io;
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

const DESCRIPTION: &str = "Writes content to a file on the local file system, creating the file and any missing \
parent directories, or replacing the whole file if it exists. The content is written exactly as given. The user \
may be asked to approve the change first.";

/// The `write_file` tool.
pub struct WriteFileTool {
    schema: Value,
}

impl Default for WriteFileTool {
    fn default() -> Self {
        Self::new()
    }
}

impl WriteFileTool {
    /// The tool with its parameter schema.
    pub fn new() -> Self {
        let schema = json!({
            "type": "object",
            "properties": {
                "file_path": {
                    "type": "string",
                    "description": "Path of the file to write, absolute or relative to the project root."
                },
                "content": {
                    "type": "string",
                    "description": "The complete new content of the file."
                }
            },
            "required": ["file_path", "content"]
        });
        WriteFileTool { schema }
    }
}

impl Tool for WriteFileTool {
    fn name(&self) -> &str {
        "write_file"
    }
    fn display_name(&self) -> &str {
        "WriteFile"
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Edit
    }
    fn parameter_schema(&self) -> &Value {
        &self.schema
    }

    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let params: Params = parse_params(args, &[])?;
        if params.file_path.is_empty() {
            return Err(ToolError::invalid_params("Missing or empty \"file_path\""));
        }
        let abs = ctx.workspace.resolve(&params.file_path);
        ctx.workspace
            .check_access(&abs)
            .map_err(ToolError::invalid_params)?;
        match std::fs::symlink_metadata(&abs) {
            Ok(_) if abs.is_dir() => {
                return Err(ToolError::invalid_params(format!(
                    "Path is a directory, not a file: {}",
                    abs.display()
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                let msg = node_message(&e, "lstat", &abs);
                return Err(ToolError::invalid_params(format!(
                    "Error accessing path properties for validation: {}. Reason: {msg}",
                    abs.display()
                )));
            }
        }
        let rel = ctx.workspace.relative(&abs);
        Ok(Box::new(WriteFileInvocation {
            abs,
            rel,
            content: params.content,
            modified_by_user: params.modified_by_user.unwrap_or(false),
        }))
    }
}

/// The arguments of one call, after schema validation.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    file_path: String,
    content: String,
    /// Set by the scheduler after the user edited the proposal.
    #[serde(deserialize_with = "lenient")]
    modified_by_user: Option<bool>,
}

/// One validated `write_file` call.
struct WriteFileInvocation {
    abs: PathBuf,
    rel: String,
    content: String,
    modified_by_user: bool,
}

/// The current content: `None` when the file does not exist.
fn current_content(abs: &Path) -> Result<Option<String>, String> {
    match std::fs::read(abs) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(match node_error(&e, "open", abs) {
            Some((code, msg)) => format!(
                "Error checking existing file '{}': {msg} ({code})",
                abs.display()
            ),
            None => format!("Error checking existing file: {e}"),
        }),
    }
}

/// v0.27.4's write error texts and kinds.
fn write_error(abs: &Path, err: &io::Error) -> ToolResult {
    let shown = abs.display();
    let (kind, message) = match err.raw_os_error() {
        Some(libc::EACCES) => (
            ToolErrorKind::PermissionDenied,
            format!("Permission denied writing to file: {shown} (EACCES)"),
        ),
        Some(libc::ENOSPC) => (
            ToolErrorKind::NoSpaceLeft,
            format!("No space left on device: {shown} (ENOSPC)"),
        ),
        Some(libc::EISDIR) => (
            ToolErrorKind::TargetIsDirectory,
            format!("Target is a directory, not a file: {shown} (EISDIR)"),
        ),
        _ => match node_error(err, "open", abs) {
            Some((code, msg)) => (
                ToolErrorKind::FileWriteFailure,
                format!("Error writing to file '{shown}': {msg} ({code})"),
            ),
            None => (
                ToolErrorKind::FileWriteFailure,
                format!("Error writing to file: {err}"),
            ),
        },
    };
    ToolResult::error(kind, message.clone(), message)
}

fn file_name(abs: &Path) -> String {
    abs.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl ToolInvocation for WriteFileInvocation {
    fn description(&self) -> String {
        format!("Writing to {}", shorten_path(&self.rel))
    }

    fn locations(&self) -> Vec<PathBuf> {
        vec![self.abs.clone()]
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            // An unreadable file fails in execute; show it as new here.
            let original = current_content(&self.abs).ok().flatten();
            let name = file_name(&self.abs);
            let file_diff = unified_diff(
                original.as_deref().unwrap_or(""),
                &self.content,
                "Current",
                "Proposed",
                &name,
            );
            Some(ConfirmationDetails::Edit {
                title: format!("Confirm Write: {}", shorten_path(&self.rel)),
                file_name: name,
                file_path: self.abs.clone(),
                file_diff,
                original_content: original,
                new_content: self.content.clone(),
                modifiable: Some(crate::tools::Modifiable::new("content")),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            if let Err(message) = ctx.workspace.check_access(&self.abs) {
                return ToolResult::error(
                    ToolErrorKind::PathNotInWorkspace,
                    message,
                    "Error: Path not in workspace.",
                );
            }
            let abs = self.abs.clone();
            let content = self.content.clone();
            let modified = self.modified_by_user;
            tokio::task::spawn_blocking(move || write(&abs, &content, modified))
                .await
                .unwrap_or_else(|e| {
                    let message = format!("Error writing to file: {e}");
                    ToolResult::error(ToolErrorKind::FileWriteFailure, message.clone(), message)
                })
        })
    }
}

/// Writes the file (blocking) and builds the result.
fn write(abs: &Path, content: &str, modified_by_user: bool) -> ToolResult {
    let original = match current_content(abs) {
        Ok(o) => o,
        Err(message) => {
            return ToolResult::error(ToolErrorKind::FileWriteFailure, message.clone(), message);
        }
    };
    if let Err(e) = write_atomic(abs, content.as_bytes()) {
        return write_error(abs, &e);
    }
    let mut llm = match original {
        None => format!(
            "Successfully created and wrote to new file: {}.",
            abs.display()
        ),
        Some(_) => format!("Successfully overwrote file: {}.", abs.display()),
    };
    if modified_by_user {
        llm.push_str(&format!(" User modified the `content` to be: {content}"));
    }
    let name = file_name(abs);
    let diff = FileDiff {
        file_diff: unified_diff(
            original.as_deref().unwrap_or(""),
            content,
            "Original",
            "Written",
            &name,
        ),
        file_name: name,
        file_path: abs.display().to_string(),
        original_content: original,
        new_content: content.to_string(),
    };
    ToolResult::parts(
        vec![gemini_rs_protocol::Part::text(llm)],
        ToolDisplay::FileDiff(diff),
    )
}

#[cfg(test)]
mod tests;
