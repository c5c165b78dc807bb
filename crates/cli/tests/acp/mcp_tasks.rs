//! A long MCP tool call seen by an ACP client. Run as a task (MCP
//! 2026-07-28's tasks extension; the server is `tests/mcp/tasks.rs`'s, on
//! the official Python SDK): the task's status messages arrive as
//! `tool_call_update` content while it runs, and `session/cancel` sends the
//! task's `tasks/cancel`. Run plainly (server-everything): its
//! `notifications/progress` arrive as Gemini CLI 0.61's progress bar.

use super::{run, sandbox, updates};
use crate::e2e::{call, lines, text};
use crate::mcp::tasks::{python, server};
use serde_json::{Value, json};

fn servers(sb: &crate::support::Sandbox) -> Option<(Value, std::path::PathBuf)> {
    let py = python()?;
    let (command, args, log) = server(sb, &py);
    Some((
        json!([{"name": "tasky", "command": command, "args": args, "env": []}]),
        log,
    ))
}

fn contents(log: &Value) -> Vec<String> {
    updates(log, "tool_call_update")
        .iter()
        .filter_map(|u| u["content"][0]["content"]["text"].as_str())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_tasks_status_messages_are_live_output() {
    let sb = sandbox();
    let Some((servers, server_log)) = servers(&sb) else {
        return;
    };
    let responses = lines(&[call("slow", json!({"steps": 3})), text("finished")]);
    let Some(log) = run(
        &sb,
        "tasks",
        &responses,
        json!({"mode": "yolo", "mcpServers": servers, "prompts": ["work"]}),
    ) else {
        return;
    };
    let shown = contents(&log);
    for step in ["step 1 of 3", "step 2 of 3", "step 3 of 3"] {
        assert!(shown.iter().any(|c| c.contains(step)), "{step}: {shown:#?}");
    }
    let done = updates(&log, "tool_call_update");
    let last = done.last().unwrap();
    assert_eq!(last["status"], "completed", "{log:#}");
    assert!(
        last.to_string()
            .contains("slow work finished after 3 steps"),
        "{last}"
    );
    let server_log = std::fs::read_to_string(server_log).unwrap_or_default();
    assert!(!server_log.contains("tasks/cancel"), "{server_log}");
}

#[test]
fn cancelling_the_prompt_cancels_the_task() {
    let sb = sandbox();
    let Some((servers, server_log)) = servers(&sb) else {
        return;
    };
    let responses = lines(&[call("slow", json!({"steps": 50})), text("again")]);
    let started = std::time::Instant::now();
    let Some(log) = run(
        &sb,
        "taskcancel",
        &responses,
        json!({"mode": "yolo", "mcpServers": servers, "cancelOnUpdate": "step 1 of 50",
               "prompts": ["work", "and now?"]}),
    ) else {
        return;
    };
    assert_eq!(log["answers"]["prompts"][0]["stopReason"], "cancelled");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(28),
        "not the 30 s of the task"
    );
    let server_log = std::fs::read_to_string(server_log).unwrap_or_default();
    let created = server_log
        .lines()
        .find_map(|l| l.strip_prefix("task created "))
        .unwrap_or_else(|| panic!("no task: {server_log}"));
    assert!(
        server_log.contains(&format!("tasks/cancel {created}")),
        "{server_log}"
    );
}

#[test]
fn a_servers_progress_notifications_are_live_output() {
    let Some(everything) = crate::mcp::everything_bin() else {
        return;
    };
    let sb = sandbox();
    let responses = lines(&[
        call(
            "trigger-long-running-operation",
            json!({"duration": 2, "steps": 4}),
        ),
        text("ok"),
    ]);
    let servers =
        json!([{"name": "everything", "command": everything, "args": ["stdio"], "env": []}]);
    let Some(log) = run(
        &sb,
        "progress",
        &responses,
        json!({"mode": "yolo", "mcpServers": servers, "prompts": ["go"]}),
    ) else {
        return;
    };
    let bar = |filled: usize| "\u{2588}".repeat(filled) + &"\u{2591}".repeat(20 - filled);
    let shown = contents(&log);
    // The last notification (100 %) races the call's result: the server
    // sends both at once, and a call already done shows no more output.
    for (filled, percent) in [(5, 25), (10, 50), (15, 75)] {
        let line = format!("{} {percent}%", bar(filled));
        assert!(shown.contains(&line), "{line}: {shown:#?}");
    }
    let done = updates(&log, "tool_call_update");
    let last = done.last().unwrap();
    assert_eq!(last["status"], "completed", "{log:#}");
    assert!(
        last.to_string()
            .contains("Long running operation completed"),
        "{last}"
    );
}
