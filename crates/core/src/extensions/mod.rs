//! Extensions: `gemini-extension.json` files under the project's
//! `.gemini/extensions/*/` and `~/.gemini/extensions/*/` (`{"name",
//! "version","mcpServers":{...},"excludeTools":[...],"settings":[...]}`),
//! read into what a session takes from them: MCP servers, context files,
//! hooks, the plan folder, the values their settings ask for ([`enablement`]:
//! where each is switched on or off).
//!
//! Project extensions are read first; a user extension with the name of one
//! already read is skipped. Strings in a server entry may use
//! `${extensionPath}`, `${workspacePath}`, `${/}` and `${pathSeparator}`.
//! The settings' own `mcpServers` win over an extension's on a name clash.

pub mod enablement;

use crate::config::input_file::{MAX_INPUT_BYTES, read_input};
use crate::config::{GeminiPaths, Settings};
use crate::tools::mcp::config::{McpServerConfig, configured_servers};
use gemini_rs_protocol::extension::{InstallRecord, Manifest};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The manifest file name.
pub const MANIFEST: &str = "gemini-extension.json";

/// One loaded extension.
#[derive(Debug, Clone, PartialEq)]
pub struct Extension {
    /// `name` from the manifest.
    pub name: String,
    /// `version` from the manifest (empty when absent).
    pub version: String,
    /// The extension's directory.
    pub path: PathBuf,
    /// Its `mcpServers`, in manifest order, variables substituted.
    pub servers: Vec<McpServerConfig>,
    /// Its `excludeTools`: tool names (or `name(args)`) to hide.
    pub exclude_tools: Vec<String>,
    /// Its context files (`contextFileName`, a name or a list; default
    /// `GEMINI.md`) that exist in its directory.
    pub context_files: Vec<PathBuf>,
    /// Its `plan.directory`: where plan mode writes plans, relative to the
    /// project (`None` when absent or refused: absolute or with `..`).
    pub plan_directory: Option<String>,
    /// Why its `plan.directory` was refused, for a start-up warning.
    pub plan_warning: Option<String>,
    /// The values its manifest's `settings` ask for, as resolved here.
    pub settings: Vec<ResolvedSetting>,
}

/// One of an extension's `settings` and where its value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedSetting {
    /// Its label.
    pub name: String,
    /// The variable that carries it.
    pub env_var: String,
    /// Whether the value is a secret.
    pub sensitive: bool,
    /// Its value and the `.env` file it was read from; `None` when unset.
    pub value: Option<(String, SettingSource)>,
}

/// Which `.env` gave a setting its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettingSource {
    /// The extension's own (`extensions config`), for every project.
    User(PathBuf),
    /// The project's (`extensions config --scope workspace`).
    Workspace(PathBuf),
}

