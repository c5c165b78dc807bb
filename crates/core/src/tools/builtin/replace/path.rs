//! Where a `replace` path points: Gemini CLI's `correctPath`.

use crate::workspace::{FilterOptions, Workspace};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// Directories `correctPath`'s search visits per workspace dir.
const MAX_SEARCH_DIRS: usize = 50;

/// A relative path that ends more than one file's path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "The file path '{path}' is ambiguous and matches multiple files. Please provide a more specific path. Matches: {}",
    matches.iter().map(|m| m.display().to_string()).collect::<Vec<_>>().join(", ")
)]
pub(super) struct AmbiguousPath {
    /// The path as given.
    pub path: String,
    /// Every file it could mean.
    pub matches: Vec<PathBuf>,
}

/// Gemini CLI's `correctPath`: an absolute path as is; a relative one
/// against the root when it exists there, else the one file below the
/// workspace dirs whose path ends with it; none found: against the root.
pub(super) fn correct_path(
    ws: &Workspace,
    p: &str,
    filter: &FilterOptions,
) -> Result<PathBuf, AmbiguousPath> {
    let direct = ws.resolve(p);
    if Path::new(p).is_absolute() || direct.exists() {
        return Ok(direct);
    }
    let wanted = p.trim_start_matches("./").replace('\\', "/");
    let Some(base) = Path::new(&wanted)
        .file_name()
        .map(std::ffi::OsStr::to_os_string)
    else {
        return Ok(direct);
    };
    let mut matches: Vec<PathBuf> = Vec::new();
    for dir in &ws.dirs() {
        for found in bfs_find(ws, dir, &base, filter) {
            if found.to_string_lossy().ends_with(&wanted) && !matches.contains(&found) {
                matches.push(found);
            }
        }
    }
    match matches.len() {
        0 => Ok(direct),
        1 => Ok(matches.remove(0)),
        _ => Err(AmbiguousPath {
            path: p.to_string(),
            matches,
        }),
    }
}

/// Breadth-first search for files named `name` below `root`, visiting at
/// most [`MAX_SEARCH_DIRS`] directories and skipping ignored entries.
fn bfs_find(
    ws: &Workspace,
    root: &Path,
    name: &std::ffi::OsStr,
    filter: &FilterOptions,
) -> Vec<PathBuf> {
    let mut queue = VecDeque::from([root.to_path_buf()]);
    let mut found = Vec::new();
    let mut scanned = 0;
    while let Some(dir) = queue.pop_front() {
        if scanned >= MAX_SEARCH_DIRS {
            break;
        }
        scanned += 1;
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<std::fs::DirEntry> = rd.filter_map(Result::ok).collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for entry in entries {
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ws.is_ignored(&path, filter) {
                continue;
            }
            let entry_name = entry.file_name();
            if ft.is_dir() {
                if !super::super::grep::HARD_EXCLUDED_DIRS
                    .contains(&entry_name.to_string_lossy().as_ref())
                {
                    queue.push_back(path);
                }
            } else if entry_name == name {
                found.push(path);
            }
        }
    }
    found
}
