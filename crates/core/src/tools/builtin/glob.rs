//! `glob` (FindFiles): files matching a glob pattern, recently modified ones
//! first. Also the file-globbing walker `read_many_files` shares.

use super::common::{Aliases, locale_compare, parse_params};
use super::grep::HARD_EXCLUDED_DIRS;
use super::list_directory::FileFilteringParams;
use super::shorten_path;
use super::{Builtin, Make};
use crate::catalogue::builtins::GLOB as SPEC;
use crate::tools::spec::identity_from_spec;
use crate::tools::{Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult};
use crate::workspace::FilterOptions;
use futures::future::BoxFuture;
use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use ignore::{WalkBuilder, WalkState};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};
use tokio_util::sync::CancellationToken;

/// The `glob` tool.
pub struct GlobTool;

/// `path` is the later name of `dir_path`.
const ALIASES: Aliases = SPEC.param_aliases;

/// The arguments of one call, after schema validation.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    pattern: String,
    #[serde(alias = "path")]
    dir_path: Option<String>,
    case_sensitive: Option<bool>,
    #[serde(flatten)]
    filtering: FileFilteringParams,
}

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "properties": {
                "pattern": {
                    "description": "The glob pattern to match against (e.g., '**/*.py', 'docs/*.md').",
                    "type": "string"
                },
                "dir_path": {
                    "description": "Optional: The absolute path to the directory to search within. If omitted, searches the root directory.",
                    "type": "string"
                },
                "case_sensitive": {
                    "description": "Optional: Whether the search should be case-sensitive. Defaults to false.",
                    "type": "boolean"
                },
                "respect_git_ignore": {
                    "description": "Optional: Whether to respect .gitignore patterns when finding files. Only available in git repositories. Defaults to true.",
                    "type": "boolean"
                },
                "respect_gemini_ignore": {
                    "description": "Optional: Whether to respect .geminiignore patterns when finding files. Defaults to true.",
                    "type": "boolean"
                }
            },
            "required": ["pattern"],
            "type": "object"
        })
    })
}

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(GlobTool)),
};

impl Tool for GlobTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        "Efficiently finds files matching specific glob patterns (e.g., `src/**/*.ts`, `**/*.md`), returning absolute paths sorted by modification time (newest first). Ideal for quickly locating files based on their name or path structure, especially in large codebases."
    }

    fn parameter_schema(&self) -> &Value {
        schema()
    }

    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let ws = &ctx.workspace;
        let params: Params = parse_params(args, ALIASES)?;
        let abs = ws.resolve(params.dir_path.as_deref().unwrap_or("."));
        ws.check_access(&abs).map_err(ToolError::invalid_params)?;
        match std::fs::metadata(&abs) {
            Err(_) => {
                return Err(ToolError::invalid_params(format!(
                    "Search path does not exist {}",
                    abs.display()
                )));
            }
            Ok(m) if !m.is_dir() => {
                return Err(ToolError::invalid_params(format!(
                    "Search path is not a directory: {}",
                    abs.display()
                )));
            }
            Ok(_) => {}
        }
        if params.pattern.trim().is_empty() {
            return Err(ToolError::invalid_params(
                "The 'pattern' parameter cannot be empty.",
            ));
        }
        Ok(Box::new(GlobInvocation {
            dir: params.dir_path.map(|_| abs),
            pattern: params.pattern,
            case_sensitive: params.case_sensitive.unwrap_or(false),
            filter: params.filtering.apply(ws.filter_options()),
        }))
    }
}

struct GlobInvocation {
    pattern: String,
    dir: Option<PathBuf>,
    case_sensitive: bool,
    filter: FilterOptions,
}

