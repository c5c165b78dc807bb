//! The workspace: its root directories, the boundary every tool path must
//! stay inside, ignore rules and file-kind detection.

mod atomic;
mod boundary;
mod filekind;
mod ignore;

pub use atomic::{CheckedWriteError, write_atomic, write_atomic_checked};
pub use boundary::realpath_lenient;
pub use filekind::{FileKind, decode_text, detect_file_kind, detect_kind, looks_binary, mime_type};

use ignore::IgnoreCache;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which ignore files to honour (`context.fileFiltering.*`, or a tool's
/// per-call overrides).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterOptions {
    /// Honour `.gitignore` (and `.git/info/exclude`) inside a git repo.
    pub respect_git_ignore: bool,
    /// Honour `.geminiignore` and the custom ignore files.
    pub respect_gemini_ignore: bool,
    /// Extra ignore files (`customIgnoreFilePaths`), relative to the root or
    /// absolute.
    pub custom_ignore_files: Vec<PathBuf>,
}

impl Default for FilterOptions {
    fn default() -> Self {
        FilterOptions {
            respect_git_ignore: true,
            respect_gemini_ignore: true,
            custom_ignore_files: Vec::new(),
        }
    }
}

/// The directories tools may touch, and the project's temp dir.
#[derive(Debug, Clone)]
pub struct Workspace {
    target_dir: PathBuf,
    dirs: Vec<PathBuf>,
    real_dirs: Vec<PathBuf>,
    project_temp_dir: PathBuf,
    real_temp_dir: PathBuf,
    filter: FilterOptions,
    ignore: Arc<IgnoreCache>,
}

impl Workspace {
    /// A workspace rooted at `target_dir` (the project root, absolute) with
    /// extra directories (`--include-directories`), and the project temp dir.
    pub fn new(target_dir: PathBuf, extra_dirs: Vec<PathBuf>, project_temp_dir: PathBuf) -> Self {
        let mut dirs = vec![target_dir.clone()];
        for d in extra_dirs {
            let abs = if d.is_absolute() {
                d
            } else {
                target_dir.join(d)
            };
            let abs = boundary::normalize(&abs);
            if !dirs.contains(&abs) {
                dirs.push(abs);
            }
        }
        let real_dirs = dirs.iter().map(|d| realpath_lenient(d)).collect();
        let real_temp_dir = realpath_lenient(&project_temp_dir);
        Workspace {
            target_dir,
            dirs,
            real_dirs,
            project_temp_dir,
            real_temp_dir,
            filter: FilterOptions::default(),
            ignore: Arc::new(IgnoreCache::default()),
        }
    }

    /// The same workspace with these session-level ignore options.
    pub fn with_filter_options(mut self, filter: FilterOptions) -> Self {
        self.filter = filter;
        self
    }

    /// The session-level ignore options.
    pub fn filter_options(&self) -> &FilterOptions {
        &self.filter
    }

    /// True when `abs` (an absolute path) is ignored by the ignore files
    /// `opts` selects. Paths outside the project root never are. Matchers
    /// are loaded on first use and cached for the session.
    pub fn is_ignored(&self, abs: &Path, opts: &FilterOptions) -> bool {
        self.ignore.is_ignored(&self.target_dir, abs, opts)
    }

    /// The project root (Gemini CLI's `targetDir`).
    pub fn target_dir(&self) -> &Path {
        &self.target_dir
    }

    /// All workspace directories, the root first.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The project temp dir (`~/.gemini/tmp/<sha256>`).
    pub fn project_temp_dir(&self) -> &Path {
        &self.project_temp_dir
    }

    /// `path.resolve(targetDir, p)`: absolute paths stay, relative ones are
    /// joined to the root; `.` and `..` are folded lexically.
    pub fn resolve(&self, p: &str) -> PathBuf {
        boundary::normalize(&self.target_dir.join(p))
    }

    /// True when `abs` (after resolving symlinks) is inside a workspace dir
    /// or the project temp dir.
    pub fn is_allowed(&self, abs: &Path) -> bool {
        let real = realpath_lenient(abs);
        self.real_dirs.iter().any(|d| real.starts_with(d)) || real.starts_with(&self.real_temp_dir)
    }

    /// Gemini CLI's `validatePathAccess`: `Ok` or the exact refusal text.
    /// A path holding a NUL byte or a line break is refused first: no
    /// file system call could use the former, and the latter is almost
    /// always a model's mistake that would create a surprising file name.
    pub fn check_access(&self, abs: &Path) -> Result<(), String> {
        if abs
            .as_os_str()
            .as_encoded_bytes()
            .iter()
            .any(|b| matches!(b, b'\0' | b'\n' | b'\r'))
        {
            return Err(format!(
                "Invalid path: {abs:?} contains a NUL byte or a line break."
            ));
        }
        if self.is_allowed(abs) {
            return Ok(());
        }
        let dirs: Vec<String> = self.dirs.iter().map(|d| d.display().to_string()).collect();
        Err(format!(
            "Path not in workspace: Attempted path \"{}\" resolves outside the allowed workspace directories: {} or the project temp directory: {}",
            abs.display(),
            dirs.join(", "),
            self.project_temp_dir.display()
        ))
    }

    /// `abs` relative to the root with `/` separators (the path itself when
    /// it is not below the root).
    pub fn relative(&self, abs: &Path) -> String {
        match abs.strip_prefix(&self.target_dir) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.to_string_lossy().replace('\\', "/"),
            Err(_) => abs.display().to_string(),
        }
    }
}
