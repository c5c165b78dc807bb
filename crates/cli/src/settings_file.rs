//! Editing one settings file (the user's or a project's), keeping the rest
//! of it: `mcp add|remove` and the UI's `/skills disable|enable` use it.

use gemini_rs_core::{GeminiPaths, Settings, SettingsScope};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Which settings file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileScope {
    /// `~/.gemini/settings.json`.
    User,
    /// `<project>/.gemini/settings.json`.
    Project,
}

/// One settings file as read.
pub struct SettingsFile {
    /// The file.
    pub path: PathBuf,
    /// Its settings (comments dropped).
    pub value: Map<String, Value>,
    /// Whether it had comments (they are lost on writing).
    pub had_comments: bool,
}

/// Reads one file through the settings loader (comments allowed, `$VAR`s
/// left as written).
pub fn read(path: &Path, scope: FileScope) -> Result<SettingsFile, String> {
    let text = match gemini_rs_core::read_input(path, None, gemini_rs_core::MAX_INPUT_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() => String::new(),
        Err(e) => return Err(e.to_string()),
    };
    if text.trim().is_empty() {
        return Ok(SettingsFile {
            path: path.to_path_buf(),
            value: Map::new(),
            had_comments: false,
        });
    }
    let had_comments = serde_json::from_str::<Value>(text.trim_start_matches('\u{feff}')).is_err();
    // Load only this file: the other layers point at nothing.
    let missing = path.with_file_name(".gemini-rs-no-such-file");
    let (paths, root, layer) = match scope {
        FileScope::User => {
            let home = path
                .parent()
                .and_then(Path::parent)
                .unwrap_or(Path::new("/"))
                .to_path_buf();
            let paths = GeminiPaths::new(home, missing.clone(), missing);
            (
                paths,
                PathBuf::from("/nonexistent-gemini-rs-root"),
                SettingsScope::User,
            )
        }
        FileScope::Project => {
            let root = path
                .parent()
                .and_then(Path::parent)
                .unwrap_or(Path::new("/"))
                .to_path_buf();
            let paths = GeminiPaths::new(missing.clone(), missing.clone(), missing);
            (paths, root, SettingsScope::Workspace)
        }
    };
    let loaded = Settings::load(&root, &paths, true, &|_| None).map_err(|e| e.to_string())?;
    let value = loaded
        .settings
        .layer(layer)
        .and_then(|(_, v)| v.as_object().cloned())
        .unwrap_or_default();
    Ok(SettingsFile {
        path: path.to_path_buf(),
        value,
        had_comments,
    })
}

/// Writes the file (atomically), creating its folder. A symlink is
/// followed only within the folder that holds `.gemini/` (the project
/// or the home folder), as the settings loader reads it.
pub fn write(file: &SettingsFile) -> Result<(), String> {
    let text = serde_json::to_string_pretty(&Value::Object(file.value.clone()))
        .map_err(|e| e.to_string())?;
    let root = file
        .path
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("/"));
    gemini_rs_core::write_atomic_within(&file.path, root, format!("{text}\n").as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", file.path.display()))
}

/// The note to show after writing a file whose comments were lost.
pub fn comments_note(file: &SettingsFile) -> Option<String> {
    file.had_comments.then(|| {
        format!(
            "Note: {} contained comments; they were not kept when the file was rewritten.",
            file.path.display()
        )
    })
}

/// Sets (or with `None` removes) the dotted key `dotted` (`general.vimMode`)
/// in the settings file at `path`, keeping the rest; the note to show
/// about lost comments, if any.
pub fn set_key(
    path: &Path,
    scope: FileScope,
    dotted: &str,
    value: Option<Value>,
) -> Result<Option<String>, String> {
    let mut file = read(path, scope)?;
    let mut parts: Vec<&str> = dotted.split('.').collect();
    let Some(last) = parts.pop() else {
        return Err("empty settings key".to_string());
    };
    let mut map = &mut file.value;
    let mut walked = String::new();
    for part in parts {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(part);
        let entry = map.entry(part).or_insert_with(|| Value::Object(Map::new()));
        map = entry
            .as_object_mut()
            .ok_or_else(|| format!("{walked} in {} is not an object.", path.display()))?;
    }
    match value {
        Some(v) => {
            map.insert(last.to_string(), v);
        }
        None => {
            map.remove(last);
        }
    }
    write(&file)?;
    Ok(comments_note(&file))
}