impl GlobInvocation {
    fn run(&self, ctx: &ToolContext, cancel: &CancellationToken) -> ToolResult {
        let ws = &ctx.workspace;
        let dirs: Vec<PathBuf> = match &self.dir {
            Some(d) => {
                if let Err(msg) = ws.check_access(d) {
                    return ToolResult::error(
                        ToolErrorKind::PathNotInWorkspace,
                        msg,
                        "Error: Path not in workspace.",
                    );
                }
                vec![d.clone()]
            }
            None => ws.dirs(),
        };
        let mut found: Vec<PathBuf> = Vec::new();
        for dir in &dirs {
            let pattern = if dir.join(&self.pattern).exists() {
                globset::escape(&self.pattern)
            } else {
                self.pattern.clone()
            };
            let spec = match FileGlob::new(&pattern, !self.case_sensitive, &[]) {
                Ok(s) => s,
                Err(e) => return glob_error(&e.to_string()),
            };
            found.extend(spec.walk(dir, cancel));
        }
        if cancel.is_cancelled() {
            return glob_error("The operation was aborted.");
        }
        found.sort();
        found.dedup();
        // Never report a path outside the workspace (a symlink's target).
        found.retain(|p| ws.is_allowed(p));
        let total = found.len();
        found.retain(|p| !ws.is_ignored(p, &self.filter));
        let ignored = total - found.len();
        let location = match dirs.as_slice() {
            [one] => format!("within {}", one.display()),
            many => format!("across {} workspace directories", many.len()),
        };
        if found.is_empty() {
            let location = match dirs.as_slice() {
                [one] => format!("within {}", one.display()),
                many => format!("within {} workspace directories", many.len()),
            };
            let mut msg = format!(
                "No files found matching pattern \"{}\" {location}",
                self.pattern
            );
            if ignored > 0 {
                msg.push_str(&format!(" ({ignored} files were ignored)"));
            }
            return ToolResult::text(msg, "No files found");
        }
        let sorted = sort_by_recency(found, SystemTime::now());
        let mut msg = format!(
            "Found {} file(s) matching \"{}\" {location}",
            sorted.len(),
            self.pattern
        );
        if ignored > 0 {
            msg.push_str(&format!(" ({ignored} additional files were ignored)"));
        }
        let list: Vec<String> = sorted.iter().map(|p| p.display().to_string()).collect();
        msg.push_str(&format!(
            ", sorted by modification time (newest first):\n{}",
            list.join("\n")
        ));
        ToolResult::text(msg, format!("Found {} matching file(s)", sorted.len()))
    }
}

fn glob_error(msg: &str) -> ToolResult {
    let text = format!("Error during glob search operation: {msg}");
    ToolResult::error(ToolErrorKind::GlobExecutionError, text.clone(), text)
}

/// Files modified in the last 24 hours first, newest first; then the rest
/// by `localeCompare` of the full path.
fn sort_by_recency(paths: Vec<PathBuf>, now: SystemTime) -> Vec<PathBuf> {
    const DAY: Duration = Duration::from_secs(24 * 60 * 60);
    let mut keyed: Vec<(Option<SystemTime>, PathBuf)> = paths
        .into_iter()
        .map(|p| {
            let mtime = std::fs::metadata(&p).and_then(|m| m.modified()).ok();
            let recent = mtime.filter(|t| now.duration_since(*t).map_or(true, |age| age < DAY));
            (recent, p)
        })
        .collect();
    keyed.sort_by(|(ta, a), (tb, b)| match (ta, tb) {
        (Some(x), Some(y)) => y.cmp(x).then_with(|| a.cmp(b)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => locale_compare(&a.to_string_lossy(), &b.to_string_lossy()),
    });
    keyed.into_iter().map(|(_, p)| p).collect()
}

/// A glob (or several, matched in one walk) over the files below a
/// directory, with node-glob's options as Gemini CLI uses them: `dot:
/// true`, files only, symlinks not followed, the hard-excluded directories
/// and extra `ignore` globs skipped.
pub(super) struct FileGlob {
    /// The relative patterns, matched against paths relative to the dir.
    relative: GlobSet,
    /// The absolute patterns, matched against absolute paths.
    absolute: GlobSet,
    /// Literal leading directories of a single relative pattern (walk
    /// starts there); empty otherwise.
    base: PathBuf,
    /// Deepest level a match can be at (`None` with `**` or an absolute
    /// pattern).
    max_depth: Option<usize>,
    excludes: Vec<Exclude>,
}

/// One `ignore` glob: prunes directories (`dir/**`) or drops files.
struct Exclude {
    file: GlobMatcher,
    dir: Option<GlobMatcher>,
}

fn glob(pattern: &str, nocase: bool) -> Result<globset::Glob, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(nocase)
        .backslash_escape(true)
        .empty_alternates(true)
        .build()
}

fn compile(pattern: &str, nocase: bool) -> Result<GlobMatcher, globset::Error> {
    glob(pattern, nocase).map(|g| g.compile_matcher())
}

fn has_magic(segment: &str) -> bool {
    segment.contains(['*', '?', '[', '{', '\\', '('])
}

impl FileGlob {
    /// Compiles `pattern` (relative to the walked directory, or absolute)
    /// and the `excludes` (relative globs).
    pub(super) fn new(
        pattern: &str,
        nocase: bool,
        excludes: &[String],
    ) -> Result<FileGlob, globset::Error> {
        Self::new_many(&[pattern.to_string()], nocase, excludes)
    }

