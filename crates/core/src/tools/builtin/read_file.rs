//! `read_file` (ReadFile): a file's text (optionally a line range), or an
//! image/PDF/audio/video file as inline data, with Gemini CLI v0.27.4's
//! texts.

use super::common::{Aliases, parse_params};
use super::{Builtin, Make};
use super::{node_error, shorten_path};
use crate::catalogue::builtins::READ_FILE as SPEC;
use crate::catalogue::texts::{Texts, fill};
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    Tool, ToolContext, ToolDisplay, ToolError, ToolErrorKind, ToolInvocation, ToolResult,
};
use crate::workspace::{
    FileKind, MAX_FILE_BYTES, OpenFailure, Workspace, decode_text, detect_kind,
    not_regular_message, too_large_message,
};
use base64::Engine;
use futures::future::BoxFuture;
use gemini_rs_protocol::Part;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Lines returned when no `limit` is given.
const DEFAULT_MAX_LINES: f64 = 2000.0;
/// Longer lines are cut to this many UTF-16 units.
const MAX_LINE_LENGTH: usize = 2000;
/// SVG files above this size are not read.
const SVG_MAX_BYTES: u64 = 1024 * 1024;

const DESCRIPTION: &str = "Reads one file from the local file system and returns its content. Text files come back \
as raw text (no line numbers); large files are cut to 2000 lines and lines longer than 2000 characters are shortened, \
with a note explaining how to read further. Use 'offset' (0-based line) and 'limit' (number of lines) to read a \
range of a large file. Images (PNG, JPG, GIF, WEBP, SVG, BMP), PDF, audio and video files are returned as inline \
data; other binary files are skipped.";

/// Later names of `file_path`.
const ALIASES: Aliases = SPEC.param_aliases;

/// The arguments of one call, after schema validation. The 1-based
/// `start_line`/`end_line` of later versions are not aliases but a
/// different range convention: `normalize_args` converts them first.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    #[serde(alias = "path", alias = "absolute_path")]
    file_path: String,
    offset: Option<f64>,
    limit: Option<f64>,
}

/// The `read_file` tool.
pub struct ReadFileTool {
    schema: Value,
}

impl Default for ReadFileTool {
    fn default() -> Self {
        Self::new()
    }
}

impl ReadFileTool {
    /// The tool with its parameter schema.
    pub fn new() -> Self {
        let schema = json!({
            "type": "object",
            "properties": {
                "file_path": {
                    "type": "string",
                    "description": "Path of the file to read, absolute or relative to the project root."
                },
                "offset": {
                    "type": "number",
                    "description": "Optional 0-based line number to start reading from (for large files)."
                },
                "limit": {
                    "type": "number",
                    "description": "Optional maximum number of lines to read (default 2000)."
                }
            },
            "required": ["file_path"]
        });
        ReadFileTool { schema }
    }
}

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(ReadFileTool::new())),
};

impl Tool for ReadFileTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn parameter_schema(&self) -> &Value {
        &self.schema
    }

    /// `path`/`absolute_path` become `file_path`; 1-based inclusive
    /// `start_line`/`end_line` become `offset`/`limit`.
    fn normalize_args(&self, args: &mut Map<String, Value>) {
        /// Gemini CLI 0.27.4's 1-based line range; a bound that is not a
        /// number is left for validation to refuse.
        #[derive(Default, Deserialize)]
        #[serde(default)]
        struct LineRange {
            #[serde(deserialize_with = "crate::config::lenient::wrong_type_as_none")]
            start_line: Option<f64>,
            #[serde(deserialize_with = "crate::config::lenient::wrong_type_as_none")]
            end_line: Option<f64>,
        }
        let LineRange {
            start_line: start,
            end_line: end,
        } = LineRange::deserialize(&*args).unwrap_or_default();
        if start.is_some() && !args.contains_key("offset") {
            args.remove("start_line");
            if let Some(s) = start {
                args.insert("offset".into(), number(s - 1.0));
            }
        }
        if let Some(e) = end
            && !args.contains_key("limit")
        {
            args.remove("end_line");
            args.remove("start_line");
            let first = start.unwrap_or(1.0);
            args.insert("limit".into(), number(e - first + 1.0));
        }
    }

    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let Params {
            file_path,
            offset,
            limit,
        } = parse_params(args, ALIASES)?;
        if file_path.trim().is_empty() {
            return Err(ToolError::invalid_params(
                "The 'file_path' parameter must be non-empty.",
            ));
        }
        let abs = ctx.workspace.resolve(&file_path);
        ctx.workspace
            .check_access(&abs)
            .map_err(ToolError::invalid_params)?;
        if offset.is_some_and(|o| o < 0.0) {
            return Err(ToolError::invalid_params(
                "Offset must be a non-negative number",
            ));
        }
        if limit.is_some_and(|l| l <= 0.0) {
            return Err(ToolError::invalid_params("Limit must be a positive number"));
        }
        if ctx
            .workspace
            .is_ignored(&abs, ctx.workspace.filter_options())
        {
            return Err(ToolError::invalid_params(format!(
                "File path '{}' is ignored by configured ignore patterns.",
                abs.display()
            )));
        }
        let rel = ctx.workspace.relative(&abs);
        Ok(Box::new(ReadFileInvocation {
            abs,
            rel,
            offset,
            limit,
        }))
    }
}

