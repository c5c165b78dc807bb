//! `replace` (Edit): replaces `old_string` with `new_string` in one file, or
//! creates a file when `old_string` is empty, with Gemini CLI v0.27.4's
//! texts.
//!
//! Deliberate differences from v0.27.4: a relative path to a file that does
//! not exist resolves against the project root (so it can be created), a
//! near-miss `old_string` is corrected without a model call (see
//! [`strategies`]), `allow_multiple` is accepted, non-UTF-8 files are
//! refused instead of being rewritten lossily, and writes are atomic.

mod client;
mod path;
mod strategies;
#[cfg(test)]
mod tests;

use super::common::{lenient, node_message, parse_params};
use super::shorten_path;
use super::{Builtin, Make};
use crate::catalogue::builtins::REPLACE as SPEC;
use crate::catalogue::texts::{Texts, fill};
use crate::tools::diff::{context_snippet, unified_diff};
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    ConfirmationDetails, FileDiff, Tool, ToolContext, ToolDisplay, ToolError, ToolErrorKind,
    ToolInvocation, ToolResult,
};
use crate::workspace::{
    CheckedWriteError, MAX_FILE_BYTES, OpenFailure, Workspace, escaped, not_regular_message,
    too_large_message,
};
use futures::future::BoxFuture;
use gemini_rs_protocol::Part;
use path::correct_path;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::OnceLock;
use strategies::Expected;
use tokio_util::sync::CancellationToken;

/// The `replace` tool.
pub struct ReplaceTool;

const DESCRIPTION: &str = "Replaces text within a file. By default, replaces a single occurrence, but can replace multiple occurrences when `expected_replacements` is specified. This tool requires providing significant context around the change to ensure precise targeting. Always use the read_file tool to examine the file's current content before attempting a text replacement.

The user has the ability to modify the `new_string` content. If modified, this will be stated in the response.

Expectation for required parameters:
1. `file_path` is the path to the file to modify.
2. `old_string` MUST be the exact literal text to replace (including all whitespace, indentation, newlines, and surrounding code etc.).
3. `new_string` MUST be the exact literal text to replace `old_string` with (also including all whitespace, indentation, newlines, and surrounding code etc.). Ensure the resulting code is correct and idiomatic and that `old_string` and `new_string` are different.
4. `instruction` is the detailed instruction of what needs to be changed.
5. NEVER escape `old_string` or `new_string`, that would break the exact literal text requirement.
**Important:** If ANY of the above are not satisfied, the tool will fail. CRITICAL for `old_string`: Must uniquely identify the single instance to change. Include at least 3 lines of context BEFORE and AFTER the target text, matching whitespace and indentation precisely. If this string matches multiple locations, or does not match exactly, the tool will fail.
**Multiple replacements:** Set `expected_replacements` to the number of occurrences you want to replace. The tool will replace ALL occurrences that match `old_string` exactly. Ensure the number of replacements matches your expectation.";

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "properties": {
                "file_path": {
                    "description": "The path to the file to modify.",
                    "type": "string"
                },
                "instruction": {
                    "description": "A clear, semantic instruction for the code change, acting as a high-quality prompt for an expert LLM assistant. It must be self-contained and explain the goal of the change.",
                    "type": "string"
                },
                "old_string": {
                    "description": "The exact literal text to replace, preferably unescaped. For single replacements (default), include at least 3 lines of context BEFORE and AFTER the target text, matching whitespace and indentation precisely. For multiple replacements, specify expected_replacements parameter. If this string is not the exact literal text (i.e. you escaped it) or does not match exactly, the tool will fail.",
                    "type": "string"
                },
                "new_string": {
                    "description": "The exact literal text to replace `old_string` with, preferably unescaped. Provide the EXACT text. Ensure the resulting code is correct and idiomatic.",
                    "type": "string"
                },
                "expected_replacements": {
                    "type": "number",
                    "description": "Number of replacements expected. Defaults to 1 if not specified. Use when you want to replace multiple occurrences.",
                    "minimum": 1
                }
            },
            "required": ["file_path", "instruction", "old_string", "new_string"],
            "type": "object"
        })
    })
}

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(ReplaceTool)),
};