    /// Compiles several patterns, matched together in one walk (a file
    /// matching any of them is found once).
    pub(super) fn new_many(
        patterns: &[String],
        nocase: bool,
        excludes: &[String],
    ) -> Result<FileGlob, globset::Error> {
        let mut relative = GlobSetBuilder::new();
        let mut absolute = GlobSetBuilder::new();
        let mut base = PathBuf::new();
        let mut max_depth = Some(0);
        for pattern in patterns {
            let is_absolute = pattern.starts_with('/');
            let trimmed = pattern.trim_start_matches("./");
            let segments: Vec<&str> = trimmed.trim_start_matches('/').split('/').collect();
            if is_absolute {
                absolute.add(glob(trimmed, nocase)?);
                max_depth = None;
                continue;
            }
            relative.add(glob(trimmed, nocase)?);
            if !nocase && patterns.len() == 1 {
                for seg in &segments[..segments.len().saturating_sub(1)] {
                    if has_magic(seg) || seg.is_empty() || *seg == ".." {
                        break;
                    }
                    base.push(seg);
                }
            }
            max_depth = match max_depth {
                Some(d) if !segments.iter().any(|s| s.contains("**")) => {
                    Some(d.max(segments.len()))
                }
                _ => None,
            };
        }
        let excludes = excludes
            .iter()
            .map(|e| {
                let e = e.trim_start_matches("./");
                Ok(Exclude {
                    file: compile(e, nocase)?,
                    dir: match e.strip_suffix("/**") {
                        Some(d) => Some(compile(d, nocase)?),
                        None => None,
                    },
                })
            })
            .collect::<Result<Vec<_>, globset::Error>>()?;
        Ok(FileGlob {
            relative: relative.build()?,
            absolute: absolute.build()?,
            base,
            max_depth,
            excludes,
        })
    }

    /// Matching files below `dir` (unsorted, absolute).
    pub(super) fn walk(&self, dir: &Path, cancel: &CancellationToken) -> Vec<PathBuf> {
        let start = dir.join(&self.base);
        if !start.is_dir() {
            return Vec::new();
        }
        let base_depth = self.base.components().count();
        let mut builder = WalkBuilder::new(&start);
        builder
            .standard_filters(false)
            .hidden(false)
            .follow_links(false);
        if let Some(d) = self.max_depth {
            builder.max_depth(Some(d.saturating_sub(base_depth)));
        }
        let out = Mutex::new(Vec::new());
        builder.build_parallel().run(|| {
            let out = &out;
            Box::new(move |entry| {
                if cancel.is_cancelled() {
                    return WalkState::Quit;
                }
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if entry.depth() == 0 {
                    return WalkState::Continue;
                }
                let Some(ft) = entry.file_type() else {
                    return WalkState::Continue;
                };
                let path = entry.path();
                let rel = path
                    .strip_prefix(dir)
                    .unwrap_or(path)
                    .to_string_lossy()
                    .replace('\\', "/");
                if ft.is_dir() {
                    let name = entry.file_name().to_string_lossy();
                    let pruned = HARD_EXCLUDED_DIRS.contains(&name.as_ref())
                        || self
                            .excludes
                            .iter()
                            .any(|e| e.dir.as_ref().is_some_and(|d| d.is_match(&rel)));
                    return if pruned {
                        WalkState::Skip
                    } else {
                        WalkState::Continue
                    };
                }
                // Files, and symlinks to files (not followed into dirs).
                if ft.is_symlink() && !path.is_file() {
                    return WalkState::Continue;
                }
                let matched = self.relative.is_match(&rel)
                    || (!self.absolute.is_empty()
                        && self.absolute.is_match(path.to_string_lossy().as_ref()));
                if matched
                    && !self.excludes.iter().any(|e| e.file.is_match(&rel))
                    && let Ok(mut v) = out.lock()
                {
                    v.push(path.to_path_buf());
                }
                WalkState::Continue
            })
        });
        out.into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl ToolInvocation for GlobInvocation {
    fn description(&self) -> String {
        let mut d = format!("'{}'", self.pattern);
        if let Some(dir) = &self.dir {
            d.push_str(&format!(
                " within {}",
                shorten_path(&dir.display().to_string())
            ));
        }
        d
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let ctx2 = ctx.clone();
            let inv = GlobInvocation {
                pattern: self.pattern.clone(),
                dir: self.dir.clone(),
                case_sensitive: self.case_sensitive,
                filter: self.filter.clone(),
            };
            match tokio::task::spawn_blocking(move || inv.run(&ctx2, &cancel)).await {
                Ok(r) => r,
                Err(e) => glob_error(&e.to_string()),
            }
        })
    }
}

#[cfg(test)]
mod tests;
