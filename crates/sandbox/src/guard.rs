//! The protected paths that do not exist when the sandbox is prepared
//! (`.env`, `.gemini/`, `.git` in a workspace folder). No mount can cover
//! a name that is not there, and Landlock cannot refuse one name in a
//! folder it lets commands write, so these are watched instead: once a
//! sandboxed command has ended, what it created there is moved aside
//! (`.env` becomes `.env.refused-by-sandbox`), where nothing loads or
//! runs it, and reported.

use std::io;
use std::path::{Path, PathBuf};

/// The suffix of a moved-aside path.
pub const REFUSED_SUFFIX: &str = ".refused-by-sandbox";

/// A protected path a sandboxed command created, and what became of it.
#[derive(Debug)]
pub struct Refused {
    /// The path that appeared (e.g. `/w/.env`).
    pub path: PathBuf,
    /// Where it was moved, or why it could not be.
    pub moved_to: io::Result<PathBuf>,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.moved_to {
            Ok(to) => write!(
                f,
                "The sandbox refused {}: it did not exist when the session started and a \
                 sandboxed command created it; it was moved to {}.",
                self.path.display(),
                to.display()
            ),
            Err(e) => write!(
                f,
                "The sandbox refused {}: it did not exist when the session started and a \
                 sandboxed command created it, but it could not be moved aside ({e}); remove \
                 it before you use this folder outside the sandbox.",
                self.path.display()
            ),
        }
    }
}

/// The protected paths of `folders` that are missing now.
pub(crate) fn missing(folders: &[PathBuf], names: &[&str]) -> Vec<PathBuf> {
    folders
        .iter()
        .filter_map(|f| std::fs::canonicalize(f).ok())
        .filter(|f| f.is_dir())
        .flat_map(|f| names.iter().map(move |n| f.join(n)))
        .filter(|p| p.symlink_metadata().is_err())
        .collect()
}

/// Moves aside every path of `watched` that exists now.
pub(crate) fn refuse_created(watched: &[PathBuf]) -> Vec<Refused> {
    watched
        .iter()
        .filter(|p| p.symlink_metadata().is_ok())
        .map(|p| Refused {
            path: p.clone(),
            moved_to: move_aside(p),
        })
        .collect()
}

fn move_aside(path: &Path) -> io::Result<PathBuf> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?
        .to_string_lossy()
        .into_owned();
    for n in 1..100u32 {
        let suffix = if n == 1 {
            REFUSED_SUFFIX.to_string()
        } else {
            format!("{REFUSED_SUFFIX}-{n}")
        };
        let target = path.with_file_name(format!("{name}{suffix}"));
        if target.symlink_metadata().is_err() {
            std::fs::rename(path, &target)?;
            return Ok(target);
        }
    }
    Err(io::Error::from(io::ErrorKind::AlreadyExists))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_appeared_is_moved_aside_under_a_free_name() {
        let dir = std::env::temp_dir().join(format!("guard-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        let watched = missing(std::slice::from_ref(&dir), &[".git", ".env", ".gemini"]);
        let names: Vec<_> = watched.iter().filter_map(|p| p.file_name()).collect();
        assert_eq!(names, [".env", ".gemini"]);
        assert!(refuse_created(&watched).is_empty());
        // A name taken by an earlier refusal gets the next suffix.
        std::fs::write(dir.join(".env.refused-by-sandbox"), "old").unwrap();
        std::fs::write(dir.join(".env"), "new").unwrap();
        std::fs::create_dir(dir.join(".gemini")).unwrap();
        let refused = refuse_created(&watched);
        assert_eq!(refused.len(), 2);
        assert!(!dir.join(".env").exists() && !dir.join(".gemini").exists());
        let moved = std::fs::read_to_string(dir.join(".env.refused-by-sandbox-2")).unwrap();
        assert_eq!(moved, "new");
        assert!(dir.join(".gemini.refused-by-sandbox").is_dir());
        assert!(refused[0].to_string().contains("it was moved to"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