impl Tool for ReplaceTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameter_schema(&self) -> &Value {
        schema()
    }

    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let params: Params = parse_params(args, &[])?;
        let file_path = params.file_path;
        if file_path.is_empty() {
            return Err(ToolError::invalid_params(
                "The 'file_path' parameter must be non-empty.",
            ));
        }
        let filter = ctx.workspace.filter_options();
        // While planning, only plans: the path lands in the plans folder.
        let abs = match ctx.plan.edit_path(&file_path) {
            Some(plan) => plan.map_err(|e| ToolError::invalid_params(e.to_string()))?,
            None => correct_path(&ctx.workspace, &file_path, filter)
                .map_err(|e| ToolError::invalid_params(e.to_string()))?,
        };
        ctx.workspace
            .check_access(&abs)
            .map_err(ToolError::invalid_params)?;
        // `allow_multiple` (later versions): true = any count from 1.
        let expected = match (params.expected_replacements, params.allow_multiple) {
            (Some(n), _) => Expected::Exactly(n.max(1.0) as u64),
            (None, Some(true)) => Expected::AnyAtLeastOne,
            (None, _) => Expected::Exactly(1),
        };
        Ok(Box::new(ReplaceInvocation {
            given: file_path,
            texts: ctx.dialect.texts(),
            rel: ctx.workspace.relative(&abs),
            abs,
            old_string: params.old_string,
            new_string: params.new_string,
            expected,
            modified_by_user: params.modified_by_user.unwrap_or(false),
        }))
    }
}

/// The arguments of one call, after schema validation (`instruction` is
/// only for the model's benefit and is not read).
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    file_path: String,
    old_string: String,
    new_string: String,
    expected_replacements: Option<f64>,
    /// Later versions: `true` accepts any number of matches from 1.
    #[serde(deserialize_with = "lenient")]
    allow_multiple: Option<bool>,
    /// Set by the scheduler after the user edited the proposal.
    #[serde(deserialize_with = "lenient")]
    modified_by_user: Option<bool>,
}

#[derive(Clone)]
struct ReplaceInvocation {
    /// `file_path` as the call gave it (0.61's error texts name it).
    given: String,
    /// The dialect's texts.
    texts: &'static Texts,
    abs: PathBuf,
    rel: String,
    old_string: String,
    new_string: String,
    expected: Expected,
    modified_by_user: bool,
}

/// A computed edit, ready to confirm and write.
struct Plan {
    /// LF-normalised current content (`None` for a new file).
    original: Option<String>,
    /// LF content after the edit (a new file: `new_string` as given).
    new_content: String,
    /// Whether the original used CRLF.
    crlf: bool,
    occurrences: u64,
    fuzzy_note: Option<String>,
    /// The file's bytes when the edit was computed (`None`: it did not
    /// exist); the write is refused when they changed meanwhile.
    read_bytes: Option<Vec<u8>>,
}

/// Why an edit cannot be made: kind, message for the model, display text,
/// and the llmContent when it differs from the message.
struct Failure {
    kind: ToolErrorKind,
    raw: String,
    display: String,
    llm: Option<String>,
}

impl Failure {
    fn new(kind: ToolErrorKind, raw: String, display: &str) -> Failure {
        Failure {
            kind,
            raw,
            display: format!("Error: {display}"),
            llm: None,
        }
    }

    fn into_result(self) -> ToolResult {
        let mut r = ToolResult::error(self.kind, self.raw, self.display);
        if let Some(llm) = self.llm {
            r.llm_content = vec![Part::text(llm)];
        }
        r
    }
}

impl ReplaceInvocation {
    /// Gemini CLI's `calculateEdit`, reading the file beneath its
    /// workspace directory (special files and files over the size limit
    /// are refused before reading).
    fn plan(&self, ws: &Workspace) -> Result<Plan, Failure> {
        self.plan_bytes(read_current(ws, &self.abs)?)
    }

