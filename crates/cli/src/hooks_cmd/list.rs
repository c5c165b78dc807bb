//! `hooks list`: the hooks of every settings layer, grouped by event in
//! the order they run, each with its source file and enabled state.

use super::Loaded;
use gemini_rs_core::config::Scope;
use gemini_rs_core::hooks::{HookConfig, HookEvent};
use serde_json::{Value, json};
use std::collections::HashSet;

/// The settings layers in merge order, with the name shown for each.
const LAYERS: [(Scope, &str); 4] = [
    (Scope::SystemDefaults, "system defaults"),
    (Scope::User, "user"),
    (Scope::Workspace, "project"),
    (Scope::System, "system"),
];

/// One listed hook.
#[derive(Debug)]
struct Entry {
    event: HookEvent,
    matcher: Option<String>,
    sequential: bool,
    name: Option<String>,
    command: String,
    description: Option<String>,
    timeout_ms: u64,
    source: &'static str,
    file: String,
    /// `None` when the hook runs, else why it does not.
    disabled: Option<String>,
    /// Set when an identical hook (`name:command`) of the same event comes
    /// earlier: it runs once.
    duplicate: bool,
}

/// Every hook of every layer, grouped by event (settings order within).
fn entries(loaded: &Loaded) -> (Vec<Entry>, Vec<String>) {
    let typed = loaded.runtime.typed();
    let runtime = HookConfig::from_typed(typed, "project");
    let switched_off = if typed.hooks_config.enabled == Some(false) {
        Some("hooksConfig.enabled is false")
    } else if typed.tools.enable_hooks == Some(false) {
        Some("tools.enableHooks is false")
    } else {
        None
    };
    let mut warnings = Vec::new();
    let mut out = Vec::new();
    for (scope, source) in LAYERS {
        let Some((path, value)) = loaded.all_layers.layer(scope) else {
            continue;
        };
        let config = HookConfig::from_value(value, source);
        warnings.extend(config.warnings.iter().cloned());
        for (event, defs) in &config.events {
            for def in defs {
                for hook in &def.hooks {
                    let disabled = if !loaded.trusted {
                        Some("untrusted folder".to_string())
                    } else if let Some(why) = switched_off {
                        Some(why.to_string())
                    } else if runtime.is_disabled(hook) {
                        Some("listed in hooksConfig.disabled".to_string())
                    } else {
                        None
                    };
                    out.push(Entry {
                        event: *event,
                        matcher: def.matcher.clone(),
                        sequential: def.sequential,
                        name: hook.name.clone(),
                        command: hook.command.clone(),
                        description: hook.description.clone(),
                        timeout_ms: hook.timeout_ms,
                        source,
                        file: path.display().to_string(),
                        disabled,
                        duplicate: false,
                    });
                }
            }
        }
    }
    // Stable: layers stay in merge order within an event.
    out.sort_by_key(|e| e.event);
    let mut seen = HashSet::new();
    for e in out.iter_mut().filter(|e| e.disabled.is_none()) {
        let key = (
            e.event,
            format!("{}:{}", e.name.as_deref().unwrap_or(""), e.command),
        );
        e.duplicate = !seen.insert(key);
    }
    (out, warnings)
}

fn to_json(e: &Entry) -> Value {
    json!({
        "event": e.event.as_str(),
        "matcher": e.matcher,
        "sequential": e.sequential,
        "name": e.name,
        "command": e.command,
        "description": e.description,
        "timeout": e.timeout_ms,
        "source": e.source,
        "file": e.file,
        "enabled": e.disabled.is_none(),
        "disabledReason": e.disabled,
        "duplicate": e.duplicate,
    })
}

/// The text block of one hook.
fn render(e: &Entry) -> String {
    let state = match &e.disabled {
        None if e.duplicate => "enabled, duplicate: runs once".to_string(),
        None => "enabled".to_string(),
        Some(why) => format!("disabled: {why}"),
    };
    let mark = if e.disabled.is_none() { '✓' } else { '✗' };
    let title = e
        .name
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or(&e.command);
    let mut s = format!("  {mark} {title} ({state})\n");
    if e.name.as_deref().is_some_and(|n| !n.is_empty()) {
        s.push_str(&format!("      command: {}\n", e.command));
    }
    if let Some(d) = e.description.as_deref().filter(|d| !d.is_empty()) {
        s.push_str(&format!("      description: {d}\n"));
    }
    let matcher = match e.matcher.as_deref() {
        None | Some("") => "(all)",
        Some(m) => m,
    };
    s.push_str(&format!(
        "      matcher: {matcher}, timeout: {} ms, sequential: {}\n",
        e.timeout_ms, e.sequential
    ));
    s.push_str(&format!("      source: {} ({})\n", e.source, e.file));
    s
}

/// Prints the list; returns the exit code.
pub(super) fn run(loaded: &Loaded, as_json: bool) -> i32 {
    let (entries, warnings) = entries(loaded);
    for w in &warnings {
        eprintln!("[WARNING] {w}");
    }
    if as_json {
        let list: Vec<Value> = entries.iter().map(to_json).collect();
        println!("{}", Value::Array(list));
        return 0;
    }
    if entries.is_empty() {
        println!("No hooks configured.");
        return 0;
    }
    if !loaded.trusted {
        println!(
            "This folder is not trusted: no hook runs here (Gemini CLI treats every settings hook as a project hook).\n"
        );
    }
    println!("Configured hooks:");
    let mut current = None;
    for e in &entries {
        if current != Some(e.event) {
            println!("\n{}:", e.event);
            current = Some(e.event);
        }
        print!("{}", render(e));
    }
    0
}
