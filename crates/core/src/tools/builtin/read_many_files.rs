//! `read_many_files` (ReadManyFiles): the concatenated content of every
//! file matching glob patterns in the workspace dirs, framed as
//! `--- <absolute path> ---` and ended by `--- End of content ---`.
//!
//! Deliberate difference from v0.27.4: it is a model tool (v0.27.4 used it
//! only for `@path` expansion).

use super::common::{Aliases, parse_params};
use super::glob::FileGlob;
use super::list_directory::FileFilteringParams;
use super::{Builtin, Make};
use crate::catalogue::builtins::READ_MANY_FILES as SPEC;
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    Tool, ToolContext, ToolDisplay, ToolError, ToolErrorKind, ToolInvocation, ToolResult,
};
use crate::workspace::{
    FileKind, FilterOptions, MAX_FILE_BYTES, OpenFailure, Workspace, decode_text, detect_kind,
    not_regular_message, too_large_message,
};
use base64::Engine;
use futures::future::BoxFuture;
use gemini_rs_protocol::Part;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::OnceLock;
use tokio_util::sync::CancellationToken;

/// Lines read per file.
const MAX_LINES: usize = 2000;
/// Longer lines are cut (UTF-16 units, as JS counts).
const MAX_LINE_LENGTH: usize = 2000;
/// SVG files above this size are not read.
const SVG_MAX_BYTES: u64 = 1024 * 1024;
const TRUNCATED_WARNING: &str = "[WARNING: This file was truncated. To view the full content, use the 'read_file' tool on this specific file.]\n\n";
const END_MARKER: &str = "\n--- End of content ---";
const NOTHING_READ: &str = "No files matching the criteria were found or all were skipped.";

/// Excluded unless `useDefaultExcludes` is false (Gemini CLI's defaults for
/// `read_many_files`).
const DEFAULT_EXCLUDES: [&str; 44] = [
    "**/node_modules/**",
    "**/.git/**",
    "**/.vscode/**",
    "**/.idea/**",
    "**/dist/**",
    "**/build/**",
    "**/coverage/**",
    "**/__pycache__/**",
    "**/*.pyc",
    "**/*.pyo",
    "**/*.bin",
    "**/*.exe",
    "**/*.dll",
    "**/*.so",
    "**/*.dylib",
    "**/*.class",
    "**/*.jar",
    "**/*.war",
    "**/*.zip",
    "**/*.tar",
    "**/*.gz",
    "**/*.bz2",
    "**/*.rar",
    "**/*.7z",
    "**/*.doc",
    "**/*.docx",
    "**/*.xls",
    "**/*.xlsx",
    "**/*.ppt",
    "**/*.pptx",
    "**/*.odt",
    "**/*.ods",
    "**/*.odp",
    "**/.DS_Store",
    "**/.env",
    "**/GEMINI.md",
    "**/bower_components/**",
    "**/.svn/**",
    "**/.hg/**",
    "**/*.pak",
    "**/*.rpa",
    "**/*.o",
    "**/*.a",
    "**/*.lib",
];

/// The `read_many_files` tool.
pub struct ReadManyFilesTool;

const DESCRIPTION: &str = "Reads content from multiple files specified by glob patterns or paths within the workspace directories. For text files, it concatenates their content into a single string, each file introduced by a '--- <absolute path> ---' line; a '--- End of content ---' line follows the last file. It is primarily designed for text-based files. It can also process image (e.g., .png, .jpg), PDF, audio and video files if their file names or extensions are explicitly included in the 'include' argument; their data is included as inline data.

This tool is useful when you need to understand or analyze a collection of files, such as:
- Getting an overview of a codebase or parts of it (e.g., all TypeScript files in the 'src' directory).
- Finding where specific functionality is implemented if the user asks broad questions about code.
- Reviewing documentation files (e.g., all Markdown files in the 'docs' directory).
- Gathering context from multiple configuration files.

