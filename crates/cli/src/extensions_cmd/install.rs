//! Installing an extension into `~/.gemini/extensions/<name>/` from a local
//! folder or a git repository (cloned with the `git` binary), with Gemini
//! CLI's `.gemini-extension-install.json` beside it; and removing one.

use crate::subcommand::{Scratch, copy_dir, git_clone, is_git_source, valid_name};
use gemini_rs_core::GeminiPaths;
use gemini_rs_protocol::extension::{InstallRecord, Manifest};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The install record Gemini CLI keeps in an extension's folder.
const INSTALL_RECORD: &str = ".gemini-extension-install.json";

/// Installs from `source`; the extension's name.
pub fn install(paths: &GeminiPaths, source: &str) -> Result<String, String> {
    let is_git = is_git_source(source);
    // A clone goes beside the extensions first (removed when done).
    let scratch = Scratch(
        paths
            .gemini_dir
            .join("extensions")
            .join(format!(".install-{}", uuid::Uuid::new_v4().simple())),
    );
    let from: PathBuf = if is_git {
        git_clone(source, &scratch.0)?;
        scratch.0.clone()
    } else {
        std::fs::canonicalize(source)
            .map_err(|e| format!("Could not use {source} as an extension folder: {e}"))?
    };
    let name = manifest_name(&from)?;
    let target = paths.gemini_dir.join("extensions").join(&name);
    if target.exists() {
        return Err(format!(
            "Extension \"{name}\" is already installed. Uninstall it first."
        ));
    }
    copy_dir(&from, &target).map_err(|e| {
        let _ = std::fs::remove_dir_all(&target);
        format!(
            "Could not copy the extension into {}: {e}",
            target.display()
        )
    })?;
    if let Err(e) = ask_settings(&target) {
        let _ = std::fs::remove_dir_all(&target);
        return Err(e);
    }
    let kind = if is_git { "git" } else { "local" };
    write_record(&target, source, kind)?;
    Ok(name)
}

/// The values the extension's manifest asks for (`settings`: `name`,
/// `description`, `envVar`), from the environment or, on a terminal, typed
/// by the user; kept in the extension's `.env` (mode 0600).
fn ask_settings(dir: &Path) -> Result<(), String> {
    use std::io::{BufRead, IsTerminal, Write};
    let manifest = read_manifest(&dir.join("gemini-extension.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .map(|v| Manifest::from_value(&v))
        .unwrap_or_default();
    let mut lines = Vec::new();
    for setting in manifest.settings() {
        let Some(var) = setting.env_var.as_deref() else {
            continue;
        };
        let label = setting.name.as_deref().unwrap_or(var);
        let value = match std::env::var(var).ok().filter(|v| !v.is_empty()) {
            Some(v) => v,
            None if std::io::stdin().is_terminal() => {
                let about = setting.description.as_deref().unwrap_or("");
                print!("{label} ({about}): ");
                let _ = std::io::stdout().flush();
                let mut line = String::new();
                std::io::stdin()
                    .lock()
                    .read_line(&mut line)
                    .map_err(|e| format!("Could not read {label}: {e}"))?;
                line.trim().to_string()
            }
            None => {
                return Err(format!(
                    "The extension needs {label}: set {var} in the environment (no terminal to ask on)."
                ));
            }
        };
        // Single quotes keep the value raw for the .env reader.
        lines.push(if value.contains('\'') {
            format!("{var}=\"{value}\"")
        } else {
            format!("{var}='{value}'")
        });
    }
    if lines.is_empty() {
        return Ok(());
    }
    let file = dir.join(".env");
    std::fs::write(&file, lines.join("\n") + "\n")
        .map_err(|e| format!("Could not write {}: {e}", file.display()))?;
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600));
    Ok(())
}

/// Links the extension in folder `source`: only Gemini CLI's install record
/// (type `link`) goes into `~/.gemini/extensions/<name>/`.
pub fn link(paths: &GeminiPaths, source: &str) -> Result<String, String> {
    let from = std::fs::canonicalize(source)
        .map_err(|e| format!("Could not use {source} as an extension folder: {e}"))?;
    let name = manifest_name(&from)?;
    let target = paths.gemini_dir.join("extensions").join(&name);
    if target.exists() {
        return Err(format!(
            "Extension \"{name}\" is already installed. Uninstall it first."
        ));
    }
    std::fs::create_dir_all(&target)
        .map_err(|e| format!("Could not create {}: {e}", target.display()))?;
    write_record(&target, &from.display().to_string(), "link")?;
    Ok(name)
}

/// Writes Gemini CLI's install record into `target`.
fn write_record(target: &Path, source: &str, kind: &str) -> Result<(), String> {
    let record = InstallRecord {
        source: Some(source.to_string()),
        kind: Some(kind.to_string()),
    };
    let text = serde_json::to_string_pretty(&record)
        .map_err(|e| format!("Could not write the install record: {e}"))?;
    std::fs::write(target.join(INSTALL_RECORD), text)
        .map_err(|e| format!("Could not write the install record: {e}"))
}

