//! Project context files (`GEMINI.md`, or the names in `context.fileName`):
//! the global file, the files from the project root's git root (or home)
//! down to the working directory, and those below it, each framed and
//! appended to the system instruction. `@file.md` imports other files, as
//! Gemini CLI 0.61 expands them (see [`imports`]).
//!
//! A context file is project input, so it may be hostile: a context file
//! that is a symlink must resolve, symlinks followed, inside a workspace
//! directory, the git root above it or `~/.gemini`, and an import inside
//! the context file's project root; either must be a regular file (a FIFO
//! would hang, `/dev/zero` never ends) of at most
//! [`MAX_CONTEXT_FILE_BYTES`]. A refused import becomes Gemini CLI's
//! `<!-- Import failed: ... -->` comment and a warning naming the file and
//! line.

use crate::workspace::{
    Beneath, FilterOptions, MAX_FILE_BYTES, OpenFailure, Workspace, open_regular_beneath,
    realpath_lenient,
};
use std::collections::{HashSet, VecDeque};

mod imports;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Most directories searched below the project root
/// (`context.discoveryMaxDirs`).
pub const DEFAULT_MAX_DIRS: usize = 200;
/// Largest context file or import read (`read_file`'s limit).
pub const MAX_CONTEXT_FILE_BYTES: u64 = MAX_FILE_BYTES;
/// Folders never searched for context files (version-control data); the
/// rest, `node_modules` included, is searched unless ignore rules exclude
/// it, as Gemini CLI searches.
const SKIPPED: [&str; 3] = [".git", ".svn", ".hg"];

/// One context file found and read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// Absolute path.
    pub path: PathBuf,
    /// Content with imports resolved.
    pub content: String,
}

/// Where and how to look for context files.
pub struct MemoryOptions<'a> {
    /// The names to look for (`GEMINI.md` by default).
    pub file_names: &'a [String],
    /// `~/.gemini`.
    pub gemini_dir: &'a Path,
    /// The user's home (the upward search stops there).
    pub home: &'a Path,
    /// Most directories searched downward.
    pub max_dirs: usize,
    /// False in an untrusted folder: only the global file (`~/.gemini`)
    /// is read, none of the workspace's (its folders, the folders above
    /// and below them, `--include-directories`), as Gemini CLI 0.61 does.
    pub workspace_files: bool,
}

/// The context files read, and warnings about what was refused.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedContext {
    /// The files, in the order they are given to the model.
    pub files: Vec<ContextFile>,
    /// One line per refused import or context file, naming the file (and
    /// line) and the reason.
    pub warnings: Vec<String>,
}

#[cfg(test)]
/// Finds and reads the context files, in the order they are given to the
/// model: global, then upward (outermost first), then downward.
pub fn load_context_files(workspace: &Workspace, opts: &MemoryOptions<'_>) -> Vec<ContextFile> {
    load_context(workspace, opts).files
}

/// [`load_context_files`] with the warnings about refused imports.
pub fn load_context(workspace: &Workspace, opts: &MemoryOptions<'_>) -> LoadedContext {
    let mut paths: Vec<PathBuf> = Vec::new();
    let push = |p: PathBuf, paths: &mut Vec<PathBuf>| {
        if p.is_file() && !paths.contains(&p) {
            paths.push(p);
        }
    };
    let root = workspace.target_dir();
    let (upward, downward) = if opts.workspace_files {
        (
            upward_dirs(root, opts.home),
            downward_dirs(workspace, root, opts.max_dirs),
        )
    } else {
        (Vec::new(), Vec::new())
    };
    // As Gemini CLI orders them: per name, the global file, then the
    // upward ones (outermost first), then those below, sorted by path.
    for name in opts.file_names {
        push(opts.gemini_dir.join(name), &mut paths);
        for dir in &upward {
            push(dir.join(name), &mut paths);
        }
        let mut below: Vec<PathBuf> = downward.iter().map(|d| d.join(name)).collect();
        below.sort();
        for path in below {
            push(path, &mut paths);
        }
    }
    // Where imports may lead: the workspace, the git root above it (Gemini
    // CLI's project root) and ~/.gemini.
    let git_root = upward.first().filter(|d| d.join(".git").exists());
    let mut allowed: Vec<PathBuf> = workspace.dirs();
    allowed.extend(git_root.cloned());
    allowed.push(opts.gemini_dir.to_path_buf());
    let allowed: Vec<PathBuf> = allowed.iter().map(|d| realpath_lenient(d)).collect();
    let mut out = LoadedContext::default();
    for path in paths {
        // A context file may sit where it was found, or lead (as a
        // symlink) where an import may.
        let dir = path.parent().unwrap_or(root);
        let mut own = allowed.clone();
        own.push(realpath_lenient(dir));
        let text = match read_allowed(&path, &own) {
            Ok(text) => text,
            Err(Refusal::Io(_)) => continue,
            Err(refusal) => {
                out.warnings.push(format!(
                    "Context file {} skipped: {}",
                    path.display(),
                    refusal.reason()
                ));
                continue;
            }
        };
        let content = expand_imports(&text, &path, &mut out.warnings);
        out.files.push(ContextFile { path, content });
    }
    out
}

