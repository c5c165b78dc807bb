//! `hooks migrate --from-claude`: the project's Claude Code hooks
//! (`.claude/settings.json`, then `.claude/settings.local.json`) converted
//! into the project's `.gemini/settings.json`. Events keep Claude Code's
//! names, under which gemini-rs runs them as Claude-format hooks (Claude's
//! input, tool names and outputs), so the scripts keep working unchanged;
//! matchers and commands stay as written (Claude's tool names match and
//! `CLAUDE_PROJECT_DIR` is set); timeouts go from Claude's seconds to
//! Gemini's milliseconds. Gemini CLI 0.61 converts to its own events
//! instead (docs/claude-hooks.md says why).

use crate::settings_file::{FileScope, comments_note, read, write};
use gemini_rs_protocol::lenient::{from_object, wrong_type_as_none};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::Path;

/// What a migration produced: the Gemini hooks by event, and warnings.
#[derive(Debug, Default, PartialEq)]
pub struct Migrated {
    pub hooks: Map<String, Value>,
    pub warnings: Vec<String>,
}

/// Runs the migration in `root`; the exit code.
pub fn run(root: &Path) -> i32 {
    let sources = [".claude/settings.json", ".claude/settings.local.json"];
    let mut migrated = Migrated::default();
    let mut found = Vec::new();
    for rel in sources {
        let path = root.join(rel);
        // A start-up input: regular, bounded, inside the project.
        let text =
            match gemini_rs_core::read_input(&path, Some(root), gemini_rs_core::MAX_INPUT_BYTES) {
                Ok(t) => t,
                Err(e) if e.is_missing() => continue,
                Err(e) => {
                    eprintln!("Error: {e}");
                    return 1;
                }
            };
        let value: Value = match serde_json::from_str(&gemini_rs_core::strip_json_comments(&text)) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("Error: {} is not valid JSON: {e}", path.display());
                return 1;
            }
        };
        found.push(path.display().to_string());
        let one = convert(&value);
        migrated.warnings.extend(one.warnings);
        for (event, defs) in one.hooks {
            append(&mut migrated.hooks, &event, defs);
        }
    }
    if found.is_empty() {
        eprintln!(
            "Error: no Claude Code settings in {} (looked for .claude/settings.json and .claude/settings.local.json).",
            root.display()
        );
        return 1;
    }
    for w in &migrated.warnings {
        eprintln!("Warning: {w}");
    }
    println!("Read Claude Code hooks from {}.", found.join(" and "));
    if migrated.hooks.is_empty() {
        println!("They declare no hooks: nothing to migrate.");
        return 0;
    }
    let target = root.join(".gemini/settings.json");
    let mut file = match read(&target, FileScope::Project) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    let hooks = file
        .value
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    if !hooks.is_object() {
        eprintln!(
            "Error: `hooks` in {} is not an object; fix it first.",
            target.display()
        );
        return 1;
    }
    let mut added = 0;
    if let Value::Object(existing) = hooks {
        for (event, defs) in &migrated.hooks {
            added += append(existing, event, defs.clone());
        }
    }
    if let Err(e) = write(&file) {
        eprintln!("Error: {e}");
        return 1;
    }
    if let Some(note) = comments_note(&file) {
        eprintln!("{note}");
    }
    println!(
        "Migrated {} hook event(s) ({added} new definition(s)) into {}. Review them there.",
        migrated.hooks.len(),
        target.display()
    );
    0
}

/// Appends `defs` (an array) to `map[event]`, skipping definitions already
/// there; the number appended.
fn append(map: &mut Map<String, Value>, event: &str, defs: Value) -> usize {
    let slot = map
        .entry(event.to_string())
        .or_insert_with(|| Value::Array(Vec::new()));
    let (Value::Array(list), Value::Array(new)) = (slot, defs) else {
        return 0;
    };
    let mut added = 0;
    for def in new {
        if !list.contains(&def) {
            list.push(def);
            added += 1;
        }
    }
    added
}

