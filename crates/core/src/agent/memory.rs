//! Project context files (`GEMINI.md`, or the names in `context.fileName`):
//! the global file, the files from the project root's git root (or home)
//! down to the working directory, and those below it, each framed and
//! appended to the system instruction. `@file.md` lines import other files.

use crate::workspace::{FilterOptions, Workspace};
use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

/// Most directories searched below the project root
/// (`context.discoveryMaxDirs`).
pub const DEFAULT_MAX_DIRS: usize = 200;
/// Deepest chain of `@file` imports followed.
const MAX_IMPORT_DEPTH: usize = 5;
/// Folders never searched for context files.
const SKIPPED: [&str; 6] = [
    ".git",
    "node_modules",
    "bower_components",
    ".svn",
    ".hg",
    "target",
];

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
}

/// Finds and reads the context files, in the order they are given to the
/// model: global, then upward (outermost first), then downward.
pub fn load_context_files(workspace: &Workspace, opts: &MemoryOptions<'_>) -> Vec<ContextFile> {
    let mut paths: Vec<PathBuf> = Vec::new();
    let push = |p: PathBuf, paths: &mut Vec<PathBuf>| {
        if p.is_file() && !paths.contains(&p) {
            paths.push(p);
        }
    };
    for name in opts.file_names {
        push(opts.gemini_dir.join(name), &mut paths);
    }
    let root = workspace.target_dir();
    for dir in upward_dirs(root, opts.home) {
        for name in opts.file_names {
            push(dir.join(name), &mut paths);
        }
    }
    for dir in downward_dirs(workspace, root, opts.max_dirs) {
        for name in opts.file_names {
            push(dir.join(name), &mut paths);
        }
    }
    paths
        .into_iter()
        .filter_map(|path| {
            let text = std::fs::read_to_string(&path).ok()?;
            let mut seen = HashSet::from([path.clone()]);
            let content = resolve_imports(&text, path.parent().unwrap_or(root), &mut seen, 0);
            Some(ContextFile { path, content })
        })
        .collect()
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

/// Replaces lines `@path` (a relative or absolute file) by that file's
/// content, framed, recursively up to the depth limit; cycles are cut.
fn resolve_imports(text: &str, base: &Path, seen: &mut HashSet<PathBuf>, depth: usize) -> String {
    let mut out = Vec::new();
    let mut in_code = false;
    for line in text.split('\n') {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        let target = line.trim().strip_prefix('@').filter(|t| {
            !in_code
                && !t.is_empty()
                && !t.contains(char::is_whitespace)
                && (t.contains('/') || t.contains('.'))
        });
        let Some(target) = target else {
            out.push(line.to_string());
            continue;
        };
        let path = base.join(target);
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        if depth >= MAX_IMPORT_DEPTH || seen.contains(&path) {
            out.push(format!(
                "<!-- Import skipped (cycle or depth limit): {target} -->"
            ));
            continue;
        }
        match std::fs::read_to_string(&path) {
            Ok(imported) => {
                seen.insert(path.clone());
                let inner =
                    resolve_imports(&imported, path.parent().unwrap_or(base), seen, depth + 1);
                seen.remove(&path);
                out.push(format!("<!-- Imported from: {target} -->\n{inner}\n<!-- End of import from: {target} -->"));
            }
            Err(_) => out.push(line.to_string()),
        }
    }
    out.join("\n")
}

/// The context files the settings name, found from the workspace, loaded
/// and formatted: `(file count, text)`.
pub fn context_from_settings(
    workspace: &Workspace,
    settings: &crate::config::Settings,
    gemini_dir: &Path,
    home: &Path,
) -> (usize, String) {
    let names = settings.context_file_names();
    let opts = MemoryOptions {
        file_names: &names,
        gemini_dir,
        home,
        max_dirs: settings
            .context_discovery_max_dirs()
            .unwrap_or(DEFAULT_MAX_DIRS),
    };
    let files = load_context_files(workspace, &opts);
    let text = format_context(&files, workspace.target_dir());
    (files.len(), text)
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
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn finds_global_upward_and_downward_files_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let home = base.join("home");
        let repo = base.join("repo");
        let root = repo.join("app");
        for d in [
            home.join(".gemini"),
            repo.join(".git"),
            root.join("sub/deep"),
            root.join("ignored"),
            root.join("node_modules"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(home.join(".gemini/GEMINI.md"), "GLOBAL").unwrap();
        std::fs::write(repo.join("GEMINI.md"), "REPO\n@imp/x.md").unwrap();
        std::fs::create_dir_all(repo.join("imp")).unwrap();
        std::fs::write(repo.join("imp/x.md"), "IMPORTED\n@../GEMINI.md").unwrap();
        std::fs::write(root.join("GEMINI.md"), "APP").unwrap();
        std::fs::write(root.join("sub/deep/GEMINI.md"), "DEEP").unwrap();
        std::fs::write(root.join("ignored/GEMINI.md"), "IGNORED").unwrap();
        std::fs::write(root.join("node_modules/GEMINI.md"), "NODE").unwrap();
        std::fs::write(root.join(".geminiignore"), "ignored/\n").unwrap();
        let ws = Workspace::new(root.clone(), vec![], base.join("tmp"));
        let names = vec!["GEMINI.md".to_string()];
        let opts = MemoryOptions {
            file_names: &names,
            gemini_dir: &home.join(".gemini"),
            home: &home,
            max_dirs: 200,
        };
        let files = load_context_files(&ws, &opts);
        let contents: Vec<&str> = files
            .iter()
            .map(|f| f.content.split('\n').next().unwrap())
            .collect();
        assert_eq!(contents, vec!["GLOBAL", "REPO", "APP", "DEEP"]);
        let repo_file = &files[1].content;
        assert!(
            repo_file.contains("<!-- Imported from: imp/x.md -->\nIMPORTED"),
            "{repo_file}"
        );
        assert!(
            repo_file.contains("Import skipped (cycle or depth limit): ../GEMINI.md"),
            "{repo_file}"
        );
        let text = format_context(&files[2..3], &root);
        assert_eq!(
            text,
            "--- Context from: GEMINI.md ---\nAPP\n--- End of Context from: GEMINI.md ---"
        );
    }
}
