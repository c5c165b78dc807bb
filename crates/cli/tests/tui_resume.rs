//! Resuming and leaving in the terminal UI: a resumed conversation drawn
//! as it ran, the `/resume` browser switching sessions, the summary
//! printed on leaving, and no stale input box after a resize.

use crate::e2e::{call, lines, turn};
use crate::tui::{Tmux, ui_sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::json;

/// Records one headless session: a shell call and a Markdown answer.
fn recorded_session(sb: &crate::support::Sandbox) {
    let fake = FakeServer::replaying(&lines(&[
        call(
            "run_shell_command",
            json!({"command": "echo resumed-output"}),
        ),
        turn(json!([{"text": "**Done**: it printed.\n\n- first point"}])),
    ]));
    let out = sb.run(
        &["--approval-mode=yolo", "-p", "say it"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
}

fn assert_transcript(s: &str) {
    assert!(s.contains("> say it"), "{s}");
    let card = s
        .lines()
        .find(|l| l.contains("run_shell_command"))
        .unwrap_or_default();
    assert!(card.contains("echo resumed-output"), "{card}\n{s}");
    assert!(
        s.contains("resumed-output\n") || s.contains("resumed-output "),
        "{s}"
    );
    // Markdown is rendered, not shown raw.
    assert!(s.contains("Done: it printed."), "{s}");
    assert!(!s.contains("**Done**"), "{s}");
    assert!(
        s.contains("• first point") || s.contains("- first point"),
        "{s}"
    );
}

#[test]
fn resume_draws_the_conversation_and_leaving_prints_the_summary() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    recorded_session(&sb);
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": "unused"}]))]));
    let t = Tmux::start(&sb, &fake.base_url, &["--resume", "latest"], 100, 40);
    let s = t.wait_for("mode: default", 20);
    assert!(s.contains("Resumed session"), "{s}");
    assert_transcript(&s);
    t.type_text("/quit");
    t.keys(&["Enter"]);
    let s = t.wait_for("EXIT=0", 20);
    let id_line = s
        .lines()
        .find(|l| l.starts_with("Session "))
        .unwrap_or_default();
    assert!(id_line.ends_with(" ended."), "{s}");
    let id = id_line
        .trim_start_matches("Session ")
        .trim_end_matches(" ended.");
    assert!(
        s.contains(&format!("To resume: gemini-rs --resume {id}")),
        "{s}"
    );
    assert!(s.contains("Tool calls"), "{s}");
}

#[test]
fn leaving_counts_tool_calls_and_tokens_per_model() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": "echo hi"})),
        turn(json!([{"text": "All done."}])),
    ]));
    let t = Tmux::start(&sb, &fake.base_url, &["--approval-mode=yolo"], 100, 40);
    t.wait_for("mode: YOLO", 20);
    t.type_text("run echo");
    t.keys(&["Enter"]);
    t.wait_for("All done.", 20);
    // Ctrl+C twice on an empty prompt leaves.
    t.keys(&["C-c"]);
    t.keys(&["C-c"]);
    let s = t.wait_for("EXIT=0", 20);
    assert!(
        s.contains("Tool calls        1 (✓ 1 ✗ 0), 100.0% succeeded"),
        "{s}"
    );
    let row = s
        .lines()
        .find(|l| l.trim_start().starts_with("gemini-2.5-flash"))
        .unwrap_or_default();
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cols.get(1..5),
        Some(&["2", "200", "0", "20"][..]),
        "{row}\n{s}"
    );
    assert!(s.contains("To resume: gemini-rs --resume "), "{s}");
}

#[test]
fn the_resume_browser_lists_sessions_and_switches_to_one() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    recorded_session(&sb);
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": "unused"}]))]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 40);
    t.wait_for("mode: default", 20);
    t.type_text("/resume");
    t.keys(&["Enter"]);
    let s = t.wait_for("Sessions of this project", 10);
    let row = s
        .lines()
        .find(|l| l.trim_start().starts_with("1. "))
        .unwrap_or_default();
    assert!(
        row.contains("1 turn") && row.contains("say it"),
        "{row}\n{s}"
    );
    t.type_text("/resume 1");
    t.keys(&["Enter"]);
    let s = t.wait_for("Resumed session", 20);
    let s = if s.contains("> say it") {
        s
    } else {
        t.wait_for("> say it", 10)
    };
    assert_transcript(&s);
    // The switched-to session goes on: leaving names it.
    t.type_text("/quit");
    t.keys(&["Enter"]);
    let s = t.wait_for("EXIT=0", 20);
    assert_eq!(s.matches("To resume: gemini-rs --resume").count(), 1, "{s}");
}

#[test]
fn a_resize_leaves_no_stale_input_box_in_the_scrollback() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": "unused"}]))]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("typed before the resize");
    t.wait_for("> typed before the resize", 10);
    // Narrower (the terminal rewraps the box), wider, then shorter.
    for (w, h) in [(70, 30), (110, 30), (110, 24)] {
        t.resize(w, h);
        std::thread::sleep(std::time::Duration::from_millis(700));
        let s = t.wait_for("> typed before the resize", 10);
        assert_eq!(
            s.matches("> typed before the resize").count(),
            1,
            "after resizing to {w}x{h}:\n{s}"
        );
        assert_eq!(s.matches("mode: default").count(), 1, "{w}x{h}:\n{s}");
    }
}

#[test]
fn a_resumed_session_is_drawn_at_the_window_width_as_the_user_saw_it() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    sb.write("a.txt", "SECRET-FILE-BODY\n");
    let long = "This answer is one long line of more than eighty columns, which a 120-column window shows whole.";
    let fake = FakeServer::replaying(&lines(&[
        call(
            "run_shell_command",
            json!({"command": "echo resumed-output"}),
        ),
        turn(json!([{ "text": long }])),
    ]));
    let out = sb.run(
        &["--approval-mode=yolo", "-p", "say it @a.txt"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": "unused"}]))]));
    let t = Tmux::start(&sb, &fake.base_url, &["--resume", "latest"], 120, 40);
    let s = t.wait_for("mode: default", 20);
    assert!(s.contains("> say it @a.txt"), "{s}");
    assert!(!s.contains("SECRET-FILE-BODY"), "{s}");
    assert!(!s.contains("Content from referenced files"), "{s}");
    assert!(!s.contains("Process Group PGID"), "{s}");
    assert!(!s.contains("Directory: "), "{s}");
    assert!(s.contains("resumed-output"), "{s}");
    assert!(s.lines().any(|l| l.contains(long)), "{s}");
    t.type_text("/quit");
    t.keys(&["Enter"]);
    t.wait_for("EXIT=0", 20);
}