fn substitute(value: &mut Value, vars: &[(&str, String)]) {
    match value {
        Value::String(s) if s.contains("${") => {
            for (k, v) in vars {
                *s = s.replace(&format!("${{{k}}}"), v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| substitute(v, vars)),
        Value::Object(map) => map.values_mut().for_each(|v| substitute(v, vars)),
        _ => {}
    }
}

/// Where an installed extension's files are: its own folder, or for a
/// linked one (`gemini-rs extensions link`, type `link` in Gemini CLI's
/// `.gemini-extension-install.json`) the folder it links to.
fn effective_dir(dir: &Path) -> PathBuf {
    let record = read_input(
        &dir.join(".gemini-extension-install.json"),
        Some(dir),
        MAX_INPUT_BYTES,
    )
    .ok()
    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    .map(|v| InstallRecord::from_value(&v));
    match record {
        Some(r) if r.is_link() => r.source.map_or_else(|| dir.to_path_buf(), PathBuf::from),
        _ => dir.to_path_buf(),
    }
}

/// Why an extension's manifest cannot be used; the text is the warning.
#[derive(Debug, thiserror::Error)]
pub enum ExtensionSkipped {
    /// Not a regular file inside the extension, or too large.
    #[error("Skipping extension: {0}.")]
    Unreadable(crate::config::input_file::InputFileError),
    /// Not JSON.
    #[error("Skipping extension {}: {source}.", file.display())]
    NotJson {
        /// The manifest.
        file: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// No `name`.
    #[error("Skipping extension {}: it has no name.", .0.display())]
    NoName(PathBuf),
}

/// Reads one extension directory: `Ok(None)` when it has no manifest, an
/// error naming the manifest when it cannot be used (not a regular file
/// inside the extension, too large, not JSON, no name).
pub fn load_extension(dir: &Path, workspace: &Path) -> Result<Option<Extension>, ExtensionSkipped> {
    let install_dir = dir;
    let dir = &effective_dir(dir);
    let file = dir.join(MANIFEST);
    let text = match read_input(&file, Some(dir), MAX_INPUT_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(ExtensionSkipped::Unreadable(e)),
    };
    let raw: Value =
        serde_json::from_str(text.trim_start_matches('\u{feff}')).map_err(|source| {
            ExtensionSkipped::NotJson {
                file: file.clone(),
                source,
            }
        })?;
    let mut manifest = Manifest::from_value(&raw);
    let Some(name) = manifest.name.clone() else {
        return Err(ExtensionSkipped::NoName(file));
    };
    let sep = std::path::MAIN_SEPARATOR.to_string();
    let mut vars = vec![
        ("extensionPath", dir.display().to_string()),
        ("workspacePath", workspace.display().to_string()),
        ("/", sep.clone()),
        ("pathSeparator", sep),
    ];
    // The values of the extension's `settings` fill `${VAR}` in its
    // servers: kept in its install folder's `.env` (`extensions install`,
    // `extensions config`), and for this project in the project's `.env`
    // (`extensions config --scope workspace`), which wins for the
    // variables the manifest declares.
    let read_env = |file: PathBuf| {
        read_input(&file, None, MAX_INPUT_BYTES)
            .map(|t| crate::config::dotenv::parse(&t))
            .unwrap_or_default()
    };
    let declared = manifest.settings();
    let (project_env, user_env) = (workspace.join(".env"), install_dir.join(".env"));
    let project: Vec<(String, String)> = read_env(project_env.clone())
        .into_iter()
        .filter(|(k, _)| declared.iter().any(|d| d.env_var.as_deref() == Some(k)))
        .collect();
    let mut values: Vec<(String, String)> = read_env(user_env.clone());
    values.retain(|(k, _)| !project.iter().any(|(p, _)| p == k));
    let user_count = values.len();
    values.extend(project);
    // Each declared setting as the servers below see it: its first value
    // in `values` (the user's, then the project's), and which file that is.
    let resolved_settings = declared
        .iter()
        .filter_map(|d| {
            let env_var = d.env_var.clone()?;
            let found = values.iter().position(|(k, _)| *k == env_var);
            let value = found.map(|i| {
                let source = if i < user_count {
                    SettingSource::User(user_env.clone())
                } else {
                    SettingSource::Workspace(project_env.clone())
                };
                (values[i].1.clone(), source)
            });
            Some(ResolvedSetting {
                name: d.name.clone().unwrap_or_else(|| env_var.clone()),
                sensitive: d.sensitive.unwrap_or(false),
                env_var,
                value,
            })
        })
        .collect();
    vars.extend(values.iter().map(|(k, v)| (k.as_str(), v.clone())));
    let servers = manifest
        .mcp_servers
        .iter_mut()
        .flatten()
        .filter(|(_, v)| v.is_object())
        .map(|(k, v)| {
            substitute(v, &vars);
            McpServerConfig::from_value(k, v)
        })
        .collect();
    let exclude_tools = manifest.exclude_tools.take().unwrap_or_default();
    let context_names = manifest
        .context_file_name
        .take()
        .unwrap_or_else(|| vec!["GEMINI.md".to_string()]);
    let context_files = context_names
        .iter()
        .map(|n| dir.join(n))
        .filter(|p| p.is_file())
        .collect();
    let (plan_directory, plan_warning) = plan_directory(&manifest, &name);
    Ok(Some(Extension {
        name,
        context_files,
        plan_directory,
        plan_warning,
        version: manifest.version.unwrap_or_default(),
        path: dir.clone(),
        servers,
        exclude_tools,
        settings: resolved_settings,
    }))
}

/// The manifest's `plan.directory`, as Gemini CLI 0.61 takes it: a
/// relative path without `..`; anything else is refused with a warning.
fn plan_directory(manifest: &Manifest, name: &str) -> (Option<String>, Option<String>) {
    let Some(dir) = manifest.plan.as_ref().and_then(|p| p.directory.as_ref()) else {
        return (None, None);
    };
    match dir.as_str() {
        Some("") => (None, None),
        Some(d) if !Path::new(d).is_absolute() && !d.contains("..") && !d.contains('\\') => {
            (Some(d.to_string()), None)
        }
        _ => (
            None,
            Some(format!(
                "Invalid plan.directory in extension \"{name}\": {dir}. Relative parent navigation and absolute paths are not allowed."
            )),
        ),
    }
}

/// The `hooks` object of an extension's `hooks/hooks.json`, with
/// `${extensionPath}`, `${workspacePath}` and `${/}` substituted; `None`
/// when it has none (a malformed file is logged and skipped).
pub fn extension_hooks(extension: &Extension, workspace: &Path) -> Option<Map<String, Value>> {
    let file = extension.path.join("hooks").join("hooks.json");
    let text = match read_input(&file, Some(&extension.path), MAX_INPUT_BYTES) {
        Ok(t) => t,
        Err(e) if e.is_missing() => return None,
        Err(e) => {
            tracing::warn!("skipping the hooks of extension {}: {e}", extension.name);
            return None;
        }
    };
    let mut parsed: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!("skipping the hooks of extension {}: {e}", extension.name);
            return None;
        }
    };
    let sep = std::path::MAIN_SEPARATOR.to_string();
    let vars = [
        ("extensionPath", extension.path.display().to_string()),
        ("workspacePath", workspace.display().to_string()),
        ("/", sep.clone()),
        ("pathSeparator", sep),
    ];
    let hooks = parsed.get_mut("hooks")?;
    substitute(hooks, &vars);
    match hooks {
        Value::Object(map) => Some(map.clone()),
        _ => {
            tracing::warn!(
                "skipping the hooks of extension {}: \"hooks\" must be an object",
                extension.name
            );
            None
        }
    }
}

fn extensions_in(base: &Path, workspace: &Path, warnings: &mut Vec<String>) -> Vec<Extension> {
    let Ok(entries) = std::fs::read_dir(base) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.iter()
        .filter_map(|d| {
            load_extension(d, workspace)
                .map_err(|w| {
                    tracing::warn!("{w}");
                    warnings.push(w.to_string());
                })
                .ok()
                .flatten()
        })
        .collect()
}

/// Every installed extension, on or off (the start-up keeps the enabled
/// ones, once), and a warning for each manifest that could not be used.
/// The project's extensions come with the repository, not from the user:
/// unless `credentials_allowed`, their servers lose `authProviderType`
/// (which would send the user's Google token to them).
pub fn installed_extensions(
    paths: &GeminiPaths,
    project: &Path,
    credentials_allowed: bool,
) -> (Vec<Extension>, Vec<String>) {
    let project_dir = project.join(".gemini").join("extensions");
    let user_dir = paths.gemini_dir.join("extensions");
    let mut warnings = Vec::new();
    let mut all = Vec::new();
    if user_dir != project_dir {
        all = extensions_in(&project_dir, project, &mut warnings);
        if !credentials_allowed {
            for e in &mut all {
                for server in &mut e.servers {
                    if server.auth_provider.take().is_some() {
                        warnings.push(format!(
                            "Ignoring 'mcpServers.{}.authProviderType' of the project's extension {}: workspace extensions may not send credentials (set \"{}\": true in your user settings to allow it).",
                            server.name,
                            e.path.display(),
                            crate::config::ALLOW_WORKSPACE_CREDENTIALS,
                        ));
                    }
                }
            }
        }
    }
    all.extend(extensions_in(&user_dir, project, &mut warnings));
    let mut seen = HashSet::new();
    all.retain(|e| seen.insert(e.name.clone()));
    (all, warnings)
}

/// `configured` followed by the extensions' servers whose names are not
/// taken yet (settings win on a clash; the first extension wins among
/// extensions).
pub fn merge_servers(
    mut configured: Vec<McpServerConfig>,
    extensions: &[Extension],
) -> Vec<McpServerConfig> {
    let mut names: HashSet<String> = configured.iter().map(|c| c.name.clone()).collect();
    for server in extensions.iter().flat_map(|e| e.servers.iter()) {
        if names.insert(server.name.clone()) {
            configured.push(server.clone());
        }
    }
    configured
}

/// Every server of a session: the settings' `mcpServers`, then the
/// extensions' (see [`merge_servers`]).
pub fn all_servers(settings: &Settings, extensions: &[Extension]) -> Vec<McpServerConfig> {
    merge_servers(configured_servers(settings), extensions)
}

/// The extensions' `excludeTools`, for the registry's exclusions.
pub fn excluded_tools(extensions: &[Extension]) -> Vec<String> {
    extensions
        .iter()
        .flat_map(|e| e.exclude_tools.iter().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::mcp::config::TransportSpec;
    use serde_json::json;

    fn write(dir: &Path, manifest: Value) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(MANIFEST), manifest.to_string()).unwrap();
    }

    #[test]
    fn loads_and_merges() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let project = tmp.path().join("proj");
        let paths = GeminiPaths::new(home.clone(), "/nonexistent".into(), "/nonexistent".into());
        let user_ext = home.join(".gemini/extensions/u");
        write(
            &user_ext,
            json!({"name": "u", "version": "1.0.0",
                   "mcpServers": {"shared": {"command": "user-cmd"},
                                  "mine": {"command": "node", "args": ["${extensionPath}${/}srv.js"]}},
                   "excludeTools": ["run_shell_command(rm)"]}),
        );
        write(
            &project.join(".gemini/extensions/p"),
            json!({"name": "p", "mcpServers": {"shared": {"command": "proj-cmd"}, "set": {"command": "ext"}}}),
        );
        // Same name as the project's: skipped.
        write(
            &home.join(".gemini/extensions/p2"),
            json!({"name": "p", "mcpServers": {"x": {"command": "x"}}}),
        );
        // Broken manifest: skipped.
        std::fs::create_dir_all(home.join(".gemini/extensions/bad")).unwrap();
        std::fs::write(home.join(".gemini/extensions/bad").join(MANIFEST), "{").unwrap();

        let exts = crate::startup::load_extensions_for_test(&paths, &project);
        let names: Vec<&str> = exts.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["p", "u"]);
        assert_eq!(excluded_tools(&exts), ["run_shell_command(rm)"]);
        let settings =
            Settings::from_value(json!({"mcpServers": {"set": {"command": "from-settings"}}}));
        let all = all_servers(&settings, &exts);
        let summary: Vec<(String, String)> = all
            .iter()
            .map(|c| match &c.transport {
                TransportSpec::Stdio { command, args, .. } => (
                    c.name.clone(),
                    format!("{command} {}", args.join(" ")).trim().to_string(),
                ),
                _ => (c.name.clone(), String::new()),
            })
            .collect();
        let expected_arg = format!("node {}/srv.js", user_ext.display());
        assert_eq!(
            summary,
            [
                ("set".to_string(), "from-settings".to_string()),
                ("shared".to_string(), "proj-cmd".to_string()),
                ("mine".to_string(), expected_arg),
            ]
        );
    }
}
