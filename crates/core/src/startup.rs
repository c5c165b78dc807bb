//! The one start-up load: settings (every layer, the project's only in a
//! trusted folder) and extensions, read once per process into typed values
//! that the session and the session-less queries share. Nothing below reads
//! them again: the extension loader is private to this module, so a second
//! read cannot be written elsewhere.

use crate::config::trust::{self, Trust};
use crate::config::{ConfigError, Env, GeminiPaths, Settings};
use crate::extensions::{self, Extension};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a process knows before any session starts.
#[derive(Debug, Clone)]
pub struct Startup {
    /// The project root (the working directory, canonical).
    pub root: PathBuf,
    /// Home paths (`~/.gemini`, system files).
    pub paths: GeminiPaths,
    /// The merged settings: the project layer only when `trusted`.
    pub settings: Settings,
    /// Whether the folder is trusted.
    pub trusted: bool,
    /// How trust was decided (`Unknown`: no rule covers the folder).
    pub trust: Trust,
    /// The enabled extensions (the project's and the user's), read once.
    pub extensions: Arc<Vec<Extension>>,
    /// Every extension read, the ones switched off here too (for `-e`).
    installed: Arc<Vec<Extension>>,
    /// The environment the engine reads variables from.
    pub env: Env,
}

impl Startup {
    /// The dialect the folder's settings and `GEMINI_RS_DIALECT` choose.
    pub fn dialect(&self) -> crate::catalogue::dialect::Dialect {
        let env = self.env.var(crate::catalogue::dialect::DIALECT_ENV);
        self.settings.dialect(env.as_deref()).0
    }

    /// Reads the settings (deciding folder trust from the user and system
    /// layers first) and the extensions of `root`; `env` is what the
    /// engine sees of the environment (`$VAR` expansion in settings too).
    pub fn load(root: PathBuf, paths: GeminiPaths, env: Env) -> Result<Startup, ConfigError> {
        let raw = |k: &str| env.raw(k);
        let (mut settings, trust) = load_settings(&root, &paths, &env, &raw)?;
        let trusted = trust == Trust::Trusted;
        let (installed, warnings) = load_extensions(
            &paths,
            &root,
            trusted,
            false,
            settings.workspace_credentials_allowed(),
        );
        settings.add_load_warnings(warnings);
        // Those switched off for this folder (Gemini CLI's enablement
        // file) are kept aside for `-e`, which may name them.
        let extensions = installed
            .iter()
            .filter(|e| {
                crate::extensions::enablement::is_enabled(&paths.gemini_dir, &e.name, &root)
            })
            .cloned()
            .collect();
        Ok(Startup {
            root,
            paths,
            settings,
            trusted,
            trust,
            extensions: Arc::new(extensions),
            installed: Arc::new(installed),
            env,
        })
    }

    /// `-e/--extensions`: only the extensions named (any case; `none` for
    /// none), whether or not they are switched off for this folder.
    /// Returns the names that match no extension.
    pub fn select_extensions(&mut self, names: &[String]) -> Vec<String> {
        if names.is_empty() {
            return Vec::new();
        }
        let wanted: Vec<String> = names.iter().map(|n| n.trim().to_lowercase()).collect();
        let all = &self.installed;
        let missing = wanted
            .iter()
            .filter(|n| *n != "none" && !all.iter().any(|e| e.name.to_lowercase() == **n))
            .cloned()
            .collect();
        let none = wanted.len() == 1 && wanted[0] == "none";
        let chosen = all
            .iter()
            .filter(|e| !none && wanted.contains(&e.name.to_lowercase()))
            .cloned()
            .collect();
        self.extensions = Arc::new(chosen);
        missing
    }

    /// A start-up from settings already in hand (tests, embedders): no
    /// extensions.
    pub fn from_settings(root: PathBuf, paths: GeminiPaths, settings: Settings) -> Startup {
        Startup {
            root,
            paths,
            settings,
            trusted: true,
            trust: Trust::Trusted,
            extensions: Arc::default(),
            installed: Arc::default(),
            env: Env::from_process(),
        }
    }
}

/// Whether `root` is trusted, decided before anything of the folder is
/// read: the environment (`GEMINI_CLI_TRUST_WORKSPACE`,
/// `GEMINI_RESTRICTED_MODE`), then `security.folderTrust.enabled` of the
/// user and system settings, then `trustedFolders.json`.
pub fn folder_trust(root: &Path, paths: &GeminiPaths, env: &Env) -> Result<Trust, ConfigError> {
    let raw = |k: &str| env.raw(k);
    let outside = Settings::load(root, paths, false, &raw)?;
    trust::decide(outside.settings.folder_trust_enabled(), root, paths, env)
}

/// The settings of `root` and its trust: the user and system layers decide
/// trust, the project layer joins only when trusted.
fn load_settings(
    root: &Path,
    paths: &GeminiPaths,
    env: &Env,
    raw: &dyn Fn(&str) -> Option<String>,
) -> Result<(Settings, Trust), ConfigError> {
    let untrusted = Settings::load(root, paths, false, raw)?;
    let trust = trust::decide(untrusted.settings.folder_trust_enabled(), root, paths, env)?;
    if trust != Trust::Trusted {
        return Ok((untrusted.settings, trust));
    }
    Ok((Settings::load(root, paths, true, raw)?.settings, trust))
}

/// The extensions of the project (`<project>/.gemini/extensions`, only
/// when `trusted`) and of the user (`~/.gemini/extensions`), project
/// first, one per name, without those switched off for the project when
/// `enablement` says so. When the project is the home directory its
/// extensions are read once. Also a warning for each extension that could
/// not be used, or lost a credential setting.
fn load_extensions(
    paths: &GeminiPaths,
    project: &Path,
    trusted: bool,
    enablement: bool,
    credentials_allowed: bool,
) -> (Vec<Extension>, Vec<String>) {
    let (mut all, warnings) = extensions::installed_extensions(paths, project, credentials_allowed);
    let user_dir = paths.gemini_dir.join("extensions");
    let own = project.join(".gemini").join("extensions");
    if !trusted && own != user_dir {
        // An untrusted folder's own extensions are not loaded at all.
        all.retain(|e| !e.path.starts_with(&own));
    }
    if enablement {
        // Extensions switched off for this folder (Gemini CLI's enablement file).
        all.retain(|e| {
            crate::extensions::enablement::is_enabled(&paths.gemini_dir, &e.name, project)
        });
    }
    (all, warnings)
}

/// [`load_extensions`] for the extension loader's own tests.
#[cfg(test)]
pub(crate) fn load_extensions_for_test(paths: &GeminiPaths, project: &Path) -> Vec<Extension> {
    load_extensions(paths, project, true, true, false).0
}
