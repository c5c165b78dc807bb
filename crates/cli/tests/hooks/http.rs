//! Claude Code's `http` hooks through the binary: from the user's
//! `~/.claude/settings.json` the input is POSTed as JSON to a real server on
//! 127.0.0.1, headers name only the variables `allowedEnvVars` allows, a
//! JSON answer decides as a command hook's stdout does, and an error status
//! is a non-blocking failure.

use crate::e2e::{lines, text, turn};
use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::json;

#[test]
fn a_users_http_hook_denies_a_write_and_a_failing_one_only_warns() {
    let sb = Sandbox::new();
    let deny = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "deny", "permissionDecisionReason": "No writes today."}});
    let hooks = FakeServer::with_routes([
        ("/deny", Reply::json(200, deny)),
        ("/down", Reply::text(503, "busy")),
    ]);
    let user = json!({"hooks": {
        "PreToolUse": [{"matcher": "Write", "hooks": [{"type": "http", "url": hooks.url("/deny"),
            "headers": {"Authorization": "Bearer $HOOK_TOKEN", "X-Other": "[${GEMINI_API_KEY}]"},
            "allowedEnvVars": ["HOOK_TOKEN"], "timeout": 5}]}],
        "PostToolUse": [{"matcher": "Read", "hooks": [{"type": "http", "url": hooks.url("/down")}]}]
    }});
    std::fs::create_dir_all(sb.home.join(".claude")).expect("~/.claude");
    std::fs::write(sb.home.join(".claude/settings.json"), user.to_string()).expect("write");
    sb.write("a.txt", "A");
    sb.settings(&json!({"model": {"retry": {"initialDelayMs": 1}},
        "hooksConfig": {"claudeCompat": true}}));
    let calls = turn(json!([
        {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}},
        {"functionCall": {"name": "write_file", "args": {"file_path": "b.txt", "content": "B"}}}
    ]));
    let model = FakeServer::replaying(&lines(&[calls, text("ok")]));
    let out = sb.run(
        &["--approval-mode=yolo", "go"],
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &model.base_url),
            ("HOOK_TOKEN", "t0k"),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(sb.read("b.txt").is_none(), "the write ran");
    let responses = model.function_responses();
    assert_eq!(responses.len(), 2, "{responses:?}");
    assert_eq!(
        responses[0]["functionResponse"]["response"],
        json!({"output": "A"})
    );
    let refusal = responses[1]["functionResponse"]["response"].to_string();
    assert!(refusal.contains("No writes today."), "{refusal}");

    let asked = hooks.requests();
    let mut paths: Vec<&str> = asked.iter().map(|r| r.path.as_str()).collect();
    paths.sort_unstable();
    assert_eq!(paths, ["/deny", "/down"]);
    let on = |path: &str| asked.iter().find(|r| r.path == path).expect("asked");
    let pre = on("/deny");
    assert_eq!(pre.method, "POST");
    assert_eq!(pre.header("content-type"), Some("application/json"));
    assert_eq!(pre.header("authorization"), Some("Bearer t0k"));
    assert_eq!(pre.header("x-other"), Some("[]"), "a variable not allowed");
    assert_eq!(pre.body["hook_event_name"], "PreToolUse");
    assert_eq!(pre.body["tool_name"], "Write");
    assert_eq!(pre.body["tool_input"]["file_path"], "b.txt");
    assert_eq!(on("/down").body["hook_event_name"], "PostToolUse");
    let warning = format!("Hook(s) [{}] failed", hooks.url("/down"));
    assert!(
        out.stderr.contains(&warning),
        "the 503 is a warning: {}",
        out.stderr
    );
}
