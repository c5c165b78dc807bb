//! The in-process search behind `search_file_content`: ripgrep's walker
//! (`ignore`, parallel) and searcher (`grep-searcher` + `grep-regex`).
//!
//! It reproduces what v0.27.4's legacy tool got from `git grep` / `grep -r`:
//! - inside a git repo matching is case-insensitive (`git grep
//!   --ignore-case`), outside it is case-sensitive (`grep -E`);
//! - binary files (a NUL byte) are skipped (`grep -I`), symlinks met while
//!   walking are not followed (`grep -r`);
//! - `.git`, `node_modules`, `bower_components`, `.svn`, `.hg` are never
//!   entered; ignore files (gitignore only in a repo, `.geminiignore`,
//!   custom ignore files) are honoured by the walker itself, as ripgrep
//!   does, instead of a per-file check;
//! - file order: git's (paths sorted) inside a repo, `grep -r`'s (directory
//!   order, depth first) outside one;
//! - a line longer than [`MAX_LINE_BYTES`] is never held whole: the
//!   searcher's heap limit stops that file, which is reported as skipped.

use crate::workspace::{FilterOptions, Workspace};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::{WalkBuilder, WalkState};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// The longest line the searcher holds in memory (per search thread); a
/// file with a longer one is skipped.
pub(crate) const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;

/// Directories never searched.
pub(crate) const HARD_EXCLUDED_DIRS: [&str; 5] =
    ["node_modules", ".git", "bower_components", ".svn", ".hg"];

/// Directories never searched, even with `no_ignore`.
const VCS_DIRS: [&str; 3] = [".git", ".svn", ".hg"];

/// One file's matches: its path relative to the root and its lines.
#[derive(Debug, Clone)]
pub(crate) struct FileMatches {
    /// Path relative to the search root, `/`-separated.
    pub rel: String,
    /// The file's path.
    pub abs: PathBuf,
    /// Matching lines and the context lines asked for, by line number.
    pub lines: Vec<Hit>,
}

/// One line of a file's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hit {
    /// 1-based line number.
    pub line: u64,
    /// The line's text, trimmed as [`Query::trim`] says.
    pub text: String,
    /// True for a context line (`context`/`before`/`after`).
    pub context: bool,
}

impl FileMatches {
    /// How many of its lines are matches (not context).
    pub fn match_count(&self) -> usize {
        self.lines.iter().filter(|h| !h.context).count()
    }
}

/// What one root's search found: files with matches, files skipped for a
/// line over [`MAX_LINE_BYTES`] (relative paths), and how it stopped
/// early if it did.
#[derive(Debug, Default)]
pub(crate) struct RootResult {
    /// Files with matches, in Gemini CLI's order.
    pub files: Vec<FileMatches>,
    /// Files whose lines were too long to search, sorted.
    pub too_long: Vec<String>,
    /// Why the search ended early.
    pub stop: Option<Stop>,
}

/// How a search ended early, if it did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The deadline passed.
    Timeout,
    /// The call was cancelled.
    Cancelled,
}

/// What to search for and where.
pub(crate) struct Query<'a> {
    /// The pattern in `regex` syntax.
    pub pattern: &'a str,
    /// `include` glob, if any.
    pub include: Option<&'a globset::GlobMatcher>,
    /// Whether the include glob is matched against the whole relative path
    /// (it contains a `/`) or the file name.
    pub include_is_path: bool,
    /// Stop collecting after this many matches.
    pub cap: usize,
    /// Give up at this instant.
    pub deadline: Instant,
    /// Cancellation of the call.
    pub cancel: &'a CancellationToken,
    /// Ignore rules to honour.
    pub filter: &'a FilterOptions,
    /// Stop a file after this many matches (`max_matches_per_file`).
    pub per_file: Option<u64>,
    /// Context lines `(before, after)`.
    pub context: (usize, usize),
    /// Matching lines that also match this are left out
    /// (`exclude_pattern`).
    pub exclude: Option<&'a regex::Regex>,
    /// Search everything but version-control folders, ignoring ignore
    /// files and the usual excluded folders (`no_ignore`).
    pub no_ignore: bool,
    /// Keep leading white space (only trailing white space is cut), as
    /// today's Gemini CLI does when it shows context.
    pub keep_indent: bool,
}

impl Query<'_> {
    /// A line as the result shows it.
    fn trim<'t>(&self, line: &'t str) -> &'t str {
        if self.keep_indent {
            line.trim_end_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        } else {
            js_trim(line)
        }
    }
}

