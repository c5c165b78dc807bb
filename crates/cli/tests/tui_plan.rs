//! Plan mode in the terminal (tmux, like `tui`): `/plan <goal>` switches
//! to plan mode and sends the goal; the plan approval dialog shows the
//! plan, takes feedback to keep planning, then approves into auto_edit;
//! Shift+Tab cycles default, auto_edit, plan as Gemini CLI 0.61 does.

use crate::e2e::{call, lines, text};
use crate::tui::{Tmux, ui_sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::json;

#[test]
fn shift_tab_cycles_the_modes_through_plan() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("unused")]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    for next in ["auto_edit", "plan", "default"] {
        t.keys(&["BTab"]);
        t.wait_for(&format!("mode: {next}"), 10);
    }
    t.keys(&["C-y"]);
    t.wait_for("mode: YOLO", 10);
    t.keys(&["BTab"]);
    t.wait_for("mode: auto_edit", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn plan_command_to_feedback_to_approval() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let plan = "# Plan\n\n1. Write src.txt with the greeting\n";
    let exit = || call("exit_plan_mode", json!({"plan_filename": "greet.md"}));
    let fake = FakeServer::replaying(&lines(&[
        call(
            "write_file",
            json!({"file_path": "greet.md", "content": plan}),
        ),
        exit(),
        exit(),
        exit(),
        call(
            "write_file",
            json!({"file_path": "src.txt", "content": "hello"}),
        ),
        text("Implemented the plan."),
    ]));
    // The "editor" annotates the plan file it is given.
    let editor = sb.write(
        "editor.sh",
        "#!/bin/sh\necho '- annotated: add a test' >> \"$1\"\n",
    );
    let editor = format!("sh {}", editor.display());
    let env = [("EDITOR", editor.as_str())];
    let t = Tmux::start_env(&sb, &fake.base_url, &[], &env, 110, 40);
    t.wait_for("mode: default", 20);
    t.type_text("/plan write the greeting");
    t.keys(&["Enter"]);
    t.wait_for("Switched to Plan Mode.", 10);
    t.wait_for("mode: plan", 10);
    // The plan is written without asking; its approval shows it.
    t.wait_for("Plan Approval", 20);
    t.wait_for("Write src.txt with the greeting", 5);
    t.wait_for("Yes, automatically accept edits", 5);
    // Ctrl+G: the plan is edited, and the model asked to review it.
    t.keys(&["C-g"]);
    t.wait_for("Edited the plan", 10);
    wait_requests(&fake, 3, &t);
    t.wait_for("Start implementing this plan?", 20);
    // Keep planning, with feedback.
    t.keys(&["3"]);
    t.wait_for("Feedback:", 5);
    t.type_text("mention the tests");
    t.keys(&["Enter"]);
    // The model presents it again: approve into auto_edit.
    wait_requests(&fake, 4, &t);
    t.wait_for("Start implementing this plan?", 20);
    t.keys(&["1"]);
    t.wait_for("Implemented the plan.", 20);
    let screen = t.wait_for("mode: auto_edit", 10);
    // The card describes the call; no raw JSON.
    assert!(screen.contains("exit_plan_mode greet.md"), "{screen}");
    assert!(!screen.contains("{\"plan_filename\""), "{screen}");
    let responses = fake.function_responses();
    let said = |i: usize| responses[i]["functionResponse"]["response"]["output"].to_string();
    let expected = [
        "Plan rejected. User feedback: I edited the plan file",
        "Plan rejected. User feedback: mention the tests",
        "Plan approved. Switching to Auto-Edit mode",
    ];
    for (i, text) in expected.iter().enumerate() {
        assert!(said(i + 1).contains(text), "{responses:?}");
    }
    assert_eq!(sb.read("src.txt").as_deref(), Some("hello"));
    assert!(sb.read("greet.md").is_none());
    let annotated = walk(&sb.project_temp_dir())
        .into_iter()
        .find(|p| p.ends_with("greet.md"))
        .unwrap();
    let edited = std::fs::read_to_string(annotated).unwrap();
    assert!(edited.ends_with("- annotated: add a test\n"), "{edited}");
    // `/plan` alone shows the approved plan again; `/plan copy` copies it.
    t.type_text("/plan");
    t.keys(&["Enter"]);
    t.wait_for("Approved Plan: greet.md", 10);
    t.wait_for("annotated: add a test", 5);
    t.type_text("/plan copy");
    t.keys(&["Enter"]);
    t.wait_for("Plan copied to the clipboard (greet.md", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

/// Waits until the model was asked `n` times (the dialog after it shows).
fn wait_requests(fake: &FakeServer, n: usize, t: &Tmux) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while fake.requests().len() < n {
        assert!(std::time::Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Every file below `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
