//! `hooksConfig.claudeCompat`: the hooks of Claude Code's own settings
//! files run too, as Claude hooks: the user's `~/.claude/settings.json`
//! and the project's `.claude/settings.json` and
//! `.claude/settings.local.json` (read only in a trusted folder; the
//! session reads none of them in an untrusted one).

use crate::config::input_file::{InputFileError, MAX_INPUT_BYTES, read_input};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The hooks of one Claude Code settings file.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaudeSettingsHooks {
    /// The file.
    pub path: PathBuf,
    /// True for the project's files (workspace hooks: first-sighting
    /// warning, sandboxed with `-s`).
    pub project: bool,
    /// Its `hooks` object.
    pub hooks: Map<String, Value>,
}

/// Why a Claude Code settings file was skipped.
#[derive(Debug, thiserror::Error)]
pub enum ClaudeSettingsError {
    /// It could not be read.
    #[error("Claude Code settings {}: {source}; its hooks do not run.", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: InputFileError,
    },
    /// It is not JSON (comments allowed).
    #[error("Claude Code settings {} is not valid JSON ({source}); its hooks do not run.", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The parse error.
        source: serde_json::Error,
    },
}

/// The part of a Claude Code settings file read here.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ClaudeSettings {
    #[serde(deserialize_with = "crate::config::lenient::wrong_type_as_none")]
    hooks: Option<Map<String, Value>>,
}

/// The Claude Code settings files to read: the user's, then (when
/// `trusted`) the project's shared and local ones.
pub fn files(root: &Path, home: &Path, trusted: bool) -> Vec<(PathBuf, bool)> {
    let mut out = vec![(home.join(".claude/settings.json"), false)];
    if trusted {
        out.push((root.join(".claude/settings.json"), true));
        out.push((root.join(".claude/settings.local.json"), true));
    }
    out
}

/// Reads the hooks of every file of [`files`] that exists; an unreadable
/// or invalid one is skipped with its error.
pub fn load(
    root: &Path,
    home: &Path,
    trusted: bool,
) -> (Vec<ClaudeSettingsHooks>, Vec<ClaudeSettingsError>) {
    let mut found = Vec::new();
    let mut errors = Vec::new();
    for (path, project) in files(root, home, trusted) {
        // The user's file may be the project's when the project is $HOME.
        if found.iter().any(|f: &ClaudeSettingsHooks| f.path == path) {
            continue;
        }
        match read_one(&path) {
            Ok(Some(hooks)) => found.push(ClaudeSettingsHooks {
                path,
                project,
                hooks,
            }),
            Ok(None) => {}
            Err(e) => errors.push(e),
        }
    }
    (found, errors)
}

/// The `hooks` of one file; `None` when it is missing or declares none.
fn read_one(path: &Path) -> Result<Option<Map<String, Value>>, ClaudeSettingsError> {
    let text = match read_input(path, None, MAX_INPUT_BYTES) {
        Ok(t) => t,
        Err(InputFileError::Missing { .. }) => return Ok(None),
        Err(source) => {
            return Err(ClaudeSettingsError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let settings: ClaudeSettings =
        serde_json::from_str(&crate::config::jsonc::strip_comments(&text)).map_err(|source| {
            ClaudeSettingsError::Json {
                path: path.to_path_buf(),
                source,
            }
        })?;
    Ok(settings.hooks.filter(|h| !h.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_user_and_trusted_project_files() {
        let home = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".claude")).unwrap();
        std::fs::create_dir_all(root.path().join(".claude")).unwrap();
        std::fs::write(
            home.path().join(".claude/settings.json"),
            r#"{"hooks": {"Stop": []}, "model": "x"}"#,
        )
        .unwrap();
        std::fs::write(
            root.path().join(".claude/settings.json"),
            "// shared\n{\"hooks\": {\"PreToolUse\": []}}",
        )
        .unwrap();
        std::fs::write(root.path().join(".claude/settings.local.json"), "{oops").unwrap();
        let (found, errors) = load(root.path(), home.path(), true);
        assert_eq!(found.len(), 2);
        assert!(!found[0].project && found[1].project);
        assert!(found[1].hooks.contains_key("PreToolUse"));
        assert_eq!(errors.len(), 1);
        assert!(
            errors[0]
                .to_string()
                .contains("settings.local.json is not valid JSON")
        );
        let (found, errors) = load(root.path(), home.path(), false);
        assert_eq!(found.len(), 1, "project files need a trusted folder");
        assert!(errors.is_empty());
    }
}
