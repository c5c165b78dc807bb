//! `search_file_content` (SearchText): a regex search over file contents,
//! with the output texts of Gemini CLI v0.27.4's legacy grep tool and
//! ripgrep's engine in-process. It answers to today's name `grep_search`
//! and takes today's parameters too ([`options`]).

mod auto_context;
mod jsregex;
mod options;
mod search;
#[cfg(test)]
mod tests;

use super::common::{Aliases, node_message, parse_params};
use super::{Builtin, Make};
use crate::catalogue::builtins::GREP as SPEC;
use crate::catalogue::texts::{GrepCase, Texts};
use crate::tools::spec::identity_from_spec;
use crate::tools::{Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult};
use futures::future::BoxFuture;
use jsregex::Translation;
use options::Options;
use search::{FileMatches, Query, Stop};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

pub(crate) use search::HARD_EXCLUDED_DIRS;

/// Later names: `path` for `dir_path`, `include_pattern` for `include`.
const ALIASES: Aliases = SPEC.param_aliases;

/// The arguments of one call, after schema validation.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    pattern: String,
    #[serde(alias = "path")]
    dir_path: Option<String>,
    #[serde(alias = "include_pattern")]
    include: Option<String>,
}

/// Matches the parallel search collects at most before it stops (0.27.4's
/// cap). A smaller cap is applied afterwards, to the matches in the order
/// they are shown, so the first ones are kept whatever order the walk
/// found them in.
const SEARCH_CAP: usize = 20_000;
/// `DEFAULT_SEARCH_TIMEOUT_MS`.
const TIMEOUT_MS: u64 = 30_000;

/// The `search_file_content` tool.
pub struct GrepTool;

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "properties": {
                "pattern": {
                    "description": "The regular expression (regex) pattern to search for within file contents (e.g., 'function\\s+myFunction', 'import\\s+\\{.*\\}\\s+from\\s+.*').",
                    "type": "string"
                },
                "dir_path": {
                    "description": "Optional: The absolute path to the directory to search within. If omitted, searches the current working directory.",
                    "type": "string"
                },
                "include": {
                    "description": "Optional: A glob pattern to filter which files are searched (e.g., '*.js', '*.{ts,tsx}', 'src/**'). If omitted, searches all files (respecting potential global ignores).",
                    "type": "string"
                }
            },
            "required": ["pattern"],
            "type": "object"
        })
    })
}

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(GrepTool)),
};

impl Tool for GrepTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        "Searches for a regular expression pattern within the content of files in a specified directory (or current working directory). Can filter files by a glob pattern. Returns the lines containing matches, along with their file paths and line numbers."
    }

    fn parameter_schema(&self) -> &Value {
        schema()
    }

    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let Params {
            pattern,
            dir_path,
            include,
        } = parse_params(args, ALIASES)?;
        let options = Options::parse(args)?;
        let translation = options.pattern(&pattern).map_err(|msg| {
            ToolError::invalid_params(format!(
                "Invalid regular expression pattern provided: {pattern}. Error: {msg}"
            ))
        })?;
        let mut dir = None;
        if let Some(p) = &dir_path {
            let abs = ctx.workspace.resolve(p);
            ctx.workspace
                .check_access(&abs)
                .map_err(ToolError::invalid_params)?;
            check_dir(&abs).map_err(|(_, m)| ToolError::invalid_params(m))?;
            dir = Some(abs);
        }
        Ok(Box::new(GrepInvocation {
            pattern,
            translation,
            dir_path,
            dir,
            include,
            options,
        }))
    }
}

