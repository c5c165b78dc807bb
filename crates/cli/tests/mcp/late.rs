//! The terminal UI does not wait for MCP servers (#29): a prompt typed
//! while a slow server starts is taken at once, declaring the tools
//! connected so far; the first request after the server connects declares
//! its tool. The status bar and `/mcp` show the server connecting, then
//! ready, and its prompt becomes a slash command.

use super::lifecycle::{server, settings};
use crate::e2e::{lines, text};
use crate::tui::{Tmux, ui_sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The names declared in one recorded model request.
fn declared(body: &Value) -> Vec<String> {
    body["tools"][0]["functionDeclarations"]
        .as_array()
        .map(|d| {
            d.iter()
                .filter_map(|f| f["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_ui_takes_a_prompt_while_a_slow_server_starts_and_declares_its_tool_once_connected() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    // A server that waits 3 s before it answers `initialize`.
    let (entry, _pidfile) = server(&sb, "slow", "eof", 3.0, json!({}));
    settings(&sb, json!({"slow": entry}));
    let fake = FakeServer::replaying(&lines(&[text("first answer"), text("second answer")]));
    let started = Instant::now();
    let t = Tmux::start(&sb, &fake.base_url, &[], 120, 30);
    let s = t.wait_for("mode: default", 20);
    assert!(s.contains("MCP 0 ready, 1 connecting"), "{s}");
    t.type_text("/mcp");
    t.keys(&["Enter"]);
    t.wait_for("slow - Connecting", 10);
    t.type_text("before the server");
    t.keys(&["Enter"]);
    t.wait_for("first answer", 20);
    let first = started.elapsed();
    let requests = fake.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    let names = declared(&requests[0].body);
    assert!(
        first < Duration::from_secs(3) && !names.iter().any(|n| n == "ping_slow"),
        "the prompt waited for the server ({first:?}) or declared its tool: {names:?}"
    );
    assert!(names.iter().any(|n| n == "read_file"), "{names:?}");
    t.wait_for("MCP 1 ready", 20);
    // Its prompt is a slash command now.
    t.type_text("/ping_slow_prompt");
    t.keys(&["Enter"]);
    t.wait_for("second answer", 20);
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{requests:?}");
    let names = declared(&requests[1].body);
    assert!(names.iter().any(|n| n == "ping_slow"), "{names:?}");
    let body = requests[1].body.to_string();
    assert!(body.contains("prompt of ping_slow"), "{body}");
}