/// Converts one Claude Code settings value's `hooks`.
pub fn convert(claude: &Value) -> Migrated {
    let mut out = Migrated::default();
    let Some(events) = from_object::<ClaudeSettings>(claude).hooks else {
        return out;
    };
    for (event, defs) in &events {
        let name = if event == "SubAgentStop" {
            "SubagentStop"
        } else {
            event.as_str()
        };
        let known = gemini_rs_core::is_hook_event(name);
        let Some(kept) = known.then_some(name) else {
            out.warnings.push(format!(
                "{event} is not a known hook event; its hooks were not migrated."
            ));
            continue;
        };
        let Some(defs) = defs.as_array() else {
            out.warnings.push(format!(
                "{event} is not a list of hook definitions; skipped."
            ));
            continue;
        };
        let converted: Vec<Value> = defs
            .iter()
            .filter_map(|d| definition(&from_object(d)))
            .filter_map(|d| serde_json::to_value(d).ok())
            .collect();
        append(&mut out.hooks, kept, Value::Array(converted));
    }
    out.hooks
        .retain(|_, v| v.as_array().is_some_and(|a| !a.is_empty()));
    out
}

/// The part of Claude Code's settings that is migrated.
#[derive(Default, Deserialize)]
struct ClaudeSettings {
    /// Hook definitions by event (each a list, checked per event).
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    hooks: Option<Map<String, Value>>,
}

/// One of Claude Code's hook definitions.
#[derive(Default, Deserialize)]
struct ClaudeDefinition {
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    matcher: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    sequential: Option<bool>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    hooks: Option<Vec<Value>>,
}

/// One of Claude Code's hooks.
#[derive(Default, Deserialize)]
struct ClaudeHook {
    #[serde(rename = "type", default, deserialize_with = "wrong_type_as_none")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    command: Option<String>,
    /// Seconds.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    timeout: Option<f64>,
}

/// A Gemini CLI hook definition.
#[derive(Serialize)]
struct GeminiDefinition {
    #[serde(skip_serializing_if = "Option::is_none")]
    matcher: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sequential: Option<bool>,
    hooks: Vec<GeminiHook>,
}

/// A Gemini CLI command hook.
#[derive(Serialize)]
struct GeminiHook {
    #[serde(rename = "type")]
    kind: &'static str,
    command: String,
    /// Milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    timeout: Option<u64>,
}

/// One definition (`matcher`, `hooks`); `None` when it has no hooks.
fn definition(def: &ClaudeDefinition) -> Option<GeminiDefinition> {
    let hooks: Vec<GeminiHook> = def
        .hooks
        .as_ref()?
        .iter()
        .filter_map(|h| command_hook(&from_object(h)))
        .collect();
    if hooks.is_empty() {
        return None;
    }
    Some(GeminiDefinition {
        matcher: def.matcher.clone(),
        sequential: def.sequential,
        hooks,
    })
}

/// One `type: "command"` hook (Claude Code has no other kind that runs a
/// command).
fn command_hook(hook: &ClaudeHook) -> Option<GeminiHook> {
    if hook.kind.as_deref().unwrap_or("command") != "command" {
        return None;
    }
    Some(GeminiHook {
        kind: "command",
        command: hook.command.clone()?,
        // Claude Code counts seconds, Gemini CLI milliseconds.
        timeout: hook
            .timeout
            .filter(|secs| *secs > 0.0)
            .map(|secs| (secs * 1000.0).round() as u64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_matchers_and_commands_stay_claude_s_and_timeouts_convert() {
        let claude = json!({"hooks": {
            "PreToolUse": [{"matcher": "Edit|Write|Bash", "hooks": [
                {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/guard.sh", "timeout": 30}]}],
            "PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "log"}]}],
            "SubAgentStop": [{"hooks": [{"type": "command", "command": "x"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "no"}]}],
            "NoSuchEvent": [{"hooks": [{"type": "command", "command": "y"}]}]
        }});
        let m = convert(&claude);
        assert_eq!(
            m.hooks["PreToolUse"],
            json!([{"matcher": "Edit|Write|Bash", "hooks": [
                {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/guard.sh", "timeout": 30000}]}])
        );
        assert_eq!(m.hooks["PostToolUse"][0]["matcher"], "Read");
        assert_eq!(m.hooks["SubagentStop"][0]["hooks"][0]["command"], "x");
        assert!(
            !m.hooks.contains_key("UserPromptSubmit"),
            "prompt hooks do not run commands"
        );
        assert_eq!(
            m.warnings,
            ["NoSuchEvent is not a known hook event; its hooks were not migrated."]
        );
    }
}
