//! Where Gemini CLI keeps its files: `~/.gemini` (home from
//! `GEMINI_CLI_HOME`), the settings layers and the per-project temp dir.

use std::path::{Path, PathBuf};

/// Default system settings file.
const SYSTEM_SETTINGS: &str = "/etc/gemini-cli/settings.json";
/// Default system defaults file.
const SYSTEM_DEFAULTS: &str = "/etc/gemini-cli/system-defaults.json";

/// The home-relative paths of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeminiPaths {
    /// The user's home (`GEMINI_CLI_HOME`, else `$HOME`).
    pub home: PathBuf,
    /// `<home>/.gemini`.
    pub gemini_dir: PathBuf,
    /// The system settings file (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`).
    pub system_settings: PathBuf,
    /// The system defaults file (`GEMINI_CLI_SYSTEM_DEFAULTS_PATH`).
    pub system_defaults: PathBuf,
}

impl GeminiPaths {
    /// Paths from the process environment.
    pub fn from_env() -> Self {
        let var = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        let home = var("GEMINI_CLI_HOME")
            .or_else(|| var("HOME"))
            .unwrap_or_else(|| PathBuf::from("/"));
        GeminiPaths::new(
            home,
            var("GEMINI_CLI_SYSTEM_SETTINGS_PATH").unwrap_or_else(|| SYSTEM_SETTINGS.into()),
            var("GEMINI_CLI_SYSTEM_DEFAULTS_PATH").unwrap_or_else(|| SYSTEM_DEFAULTS.into()),
        )
    }

    /// Paths for an explicit home and system files.
    pub fn new(home: PathBuf, system_settings: PathBuf, system_defaults: PathBuf) -> Self {
        GeminiPaths {
            gemini_dir: home.join(".gemini"),
            home,
            system_settings,
            system_defaults,
        }
    }

    /// `~/.gemini/settings.json`.
    pub fn user_settings(&self) -> PathBuf {
        self.gemini_dir.join("settings.json")
    }

    /// `<project>/.gemini/settings.json`.
    pub fn workspace_settings(&self, root: &Path) -> PathBuf {
        root.join(".gemini").join("settings.json")
    }

    /// `~/.gemini/trustedFolders.json`.
    pub fn trusted_folders(&self) -> PathBuf {
        self.gemini_dir.join("trustedFolders.json")
    }

    /// `~/.gemini/tmp/<slug>`: the project's folder as today's Gemini CLI
    /// names it, registered in `~/.gemini/projects.json` (and a 0.27.4
    /// `tmp/<sha256 of the root>` folder copied into it) on first use.
    pub fn project_temp_dir(&self, root: &Path) -> PathBuf {
        super::projects::project_temp_dir(&self.gemini_dir, root)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::projects::project_hash;

    #[test]
    fn temp_dir_is_the_registered_slug() {
        let home = tempfile::tempdir().unwrap();
        let p = GeminiPaths::new(home.path().into(), "/s".into(), "/d".into());
        assert_eq!(
            p.project_temp_dir(Path::new("/w")),
            home.path().join(".gemini/tmp/w")
        );
        assert_eq!(
            project_hash(Path::new("/w")),
            "d1bb8ca354673cd575d31d952490058c9943aef39d5a9553fb4a21ab7a59a19d"
        );
        assert_eq!(p.user_settings(), home.path().join(".gemini/settings.json"));
    }
}
