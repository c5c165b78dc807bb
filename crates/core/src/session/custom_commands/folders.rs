//! The folders custom command files are read from, read again by
//! `/commands reload` and listed by `/commands list`.

use super::{CommandSource, CustomCommand, load};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where a session reads its command files: the extensions' `commands/`
/// folders, the user's and (in a trusted folder) the project's.
#[derive(Debug, Clone, Default)]
pub struct CommandFolders {
    /// `(extension name, its commands folder)`.
    pub extensions: Vec<(String, PathBuf)>,
    /// `~/.gemini/commands`.
    pub user: PathBuf,
    /// `<project>/.gemini/commands`, when the folder is trusted.
    pub project: Option<PathBuf>,
}

/// One folder of command files, as `/commands list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandFolder {
    /// `User`, `Project` or `Extension: <name>`.
    pub label: String,
    /// The folder.
    pub path: PathBuf,
    /// Its `.toml` files relative to it, sorted, or why it could not be read.
    pub files: Result<Vec<String>, FolderUnreadable>,
}

/// Why a command folder could not be read: the system's error.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct FolderUnreadable(Arc<std::io::Error>);

/// Two reasons are the same when they read the same (`io::Error` has no
/// equality of its own).
impl PartialEq for FolderUnreadable {
    fn eq(&self, other: &Self) -> bool {
        self.0.kind() == other.0.kind() && self.0.to_string() == other.0.to_string()
    }
}

impl Eq for FolderUnreadable {}

impl CommandFolders {
    /// The file commands and the warnings for files that cannot be used.
    pub fn load(&self) -> (Vec<CustomCommand>, Vec<String>) {
        load(&self.extensions, &self.user, self.project.as_deref())
    }

    /// The folders holding command files (user, project, then extensions
    /// by name), each with its files; missing or empty folders are left out.
    pub fn listing(&self) -> Vec<CommandFolder> {
        let mut extensions = self.extensions.clone();
        extensions.sort_by(|a, b| a.0.cmp(&b.0));
        let folders = std::iter::once(("User".to_string(), self.user.clone()))
            .chain(self.project.clone().map(|p| ("Project".to_string(), p)))
            .chain(
                extensions
                    .into_iter()
                    .map(|(name, dir)| (format!("Extension: {name}"), dir)),
            );
        folders
            .filter_map(|(label, path)| {
                let files = match toml_files(&path) {
                    Ok(files) if files.is_empty() => return None,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
                    Ok(files) => Ok(files),
                    Err(e) => Err(FolderUnreadable(Arc::new(e))),
                };
                Some(CommandFolder { label, path, files })
            })
            .collect()
    }
}

/// The `.toml` files under `dir`, relative to it with `/`, sorted.
fn toml_files(dir: &Path) -> std::io::Result<Vec<String>> {
    std::fs::read_dir(dir)?;
    let mut files = Vec::new();
    super::collect_toml(dir, &mut files);
    let mut out: Vec<String> = files
        .iter()
        .filter_map(|f| f.strip_prefix(dir).ok())
        .map(|rel| {
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    out.sort();
    Ok(out)
}

/// The commands after a reload: the files' commands read anew, then the
/// MCP prompts already known whose names no file took.
pub fn reloaded(current: &[CustomCommand], files: Vec<CustomCommand>) -> Vec<CustomCommand> {
    let mut out = files;
    let prompts = current
        .iter()
        .filter(|c| matches!(c.source, CommandSource::McpPrompt { .. }))
        .cloned();
    super::add_unnamed(&mut out, prompts);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_folders_with_files_and_reload_keeps_prompts() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user");
        std::fs::create_dir_all(user.join("git")).unwrap();
        std::fs::write(user.join("git/commit.toml"), "prompt = \"commit\"\n").unwrap();
        std::fs::write(user.join("hi.toml"), "prompt = \"hi\"\n").unwrap();
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let folders = CommandFolders {
            extensions: vec![("zed".into(), dir.path().join("missing"))],
            user: user.clone(),
            project: Some(empty),
        };
        let listing = folders.listing();
        assert_eq!(
            listing,
            vec![CommandFolder {
                label: "User".into(),
                path: user,
                files: Ok(vec!["git/commit.toml".into(), "hi.toml".into()]),
            }]
        );
        let prompt = CustomCommand {
            name: "ask".into(),
            description: "p".into(),
            source: CommandSource::McpPrompt {
                server: "s".into(),
                arguments: Vec::new(),
            },
        };
        let (files, warnings) = folders.load();
        assert!(warnings.is_empty(), "{warnings:?}");
        let names: Vec<String> = reloaded(&[prompt], files)
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["git:commit", "hi", "ask"]);
    }
}
