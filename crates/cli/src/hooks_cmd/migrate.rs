//! `hooks migrate --from-claude`: the project's Claude Code hooks
//! (`.claude/settings.json`, then `.claude/settings.local.json`) converted
//! into the project's `.gemini/settings.json`. Events become their Gemini
//! twins, Claude's tool names in matchers become ours (from the tool
//! specs), `$CLAUDE_PROJECT_DIR` becomes `$GEMINI_PROJECT_DIR`, and
//! timeouts go from Claude's seconds to Gemini's milliseconds.

use crate::settings_file::{FileScope, comments_note, read, write};
use serde_json::{Map, Value, json};
use std::path::Path;

/// Claude Code events with no Gemini twin: kept under their Claude name,
/// where they run as Claude-format hooks.
const NO_TWIN: [&str; 3] = ["SubagentStop", "SubAgentStop", "PostToolUseFailure"];

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
    let Some(events) = claude.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, defs) in events {
        let twin = if NO_TWIN.contains(&event.as_str()) {
            Some(if event == "SubAgentStop" {
                "SubagentStop"
            } else {
                event.as_str()
            })
        } else {
            gemini_rs_core::hook_event_name(event)
        };
        let Some(gemini) = twin else {
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
        let converted: Vec<Value> = defs.iter().filter_map(definition).collect();
        append(&mut out.hooks, gemini, Value::Array(converted));
    }
    out.hooks
        .retain(|_, v| v.as_array().is_some_and(|a| !a.is_empty()));
    out
}

/// One definition (`matcher`, `hooks`); `None` when it has no hooks.
fn definition(def: &Value) -> Option<Value> {
    let def = def.as_object()?;
    let hooks: Vec<Value> = def
        .get("hooks")?
        .as_array()?
        .iter()
        .filter_map(command_hook)
        .collect();
    if hooks.is_empty() {
        return None;
    }
    let mut out = Map::new();
    if let Some(m) = def.get("matcher").and_then(Value::as_str) {
        out.insert("matcher".into(), json!(matcher(m)));
    }
    if let Some(s) = def.get("sequential").and_then(Value::as_bool) {
        out.insert("sequential".into(), json!(s));
    }
    out.insert("hooks".into(), Value::Array(hooks));
    Some(Value::Object(out))
}

/// One `type: "command"` hook (Claude Code has no other kind that runs a
/// command).
fn command_hook(hook: &Value) -> Option<Value> {
    let hook = hook.as_object()?;
    if hook
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("command")
        != "command"
    {
        return None;
    }
    let command = hook.get("command")?.as_str()?;
    let mut out = Map::new();
    out.insert("type".into(), json!("command"));
    out.insert(
        "command".into(),
        json!(command.replace("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")),
    );
    if let Some(secs) = hook.get("timeout").and_then(Value::as_f64)
        && secs > 0.0
    {
        // Claude Code counts seconds, Gemini CLI milliseconds.
        out.insert("timeout".into(), json!((secs * 1000.0).round() as u64));
    }
    Some(Value::Object(out))
}

/// A Claude Code matcher (a regex over tool names) with Claude's tool
/// names replaced by ours, whole words only.
fn matcher(m: &str) -> String {
    let mut out = String::with_capacity(m.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let ours = gemini_rs_core::claude_tool_twins()
            .find(|(claude, _)| *claude == word.as_str())
            .map(|(_, ours)| ours);
        out.push_str(ours.unwrap_or(word));
        word.clear();
    };
    for c in m.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_matchers_commands_and_timeouts_convert() {
        let claude = json!({"hooks": {
            "PreToolUse": [{"matcher": "Edit|Write|Bash", "hooks": [
                {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/guard.sh", "timeout": 30}]}],
            "PostToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "log"}]}],
            "SubagentStop": [{"hooks": [{"type": "command", "command": "x"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "prompt", "prompt": "no"}]}]
        }});
        let m = convert(&claude);
        assert_eq!(
            m.hooks["BeforeTool"],
            json!([{"matcher": "replace|write_file|run_shell_command", "hooks": [
                {"type": "command", "command": "$GEMINI_PROJECT_DIR/.claude/guard.sh", "timeout": 30000}]}])
        );
        assert_eq!(m.hooks["AfterTool"][0]["matcher"], "read_file");
        assert!(
            !m.hooks.contains_key("BeforeAgent"),
            "prompt hooks do not run commands"
        );
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(
            m.hooks["SubagentStop"][0]["hooks"][0]["command"], "x",
            "kept as a Claude-format hook"
        );
    }

    #[test]
    fn matcher_words_only() {
        assert_eq!(
            matcher("Bash|Grep|LS|MyBash|Web.*"),
            "run_shell_command|search_file_content|list_directory|MyBash|Web.*"
        );
        assert_eq!(matcher("WebFetch"), "web_fetch");
    }
}
