//! The workspace: its root directories, the boundary every tool path must
//! stay inside, ignore rules and file-kind detection.

mod atomic;
mod beneath;
mod boundary;
mod filekind;
mod ignore;
pub mod template;
mod walk;

pub use atomic::{CheckedWriteError, write_atomic, write_atomic_within, write_beneath};
pub use beneath::{Beneath, escaped, not_regular_message, special_kind};
pub use boundary::realpath_lenient;
pub use filekind::{FileKind, decode_text, detect_kind, mime_type};

use ignore::IgnoreCache;
use std::fs::{File, Metadata};

/// Why `/directory add` refused a directory.
#[derive(Debug, thiserror::Error)]
pub enum AddDirError {
    /// The path is missing or not a directory.
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// It is a workspace directory already.
    #[error("{} is already in the workspace", .0.display())]
    AlreadyAdded(PathBuf),
    /// A thread panicked while holding the directory list.
    #[error("the workspace is unavailable")]
    Unavailable,
}
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Files above this size are not read whole (`read_file`'s limit, also
/// used by `read_many_files`, `replace`, `@` references and context-file
/// imports): reading a multi-gigabyte file into memory would abort.
pub const MAX_FILE_BYTES: u64 = 20 * 1024 * 1024;

/// The refusal text for a file over [`MAX_FILE_BYTES`]:
/// `File size exceeds the 20MB limit: /w/big (25.00MB)`.
pub fn too_large_message(path: &Path, len: u64) -> String {
    let mb = len as f64 / (1024.0 * 1024.0);
    format!(
        "File size exceeds the 20MB limit: {} ({mb:.2}MB)",
        path.display()
    )
}

/// Why [`Workspace::open_regular`] gave no file.
#[derive(Debug)]
pub enum OpenFailure {
    /// The open failed (not found, permission, ...).
    Io(io::Error),
    /// The path resolves outside the workspace (at check or at open).
    Outside,
    /// The path is a directory.
    Directory,
    /// A FIFO, socket or device, named in words (see [`special_kind`]).
    Special(&'static str),
    /// A regular file over the size limit asked for; its size.
    TooLarge(u64),
}

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

/// The workspace directories and their resolved forms, shared by every
/// copy of a workspace (`/directory add` grows them for all).
#[derive(Debug, Default)]
struct Dirs {
    dirs: Vec<PathBuf>,
    real: Vec<PathBuf>,
}

/// The directories tools may touch, and the project's temp dir.
#[derive(Debug, Clone)]
pub struct Workspace {
    target_dir: PathBuf,
    dirs: Arc<std::sync::RwLock<Dirs>>,
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
        let real = dirs.iter().map(|d| realpath_lenient(d)).collect();
        let real_temp_dir = realpath_lenient(&project_temp_dir);
        Workspace {
            target_dir,
            dirs: Arc::new(std::sync::RwLock::new(Dirs { dirs, real })),
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
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.dirs.read().map(|d| d.dirs.clone()).unwrap_or_default()
    }

    /// Adds a directory (`/directory add`): it must exist; a relative path
    /// is taken from the root, `~/` from `home`. Every copy of this
    /// workspace sees it.
    pub fn add_dir(&self, path: &str, home: &Path) -> Result<PathBuf, AddDirError> {
        let expanded = match path.strip_prefix("~/") {
            Some(rest) => home.join(rest),
            None => PathBuf::from(path),
        };
        let abs = boundary::normalize(&self.target_dir.join(expanded));
        if !abs.is_dir() {
            return Err(AddDirError::NotADirectory(abs));
        }
        let mut dirs = self.dirs.write().map_err(|_| AddDirError::Unavailable)?;
        if dirs.dirs.contains(&abs) {
            return Err(AddDirError::AlreadyAdded(abs));
        }
        dirs.real.push(realpath_lenient(&abs));
        dirs.dirs.push(abs.clone());
        Ok(abs)
    }

    /// The project temp dir (`~/.gemini/tmp/<slug>`).
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
        let inside = self
            .dirs
            .read()
            .is_ok_and(|d| d.real.iter().any(|d| real.starts_with(d)));
        inside || real.starts_with(&self.real_temp_dir)
    }

    /// Gemini CLI's `validatePathAccess`: `Ok` or the refusal (its text is
    /// Gemini CLI's exact wording).
    /// A path holding a NUL byte or a line break is refused first: no
    /// file system call could use the former, and the latter is almost
    /// always a model's mistake that would create a surprising file name.
    pub fn check_access(&self, abs: &Path) -> Result<(), AccessError> {
        if abs
            .as_os_str()
            .as_encoded_bytes()
            .iter()
            .any(|b| matches!(b, b'\0' | b'\n' | b'\r'))
        {
            return Err(AccessError::BadPath(abs.to_path_buf()));
        }
        if self.is_allowed(abs) {
            return Ok(());
        }
        Err(AccessError::Outside(self.outside_message(abs)))
    }

    /// The refusal text for a path outside every workspace directory.
    pub fn outside_message(&self, abs: &Path) -> String {
        let dirs: Vec<String> = self
            .dirs()
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        format!(
            "Path not in workspace: Attempted path \"{}\" resolves outside the allowed workspace directories: {} or the project temp directory: {}",
            abs.display(),
            dirs.join(", "),
            self.project_temp_dir.display()
        )
    }

    /// `abs` resolved (symlinks followed) and split into the innermost
    /// workspace directory (or the project temp dir) holding it and the
    /// symlink-free path below it; `None` when it is outside them all.
    /// Opening through the result never leaves that directory (see
    /// [`Beneath`]).
    pub fn beneath(&self, abs: &Path) -> Option<Beneath> {
        let real = realpath_lenient(abs);
        let guard = self.dirs.read().ok()?;
        guard
            .real
            .iter()
            .chain(std::iter::once(&self.real_temp_dir))
            .filter(|d| real.starts_with(d))
            .max_by_key(|d| d.as_os_str().len())
            .and_then(|root| {
                let rel = real.strip_prefix(root).ok()?.to_path_buf();
                Some(Beneath {
                    root: root.clone(),
                    rel,
                })
            })
    }

    /// Opens `abs` for reading beneath its workspace directory, refusing
    /// directories, FIFOs, sockets and devices (without blocking on them)
    /// and, with `max_bytes`, files larger than that.
    pub fn open_regular(
        &self,
        abs: &Path,
        max_bytes: Option<u64>,
    ) -> Result<(File, Metadata), OpenFailure> {
        let Some(path) = self.beneath(abs) else {
            return Err(OpenFailure::Outside);
        };
        open_regular_beneath(&path, max_bytes)
    }

    /// [`write_beneath`] for `abs`, checked against the workspace: the
    /// write never lands outside the directory `abs` resolved into.
    pub fn write_checked(
        &self,
        abs: &Path,
        bytes: &[u8],
        unchanged: impl FnOnce(&Path) -> io::Result<bool>,
    ) -> Result<(), CheckedWriteError> {
        match self.beneath(abs) {
            Some(path) => write_beneath(&path, bytes, unchanged),
            None => Err(CheckedWriteError::Io(io::Error::from_raw_os_error(
                libc::EXDEV,
            ))),
        }
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

/// [`Workspace::open_regular`] for an already split path.
pub fn open_regular_beneath(
    path: &Beneath,
    max_bytes: Option<u64>,
) -> Result<(File, Metadata), OpenFailure> {
    let file = path.open_read().map_err(|e| {
        if escaped(&e) {
            return OpenFailure::Outside;
        }
        // A socket cannot be opened (ENXIO): name it instead.
        if let Ok(meta) = path.metadata()
            && let Some(kind) = special_kind(&meta)
        {
            return OpenFailure::Special(kind);
        }
        OpenFailure::Io(e)
    })?;
    let meta = file.metadata().map_err(OpenFailure::Io)?;
    if meta.is_dir() {
        return Err(OpenFailure::Directory);
    }
    if let Some(kind) = special_kind(&meta) {
        return Err(OpenFailure::Special(kind));
    }
    if let Some(max) = max_bytes
        && meta.len() > max
    {
        return Err(OpenFailure::TooLarge(meta.len()));
    }
    Ok((file, meta))
}

/// Why a path may not be used (`Display` is Gemini CLI's exact text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// The path holds a NUL byte or a line break.
    #[error("Invalid path: {0:?} contains a NUL byte or a line break.")]
    BadPath(PathBuf),
    /// The path is outside every workspace folder (the refusal text).
    #[error("{0}")]
    Outside(String),
}

impl From<AccessError> for String {
    fn from(e: AccessError) -> String {
        e.to_string()
    }
}

/// What a path that is not a regular file is, in words ("a FIFO").
pub(crate) fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a regular file"
    }
}
