//! The one start-up load: settings (every layer, the project's only in a
//! trusted folder) and extensions, read once per process into typed values
//! that the session and the session-less queries share. Nothing below reads
//! them again: the extension loader is private to this module, so a second
//! read cannot be written elsewhere.

use crate::config::trust::{self, Trust};
use crate::config::{ConfigError, GeminiPaths, Settings};
use crate::tools::mcp::extensions::{self, Extension};
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
    /// The enabled extensions (the project's and the user's), read once.
    pub extensions: Arc<Vec<Extension>>,
}

impl Startup {
    /// Reads the settings (deciding folder trust from the user and system
    /// layers first) and the extensions of `root`, with `env` for
    /// `$VAR` expansion in settings.
    pub fn load(
        root: PathBuf,
        paths: GeminiPaths,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Startup, ConfigError> {
        let (settings, trusted) = load_settings(&root, &paths, env)?;
        let extensions = Arc::new(extensions::load_extensions(&paths, &root));
        Ok(Startup {
            root,
            paths,
            settings,
            trusted,
            extensions,
        })
    }

    /// A start-up from settings already in hand (tests, embedders): no
    /// extensions.
    pub fn from_settings(root: PathBuf, paths: GeminiPaths, settings: Settings) -> Startup {
        Startup {
            root,
            paths,
            settings,
            trusted: true,
            extensions: Arc::default(),
        }
    }
}

/// The settings of `root` and whether the folder is trusted: the user and
/// system layers decide trust, the project layer joins only when trusted.
fn load_settings(
    root: &Path,
    paths: &GeminiPaths,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(Settings, bool), ConfigError> {
    let untrusted = Settings::load(root, paths, false, env)?;
    let trusted = match trust::is_trusted(untrusted.settings.folder_trust_enabled(), root, paths)? {
        Trust::Trusted => true,
        Trust::Untrusted | Trust::Unknown => false,
    };
    if !trusted {
        return Ok((untrusted.settings, false));
    }
    Ok((Settings::load(root, paths, true, env)?.settings, true))
}
