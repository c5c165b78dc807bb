//! `write_file` (WriteFile): writes a whole file, exactly the content given,
//! atomically, with Gemini CLI v0.27.4's texts.
//!
//! Deliberate differences from v0.27.4: the content is written exactly as
//! given (v0.27.4 dropped a trailing newline when overwriting and unescaped
//! `\n` sequences for new files), and the write is atomic (temp file +
//! rename).

use super::common::{lenient, node_message, parse_params};
use super::{Builtin, Make};
use super::{node_error, shorten_path};
use crate::catalogue::builtins::WRITE_FILE as SPEC;
use crate::catalogue::texts::Texts;
use crate::tools::diff::{context_snippet, summary_diff, unified_diff};
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    ClientFs, ClientFsError, ConfirmationDetails, FileDiff, Tool, ToolContext, ToolDisplay,
    ToolError, ToolErrorKind, ToolInvocation, ToolResult,
};
use crate::workspace::{
    CheckedWriteError, MAX_FILE_BYTES, OpenFailure, Workspace, escaped, not_regular_message,
    special_kind,
};
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::io;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(WriteFileTool::new())),
};

impl Tool for WriteFileTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        DESCRIPTION
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
        // While planning, only plans: the path lands in the plans folder.
        let (abs, plan) = match ctx.plan.edit_path(&params.file_path) {
            Some(plan) => (
                plan.map_err(|e| ToolError::invalid_params(e.to_string()))?,
                true,
            ),
            None => (ctx.workspace.resolve(&params.file_path), false),
        };
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
            Ok(_) => {
                // A FIFO would block the write, a device would take it.
                if let Ok(meta) = std::fs::metadata(&abs)
                    && let Some(kind) = special_kind(&meta)
                {
                    return Err(ToolError::invalid_params(not_regular_message(&abs, kind)));
                }
            }
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
            plan,
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
    /// A plan: a new one is private to the user (0600), as it holds the
    /// conversation's intent.
    plan: bool,
}

/// A file that is there before the write.
struct Existing {
    /// Its text; `None` when it is over [`MAX_FILE_BYTES`] and was not read.
    text: Option<String>,
    /// Its size in bytes.
    size: u64,
}

/// The current content, read beneath the workspace: `None` when the file
/// does not exist. An error comes with its kind and text.
fn current_content(
    ws: &Workspace,
    abs: &Path,
) -> Result<Option<Existing>, (ToolErrorKind, String)> {
    let io_error = |e: &io::Error| match node_error(e, "open", abs) {
        Some((code, msg)) => format!(
            "Error checking existing file '{}': {msg} ({code})",
            abs.display()
        ),
        None => format!("Error checking existing file: {e}"),
    };
    match ws.open_regular(abs, Some(MAX_FILE_BYTES)) {
        Ok((mut file, meta)) => {
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)
                .map_err(|e| (ToolErrorKind::FileWriteFailure, io_error(&e)))?;
            Ok(Some(Existing {
                text: Some(String::from_utf8_lossy(&bytes).into_owned()),
                size: meta.len(),
            }))
        }
        Err(OpenFailure::TooLarge(size)) => Ok(Some(Existing { text: None, size })),
        Err(OpenFailure::Io(e)) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(OpenFailure::Io(e)) => Err((ToolErrorKind::FileWriteFailure, io_error(&e))),
        Err(OpenFailure::Outside) => {
            Err((ToolErrorKind::PathNotInWorkspace, ws.outside_message(abs)))
        }
        Err(OpenFailure::Directory) => Err((
            ToolErrorKind::TargetIsDirectory,
            format!(
                "Target is a directory, not a file: {} (EISDIR)",
                abs.display()
            ),
        )),
        Err(OpenFailure::Special(kind)) => Err((
            ToolErrorKind::FileWriteFailure,
            not_regular_message(abs, kind),
        )),
    }
}

