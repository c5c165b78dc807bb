//! Settings: the `settings.json` layers (system defaults, user, workspace,
//! system) merged in Gemini CLI's order, `$VAR` expansion, `.env` loading,
//! folder trust and the paths under `~/.gemini`.

mod credentials;
pub mod defaults;
pub mod dotenv;
mod env;
pub mod input_file;
pub(crate) mod jsonc;
pub(crate) mod layer_view;
mod legacy;
pub(crate) mod lenient;
mod merge;
mod paths;
pub(crate) mod projects;
mod schema;
mod system_mcp;
mod today;
pub mod trust;
mod trust_scan;
mod typed;
mod typed_admin;
mod typed_limits;
mod typed_ui;

pub use credentials::{ALLOW_KEY as ALLOW_WORKSPACE_CREDENTIALS, is_provider_key};
pub use env::Env;
pub use legacy::MigratedSetting;
pub use paths::GeminiPaths;
pub use projects::{flush_registrations, project_hash, write_registrations_behind};
pub use schema::{
    EditableSetting, SettingKind, editable_settings, settings_schema, settings_table,
};
pub use today::ResolvedAlias;
pub(crate) use today::merge as merge_json;
pub use trust_scan::FolderContents;
pub use typed::{SandboxSetting, TypedSettings};

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
    /// The file is not a regular file, or too large.
    #[error("Invalid settings file: {0}")]
    Input(#[from] input_file::InputFileError),
    /// The file is valid JSON but not an object.
    #[error("Invalid settings file {path}: the top level must be a JSON object")]
    NotAnObject {
        /// The file.
        path: PathBuf,
    },
    /// A file gemini-rs keeps (the trusted folders) could not be written.
    #[error("Could not write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
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

/// A settings value of the wrong type for its key. The value is left out
/// of [`Settings::typed`] (the key reads as unset, so its default applies)
/// and every other key is read as usual: one typo must not cost the user
/// the rest of their settings, nor stop the run. Front ends show these as
/// warnings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidSetting {
    /// The dotted path of the value, e.g. `tools.shell.timeout` or
    /// `tools.exclude[1]` for a list element.
    pub key: String,
    /// serde's reason, e.g. `invalid type: string "x", expected f64`.
    pub message: String,
    /// Where the value was set; `None` for settings built from a value
    /// ([`Settings::from_value`]).
    pub location: Option<SettingLocation>,
}

/// Where in which settings file a value was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingLocation {
    /// The settings file.
    pub file: PathBuf,
    /// 1-based line of the value (0 when it could not be found).
    pub line: usize,
    /// 1-based column of the value (0 when it could not be found).
    pub column: usize,
}

impl std::fmt::Display for InvalidSetting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Invalid value for setting '{}'", self.key)?;
        match &self.location {
            Some(at) if at.line > 0 => write!(
                f,
                " in {} at line {}, column {}",
                at.file.display(),
                at.line,
                at.column
            )?,
            Some(at) => write!(f, " in {}", at.file.display())?,
            None => {}
        }
        write!(f, ": {}; the setting is ignored.", self.message)
    }
}

/// The merged settings of a run, plus the layers they came from.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    merged: Value,
    layers: Vec<(Scope, PathBuf, Value)>,
    typed: TypedSettings,
    invalid: Vec<InvalidSetting>,
    migrated: Vec<MigratedSetting>,
    warnings: Vec<String>,
    workspace_credentials: bool,
    /// Whether the folder they were loaded for is trusted.
    trusted: bool,
}

/// The result of [`Settings::load`].
#[derive(Debug, Clone)]
pub struct LoadedSettings {
    /// The merged settings.
    pub settings: Settings,
}

/// The context file many agents share, read beside `GEMINI.md`.
const AGENTS_MD: &str = "AGENTS.md";

impl Settings {
    /// Settings from one JSON value (tests, embedding).
    pub fn from_value(mut value: Value) -> Self {
        let migrated = legacy::migrate(&mut value, None);
        Settings::from_parts(value, Vec::new(), migrated)
    }

    /// Reads the typed tree from `merged` once, noting each value of the
    /// wrong type with the file that set it.
    fn from_parts(
        merged: Value,
        layers: Vec<(Scope, PathBuf, Value)>,
        migrated: Vec<MigratedSetting>,
    ) -> Self {
        for m in &migrated {
            tracing::warn!("{m}");
        }
        let (typed, errors) = lenient::parse::<TypedSettings>(&merged);
        let files: Vec<(PathBuf, &Value)> = layers.iter().map(|(_, p, v)| (p.clone(), v)).collect();
        let invalid = errors
            .into_iter()
            .map(|(path, message)| {
                let target = value_at(&merged, &path);
                let location = target
                    .and_then(|t| lenient::locate(&files, &path, t))
                    .map(|(file, line, column)| SettingLocation { file, line, column });
                let invalid = InvalidSetting {
                    key: lenient::dotted(&path),
                    message,
                    location,
                };
                tracing::warn!("{invalid}");
                invalid
            })
            .collect();
        Settings {
            merged,
            layers,
            typed,
            invalid,
            migrated,
            warnings: Vec::new(),
            workspace_credentials: false,
            trusted: false,
        }
    }