/// `Path does not exist` / `Path is not a directory` / stat failure.
fn check_dir(abs: &std::path::Path) -> Result<(), (ToolErrorKind, String)> {
    match std::fs::metadata(abs) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err((
            ToolErrorKind::PathIsNotADirectory,
            format!("Path is not a directory: {}", abs.display()),
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err((
            ToolErrorKind::FileNotFound,
            format!("Path does not exist: {}", abs.display()),
        )),
        Err(e) => Err((
            ToolErrorKind::GrepExecutionError,
            format!(
                "Failed to access path stats for {}: {}",
                abs.display(),
                node_message(&e, "stat", abs)
            ),
        )),
    }
}

#[derive(Clone)]
struct GrepInvocation {
    pattern: String,
    translation: Translation,
    dir_path: Option<String>,
    dir: Option<PathBuf>,
    include: Option<String>,
    options: Options,
}

impl GrepInvocation {
    /// `in path "<dir_path>"`, `in the workspace directory` or
    /// `across <k> workspace directories`.
    fn location(&self, roots: usize) -> String {
        match &self.dir_path {
            Some(p) => format!("in path \"{p}\""),
            None if roots == 1 => "in the workspace directory".to_string(),
            None => format!("across {roots} workspace directories"),
        }
    }

    fn filter_note(&self) -> String {
        match &self.include {
            Some(inc) => format!(" (filter: \"{inc}\")"),
            None => String::new(),
        }
    }

    fn run(&self, ctx: &ToolContext, cancel: &CancellationToken) -> ToolResult {
        let ws = &ctx.workspace;
        let roots: Vec<PathBuf> = match &self.dir {
            Some(d) => {
                if let Err(msg) = ws.check_access(d) {
                    return ToolResult::error(
                        ToolErrorKind::PathNotInWorkspace,
                        msg,
                        "Error: Path not in workspace.",
                    );
                }
                if let Err((kind, msg)) = check_dir(d) {
                    return ToolResult::error(kind, msg.clone(), format!("Error: {msg}"));
                }
                vec![d.clone()]
            }
            None => ws.dirs(),
        };
        let rust_pattern = match &self.translation {
            Translation::Rust(p) => p.clone(),
            Translation::Unsupported(why) => return execution_error(why),
        };
        let include = match &self.include {
            Some(inc) => match globset::GlobBuilder::new(inc)
                .literal_separator(true)
                .backslash_escape(true)
                .build()
            {
                Ok(g) => Some(g.compile_matcher()),
                Err(e) => return execution_error(&e.to_string()),
            },
            None => None,
        };
        let filter = ctx.workspace.filter_options();
        let o = &self.options;
        let texts = ctx.dialect.texts();
        // `exclude_pattern` compiled case-sensitive and -insensitive.
        let mut excludes: [Option<regex::Regex>; 2] = [None, None];
        if let Some(p) = &o.exclude_pattern {
            for (i, slot) in excludes.iter_mut().enumerate() {
                match o.exclude_regex(p, i == 1) {
                    Ok(re) => *slot = Some(re),
                    Err(e) => return execution_error(&e.to_string()),
                }
            }
        }
        let mut query = Query {
            pattern: &rust_pattern,
            include: include.as_ref(),
            include_is_path: self.include.as_deref().is_some_and(|i| i.contains('/')),
            cap: o.total(texts.grep_default_max_matches).max(SEARCH_CAP),
            deadline: Instant::now() + Duration::from_millis(TIMEOUT_MS),
            cancel,
            filter,
            per_file: o.per_file(),
            context: o.context_lines(),
            exclude: None,
            no_ignore: o.no_ignore,
            keep_indent: texts.grep_keep_indent || o.context_lines() != (0, 0),
        };
        let counter = AtomicUsize::new(0);
        let multi = roots.len() > 1;
        let mut all: Vec<FileMatches> = Vec::new();
        let mut too_long: Vec<String> = Vec::new();
        for root in &roots {
            let git = search::in_git_repo(root);
            let insensitive = o.case_insensitive(git || texts.grep_case == GrepCase::Insensitive);
            query.exclude = excludes[usize::from(insensitive)].as_ref();
            let matcher = match search::matcher(query.pattern, insensitive) {
                Ok(m) => m,
                Err(e) => return execution_error(&e.to_string()),
            };
            let found = search::search_root(ws, root, &matcher, &query, git, &counter);
            match found.stop {
                Some(Stop::Timeout) => {
                    return execution_error(&format!(
                        "Operation timed out after {TIMEOUT_MS}ms. In large repositories, consider narrowing your search scope by specifying a 'dir_path' or an 'include'."
                    ));
                }
                Some(Stop::Cancelled) => {
                    return ToolResult::error(
                        ToolErrorKind::GrepExecutionError,
                        "Search was cancelled.",
                        "Search was cancelled.",
                    );
                }
                None => {}
            }
            let prefix = if multi {
                root.file_name()
                    .map(|n| format!("{}/", n.to_string_lossy()))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            all.extend(found.files.into_iter().map(|mut f| {
                f.rel = format!("{prefix}{}", f.rel);
                f
            }));
            too_long.extend(found.too_long.iter().map(|r| format!("{prefix}{r}")));
        }
        self.format(all, roots.len(), &too_long, texts)
    }

    /// The result texts of v0.27.4's `GrepTool` (with today's context
    /// lines, `L<n>- <text>`, and names-only list when asked for), and a
    /// last line naming the files skipped for a line too long to hold.
    fn format(
        &self,
        mut files: Vec<FileMatches>,
        roots: usize,
        too_long: &[String],
        texts: &Texts,
    ) -> ToolResult {
        let note = if too_long.is_empty() {
            String::new()
        } else {
            format!(
                "\n(Skipped {} with a line longer than {} MiB: {})",
                if too_long.len() == 1 {
                    "1 file".to_string()
                } else {
                    format!("{} files", too_long.len())
                },
                search::MAX_LINE_BYTES / (1024 * 1024),
                too_long.join(", ")
            )
        };
        let cap = self.options.total(texts.grep_default_max_matches);
        let mut remaining = cap;
        for f in &mut files {
            let mut kept = 0;
            let mut last_match = 0;
            for (i, h) in f.lines.iter().enumerate() {
                if !h.context {
                    if kept == remaining {
                        break;
                    }
                    kept += 1;
                    last_match = i;
                }
            }
            if kept < f.match_count() {
                // Keep the cut-off match's trailing context, drop the rest.
                let end = f.lines[last_match + 1..]
                    .iter()
                    .position(|h| !h.context)
                    .map_or(f.lines.len(), |p| last_match + 1 + p);
                f.lines.truncate(if kept == 0 { 0 } else { end });
            }
            remaining -= kept;
        }
        files.retain(|f| f.match_count() > 0);
        let count: usize = files.iter().map(FileMatches::match_count).sum();
        let location = self.location(roots);
        if count == 0 {
            return ToolResult::text(
                format!(
                    "No matches found for pattern \"{}\" {location}{}.{note}",
                    self.pattern,
                    self.filter_note()
                ),
                "No matches found",
            );
        }
        let limited = count >= cap;
        let limit_note = if limited {
            format!(" (results limited to {cap} matches for performance)")
        } else {
            String::new()
        };
        if self.options.names_only {
            return self.names_only(files, &location, &limit_note, limited);
        }
        let o = &self.options;
        if texts.grep_auto_context
            && auto_context::applies(count)
            && o.context.is_none()
            && o.before.is_none()
            && o.after.is_none()
        {
            auto_context::enrich(&mut files, count);
        }
        let term = if count == 1 { "match" } else { "matches" };
        let mut out = format!(
            "Found {count} {term} for pattern \"{}\" {location}{}{limit_note}",
            self.pattern,
            self.filter_note()
        );
        out.push_str(":\n---\n");
        for f in &files {
            out.push_str(&format!("File: {}\n", f.rel));
            for h in &f.lines {
                let sep = if h.context { '-' } else { ':' };
                out.push_str(&format!("L{}{sep} {}\n", h.line, h.text));
            }
            out.push_str("---\n");
        }
        let display = format!(
            "Found {count} {term}{}",
            if limited { " (limited)" } else { "" }
        );
        ToolResult::text(format!("{}{note}", search::js_trim(&out)), display)
    }
}

impl GrepInvocation {
    /// `names_only`: the files with matches, sorted, as today's Gemini CLI
    /// lists them.
    fn names_only(
        &self,
        files: Vec<FileMatches>,
        location: &str,
        limit_note: &str,
        limited: bool,
    ) -> ToolResult {
        let mut paths: Vec<String> = files.into_iter().map(|f| f.rel).collect();
        paths.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        let n = paths.len();
        let out = format!(
            "Found {n} files with matches for pattern \"{}\" {location}{}{limit_note}:\n{}",
            self.pattern,
            self.filter_note(),
            paths.join("\n")
        );
        let display = format!("Found {n} files{}", if limited { " (limited)" } else { "" });
        ToolResult::text(search::js_trim(&out).to_string(), display)
    }
}

/// `Error during grep search operation: <msg>` with error message `<msg>`.
fn execution_error(msg: &str) -> ToolResult {
    let mut r = ToolResult::error(
        ToolErrorKind::GrepExecutionError,
        msg,
        format!("Error during grep search operation: {msg}"),
    );
    r.llm_content = vec![gemini_rs_protocol::Part::text(format!(
        "Error during grep search operation: {msg}"
    ))];
    r
}

impl ToolInvocation for GrepInvocation {
    fn description(&self) -> String {
        let mut d = format!("'{}'", self.pattern);
        if let Some(inc) = &self.include {
            d.push_str(&format!(" in {inc}"));
        }
        if let Some(p) = &self.dir_path {
            d.push_str(&format!(" within {p}"));
        }
        d
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let ctx = ctx.clone();
            let this = self.clone();
            let task = tokio::task::spawn_blocking(move || this.run(&ctx, &cancel));
            match task.await {
                Ok(r) => r,
                Err(e) => execution_error(&e.to_string()),
            }
        })
    }
}
