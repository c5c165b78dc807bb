//! `list_directory` (ReadFolder): the entries of one directory, directories
//! first, minus ignored ones (counted) and `ignore` globs (not counted).

use super::common::{Aliases, lenient, locale_compare, node_message, parse_params};
use super::shorten_path;
use super::{Builtin, Make};
use crate::catalogue::builtins::LIST_DIRECTORY as SPEC;
use crate::tools::spec::identity_from_spec;
use crate::tools::{Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult};
use crate::workspace::FilterOptions;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::OnceLock;
use tokio_util::sync::CancellationToken;

/// The `list_directory` tool.
pub struct ListDirectoryTool;

/// `path` is the later name of `dir_path`.
const ALIASES: Aliases = SPEC.param_aliases;

/// The arguments of one call, after schema validation.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    #[serde(alias = "path")]
    dir_path: String,
    ignore: Vec<String>,
    file_filtering_options: FileFilteringParams,
    /// The flags as top-level parameters (an older form; `normalize_args`
    /// moves them into `file_filtering_options`, which wins).
    #[serde(flatten)]
    top_level: LenientFiltering,
}

/// Top-level `respect_*` flags: outside the schema, so a value of another
/// type reads as absent.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct LenientFiltering {
    #[serde(deserialize_with = "lenient")]
    respect_git_ignore: Option<bool>,
    #[serde(deserialize_with = "lenient")]
    respect_gemini_ignore: Option<bool>,
}

impl Params {
    /// The per-call overrides, `file_filtering_options` first.
    fn filtering(&self) -> FileFilteringParams {
        let nested = self.file_filtering_options;
        FileFilteringParams {
            respect_git_ignore: nested
                .respect_git_ignore
                .or(self.top_level.respect_git_ignore),
            respect_gemini_ignore: nested
                .respect_gemini_ignore
                .or(self.top_level.respect_gemini_ignore),
        }
    }
}

/// `file_filtering_options`: per-call overrides of the session's ignore
/// options (also shared by `read_many_files`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Deserialize)]
#[serde(default)]
pub(super) struct FileFilteringParams {
    /// Overrides `context.fileFiltering.respectGitIgnore`.
    pub respect_git_ignore: Option<bool>,
    /// Overrides `context.fileFiltering.respectGeminiIgnore`.
    pub respect_gemini_ignore: Option<bool>,
}

impl FileFilteringParams {
    /// The session's options with these overrides applied.
    pub fn apply(self, base: &FilterOptions) -> FilterOptions {
        FilterOptions {
            respect_git_ignore: self.respect_git_ignore.unwrap_or(base.respect_git_ignore),
            respect_gemini_ignore: self
                .respect_gemini_ignore
                .unwrap_or(base.respect_gemini_ignore),
            custom_ignore_files: base.custom_ignore_files.clone(),
        }
    }
}

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "properties": {
                "dir_path": {
                    "description": "The path to the directory to list",
                    "type": "string"
                },
                "ignore": {
                    "description": "List of glob patterns to ignore",
                    "items": {"type": "string"},
                    "type": "array"
                },
                "file_filtering_options": {
                    "description": "Optional: Whether to respect ignore patterns from .gitignore or .geminiignore",
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
            "required": ["dir_path"],
            "type": "object"
        })
    })
}

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(ListDirectoryTool)),
};

impl Tool for ListDirectoryTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        "Lists the names of files and subdirectories directly within a specified directory path. Can optionally ignore entries matching provided glob patterns."
    }

    fn parameter_schema(&self) -> &Value {
        schema()
    }

    fn normalize_args(&self, args: &mut Map<String, Value>) {
        for key in ["respect_git_ignore", "respect_gemini_ignore"] {
            let Some(v) = args.get(key).cloned() else {
                continue;
            };
            let entry = args
                .entry("file_filtering_options")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(opts) = entry
                && !opts.contains_key(key)
            {
                opts.insert(key.to_string(), v);
                args.remove(key);
            }
        }
    }

    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let params: Params = parse_params(args, ALIASES)?;
        let abs = ctx.workspace.resolve(&params.dir_path);
        ctx.workspace
            .check_access(&abs)
            .map_err(ToolError::invalid_params)?;
        let shown = shorten_path(&ctx.workspace.relative(&abs));
        let filtering = params.filtering();
        Ok(Box::new(ListDirectoryInvocation {
            shown,
            abs,
            ignore: params.ignore,
            filtering,
        }))
    }
}

struct ListDirectoryInvocation {
    shown: String,
    abs: PathBuf,
    ignore: Vec<String>,
    filtering: FileFilteringParams,
}

struct Entry {
    name: String,
    is_dir: bool,
    size: u64,
}