/// The diff shown for a write over `existing` (or a new file).
fn write_diff(
    existing: Option<&Existing>,
    new: &str,
    old_header: &str,
    new_header: &str,
    name: &str,
) -> String {
    match existing {
        Some(Existing { text: None, size }) => summary_diff(
            name,
            old_header,
            new_header,
            &format!(
                "the current file is {:.2}MB, over the 20MB limit for reading it.",
                *size as f64 / (1024.0 * 1024.0)
            ),
        ),
        Some(Existing { text: Some(t), .. }) => unified_diff(t, new, old_header, new_header, name),
        None => unified_diff("", new, old_header, new_header, name),
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

    fn confirmation<'a>(
        &'a self,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            // An unreadable file fails in execute; show it as new here.
            let existing = match &ctx.client_fs {
                Some(client) => client_content(client.as_ref(), &self.abs)
                    .await
                    .ok()
                    .flatten(),
                None => current_content(&ctx.workspace, &self.abs).ok().flatten(),
            };
            let name = file_name(&self.abs);
            let file_diff = write_diff(
                existing.as_ref(),
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
                original_content: existing.and_then(|e| e.text),
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
            if let Some(client) = &ctx.client_fs {
                return write_through(
                    client.as_ref(),
                    &self.abs,
                    &self.content,
                    self.modified_by_user,
                    ctx.dialect.texts(),
                )
                .await;
            }
            let abs = self.abs.clone();
            let content = self.content.clone();
            let modified = self.modified_by_user;
            let plan = self.plan;
            let ws = ctx.workspace.clone();
            let texts = ctx.dialect.texts();
            tokio::task::spawn_blocking(move || write(&ws, &abs, &content, modified, plan, texts))
                .await
                .unwrap_or_else(|e| {
                    let message = format!("Error writing to file: {e}");
                    ToolResult::error(ToolErrorKind::FileWriteFailure, message.clone(), message)
                })
        })
    }
}

/// Writes the file (blocking), beneath its workspace directory, and
/// builds the result.
fn write(
    ws: &Workspace,
    abs: &Path,
    content: &str,
    modified_by_user: bool,
    plan: bool,
    texts: &Texts,
) -> ToolResult {
    let existing = match current_content(ws, abs) {
        Ok(o) => o,
        Err((kind, message)) => {
            return ToolResult::error(kind, message.clone(), message);
        }
    };
    match ws.write_checked(abs, content.as_bytes(), |_| Ok(true)) {
        Ok(()) => {}
        Err(CheckedWriteError::Io(e)) if escaped(&e) => {
            let message = ws.outside_message(abs);
            return ToolResult::error(ToolErrorKind::PathNotInWorkspace, message.clone(), message);
        }
        Err(CheckedWriteError::Io(e)) => return write_error(abs, &e),
        Err(CheckedWriteError::Changed) => {
            return write_error(abs, &io::Error::other("target changed"));
        }
    }
    if plan && existing.is_none() {
        use std::os::unix::fs::PermissionsExt;
        if let Err(e) = std::fs::set_permissions(abs, std::fs::Permissions::from_mode(0o600)) {
            tracing::warn!("could not make the plan {} private: {e}", abs.display());
        }
    }
    written(abs, content, existing, modified_by_user, texts)
}

/// The current content as the client has it.
async fn client_content(
    client: &dyn ClientFs,
    abs: &Path,
) -> Result<Option<Existing>, ClientFsError> {
    Ok(client.read_text_file(abs).await?.map(|text| Existing {
        size: text.len() as u64,
        text: Some(text),
    }))
}

/// Writes through the client (an editor over ACP) and builds the result.
async fn write_through(
    client: &dyn ClientFs,
    abs: &Path,
    content: &str,
    modified_by_user: bool,
    texts: &Texts,
) -> ToolResult {
    let existing = match client_content(client, abs).await {
        Ok(existing) => existing,
        Err(e) => {
            let message = format!("Error checking existing file: {e}");
            return ToolResult::error(ToolErrorKind::FileWriteFailure, message.clone(), message);
        }
    };
    if let Err(e) = client.write_text_file(abs, content).await {
        let message = format!("Error writing to file: {e}");
        return ToolResult::error(ToolErrorKind::FileWriteFailure, message.clone(), message);
    }
    written(abs, content, existing, modified_by_user, texts)
}

/// The result of a write that happened: with today's texts, the lines
/// written around the changes (five lines of context; all of a new or
/// unchanged file).
fn written(
    abs: &Path,
    content: &str,
    existing: Option<Existing>,
    modified_by_user: bool,
    texts: &Texts,
) -> ToolResult {
    let mut llm = match existing {
        None => format!(
            "Successfully created and wrote to new file: {}.",
            abs.display()
        ),
        Some(_) => format!("Successfully overwrote file: {}.", abs.display()),
    };
    if modified_by_user {
        llm.push_str(&format!(" User modified the `content` to be: {content}"));
    }
    if texts.write_file_snippet {
        let before = existing.as_ref().and_then(|e| e.text.as_deref());
        let snippet = context_snippet(before.unwrap_or_default(), content, 5);
        llm.push_str(&format!(" Here is the updated code:\n{snippet}"));
    }
    let name = file_name(abs);
    let diff = FileDiff {
        file_diff: write_diff(existing.as_ref(), content, "Original", "Written", &name),
        file_name: name,
        file_path: abs.display().to_string(),
        original_content: existing.and_then(|e| e.text),
        new_content: content.to_string(),
    };
    ToolResult::parts(
        vec![gemini_rs_protocol::Part::text(llm)],
        ToolDisplay::FileDiff(diff),
    )
}

#[cfg(test)]
mod tests;
