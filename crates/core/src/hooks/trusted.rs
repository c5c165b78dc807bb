//! The first-sighting warning for project hooks (§9.1), recorded in
//! `~/.gemini/trusted_hooks.json` (`{ "<project path>": ["name:command", …] }`).

use super::config::{WireDefinition, WireHook};
use crate::config::lenient::from_object;
use serde_json::{Map, Value};
use std::path::Path;

/// The `name:command` keys and display names of every hook in a `hooks`
/// object, in order.
fn hook_keys(hooks: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let Some(events) = hooks.as_object() else {
        return out;
    };
    for defs in events.values().filter_map(Value::as_array) {
        for def in defs {
            let Some(list) = from_object::<WireDefinition>(def).hooks else {
                continue;
            };
            for hook in list {
                let hook: WireHook = from_object(&hook);
                let name = hook.name.as_deref().unwrap_or("");
                let command = hook.command.as_deref().unwrap_or("");
                let display = if !name.is_empty() {
                    name
                } else if !command.is_empty() {
                    command
                } else {
                    "unknown-hook"
                };
                out.push((format!("{name}:{command}"), display.to_string()));
            }
        }
    }
    out
}

/// For the `hooks` object of the workspace settings layer of `project_dir`:
/// when some hooks are not yet recorded in `trusted_hooks_file`, records all
/// of them and returns the warning to print on stderr; `None` otherwise.
/// `settings_file` names the file they come from in the warning. Call it
/// only in a trusted folder.
pub fn project_hooks_warning(
    project_dir: &Path,
    workspace_hooks: &Value,
    trusted_hooks_file: &Path,
    settings_file: &str,
) -> Option<String> {
    let project = project_dir.to_string_lossy().into_owned();
    let mut all: Map<String, Value> = crate::config::input_file::read_input(
        trusted_hooks_file,
        None,
        crate::config::input_file::MAX_INPUT_BYTES,
    )
    .ok()
    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    .and_then(|v| v.as_object().cloned())
    .unwrap_or_default();
    let mut trusted: Vec<String> = all
        .get(&project)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let keys = hook_keys(workspace_hooks);
    let mut untrusted: Vec<String> = Vec::new();
    for (key, display) in &keys {
        if !trusted.contains(key) && !untrusted.contains(display) {
            untrusted.push(display.clone());
        }
    }
    if untrusted.is_empty() {
        return None;
    }
    for (key, _) in keys {
        if !trusted.contains(&key) {
            trusted.push(key);
        }
    }
    all.insert(
        project,
        Value::Array(trusted.into_iter().map(Value::String).collect()),
    );
    if let Some(dir) = trusted_hooks_file.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(text) = serde_json::to_string_pretty(&Value::Object(all))
        && let Err(e) = std::fs::write(trusted_hooks_file, text)
    {
        tracing::warn!("Failed to save trusted hooks config: {e}");
    }
    let list: Vec<String> = untrusted.iter().map(|n| format!("  - {n}")).collect();
    Some(format!(
        "WARNING: The following project-level hooks have been detected in this workspace:\n{}\n\nThese hooks will be executed. If you did not configure these hooks or do not trust this project,\nplease review the project settings ({settings_file}) and remove them.",
        list.join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const GEMINI: &str = ".gemini/settings.json";

    #[test]
    fn warns_once_and_records() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".gemini/trusted_hooks.json");
        let hooks = json!({"BeforeTool": [{"hooks": [{"type": "command", "command": "python3 h.py", "name": "guard"},
                                                      {"type": "command", "command": "echo hi"}]}],
                           "enabled": true});
        let w = project_hooks_warning(Path::new("/p"), &hooks, &file, GEMINI).unwrap();
        assert_eq!(
            w,
            "WARNING: The following project-level hooks have been detected in this workspace:\n  - guard\n  - echo hi\n\nThese hooks will be executed. If you did not configure these hooks or do not trust this project,\nplease review the project settings (.gemini/settings.json) and remove them."
        );
        let saved: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(saved, json!({"/p": ["guard:python3 h.py", ":echo hi"]}));
        assert_eq!(
            project_hooks_warning(Path::new("/p"), &hooks, &file, GEMINI),
            None
        );
        assert!(project_hooks_warning(Path::new("/q"), &hooks, &file, GEMINI).is_some());
        let more = json!({"AfterTool": [{"hooks": [{"type": "command", "command": "new"}]}]});
        let w = project_hooks_warning(Path::new("/p"), &more, &file, GEMINI).unwrap();
        assert!(w.contains("  - new\n\n"));
    }
}
