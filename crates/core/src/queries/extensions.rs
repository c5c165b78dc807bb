//! `extensions list|enable|disable`: the installed extensions and whether
//! they are on for a folder, in Gemini CLI's enablement file.

use crate::config::GeminiPaths;
use crate::extensions::{self, enablement};
use std::path::{Path, PathBuf};

pub use extensions::{ResolvedSetting, SettingSource};

/// An installed extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionListing {
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Its folder.
    pub path: PathBuf,
    /// Its MCP servers' names.
    pub servers: Vec<String>,
    /// Its context files.
    pub context_files: Vec<PathBuf>,
    /// Whether it is on for the start-up's folder.
    pub enabled: bool,
    /// Whether it is on for the home folder (the user scope).
    pub enabled_user: bool,
    /// Tools it switches off (`excludeTools`).
    pub exclude_tools: Vec<String>,
    /// Where it was installed from and how (`local`, `git`, `link`), as its
    /// `.gemini-extension-install.json` says.
    pub source: Option<(String, String)>,
    /// Gemini CLI's id of it: the hash of its GitHub repository, of its
    /// source, or of its name.
    pub id: String,
    /// The hash of its name (Gemini CLI lists it as `name:`).
    pub name_hash: String,
    /// Its agent skills (`skills/*/SKILL.md`): name and description.
    pub skills: Vec<(String, String)>,
    /// The values its `settings` ask for, as a session here resolves them.
    pub settings: Vec<ResolvedSetting>,
}

/// The lowercase hex SHA-256 of `value` (Gemini CLI's `hashValue`).
fn hash(value: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(value.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `https://github.com/<owner>/<repo>` of a GitHub source, if it is one.
fn github_repo(source: &str) -> Option<String> {
    let rest = source
        .strip_prefix("https://github.com/")
        .or_else(|| source.strip_prefix("git@github.com:"))?;
    let mut parts = rest.trim_end_matches('/').split('/');
    let owner = parts.next().filter(|s| !s.is_empty())?;
    let repo = parts.next().filter(|s| !s.is_empty())?;
    let repo = repo.strip_suffix(".git").unwrap_or(repo);
    Some(format!("https://github.com/{owner}/{repo}"))
}

/// Gemini CLI's `getExtensionId`.
fn extension_id(name: &str, source: Option<&(String, String)>) -> String {
    let value = match source {
        Some((source, kind)) if kind == "git" || kind == "github-release" => {
            github_repo(source).unwrap_or_else(|| source.clone())
        }
        Some((source, _)) => source.clone(),
        None => name.to_string(),
    };
    hash(&value)
}

/// The source and type of an extension's install record.
fn install_source(dir: &Path) -> Option<(String, String)> {
    let text = std::fs::read_to_string(dir.join(".gemini-extension-install.json")).ok()?;
    let record: InstallRecord = serde_json::from_str(&text).ok()?;
    Some((record.source, record.kind))
}

/// `.gemini-extension-install.json`, as far as the id goes.
#[derive(Debug, serde::Deserialize)]
struct InstallRecord {
    /// Where it was installed from (a URL or a folder).
    source: String,
    /// `git`, `github-release`, `local` or `link`.
    #[serde(rename = "type")]
    kind: String,
}

/// Every installed extension of `root` and the user, on or off there.
pub fn list_extensions(paths: &GeminiPaths, root: &Path) -> Vec<ExtensionListing> {
    extensions::installed_extensions(paths, root, true)
        .0
        .into_iter()
        .map(|e| {
            let source = install_source(&e.path);
            (e, source)
        })
        .map(|(e, source)| ExtensionListing {
            enabled: enablement::is_enabled(&paths.gemini_dir, &e.name, root),
            enabled_user: enablement::is_enabled(&paths.gemini_dir, &e.name, &paths.home),
            exclude_tools: e.exclude_tools,
            id: extension_id(&e.name, source.as_ref()),
            name_hash: hash(&e.name),
            source,
            servers: e.servers.iter().map(|s| s.name.clone()).collect(),
            skills: crate::skills::in_folder(&e.path.join("skills"))
                .0
                .into_iter()
                .map(|s| (s.name, s.description))
                .collect(),
            settings: e.settings,
            context_files: e.context_files,
            name: e.name,
            version: e.version,
            path: e.path,
        })
        .collect()
}

/// Switches extension `name` on or off for `scope` (the home folder for
/// the user scope, the project for the workspace scope) and every folder
/// below it.
pub fn set_extension_enabled(
    paths: &GeminiPaths,
    name: &str,
    scope: &Path,
    enable: bool,
) -> std::io::Result<()> {
    enablement::set_enabled(&paths.gemini_dir, name, scope, enable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_hash_the_repository_of_a_github_source() {
        assert_eq!(
            hash("hello"),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(
            github_repo("https://github.com/gemini-cli-extensions/security.git").as_deref(),
            Some("https://github.com/gemini-cli-extensions/security")
        );
        assert_eq!(github_repo("/tmp/x"), None);
        let local = ("/src/hello".to_string(), "local".to_string());
        assert_eq!(extension_id("hello", Some(&local)), hash("/src/hello"));
        assert_eq!(extension_id("hello", None), hash("hello"));
    }
}
