//! Plan mode in the terminal (tmux, like `tui`): `/plan <goal>` switches
//! to plan mode and sends the goal; the plan approval dialog shows the
//! plan, takes feedback to keep planning, then approves into auto_edit;
//! Shift+Tab cycles default, auto_edit, plan as Gemini CLI 0.61 does.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use crate::tui::{Tmux, tmux_available};
use gemini_rs_test_support::FakeServer;
use serde_json::json;

fn ui_sandbox() -> Option<Sandbox> {
    if !tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return None;
    }
    let sb = Sandbox::new();
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}
    }));
    Some(sb)
}

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
    let fake = FakeServer::replaying(&lines(&[
        call(
            "write_file",
            json!({"file_path": "greet.md", "content": plan}),
        ),
        call("exit_plan_mode", json!({"plan_filename": "greet.md"})),
        call("exit_plan_mode", json!({"plan_filename": "greet.md"})),
        call(
            "write_file",
            json!({"file_path": "src.txt", "content": "hello"}),
        ),
        text("Implemented the plan."),
    ]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 110, 40);
    t.wait_for("mode: default", 20);
    t.type_text("/plan write the greeting");
    t.keys(&["Enter"]);
    t.wait_for("Switched to Plan Mode.", 10);
    t.wait_for("mode: plan", 10);
    // The plan is written without asking; its approval shows it.
    t.wait_for("Plan Approval", 20);
    t.wait_for("Write src.txt with the greeting", 5);
    t.wait_for("Yes, automatically accept edits", 5);
    // Keep planning, with feedback.
    t.keys(&["3"]);
    t.wait_for("Feedback:", 5);
    t.type_text("mention the tests");
    t.keys(&["Enter"]);
    // The model presents it again: approve into auto_edit.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while fake.requests().len() < 3 {
        assert!(std::time::Instant::now() < deadline, "{}", t.screen());
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    t.wait_for("Start implementing this plan?", 20);
    t.keys(&["1"]);
    t.wait_for("Implemented the plan.", 20);
    t.wait_for("mode: auto_edit", 10);
    let responses = fake.function_responses();
    let said = |i: usize| responses[i]["functionResponse"]["response"]["output"].to_string();
    assert!(
        said(1).contains("Plan rejected. User feedback: mention the tests"),
        "{responses:?}"
    );
    assert!(
        said(2).contains("Plan approved. Switching to Auto-Edit mode"),
        "{responses:?}"
    );
    assert_eq!(sb.read("src.txt").as_deref(), Some("hello"));
    assert!(sb.read("greet.md").is_none());
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}
