//! `hooks list`: the hooks of every settings layer, grouped by event in
//! the order they run, each with its source file and enabled state.

use gemini_rs_core::{HookListing as Entry, HooksListing};
use serde_json::{Value, json};

fn to_json(e: &Entry) -> Value {
    json!({
        "event": e.event,
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
pub(super) fn run(listing: &HooksListing, as_json: bool) -> i32 {
    let (entries, warnings) = (&listing.hooks, &listing.warnings);
    for w in warnings {
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
    if !listing.trusted {
        println!(
            "This folder is not trusted: no hook runs here (Gemini CLI treats every settings hook as a project hook).\n"
        );
    }
    println!("Configured hooks:");
    let mut current = None;
    for e in entries {
        if current != Some(&e.event) {
            println!("\n{}:", e.event);
            current = Some(&e.event);
        }
        print!("{}", render(e));
    }
    0
}