Glob patterns like 'src/**/*.js' are supported. Default excludes apply to common non-text files and large dependency directories unless 'useDefaultExcludes' is false; .gitignore (inside a git repository) and .geminiignore are respected unless 'file_filtering_options' says otherwise.";

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "properties": {
                "include": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "minItems": 1,
                    "description": "An array of glob patterns or paths. Examples: ['src/**/*.ts'], ['README.md', 'docs/']"
                },
                "exclude": {
                    "type": "array",
                    "items": {"type": "string", "minLength": 1},
                    "description": "Optional. Glob patterns for files/directories to exclude. Added to default excludes if useDefaultExcludes is true. Example: \"**/*.log\", \"temp/\"",
                    "default": []
                },
                "recursive": {
                    "type": "boolean",
                    "description": "Optional. Whether to search recursively (primarily controlled by `**` in glob patterns). Defaults to true.",
                    "default": true
                },
                "useDefaultExcludes": {
                    "type": "boolean",
                    "description": "Optional. Whether to apply a list of default exclusion patterns (e.g., node_modules, .git, binary files). Defaults to true.",
                    "default": true
                },
                "file_filtering_options": {
                    "description": "Whether to respect ignore patterns from .gitignore or .geminiignore",
                    "type": "object",
                    "properties": {
                        "respect_git_ignore": {
                            "description": "Optional: Whether to respect .gitignore patterns when listing files. Only available in git repositories. Defaults to true.",
                            "type": "boolean"
                        },
                        "respect_gemini_ignore": {
                            "description": "Optional: Whether to respect .geminiignore patterns when listing files. Defaults to true.",
                            "type": "boolean"
                        }
                    }
                }
            },
            "required": ["include"],
            "type": "object"
        })
    })
}

/// `paths` is the later name of `include`.
const ALIASES: Aliases = SPEC.param_aliases;

/// Why one matched file was skipped (listed in the display).
#[derive(Debug, thiserror::Error)]
enum SkipReason {
    /// Opening or reading failed.
    #[error("Read error: {0}")]
    Read(#[from] std::io::Error),
    /// Over the size limit.
    #[error("Read error: {}", too_large_message(path, *len))]
    TooLarge { path: PathBuf, len: u64 },
    /// A FIFO, socket or device.
    #[error("Read error: {}", not_regular_message(path, kind))]
    Special { path: PathBuf, kind: &'static str },
    /// A directory.
    #[error("Read error: {} is a directory", .0.display())]
    Directory(PathBuf),
    /// It resolves outside the workspace.
    #[error("Security: path resolves outside the workspace. Path: {}", .0.display())]
    Outside(PathBuf),
    /// Media not asked for by name or extension.
    #[error("asset file (image/pdf/audio) was not explicitly requested by name or extension")]
    AssetNotRequested,
}

/// The arguments of one call, after schema validation (`recursive` is
/// accepted but `**` in the patterns decides, as in Gemini CLI).
#[derive(Debug, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    #[serde(alias = "paths")]
    include: Vec<String>,
    exclude: Vec<String>,
    #[serde(rename = "useDefaultExcludes")]
    use_default_excludes: bool,
    file_filtering_options: FileFilteringParams,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            include: Vec::new(),
            exclude: Vec::new(),
            use_default_excludes: true,
            file_filtering_options: FileFilteringParams::default(),
        }
    }
}

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(ReadManyFilesTool)),
};

impl Tool for ReadManyFilesTool {
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
        let params: Params = parse_params(args, ALIASES)?;
        Ok(Box::new(ReadManyFilesInvocation {
            include: params.include,
            exclude: params.exclude,
            use_default_excludes: params.use_default_excludes,
            filter: params
                .file_filtering_options
                .apply(ctx.workspace.filter_options()),
        }))
    }
}

#[derive(Clone)]
struct ReadManyFilesInvocation {
    include: Vec<String>,
    exclude: Vec<String>,
    use_default_excludes: bool,
    filter: FilterOptions,
}

/// One file that was not read, and why.
struct Skipped {
    path: String,
    reason: String,
}

impl ReadManyFilesInvocation {
    /// The excludes as globs (`dir/` means everything below `dir`).
    fn excludes(&self) -> Vec<String> {
        let defaults = if self.use_default_excludes {
            DEFAULT_EXCLUDES.to_vec()
        } else {
            Vec::new()
        };
        defaults
            .into_iter()
            .map(str::to_string)
            .chain(self.exclude.iter().map(|e| match e.strip_suffix('/') {
                Some(d) => format!("{d}/**"),
                None => e.clone(),
            }))
            .collect()
    }