/// `text` (the content of the context file `path`) with its `@` imports
/// expanded as Gemini CLI 0.61 does (see [`imports`]), each refused or
/// failed import added to `warnings`.
fn expand_imports(text: &str, path: &Path, warnings: &mut Vec<String>) -> String {
    let dir = path.parent().unwrap_or(Path::new("/"));
    let mut imports = imports::Imports {
        root: realpath_lenient(&imports::project_root(dir)),
        warnings,
    };
    imports.expand(text, path, dir, &HashSet::new(), 0)
}

/// Why a file was not read as context.
#[derive(Debug)]
enum Refusal {
    /// It resolves outside every allowed directory.
    Outside,
    /// A FIFO, socket or device.
    Special(&'static str),
    /// Over [`MAX_CONTEXT_FILE_BYTES`]; its size.
    TooLarge(u64),
    /// Missing or unreadable: as before, the line stays as written.
    Io(std::io::Error),
}

impl Refusal {
    /// The reason in words, for the warning.
    fn reason(&self) -> String {
        match self {
            Refusal::Outside => {
                "it resolves outside the workspace directories and ~/.gemini".to_string()
            }
            Refusal::Special(kind) => format!("it is not a regular file ({kind})"),
            Refusal::TooLarge(len) => format!(
                "it is {:.2}MB, over the {}MB limit",
                *len as f64 / (1024.0 * 1024.0),
                MAX_CONTEXT_FILE_BYTES / (1024 * 1024)
            ),
            Refusal::Io(e) => e.to_string(),
        }
    }