/// Collects one file's lines for [`search_root`].
struct Collect<'q, 'a> {
    query: &'q Query<'a>,
    counter: &'q AtomicUsize,
    full: &'q AtomicBool,
    lines: Vec<Hit>,
}

impl Collect<'_, '_> {
    fn push(&mut self, line: Option<u64>, bytes: &[u8], context: bool) {
        let text = String::from_utf8_lossy(bytes);
        let text = self.query.trim(&text).to_string();
        self.lines.push(Hit {
            line: line.unwrap_or(0),
            text,
            context,
        });
    }
}

impl Sink for Collect<'_, '_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        let q = self.query;
        if let Some(re) = q.exclude {
            let text = String::from_utf8_lossy(mat.bytes());
            if re.is_match(&text) {
                return Ok(!q.cancel.is_cancelled());
            }
        }
        self.push(mat.line_number(), mat.bytes(), false);
        if self.counter.fetch_add(1, Ordering::Relaxed) + 1 >= q.cap {
            self.full.store(true, Ordering::Relaxed);
            return Ok(false);
        }
        Ok(!q.cancel.is_cancelled())
    }

    fn context(&mut self, _: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        if matches!(ctx.kind(), SinkContextKind::Before | SinkContextKind::After) {
            self.push(ctx.line_number(), ctx.bytes(), true);
        }
        Ok(!self.query.cancel.is_cancelled())
    }
}

/// True when `dir` or an ancestor has a `.git`.
pub(crate) fn in_git_repo(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
}

/// Builds the line matcher (`\n` lines, CRLF-aware `$`).
pub(crate) fn matcher(
    pattern: &str,
    case_insensitive: bool,
) -> Result<RegexMatcher, grep_regex::Error> {
    RegexMatcherBuilder::new()
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .crlf(true)
        .line_terminator(Some(b'\n'))
        .build(pattern)
}

/// Searches one root: the files with matches, in Gemini CLI's order, those
/// skipped for a huge line, and how the search stopped early if it did.
pub(crate) fn search_root(
    ws: &Workspace,
    root: &Path,
    matcher: &RegexMatcher,
    q: &Query<'_>,
    git_order: bool,
    counter: &AtomicUsize,
) -> RootResult {
    let found: Mutex<Vec<FileMatches>> = Mutex::new(Vec::new());
    let too_long: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let stop: Mutex<Option<Stop>> = Mutex::new(None);
    let full = AtomicBool::new(false);
    let threads = std::thread::available_parallelism()
        .map_or(2, std::num::NonZero::get)
        .min(8);
    let walker = walker(ws, root, q).threads(threads).build_parallel();
    walker.run(|| {
        let mut searcher = SearcherBuilder::new()
            .binary_detection(BinaryDetection::quit(b'\x00'))
            .line_number(true)
            .heap_limit(Some(MAX_LINE_BYTES))
            .before_context(q.context.0)
            .after_context(q.context.1)
            .max_matches(q.per_file)
            .build();
        let found = &found;
        let too_long = &too_long;
        let stop = &stop;
        let full = &full;
        Box::new(move |entry| {
            if full.load(Ordering::Relaxed) {
                return WalkState::Quit;
            }
            if q.cancel.is_cancelled() || Instant::now() >= q.deadline {
                let why = if q.cancel.is_cancelled() {
                    Stop::Cancelled
                } else {
                    Stop::Timeout
                };
                if let Ok(mut s) = stop.lock() {
                    s.get_or_insert(why);
                }
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            let path = entry.path();
            let rel = match file_to_search(&entry, root, q) {
                Ok(rel) => rel,
                Err(state) => return state,
            };
            let mut sink = Collect {
                query: q,
                counter,
                full,
                lines: Vec::new(),
            };
            if let Err(e) = searcher.search_path(matcher, path, &mut sink) {
                tracing::debug!("search {}: {e}", path.display());
                if is_heap_limit(&e)
                    && let Ok(mut t) = too_long.lock()
                {
                    t.push(rel.clone());
                }
            }
            let lines = sink.lines;
            if lines.iter().any(|h| !h.context)
                && let Ok(mut f) = found.lock()
            {
                f.push(FileMatches {
                    rel,
                    abs: path.to_path_buf(),
                    lines,
                });
            }
            WalkState::Continue
        })
    });
    let mut files = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let stop = stop
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    files = in_gemini_order(files, root, git_order);
    let mut too_long = too_long
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    too_long.sort();
    RootResult {
        files,
        too_long,
        stop,
    }
}

/// The path (relative to `root`) of a walked entry to search, or what the
/// walk does instead: skip an excluded folder, pass over anything else
/// that is not a file, or a file `include` does not match.
fn file_to_search(
    entry: &ignore::DirEntry,
    root: &Path,
    q: &Query<'_>,
) -> Result<String, WalkState> {
    if entry.depth() == 0 {
        return Err(WalkState::Continue);
    }
    let Some(ft) = entry.file_type() else {
        return Err(WalkState::Continue);
    };
    if ft.is_dir() {
        let name = entry.file_name().to_string_lossy();
        let skipped: &[&str] = if q.no_ignore {
            &VCS_DIRS
        } else {
            &HARD_EXCLUDED_DIRS
        };
        if skipped.contains(&name.as_ref()) {
            return Err(WalkState::Skip);
        }
        return Err(WalkState::Continue);
    }
    if !ft.is_file() {
        return Err(WalkState::Continue);
    }
    let rel = rel_string(root, entry.path());
    if let Some(glob) = q.include {
        let subject = if q.include_is_path {
            rel.as_str()
        } else {
            rel.rsplit('/').next().unwrap_or("")
        };
        if !glob.is_match(subject) {
            return Err(WalkState::Continue);
        }
    }
    Ok(rel)
}

/// The files in Gemini CLI's order (git's byte order inside a repository,
/// its directory walk's order otherwise), each one's lines sorted once.
fn in_gemini_order(mut files: Vec<FileMatches>, root: &Path, git_order: bool) -> Vec<FileMatches> {
    if git_order {
        files.sort_by(|a, b| a.rel.as_bytes().cmp(b.rel.as_bytes()));
    } else {
        let mut order = DirOrder::default();
        let mut keyed: Vec<(Vec<usize>, FileMatches)> = files
            .into_iter()
            .map(|f| (order.key(root, &f.rel), f))
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.rel.cmp(&b.1.rel)));
        files = keyed.into_iter().map(|(_, f)| f).collect();
    }
    for f in &mut files {
        f.lines.sort_by_key(|h| h.line);
        f.lines.dedup_by_key(|h| h.line);
    }
    files
}