    /// Reads and merges the layers. The workspace layer is read only when
    /// `trusted`, and never when the project root is the home directory
    /// (it would be the user file again). A layer that is not a regular
    /// file (or leaves the project, for the workspace's) or is over the
    /// size cap is skipped with a warning; the workspace layer loses what
    /// would send a credential unless the user allows it (see
    /// [`credentials`]).
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
        let mut warnings = Vec::new();
        let mut raw = Vec::new();
        for (scope, path) in files {
            let within = (scope == Scope::Workspace).then_some(root);
            match read_layer(&path, within) {
                Ok(Some(value)) => raw.push((scope, path, value)),
                Ok(None) => {}
                Err(LayerError::Skipped(why)) => {
                    let text = format!("Skipping settings file: {why}.");
                    tracing::warn!("{text}");
                    warnings.push(text);
                }
                Err(LayerError::Fatal(e)) => return Err(e),
            }
        }
        for (_, path, value) in &raw {
            for text in schema::unknown_warnings(path, value) {
                tracing::warn!("{text}");
                warnings.push(text);
            }
        }
        let allowed = credentials::allowed(&raw);
        if !allowed {
            warnings.extend(credentials::guard_workspace(&mut raw));
        }
        let mut merged = Value::Object(Default::default());
        let mut layers = Vec::new();
        let mut migrated = Vec::new();
        for (scope, path, mut value) in raw {
            jsonc::expand_env(&mut value, env);
            // Legacy keys move within their own file, so a newer key in a
            // later layer still wins; the layer keeps the file's own shape.
            let mut current = value.clone();
            migrated.extend(legacy::migrate(&mut current, Some(&path)));
            merge::merge_into(&mut merged, &current, "");
            layers.push((scope, path, value));
        }
        warnings.extend(system_mcp::drop_writable_commands(
            &mut merged,
            &layers,
            env,
        ));
        let mut settings = Settings::from_parts(merged, layers, migrated);
        settings.warnings = warnings;
        settings.workspace_credentials = allowed;
        settings.trusted = trusted;
        Ok(LoadedSettings { settings })
    }

    /// The settings as typed structs (read once, when the settings were
    /// loaded). Prefer this to [`Settings::get`].
    pub fn typed(&self) -> &TypedSettings {
        &self.typed
    }

    /// The values left out of [`Settings::typed`] because their type was
    /// wrong, in the order met.
    pub fn invalid_settings(&self) -> &[InvalidSetting] {
        &self.invalid
    }

    /// The legacy keys (`toolDiscoveryCommand`, `toolCallCommand`,
    /// `mcpServerCommand`) read at their new places, one per key and file,
    /// in load order. Front ends show them as warnings.
    pub fn migrated_settings(&self) -> &[MigratedSetting] {
        &self.migrated
    }

    /// Settings files skipped (not regular, too large), keys no version
    /// reads (naming file and key) and credential settings of the
    /// workspace left out, one sentence each, in load order. Front ends
    /// show them as warnings.
    pub fn load_warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Adds warnings of the start-up's other inputs (extensions).
    pub(crate) fn add_load_warnings(&mut self, more: Vec<String>) {
        self.warnings.extend(more);
    }

    /// Whether the user's or the system's settings let the workspace's
    /// settings and extensions use credentials
    /// (`security.allowWorkspaceCredentials`).
    pub fn workspace_credentials_allowed(&self) -> bool {
        self.workspace_credentials
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

    /// `security.folderTrust.enabled` (default true, as in today's Gemini
    /// CLI; `false` in the user settings turns the check off).
    pub fn folder_trust_enabled(&self) -> bool {
        self.typed
            .security
            .folder_trust
            .enabled
            .unwrap_or(defaults::FOLDER_TRUST)
    }

    /// `model.name` (empty counts as unset).
    pub fn model_name(&self) -> Option<String> {
        self.typed.model.name.clone().filter(|s| !s.is_empty())
    }

    /// `model.maxSessionTurns` (-1 = unlimited).
    pub fn max_session_turns(&self) -> i64 {
        self.typed
            .model
            .max_session_turns
            .unwrap_or(defaults::MAX_SESSION_TURNS)
    }

    /// `model.retry.initialDelayMs`: the first retry delay of model calls.
    pub fn retry_initial_delay_ms(&self) -> Option<u64> {
        self.typed.model.retry.initial_delay_ms
    }

    /// `context.includeDirectories`.
    pub fn include_directories(&self) -> Vec<String> {
        self.typed.context.include_directories.clone()
    }

    /// `context.fileFiltering.respectGitIgnore` (default true).
    pub fn respect_git_ignore(&self) -> bool {
        self.typed
            .context
            .file_filtering
            .respect_git_ignore
            .unwrap_or(defaults::RESPECT_GIT_IGNORE)
    }

    /// `context.fileFiltering.respectGeminiIgnore` (default true).
    pub fn respect_gemini_ignore(&self) -> bool {
        self.typed
            .context
            .file_filtering
            .respect_gemini_ignore
            .unwrap_or(defaults::RESPECT_GEMINI_IGNORE)
    }

    /// `context.fileFiltering.customIgnoreFilePaths`.
    pub fn custom_ignore_file_paths(&self) -> Vec<String> {
        self.typed
            .context
            .file_filtering
            .custom_ignore_file_paths
            .clone()
    }

    /// `context.fileName` (a string or a list, trimmed, empties dropped);
    /// `GEMINI.md` when unset or empty.
    pub fn context_file_names(&self) -> Vec<String> {
        let names: Vec<String> = self
            .typed
            .context
            .file_name
            .iter()
            .flatten()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() {
            vec![defaults::CONTEXT_FILE_NAME.to_string()]
        } else {
            names
        }
    }

    /// The context files read into the system instruction: those of
    /// [`Settings::context_file_names`], then `AGENTS.md` in a trusted
    /// folder unless `context.agentsMd` is false (a difference from Gemini
    /// CLI, which reads AGENTS.md only when `context.fileName` names it).
    pub fn context_files_read(&self) -> Vec<String> {
        let mut names = self.context_file_names();
        let agents = self.trusted && self.typed.context.agents_md != Some(false);
        if agents && !names.iter().any(|n| n == AGENTS_MD) {
            names.push(AGENTS_MD.to_string());
        }
        names
    }

    /// `context.discoveryMaxDirs`: how many directories below the project
    /// root are searched for context files.
    pub fn context_discovery_max_dirs(&self) -> Option<usize> {
        self.typed
            .context
            .discovery_max_dirs
            .and_then(|n| usize::try_from(n).ok())
    }

    /// `tools.allowed`: tools that run without asking.
    pub fn tools_allowed(&self) -> Vec<String> {
        self.typed.tools.allowed.clone()
    }

    /// `tools.exclude`: tools neither declared nor callable.
    pub fn tools_exclude(&self) -> Vec<String> {
        self.typed.tools.exclude.clone()
    }

    /// `tools.core`: when set, only these built-ins are registered.
    pub fn tools_core(&self) -> Option<Vec<String>> {
        self.typed.tools.core.clone()
    }
}