    /// Every matching file of every workspace dir, before ignore rules:
    /// one walk per dir for all the patterns.
    fn search(
        &self,
        ctx: &ToolContext,
        cancel: &CancellationToken,
    ) -> Result<BTreeSet<PathBuf>, globset::Error> {
        let excludes = self.excludes();
        let mut found = BTreeSet::new();
        for dir in &ctx.workspace.dirs() {
            let patterns: Vec<String> = self
                .include
                .iter()
                .map(|pattern| {
                    let literal = dir.join(pattern);
                    if literal.is_dir() {
                        format!("{}/**", globset::escape(pattern.trim_end_matches('/')))
                    } else if literal.exists() {
                        globset::escape(pattern)
                    } else {
                        pattern.clone()
                    }
                })
                .collect();
            let glob = FileGlob::new_many(&patterns, true, &excludes)?;
            found.extend(glob.walk(dir, cancel));
        }
        Ok(found)
    }

    /// Whether a media file was asked for by extension or name.
    fn requested(&self, path: &Path) -> bool {
        let ext = path
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy().to_lowercase()));
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.include.iter().any(|p| {
            ext.as_ref()
                .is_some_and(|e| p.to_lowercase().contains(e.as_str()))
                || (!stem.is_empty() && p.contains(&stem))
        })
    }

    fn run(&self, ctx: &ToolContext, cancel: &CancellationToken) -> ToolResult {
        let ws = &ctx.workspace;
        let found = match self.search(ctx, cancel) {
            Ok(f) => f,
            Err(e) => {
                let msg = format!("Error during file search: {e}");
                return ToolResult::error(
                    ToolErrorKind::ReadManyFilesSearchError,
                    msg.clone(),
                    msg,
                );
            }
        };
        let mut skipped: Vec<Skipped> = Vec::new();
        let git_only = FilterOptions {
            respect_gemini_ignore: false,
            ..self.filter.clone()
        };
        let (mut git_ignored, mut gemini_ignored) = (0usize, 0usize);
        let mut files = Vec::new();
        for path in found {
            if ws.is_ignored(&path, &self.filter) {
                if ws.is_ignored(&path, &git_only) {
                    git_ignored += 1;
                } else {
                    gemini_ignored += 1;
                }
            } else if ws.check_access(&path).is_err() {
                skipped.push(Skipped {
                    path: path.display().to_string(),
                    reason: format!(
                        "Security: Glob library returned path outside workspace. Path: {}",
                        path.display()
                    ),
                });
            } else {
                files.push(path);
            }
        }
        for (n, reason) in [
            (git_ignored, "git ignored"),
            (gemini_ignored, "gemini ignored"),
        ] {
            if n > 0 {
                skipped.push(Skipped {
                    path: format!("{n} file(s)"),
                    reason: reason.to_string(),
                });
            }
        }
        let mut parts: Vec<Part> = Vec::new();
        let mut processed: Vec<String> = Vec::new();
        for path in &files {
            if cancel.is_cancelled() {
                break;
            }
            let rel = ws.relative(path);
            match self.read_one(ws, path, &rel) {
                Ok(part) => {
                    parts.push(part);
                    processed.push(rel);
                }
                Err(reason) => skipped.push(Skipped {
                    path: rel,
                    reason: reason.to_string(),
                }),
            }
        }
        let display = summary(ws.target_dir(), &processed, &skipped);
        if parts.is_empty() {
            parts.push(Part::text(NOTHING_READ));
        } else {
            parts.push(Part::text(END_MARKER));
        }
        ToolResult::parts(parts, ToolDisplay::Text(display))
    }

    /// One file as a part, or why it was skipped. The file is opened once,
    /// beneath its workspace directory; special files and files over the
    /// size limit are skipped before reading.
    fn read_one(&self, ws: &Workspace, path: &Path, rel: &str) -> Result<Part, SkipReason> {
        let (mut file, meta) =
            ws.open_regular(path, Some(MAX_FILE_BYTES))
                .map_err(|f| match f {
                    OpenFailure::Io(e) => SkipReason::Read(e),
                    OpenFailure::TooLarge(len) => SkipReason::TooLarge {
                        path: path.to_path_buf(),
                        len,
                    },
                    OpenFailure::Special(kind) => SkipReason::Special {
                        path: path.to_path_buf(),
                        kind,
                    },
                    OpenFailure::Directory => SkipReason::Directory(path.to_path_buf()),
                    OpenFailure::Outside => SkipReason::Outside(path.to_path_buf()),
                })?;
        let mut head = Vec::with_capacity(4096);
        (&mut file).take(4096).read_to_end(&mut head)?;
        // The rest of the same open file, read only when needed.
        let mut rest = |mut bytes: Vec<u8>| file.read_to_end(&mut bytes).map(|_| bytes);
        let kind = detect_kind(path, &head);
        let frame = |body: &str| Part::text(format!("--- {} ---\n\n{body}\n\n", path.display()));
        match kind {
            FileKind::Image | FileKind::Pdf | FileKind::Audio | FileKind::Video => {
                if !self.requested(path) {
                    return Err(SkipReason::AssetNotRequested);
                }
                let bytes = rest(head)?;
                let mime = crate::workspace::mime_type(path)
                    .unwrap_or_else(|| "application/octet-stream".into());
                Ok(Part::inline_data(
                    mime,
                    base64::engine::general_purpose::STANDARD.encode(bytes),
                ))
            }
            FileKind::Binary => Ok(frame(&format!(
                "Cannot display content of binary file: {rel}"
            ))),
            FileKind::Svg if meta.len() > SVG_MAX_BYTES => Ok(frame(&format!(
                "Cannot display content of SVG file larger than 1MB: {rel}"
            ))),
            FileKind::Svg | FileKind::Text => {
                let bytes = rest(head)?;
                let text = decode_text(&bytes);
                let (content, truncated) = if kind == FileKind::Svg {
                    (text, false)
                } else {
                    limit_text(&text)
                };
                let body = if truncated {
                    format!("{TRUNCATED_WARNING}{content}")
                } else {
                    content
                };
                Ok(frame(&body))
            }
        }
    }
}