fn number(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9e15 {
        json!(f as i64)
    } else {
        json!(f)
    }
}

/// One validated `read_file` call.
struct ReadFileInvocation {
    abs: PathBuf,
    rel: String,
    offset: Option<f64>,
    limit: Option<f64>,
}

impl ToolInvocation for ReadFileInvocation {
    fn description(&self) -> String {
        shorten_path(&self.rel)
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
                    "Path not in workspace.",
                );
            }
            // A text file of an editor (ACP) is read as its buffer holds it.
            if let Some(client) = &ctx.client_fs
                && !is_media(&self.abs)
            {
                match client.read_text_file(&self.abs).await {
                    Ok(Some(text)) => {
                        return text_result(
                            &text,
                            &self.rel,
                            self.offset,
                            self.limit,
                            ctx.dialect.texts(),
                        );
                    }
                    Ok(None) => {
                        let message = format!("File not found: {}", self.abs.display());
                        return ToolResult::error(
                            ToolErrorKind::FileNotFound,
                            message.clone(),
                            message,
                        );
                    }
                    Err(e) => {
                        tracing::debug!("reading through the client failed ({e}); reading the disk")
                    }
                }
            }
            let abs = self.abs.clone();
            let rel = self.rel.clone();
            let (offset, limit) = (self.offset, self.limit);
            let ws = ctx.workspace.clone();
            let texts = ctx.dialect.texts();
            tokio::task::spawn_blocking(move || read(&ws, &abs, &rel, offset, limit, texts))
                .await
                .unwrap_or_else(|e| {
                    ToolResult::error(
                        ToolErrorKind::ReadContentFailure,
                        format!("Error reading file {}: {e}", self.abs.display()),
                        "Error reading file",
                    )
                })
        })
    }
}

/// Whether `path` names an image, PDF, audio or video file (read from the
/// disk as inline data even when a client offers its buffers).
fn is_media(path: &Path) -> bool {
    crate::workspace::mime_type(path).is_some_and(|m| {
        ["image/", "audio/", "video/", "application/pdf"]
            .iter()
            .any(|p| m.starts_with(p))
    })
}

/// A JavaScript number's text.
fn js(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 1e21 {
        format!("{f:.0}")
    } else {
        f.to_string()
    }
}

/// `line` cut to 2000 UTF-16 units plus `... [truncated]`, if longer.
fn cut_line(line: &str) -> Option<String> {
    if line.len() <= MAX_LINE_LENGTH || line.encode_utf16().count() <= MAX_LINE_LENGTH {
        return None;
    }
    let mut units = 0;
    let mut out = String::new();
    for c in line.chars() {
        units += c.len_utf16();
        if units > MAX_LINE_LENGTH {
            break;
        }
        out.push(c);
    }
    out.push_str("... [truncated]");
    Some(out)
}

/// The text-file result of v0.27.4's `processSingleFileContent` plus
/// `read_file`'s truncation header in the dialect's words.
fn text_result(
    content: &str,
    rel: &str,
    offset: Option<f64>,
    limit: Option<f64>,
    texts: &Texts,
) -> ToolResult {
    let lines: Vec<&str> = content.split('\n').collect();
    let total = lines.len() as f64;
    let start = match offset {
        Some(o) if o > 0.0 => o,
        _ => 0.0,
    };
    let end_line = (start + limit.unwrap_or(DEFAULT_MAX_LINES)).min(total);
    let actual_start = start.min(total);
    let (from, to) = (
        actual_start.trunc() as usize,
        end_line.max(0.0).trunc() as usize,
    );
    let selected = if to > from { &lines[from..to] } else { &[][..] };
    let mut shortened = false;
    let formatted: Vec<String> = selected
        .iter()
        .map(|l| match cut_line(l) {
            Some(cut) => {
                shortened = true;
                cut
            }
            None => (*l).to_string(),
        })
        .collect();
    let range_truncated = start > 0.0 || end_line < total;
    let body = formatted.join("\n");
    let first = actual_start + 1.0;
    let display = if range_truncated {
        let mut d = format!(
            "Read lines {}-{} of {} from {rel}",
            js(first),
            js(end_line),
            js(total)
        );
        if shortened {
            d.push_str(" (some lines were shortened)");
        }
        d
    } else if shortened {
        format!(
            "Read all {} lines from {rel} (some lines were shortened)",
            js(total)
        )
    } else {
        String::new()
    };
    if !range_truncated && !shortened {
        return ToolResult::text(body, display);
    }
    let next = match offset {
        Some(o) if o != 0.0 => o + end_line - first + 1.0,
        _ => end_line,
    };
    let llm = fill(
        texts.read_file_truncated,
        &[
            ("start", &js(first)),
            ("end", &js(end_line)),
            ("total", &js(total)),
            ("next_offset", &js(next)),
            ("next_line", &js(end_line + 1.0)),
            ("body", &body),
        ],
    );
    ToolResult::text(llm, display)
}