impl ListDirectoryInvocation {
    fn run(&self, ctx: &ToolContext) -> ToolResult {
        let abs = &self.abs;
        if let Err(msg) = ctx.workspace.check_access(abs) {
            return ToolResult::error(
                ToolErrorKind::PathNotInWorkspace,
                msg,
                "Path not in workspace.",
            );
        }
        let listing = match std::fs::metadata(abs) {
            Ok(m) if !m.is_dir() => {
                return ToolResult::error(
                    ToolErrorKind::PathIsNotADirectory,
                    format!("Error: Path is not a directory: {}", abs.display()),
                    "Error: Path is not a directory.",
                );
            }
            Ok(_) => std::fs::read_dir(abs).map_err(|e| node_message(&e, "scandir", abs)),
            Err(e) => Err(node_message(&e, "stat", abs)),
        };
        let names: Vec<String> = match listing {
            Ok(rd) => rd
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect(),
            Err(msg) => {
                return ToolResult::error(
                    ToolErrorKind::LsExecutionError,
                    format!("Error listing directory: {msg}"),
                    "Error: Failed to list directory.",
                );
            }
        };
        if names.is_empty() {
            return ToolResult::text(
                format!("Directory {} is empty.", abs.display()),
                "Directory is empty.",
            );
        }
        let opts = self.filtering.apply(ctx.workspace.filter_options());
        let patterns: Vec<regex::Regex> = self
            .ignore
            .iter()
            .filter_map(|p| basename_glob(p))
            .collect();
        let mut ignored = 0usize;
        let mut entries = Vec::new();
        for name in names {
            let path = abs.join(&name);
            if ctx.workspace.is_ignored(&path, &opts) {
                ignored += 1;
                continue;
            }
            if patterns.iter().any(|r| r.is_match(&name)) {
                continue;
            }
            // Entries that vanish or cannot be stat'ed are left out.
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            entries.push(Entry {
                name,
                is_dir: meta.is_dir(),
                size: meta.len(),
            });
        }
        entries.sort_by(|a, b| {
            b.is_dir
                .cmp(&a.is_dir)
                .then_with(|| locale_compare(&a.name, &b.name))
        });
        let sizes = ctx.dialect.texts().list_directory_sizes;
        let lines: Vec<String> = entries
            .iter()
            .map(|e| {
                if e.is_dir {
                    format!("[DIR] {}", e.name)
                } else if sizes {
                    format!("{} ({} bytes)", e.name, e.size)
                } else {
                    e.name.clone()
                }
            })
            .collect();
        let mut llm = format!(
            "Directory listing for {}:\n{}",
            abs.display(),
            lines.join("\n")
        );
        let mut display = format!("Listed {} item(s).", entries.len());
        if ignored > 0 {
            llm.push_str(&format!("\n\n({ignored} ignored)"));
            display.push_str(&format!(" ({ignored} ignored)"));
        }
        ToolResult::text(llm, display)
    }
}

impl ToolInvocation for ListDirectoryInvocation {
    fn description(&self) -> String {
        self.shown.clone()
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { self.run(ctx) })
    }
}

/// An `ignore` glob as v0.27.4 turns it into a regex: `. + ^ $ { } ( ) | [
/// ] \` escaped, `*` -> `.*`, `?` -> `.`, anchored.
fn basename_glob(pattern: &str) -> Option<regex::Regex> {
    let mut re = String::from("^");
    for c in pattern.chars() {
        match c {
            '.' | '+' | '^' | '$' | '{' | '}' | '(' | ')' | '|' | '[' | ']' | '\\' => {
                re.push('\\');
                re.push(c);
            }
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            other => re.push_str(&regex::escape(&other.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

/// A temporary workspace and a tool context over it, for tests.
#[cfg(test)]
pub(super) mod test_support {
    use crate::config::Settings;
    use crate::tools::registry::ToolRegistry;
    use crate::tools::{Tool, ToolContext, ToolResult};
    use crate::workspace::Workspace;
    use serde_json::Value;
    use std::path::PathBuf;
    use std::sync::Arc;
    use tokio_util::sync::CancellationToken;

    /// A temp dir as project root (canonical path) plus its context.
    pub(crate) struct Env {
        pub _dirs: Vec<tempfile::TempDir>,
        pub root: PathBuf,
        pub ctx: ToolContext,
    }

    impl Env {
        /// A one-root workspace.
        pub fn new() -> Env {
            Env::with_roots(1)
        }

        /// A workspace of `n` roots (`root` is the first).
        pub fn with_roots(n: usize) -> Env {
            let dirs: Vec<tempfile::TempDir> =
                (0..n + 1).map(|_| tempfile::tempdir().unwrap()).collect();
            let paths: Vec<PathBuf> = dirs
                .iter()
                .map(|d| std::fs::canonicalize(d.path()).unwrap())
                .collect();
            let ws = Workspace::new(paths[0].clone(), paths[1..n].to_vec(), paths[n].clone());
            let ctx = ToolContext::new(
                Arc::new(ws),
                Arc::new(Settings::default()),
                "gemini-2.5-flash",
            );
            Env {
                root: paths[0].clone(),
                _dirs: dirs,
                ctx,
            }
        }

        /// Writes `text` to `rel`, creating parent directories.
        pub fn file(&self, rel: &str, text: &str) -> PathBuf {
            let p = self.root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            p
        }

        /// `git init` stand-in: a `.git` directory.
        pub fn git(&self) {
            std::fs::create_dir_all(self.root.join(".git/info")).unwrap();
        }

        /// Builds and runs a call like the scheduler does (aliases, schema,
        /// tool checks); `Err` is a validation error text.
        pub fn call(&self, tool: Arc<dyn Tool>, args: Value) -> Result<ToolResult, String> {
            let mut reg = ToolRegistry::new();
            let name = tool.name().to_string();
            reg.register(tool);
            let built = reg.build(&name, &args, &self.ctx).map_err(|e| e.message)?;
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            Ok(rt.block_on(
                built
                    .invocation
                    .execute(&self.ctx, CancellationToken::new()),
            ))
        }

        /// The model-facing outcome: `Ok(output)` or `Err(error message)`.
        pub fn outcome(&self, tool: Arc<dyn Tool>, args: Value) -> Result<String, String> {
            let r = self.call(tool, args)?;
            match r.error {
                Some(e) => Err(e.message),
                None => Ok(r.llm_text()),
            }
        }

        /// Replaces the root path by `/w` for comparisons with the spec.
        pub fn w(&self, s: &str) -> String {
            s.replace(&self.root.display().to_string(), "/w")
        }
    }
}

#[cfg(test)]
mod tests;