/// The valid `name` of the manifest in `dir`.
fn manifest_name(dir: &Path) -> Result<String, String> {
    let manifest_path = dir.join("gemini-extension.json");
    let manifest: Value = read_manifest(&manifest_path)
        .map_err(|e| format!("{} has no usable gemini-extension.json: {e}", dir.display()))
        .and_then(|t| {
            serde_json::from_str(&t)
                .map_err(|e| format!("{} is not valid JSON: {e}", manifest_path.display()))
        })?;
    Manifest::from_value(&manifest)
        .name
        .filter(|n| valid_name(n))
        .ok_or_else(|| {
            format!(
                "{} needs a \"name\" (letters, digits, dashes and underscores).",
                manifest_path.display()
            )
        })
}

/// Installs `name` again from the source its install record names (a
/// linked extension needs nothing).
pub fn update(paths: &GeminiPaths, name: &str) -> Result<(), String> {
    let dir = paths.gemini_dir.join("extensions").join(name);
    let record = read_manifest(&dir.join(INSTALL_RECORD))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .map(|v| InstallRecord::from_value(&v))
        .ok_or_else(|| format!("Extension \"{name}\" has no install record to update from."))?;
    if record.is_link() {
        return Ok(());
    }
    let source = record
        .source
        .ok_or_else(|| format!("The install record of \"{name}\" names no source."))?;
    // Keep the old copy until the new one is in place.
    let backup = dir.with_extension(format!("old-{}", uuid::Uuid::new_v4().simple()));
    std::fs::rename(&dir, &backup).map_err(|e| format!("Could not move {}: {e}", dir.display()))?;
    match install(paths, &source) {
        Ok(_) => {
            let _ = std::fs::remove_dir_all(&backup);
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            let _ = std::fs::rename(&backup, &dir);
            Err(e)
        }
    }
}

/// The starting points of `extensions new`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Template {
    /// A context file only.
    Context,
    /// A custom command.
    CustomCommands,
    /// An agent skill.
    Skill,
    /// An MCP server entry to fill in.
    McpServer,
}

/// Creates a new extension folder at `path` from `template`.
pub fn create(path: &Path, template: Template) -> Result<(), String> {
    if path.exists() {
        return Err(format!("{} already exists.", path.display()));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| valid_name(n))
        .ok_or_else(|| format!("{} must end in a plain folder name.", path.display()))?;
    let mut manifest = json!({"name": name, "version": "1.0.0"});
    let mut files: Vec<(&str, String)> = Vec::new();
    match template {
        Template::Context => files.push((
            "GEMINI.md",
            format!("# {name}\n\nInstructions the model reads in every session go here.\n"),
        )),
        Template::CustomCommands => files.push((
            "commands/hello.toml",
            "description = \"Greets someone\"\nprompt = \"Say hello to {{args}}.\"\n".to_string(),
        )),
        Template::Skill => files.push((
            "skills/example/SKILL.md",
            "---\nname: example\ndescription: Explains what this skill is for and when to use it.\n---\nThe steps to follow go here.\n".to_string(),
        )),
        Template::McpServer => {
            manifest["mcpServers"] = json!({name: {
                "command": "node", "args": ["${extensionPath}${/}server.js"]}});
        }
    }
    files.push(("gemini-extension.json", format!("{manifest:#}\n")));
    for (rel, text) in files {
        let file = path.join(rel);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("Could not create {}: {e}", parent.display()))?;
        }
        std::fs::write(&file, text)
            .map_err(|e| format!("Could not write {}: {e}", file.display()))?;
    }
    Ok(())
}

/// Removes an installed extension and its enablement rules.
pub fn uninstall(paths: &GeminiPaths, name: &str) -> Result<(), String> {
    let dir = paths.gemini_dir.join("extensions");
    let target = dir.join(name);
    let installed =
        target.join("gemini-extension.json").is_file() || target.join(INSTALL_RECORD).is_file();
    if !valid_name(name) || !installed {
        return Err(format!("Extension \"{name}\" is not installed."));
    }
    std::fs::remove_dir_all(&target)
        .map_err(|e| format!("Could not remove {}: {e}", target.display()))?;
    let file = dir.join("extension-enablement.json");
    if let Ok(text) = read_manifest(&file)
        && let Ok(Value::Object(mut config)) = serde_json::from_str::<Value>(&text)
        && config.remove(name).is_some()
    {
        let _ = std::fs::write(&file, format!("{:#}", Value::Object(config)));
    }
    Ok(())
}

/// A manifest or install record: a regular file of bounded size.
fn read_manifest(path: &Path) -> Result<String, gemini_rs_core::InputFileError> {
    gemini_rs_core::read_input(path, None, gemini_rs_core::MAX_INPUT_BYTES)
}
