//! Settings: the `settings.json` layers (system defaults, user, workspace,
//! system) merged in Gemini CLI's order, `$VAR` expansion, `.env` loading,
//! folder trust and the paths under `~/.gemini`.

pub mod dotenv;
mod jsonc;
mod merge;
mod paths;
pub mod trust;

pub use jsonc::expand_str;
pub use paths::{GeminiPaths, project_hash};

use serde_json::Value;
use std::path::{Path, PathBuf};

/// A settings file that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("Error reading settings file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid JSON (comments allowed).
    #[error("Invalid settings file {path} at line {line}, column {column}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// The file is valid JSON but not an object.
    #[error("Invalid settings file {path}: the top level must be a JSON object")]
    NotAnObject {
        /// The file.
        path: PathBuf,
    },
}

/// Where a settings layer came from, lowest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `/etc/gemini-cli/system-defaults.json`.
    SystemDefaults,
    /// `~/.gemini/settings.json`.
    User,
    /// `<project>/.gemini/settings.json` (only in a trusted folder).
    Workspace,
    /// `/etc/gemini-cli/settings.json` (overrides everything).
    System,
}

/// The merged settings of a run, plus the layers they came from.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    merged: Value,
    layers: Vec<(Scope, PathBuf, Value)>,
}

/// The result of [`Settings::load`].
#[derive(Debug, Clone)]
pub struct LoadedSettings {
    /// The merged settings.
    pub settings: Settings,
}

impl Settings {
    /// Settings from one JSON value (tests, embedding).
    pub fn from_value(value: Value) -> Self {
        Settings {
            merged: value,
            layers: Vec::new(),
        }
    }