/// The first 2000 lines, each cut to 2000 characters; and whether anything
/// was left out.
fn limit_text(text: &str) -> (String, bool) {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut truncated = lines.len() > MAX_LINES;
    let kept: Vec<String> = lines
        .iter()
        .take(MAX_LINES)
        .map(|l| {
            if l.len() > MAX_LINE_LENGTH && l.encode_utf16().count() > MAX_LINE_LENGTH {
                truncated = true;
                let mut units = 0;
                let cut: String = l
                    .chars()
                    .take_while(|c| {
                        units += c.len_utf16();
                        units <= MAX_LINE_LENGTH
                    })
                    .collect();
                format!("{cut}... [truncated]")
            } else {
                (*l).to_string()
            }
        })
        .collect();
    (kept.join("\n"), truncated)
}

/// The Markdown summary shown to the user.
fn summary(target: &Path, processed: &[String], skipped: &[Skipped]) -> String {
    let mut d = format!(
        "### ReadManyFiles Result (Target Dir: `{}`)\n\n",
        target.display()
    );
    if !processed.is_empty() {
        d.push_str(&format!(
            "Successfully read and concatenated content from **{} file(s)**.\n",
            processed.len()
        ));
        if processed.len() <= 10 {
            d.push_str("\n**Processed Files:**\n");
        } else {
            d.push_str("\n**Processed Files (first 10 shown):**\n");
        }
        for p in processed.iter().take(10) {
            d.push_str(&format!("- `{p}`\n"));
        }
        if processed.len() > 10 {
            d.push_str(&format!("- ...and {} more.\n", processed.len() - 10));
        }
    }
    if !skipped.is_empty() {
        if processed.is_empty() {
            d.push_str("No files were read and concatenated based on the criteria.\n");
        }
        if skipped.len() <= 5 {
            d.push_str(&format!("\n**Skipped {} item(s):**\n", skipped.len()));
        } else {
            d.push_str(&format!(
                "\n**Skipped {} item(s) (first 5 shown):**\n",
                skipped.len()
            ));
        }
        for s in skipped.iter().take(5) {
            d.push_str(&format!("- `{}` (Reason: {})\n", s.path, s.reason));
        }
        if skipped.len() > 5 {
            d.push_str(&format!("- ...and {} more.\n", skipped.len() - 5));
        }
    } else if processed.is_empty() {
        d.push_str("No files were read and concatenated based on the criteria.\n");
    }
    d
}

impl ToolInvocation for ReadManyFilesInvocation {
    fn description(&self) -> String {
        let mut d = format!(
            "Will attempt to read and concatenate files using patterns: `{}`",
            self.include.join("`, `")
        );
        if !self.exclude.is_empty() {
            d.push_str(&format!(". Excluding: `{}`", self.exclude.join("`, `")));
        }
        d
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let (this, ctx) = (self.clone(), ctx.clone());
            tokio::task::spawn_blocking(move || this.run(&ctx, &cancel))
                .await
                .unwrap_or_else(|e| {
                    let msg = format!("Error during file search: {e}");
                    ToolResult::error(ToolErrorKind::ReadManyFilesSearchError, msg.clone(), msg)
                })
        })
    }
}

#[cfg(test)]
mod tests;
