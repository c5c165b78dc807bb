//! Claude-format PreToolUse hooks over ACP: `ask` makes the agent send
//! `session/request_permission` for a call yolo mode would run unasked,
//! and `allow` runs a write without the request default mode would send.

use super::{run, updates};
use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use serde_json::json;

/// A workspace whose `Write` and `Read` calls a PreToolUse hook answers
/// with `decision`.
fn sandbox_with_hook(decision: &str) -> Sandbox {
    let sb = Sandbox::new();
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": decision}});
    let command = format!("cat >/dev/null; echo {decision} >> pre.log; echo '{answer}'");
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooks": {"PreToolUse": [{"matcher": "Write|Read",
            "hooks": [{"type": "command", "command": command}]}]}}));
    sb
}

fn write_session(file: &str) -> String {
    lines(&[
        call("write_file", json!({"file_path": file, "content": "x"})),
        text("Written."),
    ])
}

#[test]
fn ask_requests_permission_under_yolo() {
    let sb = sandbox_with_hook("ask");
    let scenario = json!({"mode": "yolo", "permission": "allow_once", "prompts": ["write a.txt"]});
    let Some(log) = run(&sb, "hook-ask", &write_session("a.txt"), scenario) else {
        return;
    };
    assert_eq!(
        updates(&log, "current_mode_update")[0]["currentModeId"],
        "yolo"
    );
    let asked = log["permissions"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{log:#}");
    assert_eq!(asked[0]["toolCall"]["content"][0]["newText"], "x");
    assert_eq!(
        sb.read("a.txt").as_deref(),
        Some("x"),
        "allowed once, it ran"
    );
    assert_eq!(sb.read("pre.log").as_deref(), Some("ask\n"));
}

#[test]
fn ask_requests_permission_for_a_tool_with_no_confirmation_of_its_own() {
    let sb = sandbox_with_hook("ask");
    sb.write("r.txt", "read me");
    let session = lines(&[
        call("read_file", json!({"file_path": "r.txt"})),
        text("Read."),
    ]);
    let scenario = json!({"permission": "reject_once", "prompts": ["read r.txt"]});
    let Some(log) = run(&sb, "hook-ask-read", &session, scenario) else {
        return;
    };
    let asked = log["permissions"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{log:#}");
    let shown = asked[0]["toolCall"]["content"][0]["content"]["text"].to_string();
    assert!(shown.contains("r.txt"), "{shown}");
    let done = updates(&log, "tool_call_update");
    assert!(
        done.iter().any(|u| u["status"] == "failed"),
        "rejected: {done:#?}"
    );
}

#[test]
fn allow_skips_the_permission_request_of_default_mode() {
    let sb = sandbox_with_hook("allow");
    let scenario = json!({"permission": "reject_once", "prompts": ["write b.txt"]});
    let Some(log) = run(&sb, "hook-allow", &write_session("b.txt"), scenario) else {
        return;
    };
    assert!(log["permissions"].as_array().unwrap().is_empty(), "{log:#}");
    assert_eq!(sb.read("b.txt").as_deref(), Some("x"));
    assert_eq!(sb.read("pre.log").as_deref(), Some("allow\n"));
}