fn read_error(abs: &Path, rel: &str, err: &std::io::Error) -> ToolResult {
    let msg = node_error(err, "open", abs).map_or_else(|| err.to_string(), |(_, m)| m);
    ToolResult::error(
        ToolErrorKind::ReadContentFailure,
        format!("Error reading file {}: {msg}", abs.display()),
        format!("Error reading file {rel}: {msg}"),
    )
}

/// Reads the file (blocking), opened beneath its workspace directory:
/// directories, FIFOs, sockets, devices and files over the size limit are
/// refused before any byte is read.
fn read(
    ws: &Workspace,
    abs: &Path,
    rel: &str,
    offset: Option<f64>,
    limit: Option<f64>,
    texts: &Texts,
) -> ToolResult {
    let (file, meta) = match ws.open_regular(abs, Some(MAX_FILE_BYTES)) {
        Ok(opened) => opened,
        Err(OpenFailure::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            let message = format!("File not found: {}", abs.display());
            return ToolResult::error(ToolErrorKind::FileNotFound, message.clone(), message);
        }
        Err(OpenFailure::Io(e)) => return read_error(abs, rel, &e),
        Err(OpenFailure::Outside) => {
            return ToolResult::error(
                ToolErrorKind::PathNotInWorkspace,
                ws.outside_message(abs),
                "Path not in workspace.",
            );
        }
        Err(OpenFailure::Directory) => {
            let message = format!("Path is a directory, not a file: {}", abs.display());
            return ToolResult::error(ToolErrorKind::TargetIsDirectory, message.clone(), message);
        }
        Err(OpenFailure::Special(kind)) => {
            let message = not_regular_message(abs, kind);
            return ToolResult::error(ToolErrorKind::ReadContentFailure, message.clone(), message);
        }
        Err(OpenFailure::TooLarge(len)) => {
            return ToolResult::error(
                ToolErrorKind::FileTooLarge,
                too_large_message(abs, len),
                "File size exceeds the 20MB limit.",
            );
        }
    };
    let mut head = Vec::with_capacity(4096);
    let mut file = file;
    if let Err(e) = (&mut file).take(4096).read_to_end(&mut head) {
        return read_error(abs, rel, &e);
    }
    let kind = detect_kind(abs, &head);
    if kind == FileKind::Binary {
        return ToolResult::text(
            format!("Cannot display content of binary file: {rel}"),
            format!("Skipped binary file: {rel}"),
        );
    }
    if kind == FileKind::Svg && meta.len() > SVG_MAX_BYTES {
        return ToolResult::text(
            format!("Cannot display content of SVG file larger than 1MB: {rel}"),
            format!("Skipped large SVG file (>1MB): {rel}"),
        );
    }
    // The rest of the same open file: no second lookup by path.
    let mut bytes = head;
    if let Err(e) = file.read_to_end(&mut bytes) {
        return read_error(abs, rel, &e);
    }
    match kind {
        FileKind::Text => text_result(&decode_text(&bytes), rel, offset, limit, texts),
        FileKind::Svg => ToolResult::text(decode_text(&bytes), format!("Read SVG as text: {rel}")),
        FileKind::Image | FileKind::Pdf | FileKind::Audio | FileKind::Video | FileKind::Binary => {
            let mime = crate::workspace::mime_type(abs)
                .unwrap_or_else(|| "application/octet-stream".into());
            let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
            ToolResult::parts(
                vec![Part::inline_data(mime, data)],
                ToolDisplay::Text(format!("Read {} file: {rel}", kind.as_str())),
            )
        }
    }
}

#[cfg(test)]
mod tests;