    /// Reads and merges the layers. The workspace layer is read only when
    /// `trusted`, and never when the project root is the home directory
    /// (it would be the user file again).
    pub fn load(
        root: &Path,
        paths: &GeminiPaths,
        trusted: bool,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<LoadedSettings, ConfigError> {
        let mut files = vec![
            (Scope::SystemDefaults, paths.system_defaults.clone()),
            (Scope::User, paths.user_settings()),
        ];
        let workspace = paths.workspace_settings(root);
        if trusted && workspace != paths.user_settings() {
            files.push((Scope::Workspace, workspace));
        }
        files.push((Scope::System, paths.system_settings.clone()));
        let mut merged = Value::Object(Default::default());
        let mut layers = Vec::new();
        for (scope, path) in files {
            let Some(mut value) = read_layer(&path)? else {
                continue;
            };
            jsonc::expand_env(&mut value, env);
            merge::merge_into(&mut merged, &value, "");
            layers.push((scope, path, value));
        }
        Ok(LoadedSettings {
            settings: Settings { merged, layers },
        })
    }

    /// The merged settings as one JSON value.
    pub fn as_value(&self) -> &Value {
        &self.merged
    }

    /// The layer of one scope, if its file existed.
    pub fn layer(&self, scope: Scope) -> Option<(&Path, &Value)> {
        self.layers
            .iter()
            .find(|(s, _, _)| *s == scope)
            .map(|(_, p, v)| (p.as_path(), v))
    }

    /// The value at a dotted path, e.g. `model.name`.
    pub fn get(&self, dotted: &str) -> Option<&Value> {
        dotted
            .split('.')
            .try_fold(&self.merged, |v, key| v.get(key))
            .filter(|v| !v.is_null())
    }

    fn bool_or(&self, dotted: &str, default: bool) -> bool {
        self.get(dotted).and_then(Value::as_bool).unwrap_or(default)
    }

    fn string(&self, dotted: &str) -> Option<String> {
        self.get(dotted)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    /// A list of strings (non-strings skipped); empty when absent.
    pub fn strings(&self, dotted: &str) -> Vec<String> {
        self.get(dotted)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `security.folderTrust.enabled` (default false).
    pub fn folder_trust_enabled(&self) -> bool {
        self.bool_or("security.folderTrust.enabled", false)
    }

    /// `model.name`.
    pub fn model_name(&self) -> Option<String> {
        self.string("model.name")
    }

    /// `model.maxSessionTurns` (-1 = unlimited).
    pub fn max_session_turns(&self) -> i64 {
        self.get("model.maxSessionTurns")
            .and_then(Value::as_i64)
            .unwrap_or(-1)
    }

    /// `model.retry.initialDelayMs`: the first retry delay of model calls.
    pub fn retry_initial_delay_ms(&self) -> Option<u64> {
        self.get("model.retry.initialDelayMs")
            .and_then(Value::as_u64)
    }

    /// `context.includeDirectories`.
    pub fn include_directories(&self) -> Vec<String> {
        self.strings("context.includeDirectories")
    }

    /// `context.fileFiltering.respectGitIgnore` (default true).
    pub fn respect_git_ignore(&self) -> bool {
        self.bool_or("context.fileFiltering.respectGitIgnore", true)
    }

    /// `context.fileFiltering.respectGeminiIgnore` (default true).
    pub fn respect_gemini_ignore(&self) -> bool {
        self.bool_or("context.fileFiltering.respectGeminiIgnore", true)
    }

    /// `context.fileFiltering.customIgnoreFilePaths`.
    pub fn custom_ignore_file_paths(&self) -> Vec<String> {
        self.strings("context.fileFiltering.customIgnoreFilePaths")
    }

    /// `context.fileName` (a string or a list, trimmed, empties dropped);
    /// `GEMINI.md` when unset or empty.
    pub fn context_file_names(&self) -> Vec<String> {
        let names: Vec<String> = match self.get("context.fileName") {
            Some(Value::String(s)) => vec![s.clone()],
            Some(Value::Array(_)) => self.strings("context.fileName"),
            _ => Vec::new(),
        };
        let names: Vec<String> = names
            .into_iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() {
            vec!["GEMINI.md".to_string()]
        } else {
            names
        }
    }

    /// `context.discoveryMaxDirs`: how many directories below the project
    /// root are searched for context files.
    pub fn context_discovery_max_dirs(&self) -> Option<usize> {
        self.get("context.discoveryMaxDirs")
            .and_then(Value::as_u64)
            .map(|n| n as usize)
    }

    /// `tools.allowed`: tools that run without asking.
    pub fn tools_allowed(&self) -> Vec<String> {
        self.strings("tools.allowed")
    }

    /// `tools.exclude`: tools neither declared nor callable.
    pub fn tools_exclude(&self) -> Vec<String> {
        self.strings("tools.exclude")
    }

    /// `tools.core`: when set, only these built-ins are registered.
    pub fn tools_core(&self) -> Option<Vec<String>> {
        self.get("tools.core")
            .and_then(Value::as_array)
            .map(|_| self.strings("tools.core"))
    }
}

/// Reads one layer; `None` when the file does not exist.
fn read_layer(path: &Path) -> Result<Option<Value>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let stripped = jsonc::strip_comments(text.trim_start_matches('\u{feff}'));
    if stripped.trim().is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(&stripped).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    if !value.is_object() {
        return Err(ConfigError::NotAnObject {
            path: path.to_path_buf(),
        });
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn setup(user: &str, workspace: &str) -> (tempfile::TempDir, GeminiPaths, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let root = dir.path().join("work");
        std::fs::create_dir_all(home.join(".gemini")).unwrap();
        std::fs::create_dir_all(root.join(".gemini")).unwrap();
        std::fs::write(home.join(".gemini/settings.json"), user).unwrap();
        std::fs::write(root.join(".gemini/settings.json"), workspace).unwrap();
        let paths = GeminiPaths::new(home, dir.path().join("sys.json"), dir.path().join("d.json"));
        (dir, paths, root)
    }

    #[test]
    fn workspace_overrides_user_when_trusted() {
        let (_d, paths, root) = setup(
            r#"{"model": {"name": "u", "maxSessionTurns": 3}, "tools": {"exclude": ["a"]}}"#,
            r#"{"model": {"name": "$W"}, // comment
               "tools": {"exclude": ["b"]}}"#,
        );
        let env = |k: &str| (k == "W").then(|| "w".to_string());
        let s = Settings::load(&root, &paths, true, &env).unwrap().settings;
        assert_eq!(s.model_name().as_deref(), Some("w"));
        assert_eq!(s.max_session_turns(), 3);
        assert_eq!(s.tools_exclude(), vec!["a", "b"]);
        let s = Settings::load(&root, &paths, false, &env).unwrap().settings;
        assert_eq!(s.model_name().as_deref(), Some("u"));
        assert!(s.layer(Scope::Workspace).is_none());
    }

    #[test]
    fn invalid_file_names_line_and_column() {
        let (_d, paths, root) = setup("{\n  \"a\": 1,\n  oops\n}", "{}");
        let err = Settings::load(&root, &paths, true, &|_| None).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("settings.json at line 3, column 3"), "{text}");
    }

    #[test]
    fn defaults() {
        let s = Settings::from_value(json!({}));
        assert!(s.respect_git_ignore());
        assert_eq!(s.max_session_turns(), -1);
        assert_eq!(s.tools_core(), None);
        assert!(!s.folder_trust_enabled());
        assert_eq!(s.context_file_names(), ["GEMINI.md"]);
        let s = Settings::from_value(json!({"context": {"fileName": [" AGENTS.md", ""]}}));
        assert_eq!(s.context_file_names(), ["AGENTS.md"]);
    }
}