    /// The reason in Gemini CLI's import comment.
    fn comment_reason(&self) -> String {
        match self {
            Refusal::Outside => "Path traversal attempt".to_string(),
            other => other.reason(),
        }
    }
}

/// Reads `path` if, symlinks resolved, it lies inside one of `allowed`
/// (opened beneath that directory) and is a regular file within the limit.
fn read_allowed(path: &Path, allowed: &[PathBuf]) -> Result<String, Refusal> {
    let real = std::fs::canonicalize(path).map_err(Refusal::Io)?;
    let root = allowed
        .iter()
        .filter(|d| real.starts_with(d))
        .max_by_key(|d| d.as_os_str().len())
        .ok_or(Refusal::Outside)?;
    let rel = real
        .strip_prefix(root)
        .map_err(|_| Refusal::Outside)?
        .to_path_buf();
    let beneath = Beneath {
        root: root.clone(),
        rel,
    };
    let (file, _) =
        open_regular_beneath(&beneath, Some(MAX_CONTEXT_FILE_BYTES)).map_err(|f| match f {
            OpenFailure::Io(e) => Refusal::Io(e),
            OpenFailure::Outside => Refusal::Outside,
            OpenFailure::Directory => Refusal::Io(std::io::Error::from_raw_os_error(libc::EISDIR)),
            OpenFailure::Special(kind) => Refusal::Special(kind),
            OpenFailure::TooLarge(len) => Refusal::TooLarge(len),
        })?;
    let mut bytes = Vec::new();
    // The limit again, should the file grow after the check.
    file.take(MAX_CONTEXT_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(Refusal::Io)?;
    String::from_utf8(bytes).map_err(|e| Refusal::Io(std::io::Error::other(e)))
}

/// Directories from the git root containing `root` (or `home`, or `/`)
/// down to `root`, outermost first.
fn upward_dirs(root: &Path, home: &Path) -> Vec<PathBuf> {
    let mut chain = Vec::new();
    let mut cur = Some(root);
    while let Some(dir) = cur {
        if dir == home {
            break;
        }
        chain.push(dir.to_path_buf());
        if dir.join(".git").exists() {
            break;
        }
        cur = dir.parent();
    }
    chain.reverse();
    chain
}

/// Directories strictly below `root`, breadth first, ignore rules
/// honoured, at most `max_dirs` of them.
fn downward_dirs(workspace: &Workspace, root: &Path, max_dirs: usize) -> Vec<PathBuf> {
    let filter = FilterOptions::default();
    let mut out = Vec::new();
    let mut queue = VecDeque::from([root.to_path_buf()]);
    let mut visited = 0;
    while let Some(dir) = queue.pop_front() {
        visited += 1;
        if visited > max_dirs {
            break;
        }
        if dir != root {
            out.push(dir.clone());
        }
        // Folders queued beyond the bound would never be visited: stop
        // reading (and checking ignore rules) once the queue holds enough,
        // so a wide tree costs the bound, not its width.
        if visited + queue.len() >= max_dirs {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| !SKIPPED.iter().any(|s| e.file_name() == *s))
            .map(|e| e.path())
            .filter(|p| !workspace.is_ignored(p, &filter))
            .collect();
        subdirs.sort();
        queue.extend(subdirs);
    }
    out
}

/// The context the settings ask for: how many files, their formatted text
/// and the warnings about refused imports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SettingsContext {
    /// Context files read.
    pub file_count: usize,
    /// The text for the system instruction ([`format_context`]).
    pub text: String,
    /// Refused imports and context files, one line each.
    pub warnings: Vec<String>,
    /// The files themselves (for `/memory show`).
    pub files: Vec<ContextFile>,
}

/// The context files the settings name, found from the workspace (when
/// the folder is `trusted`), loaded and formatted.
pub fn context_from_settings(
    workspace: &Workspace,
    settings: &crate::config::Settings,
    extension_files: &[PathBuf],
    (gemini_dir, home): (&Path, &Path),
    trusted: bool,
) -> SettingsContext {
    let names = settings.context_files_read();
    let opts = MemoryOptions {
        file_names: &names,
        gemini_dir,
        home,
        max_dirs: settings
            .context_discovery_max_dirs()
            .unwrap_or(DEFAULT_MAX_DIRS),
        workspace_files: trusted,
    };
    let mut loaded = load_context(workspace, &opts);
    // The extensions' context files come after the others.
    for path in extension_files {
        if loaded.files.iter().any(|f| f.path == *path) {
            continue;
        }
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let content = expand_imports(&text, path, &mut loaded.warnings);
                loaded.files.push(ContextFile {
                    path: path.clone(),
                    content,
                });
            }
            Err(e) => loaded
                .warnings
                .push(format!("Could not read {}: {e}", path.display())),
        }
    }
    SettingsContext {
        file_count: loaded.files.len(),
        text: format_context(&loaded.files, workspace.target_dir()),
        warnings: loaded.warnings,
        files: loaded.files,
    }
}

/// The text appended to the system instruction: each file framed by
/// `--- Context from: <path> ---` / `--- End of Context from: <path> ---`.
pub fn format_context(files: &[ContextFile], root: &Path) -> String {
    files
        .iter()
        .filter(|f| !f.content.trim().is_empty())
        .map(|f| {
            let shown = f
                .path
                .strip_prefix(root)
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| f.path.display().to_string());
            format!(
                "--- Context from: {shown} ---\n{}\n--- End of Context from: {shown} ---",
                f.content.trim()
            )
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests;