    /// The edit of a file whose bytes are `current` (`None`: it does not
    /// exist).
    fn plan_bytes(&self, current: Option<Vec<u8>>) -> Result<Plan, Failure> {
        let abs = &self.abs;
        let (current, read_bytes) = match current {
            Some(bytes) => match String::from_utf8(bytes) {
                Ok(s) => {
                    let copy = s.as_bytes().to_vec();
                    (Some(s), Some(copy))
                }
                Err(_) => {
                    let msg = format!(
                        "File is not valid UTF-8 text and cannot be edited safely: {}",
                        abs.display()
                    );
                    return Err(Failure {
                        kind: ToolErrorKind::EditPreparationFailure,
                        llm: Some(format!("Error preparing edit: {msg}")),
                        display: format!("Error preparing edit: {msg}"),
                        raw: msg,
                    });
                }
            },
            None => (None, None),
        };
        let Some(raw_content) = current else {
            if self.old_string.is_empty() {
                return Ok(Plan {
                    original: None,
                    new_content: self.new_string.clone(),
                    crlf: false,
                    occurrences: 1,
                    fuzzy_note: None,
                    read_bytes: None,
                });
            }
            let template = match self.texts.replace_not_found_relative {
                Some(relative) if Path::new(&self.given).is_relative() => relative,
                _ => "File not found: {path}",
            };
            return Err(Failure::new(
                ToolErrorKind::FileNotFound,
                self.text(template, &[]),
                "File not found. Cannot apply edit. Use an empty old_string to create a new file.",
            ));
        };
        if self.old_string.is_empty() {
            return Err(Failure::new(
                ToolErrorKind::AttemptToCreateExistingFile,
                format!("File already exists, cannot create: {}", abs.display()),
                "Failed to edit. Attempted to create a file that already exists.",
            ));
        }
        let crlf = raw_content.contains("\r\n");
        let content = raw_content.replace("\r\n", "\n");
        let old = self.old_string.replace("\r\n", "\n");
        let new = self.new_string.replace("\r\n", "\n");
        let r = strategies::calculate(&content, &old, &new, self.expected);
        if r.occurrences == 0 {
            return Err(Failure::new(
                ToolErrorKind::EditNoOccurrenceFound,
                self.text(self.texts.replace_no_match, &[]),
                "Failed to edit, could not find the string to replace.",
            ));
        }
        if let Expected::Exactly(e) = self.expected
            && r.occurrences != e
        {
            let term = if e == 1 { "occurrence" } else { "occurrences" };
            return Err(Failure::new(
                ToolErrorKind::EditExpectedOccurrenceMismatch,
                self.text(
                    self.texts.replace_count_mismatch,
                    &[
                        ("expected", &e.to_string()),
                        ("term", term),
                        ("found", &r.occurrences.to_string()),
                    ],
                ),
                &format!(
                    "Failed to edit, expected {e} occurrence(s) but found {}.",
                    r.occurrences
                ),
            ));
        }
        if old == new {
            return Err(Failure::new(
                ToolErrorKind::EditNoChange,
                self.text(self.texts.replace_identical, &[]),
                "No changes to apply. The old_string and new_string are identical.",
            ));
        }
        Ok(Plan {
            original: Some(content),
            new_content: r.content,
            crlf,
            occurrences: r.occurrences,
            fuzzy_note: strategies::fuzzy_note(&r.fuzzy_ranges),
            read_bytes,
        })
    }

    /// `template` of the dialect's texts with the file's `{path}` and
    /// `{file_path}` and `values` filled in.
    fn text(&self, template: &str, values: &[(&str, &str)]) -> String {
        let path = self.abs.display().to_string();
        let mut all = vec![("path", path.as_str()), ("file_path", self.given.as_str())];
        all.extend_from_slice(values);
        fill(template, &all)
    }

