//! Issue 25.1 in the terminal: `/export-session <file>` writes the session
//! that `--session-file` imports again; `--screen-reader` keeps the screen
//! still (no spinner frames). Runs in tmux like `tui`.

use crate::e2e::{call, lines, text};
use crate::tui::{Tmux, ui_sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::time::Duration;

#[test]
fn export_session_writes_what_session_file_imports() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("The word is kestrel.")]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("/export-session");
    t.keys(&["Enter"]);
    t.wait_for("Usage: /export-session <file>", 10);
    t.type_text("remember kestrel");
    t.keys(&["Enter"]);
    t.wait_for("The word is kestrel.", 20);
    // The recorder writes in the background; give it a moment.
    std::thread::sleep(Duration::from_millis(300));
    t.type_text("/export-session out/session.json");
    t.keys(&["Enter"]);
    t.wait_for("Session exported to", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
    let exported: Value =
        serde_json::from_str(&sb.read("out/session.json").expect("exported file")).unwrap();
    let kinds: Vec<&str> = exported["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["type"].as_str())
        .collect();
    assert!(
        kinds.contains(&"user") && kinds.contains(&"gemini"),
        "{exported}"
    );
    // Headless, the exported file starts a new session from there.
    let next = FakeServer::replaying(&lines(&[text("kestrel")]));
    let out = sb.run(
        &["--session-file", "out/session.json", "-p", "which word?"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &next.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let body = next.requests()[0].body.to_string();
    assert!(body.contains("remember kestrel"), "{body}");
    assert!(body.contains("The word is kestrel."), "{body}");
}

#[test]
fn screen_reader_mode_shows_no_spinner() {
    screen_reader_case(&["--screen-reader"], false);
}

#[test]
fn the_screen_reader_setting_turns_the_mode_on() {
    screen_reader_case(&[], true);
}

/// A turn with a running command in screen reader mode, turned on by
/// `flags` or by `ui.accessibility.screenReader` (`setting`).
fn screen_reader_case(flags: &[&str], setting: bool) {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    if setting {
        sb.settings(
            &json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "ui": {"accessibility": {"screenReader": true}}}),
        );
    }
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": "sleep 2"})),
        text("slept"),
    ]));
    let mut args = flags.to_vec();
    args.push("--approval-mode=yolo");
    let t = Tmux::start(&sb, &fake.base_url, &args, 100, 30);
    t.wait_for("mode: YOLO", 20);
    t.type_text("sleep please");
    t.keys(&["Enter"]);
    let screen = t.wait_for("running", 20);
    let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
    for _ in 0..5 {
        let s = t.screen();
        assert!(
            !frames.iter().any(|f| s.contains(f)),
            "a spinner frame:\n{s}"
        );
        std::thread::sleep(Duration::from_millis(150));
    }
    assert!(screen.contains('…'), "{screen}");
    t.wait_for("slept", 20);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}
