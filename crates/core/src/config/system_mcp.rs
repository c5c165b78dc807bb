//! Gemini CLI 0.70: an MCP server that the system settings define (the
//! administrator's `/etc/gemini-cli/settings.json` or `system-defaults.json`)
//! is started with the rights of every user, so one whose command file
//! other users can write (mode `o+w`) is skipped with a warning: anyone
//! could replace what it runs.

use super::Scope;
use super::layer_view::{CommandEntry, LayerView};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Removes from `merged` the system-defined MCP servers whose command file
/// others can write; one warning for each.
pub(super) fn drop_writable_commands(
    merged: &mut Value,
    layers: &[(Scope, PathBuf, Value)],
    env: &dyn Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    for (scope, file, layer) in layers {
        if !matches!(scope, Scope::System | Scope::SystemDefaults) {
            continue;
        }
        let Some(servers) = LayerView::of(layer).mcp_servers else {
            continue;
        };
        for (name, entry) in &servers {
            let Some(command) = CommandEntry::command_of(entry) else {
                continue;
            };
            let Some(merged_servers) = merged.get_mut("mcpServers").and_then(Value::as_object_mut)
            else {
                continue;
            };
            // Only when the system's entry is the one in effect.
            let in_effect = merged_servers
                .get(name.as_str())
                .and_then(CommandEntry::command_of);
            if in_effect.as_deref() != Some(command.as_str()) {
                continue;
            }
            let Some(program) = resolve(&command, env) else {
                continue;
            };
            if writable_by_others(&program) {
                merged_servers.remove(name);
                let text = format!(
                    "Skipping MCP server '{name}' of the system settings {}: its command {} can be written by other users.",
                    file.display(),
                    program.display()
                );
                tracing::warn!("{text}");
                warnings.push(text);
            }
        }
    }
    warnings
}

/// The file `command` runs: itself when it names a path, else the first
/// match on `PATH`.
fn resolve(command: &str, env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    if command.contains('/') {
        let path = PathBuf::from(command);
        return path.is_file().then_some(path);
    }
    let path = env("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
}

#[cfg(unix)]
fn writable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o002 != 0)
}

#[cfg(not(unix))]
fn writable_by_others(_: &Path) -> bool {
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use serde_json::json;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_system_server_whose_command_others_can_write_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open-server");
        let closed = dir.path().join("closed-server");
        for (p, mode) in [(&open, 0o777), (&closed, 0o755)] {
            std::fs::write(p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        let system = json!({"mcpServers": {
            "a": {"command": open.to_str().unwrap()},
            "b": {"command": closed.to_str().unwrap()},
            "c": {"command": "open-server"}
        }});
        let user = json!({"mcpServers": {"d": {"command": open.to_str().unwrap()}}});
        let mut merged = json!({"mcpServers": {}});
        merged["mcpServers"]
            .as_object_mut()
            .unwrap()
            .extend(system["mcpServers"].as_object().unwrap().clone());
        merged["mcpServers"]["d"] = user["mcpServers"]["d"].clone();
        let layers = vec![
            (Scope::User, PathBuf::from("user.json"), user),
            (Scope::System, PathBuf::from("/etc/s.json"), system),
        ];
        let path = dir.path().to_string_lossy().to_string();
        let env = move |k: &str| (k == "PATH").then(|| path.clone());
        let warnings = drop_writable_commands(&mut merged, &layers, &env);
        let mut left: Vec<&String> = merged["mcpServers"].as_object().unwrap().keys().collect();
        left.sort();
        assert_eq!(left, ["b", "d"]);
        assert_eq!(warnings.len(), 2);
        assert!(
            warnings[0].starts_with(
                "Skipping MCP server 'a' of the system settings /etc/s.json: its command "
            ) && warnings[0].ends_with("open-server can be written by other users."),
            "{warnings:?}"
        );
    }
}