/// The value at `path` in `root`.
fn value_at<'a>(root: &'a Value, path: &[lenient::Segment]) -> Option<&'a Value> {
    path.iter().try_fold(root, |v, seg| match seg {
        lenient::Segment::Key(k) => v.get(k),
        lenient::Segment::Index(i) => v.get(i),
    })
}

/// Why a layer was not used.
enum LayerError {
    /// Not a regular file, outside its root or too large: skipped with
    /// this reason.
    Skipped(input_file::InputFileError),
    /// Unreadable or not valid JSON: the run stops.
    Fatal(ConfigError),
}

/// Reads one layer; `None` when the file does not exist or is empty.
/// `within`: the folder the file must stay in (symlinks followed).
fn read_layer(path: &Path, within: Option<&Path>) -> Result<Option<Value>, LayerError> {
    use input_file::InputFileError;
    let text = match input_file::read_input(path, within, input_file::MAX_INPUT_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() || e.is_directory() => return Ok(None),
        Err(InputFileError::Io { path, source }) => {
            return Err(LayerError::Fatal(ConfigError::Read { path, source }));
        }
        Err(e) => return Err(LayerError::Skipped(e)),
    };
    let stripped = jsonc::strip_comments(text.trim_start_matches('\u{feff}'));
    if stripped.trim().is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(&stripped).map_err(|e| {
        LayerError::Fatal(ConfigError::Parse {
            path: path.to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        })
    })?;
    if !value.is_object() {
        return Err(LayerError::Fatal(ConfigError::NotAnObject {
            path: path.to_path_buf(),
        }));
    }
    Ok(Some(value))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod typed_tests;