/// The searcher's error for a line over its heap limit.
fn is_heap_limit(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::Other
        && e.to_string().starts_with("configured allocation limit")
}

/// The walker with ripgrep's own ignore handling, configured as Gemini
/// CLI's rules: `.gitignore`, `.git/info/exclude` and the parents'
/// `.gitignore` only inside a git repo; the project's `.geminiignore` and
/// custom ignore files; no `.ignore`/`.rgignore`, no global git excludes.
/// With `no_ignore`, no ignore file at all.
fn walker(ws: &Workspace, root: &Path, q: &Query<'_>) -> WalkBuilder {
    let filter = q.filter;
    let mut b = WalkBuilder::new(root);
    b.standard_filters(false).hidden(false).follow_links(false);
    if q.no_ignore {
        return b;
    }
    if filter.respect_git_ignore {
        b.git_ignore(true)
            .git_exclude(true)
            .require_git(true)
            .parents(true);
    }
    if filter.respect_gemini_ignore {
        let target = ws.target_dir();
        let mut files = vec![target.join(".geminiignore")];
        files.extend(filter.custom_ignore_files.iter().map(|f| target.join(f)));
        for f in files.into_iter().filter(|f| f.is_file()) {
            if let Some(e) = b.add_ignore(&f) {
                tracing::debug!("ignore file {}: {e}", f.display());
            }
        }
    }
    b
}

/// `path` relative to `root` with `/` separators.
fn rel_string(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.to_string_lossy().replace('\\', "/")
}

/// JavaScript's `String.prototype.trim`: Unicode white space, line
/// terminators and the BOM, on both sides.
pub(crate) fn js_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// The order `grep -r` visits files in: each directory's entries in the
/// order the file system lists them, depth first.
#[derive(Default)]
struct DirOrder {
    dirs: HashMap<PathBuf, HashMap<OsString, usize>>,
}

impl DirOrder {
    /// Positions of each path component in its directory's listing.
    fn key(&mut self, root: &Path, rel: &str) -> Vec<usize> {
        let mut dir = root.to_path_buf();
        let mut key = Vec::new();
        for comp in rel.split('/') {
            let listing = self.dirs.entry(dir.clone()).or_insert_with(|| {
                std::fs::read_dir(&dir)
                    .map(|rd| {
                        rd.filter_map(Result::ok)
                            .enumerate()
                            .map(|(i, e)| (e.file_name(), i))
                            .collect()
                    })
                    .unwrap_or_default()
            });
            key.push(
                listing
                    .get(std::ffi::OsStr::new(comp))
                    .copied()
                    .unwrap_or(usize::MAX),
            );
            dir.push(comp);
        }
        key
    }
}
