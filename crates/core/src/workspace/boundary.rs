//! Lexical normalisation and symlink resolution for the workspace boundary.

use std::path::{Component, Path, PathBuf};

/// Folds `.` and `..` without touching the file system, as Node's
/// `path.resolve` does.
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Prefix(p) => out.push(p.as_os_str()),
            Component::RootDir => out.push("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    if out.as_os_str().is_empty() {
        out.push("/");
    }
    out
}

/// The real path of `path`: symlinks resolved for the longest existing
/// prefix, the missing tail appended as written.
pub fn realpath_lenient(path: &Path) -> PathBuf {
    let path = normalize(path);
    if let Ok(real) = std::fs::canonicalize(&path) {
        return real;
    }
    let mut tail = Vec::new();
    let mut cur = path.as_path();
    while let Some(parent) = cur.parent() {
        if let Some(name) = cur.file_name() {
            tail.push(name.to_owned());
        }
        if let Ok(real) = std::fs::canonicalize(parent) {
            let mut out = real;
            for n in tail.iter().rev() {
                out.push(n);
            }
            return out;
        }
        cur = parent;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_folds_dots() {
        assert_eq!(
            normalize(Path::new("/w/a/../b/./c")),
            PathBuf::from("/w/b/c")
        );
        assert_eq!(normalize(Path::new("/w/../../..")), PathBuf::from("/"));
    }

    #[test]
    fn realpath_keeps_missing_tail_and_follows_links() {
        let dir = tempfile::tempdir().unwrap();
        let real = std::fs::canonicalize(dir.path()).unwrap();
        std::os::unix::fs::symlink("/etc", real.join("out")).unwrap();
        assert_eq!(realpath_lenient(&real.join("x/y")), real.join("x/y"));
        assert_eq!(
            realpath_lenient(&real.join("out/nope")),
            PathBuf::from("/etc/nope")
        );
    }
}