    fn file_name(&self) -> String {
        self.abs
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// Computes, writes and reports the edit (blocking).
    fn run(&self, ctx: &ToolContext) -> ToolResult {
        if let Err(msg) = ctx.workspace.check_access(&self.abs) {
            return ToolResult::error(
                ToolErrorKind::PathNotInWorkspace,
                msg,
                "Error: Path not in workspace.",
            );
        }
        match self.plan(&ctx.workspace) {
            Ok(plan) => self.write(&ctx.workspace, plan),
            Err(f) => f.into_result(),
        }
    }

    /// Writes a computed edit, unless the file changed since it was read,
    /// and reports it.
    fn write(&self, ws: &Workspace, plan: Plan) -> ToolResult {
        let bytes = if plan.crlf {
            plan.new_content.replace('\n', "\r\n")
        } else {
            plan.new_content.clone()
        };
        let unchanged = |target: &Path| match ws.open_regular(target, Some(MAX_FILE_BYTES)) {
            Ok((mut file, _)) => {
                let mut now = Vec::new();
                file.read_to_end(&mut now)?;
                Ok(plan.read_bytes.as_deref() == Some(now.as_slice()))
            }
            Err(OpenFailure::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                Ok(plan.read_bytes.is_none())
            }
            Err(OpenFailure::Io(e)) => Err(e),
            Err(_) => Ok(false),
        };
        if let Err(e) = ws.write_checked(&self.abs, bytes.as_bytes(), unchanged) {
            let msg = match e {
                CheckedWriteError::Changed => format!(
                    "File {} was modified by another process while the edit was being prepared; read it again and retry.",
                    self.abs.display()
                ),
                CheckedWriteError::Io(e) if escaped(&e) => ws.outside_message(&self.abs),
                CheckedWriteError::Io(e) => node_message(&e, "open", &self.abs),
            };
            return Failure {
                kind: ToolErrorKind::FileWriteFailure,
                llm: Some(format!("Error executing edit: {msg}")),
                display: format!("Error executing edit: {msg}"),
                raw: msg,
            }
            .into_result();
        }
        self.report(&plan)
    }

    /// The result of an edit that was written.
    fn report(&self, plan: &Plan) -> ToolResult {
        let mut parts = vec![match &plan.original {
            None => format!(
                "Created new file: {} with provided content.",
                self.abs.display()
            ),
            Some(_) => format!(
                "Successfully modified file: {} ({} replacements).",
                self.abs.display(),
                plan.occurrences
            ),
        }];
        if self.texts.replace_snippet {
            let snippet = context_snippet(
                plan.original.as_deref().unwrap_or_default(),
                &plan.new_content,
                5,
            );
            parts.push(format!("Here is the updated code:\n{snippet}"));
        }
        parts.extend(plan.fuzzy_note.clone());
        if self.modified_by_user {
            parts.push(fill(
                self.texts.replace_user_modified,
                &[("new_string", &self.new_string)],
            ));
        }
        let display = match &plan.original {
            None => ToolDisplay::Text(format!("Created {}", shorten_path(&self.rel))),
            Some(original) => {
                let name = self.file_name();
                ToolDisplay::FileDiff(FileDiff {
                    file_diff: unified_diff(
                        original,
                        &plan.new_content,
                        "Current",
                        "Proposed",
                        &name,
                    ),
                    file_name: name,
                    file_path: self.abs.display().to_string(),
                    original_content: plan.original.clone(),
                    new_content: plan.new_content.clone(),
                })
            }
        };
        ToolResult::parts(vec![Part::text(parts.join(" "))], display)
    }
}

/// The file's bytes read beneath the workspace (`None`: it does not
/// exist), or why the edit cannot be prepared.
fn read_current(ws: &Workspace, abs: &Path) -> Result<Option<Vec<u8>>, Failure> {
    let preparation = |msg: String| Failure {
        kind: ToolErrorKind::EditPreparationFailure,
        llm: Some(format!("Error preparing edit: {msg}")),
        display: format!("Error preparing edit: {msg}"),
        raw: msg,
    };
    match ws.open_regular(abs, Some(MAX_FILE_BYTES)) {
        Ok((mut file, meta)) => {
            let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
            match file.read_to_end(&mut bytes) {
                Ok(_) => Ok(Some(bytes)),
                Err(e) => Err(preparation(node_message(&e, "read", abs))),
            }
        }
        Err(OpenFailure::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(OpenFailure::Io(e)) => Err(preparation(node_message(&e, "open", abs))),
        Err(OpenFailure::Directory) => Err(preparation(node_message(
            &std::io::Error::from_raw_os_error(libc::EISDIR),
            "open",
            abs,
        ))),
        Err(OpenFailure::Special(kind)) => Err(preparation(not_regular_message(abs, kind))),
        Err(OpenFailure::TooLarge(len)) => Err(Failure::new(
            ToolErrorKind::FileTooLarge,
            too_large_message(abs, len),
            "File size exceeds the 20MB limit.",
        )),
        Err(OpenFailure::Outside) => Err(Failure::new(
            ToolErrorKind::PathNotInWorkspace,
            ws.outside_message(abs),
            "Path not in workspace.",
        )),
    }
}

/// The first line of `s`, at most 30 characters, `...` when `s` is longer.
fn snippet(s: &str) -> String {
    let first: String = s
        .split('\n')
        .next()
        .unwrap_or("")
        .chars()
        .take(30)
        .collect();
    if s.chars().count() > 30 {
        format!("{first}...")
    } else {
        first
    }
}

impl ToolInvocation for ReplaceInvocation {
    fn description(&self) -> String {
        let rel = shorten_path(&self.rel);
        if self.old_string.is_empty() {
            return format!("Create {rel}");
        }
        if self.old_string == self.new_string {
            return format!("No file changes to {rel}");
        }
        format!(
            "{rel}: {} => {}",
            snippet(&self.old_string),
            snippet(&self.new_string)
        )
    }

    fn confirmation<'a>(
        &'a self,
        ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            let plan = match &ctx.client_fs {
                Some(client) => self.plan_through(client.as_ref()).await.ok()?,
                None => self.plan(&ctx.workspace).ok()?,
            };
            let name = self.file_name();
            let file_diff = unified_diff(
                plan.original.as_deref().unwrap_or(""),
                &plan.new_content,
                "Current",
                "Proposed",
                &name,
            );
            // As Gemini CLI: the whole current file becomes old_string.
            let modifiable = crate::tools::Modifiable::new("new_string")
                .with("old_string", plan.original.clone().unwrap_or_default())
                .with("expected_replacements", 1);
            Some(ConfirmationDetails::Edit {
                title: format!("Confirm Edit: {}", shorten_path(&self.rel)),
                file_name: name,
                file_path: self.abs.clone(),
                file_diff,
                original_content: plan.original,
                new_content: plan.new_content,
                modifiable: Some(modifiable),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            if let Some(client) = &ctx.client_fs {
                return self.run_through(ctx, client.as_ref()).await;
            }
            let (this, ctx) = (self.clone(), ctx.clone());
            tokio::task::spawn_blocking(move || this.run(&ctx))
                .await
                .unwrap_or_else(|e| {
                    Failure::new(
                        ToolErrorKind::FileWriteFailure,
                        e.to_string(),
                        "Edit failed.",
                    )
                    .into_result()
                })
        })
    }
}
