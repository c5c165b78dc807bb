//! Claude-format PreToolUse hooks decide permission before policy and
//! confirmation (issue 28 item 6), headless: `allow` runs a call policy
//! would ask about, `ask` refuses an allowed call when no one can be
//! asked, the strongest decision of several hooks wins, and a deny rule
//! refuses whatever a hook said. Gemini-format BeforeTool hooks still run
//! after confirmation, once.

use super::settings;
use crate::e2e::{call, lines, text};
use crate::support::{Output, Sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

/// A PreToolUse hook that logs its call to `pre.log` and answers `decision`.
fn pre_tool_use(decision: &str) -> Value {
    let answer = json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": decision, "permissionDecisionReason": format!("hook says {decision}")}});
    json!({"type": "command",
        "command": format!("cat >/dev/null; echo {decision} >> pre.log; echo '{answer}'")})
}

/// A Gemini-format BeforeTool hook that logs to `before.log`.
fn before_tool() -> Value {
    json!({"type": "command", "command": "cat >/dev/null; echo ran >> before.log"})
}

/// One `run_shell_command` call creating `ran.txt`, then an answer.
fn shell_session() -> String {
    lines(&[
        call("run_shell_command", json!({"command": "touch ran.txt"})),
        text("done"),
    ])
}

fn run(sb: &Sandbox, flags: &[&str]) -> (FakeServer, Output) {
    let fake = FakeServer::replaying(&shell_session());
    let mut args = flags.to_vec();
    args.push("go");
    let out = sb.run(&args, None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    (fake, out)
}

/// The only function response's text.
fn response(fake: &FakeServer) -> String {
    let frs = fake.function_responses();
    assert_eq!(frs.len(), 1, "{frs:?}");
    frs[0]["functionResponse"]["response"].to_string()
}

#[test]
fn allow_runs_a_shell_command_policy_would_ask_about_in_a_headless_run() {
    // The shell is declared (`echo` is allowed) and `touch` needs a
    // confirmation: without the hook the call is refused, as no one can
    // be asked in a headless default-mode run.
    let only_echo = ["--allowed-tools", "run_shell_command(echo)"];
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let (fake, out) = run(&sb, &only_echo);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(sb.read("ran.txt").is_none(), "{out:?}");
    assert!(
        response(&fake).contains("Tool execution denied by policy."),
        "{}",
        response(&fake)
    );

    let sb = Sandbox::new();
    let hooks = json!({
        "PreToolUse": [{"matcher": "Bash", "hooks": [pre_tool_use("allow")]}],
        "BeforeTool": [{"matcher": "run_shell_command", "hooks": [before_tool()]}]
    });
    settings(&sb, hooks);
    let (fake, out) = run(&sb, &[&only_echo[..], &["-o", "json"]].concat());
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        sb.read("ran.txt").is_some(),
        "the hook's allow ran it: {out:?}"
    );
    assert!(!response(&fake).contains("denied"), "{}", response(&fake));
    assert_eq!(sb.read("pre.log").as_deref(), Some("allow\n"), "once");
    assert_eq!(
        sb.read("before.log").as_deref(),
        Some("ran\n"),
        "the Gemini hook runs once, after approval"
    );
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let decisions = &json["stats"]["tools"]["totalDecisions"];
    assert_eq!(decisions["auto_accept"], 1, "{json:#}");
}

#[test]
fn ask_refuses_an_allowed_call_when_no_one_can_be_asked() {
    let sb = Sandbox::new();
    let hooks = json!({
        "PreToolUse": [{"matcher": "Bash", "hooks": [pre_tool_use("ask")]}],
        "BeforeTool": [{"hooks": [before_tool()]}]
    });
    settings(&sb, hooks);
    let (fake, out) = run(&sb, &["--yolo"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(sb.read("ran.txt").is_none(), "ask must not run it: {out:?}");
    assert!(
        response(&fake).contains("Tool execution denied by policy."),
        "{}",
        response(&fake)
    );
    assert!(sb.read("before.log").is_none(), "refused before BeforeTool");
}

#[test]
fn the_strictest_of_several_hooks_wins_and_deny_rules_stay() {
    // allow + ask: ask wins (refused headless even under yolo).
    let sb = Sandbox::new();
    let both = json!({"PreToolUse": [
        {"matcher": "Bash", "hooks": [pre_tool_use("allow")]},
        {"matcher": "Bash", "hooks": [pre_tool_use("ask")]}
    ]});
    settings(&sb, both);
    let (fake, _) = run(&sb, &["--yolo"]);
    assert!(sb.read("ran.txt").is_none());
    assert!(response(&fake).contains("denied by policy"));

    // ask + deny: deny wins, with the hook's reason for the model.
    let sb = Sandbox::new();
    let both = json!({"PreToolUse": [
        {"matcher": "Bash", "hooks": [pre_tool_use("ask")]},
        {"matcher": "Bash", "hooks": [pre_tool_use("deny")]}
    ]});
    settings(&sb, both);
    let (fake, _) = run(&sb, &["--yolo"]);
    assert!(sb.read("ran.txt").is_none());
    let text = response(&fake);
    assert!(text.contains("hook says deny"), "{text}");

    // A deny rule refuses what a hook allowed.
    let sb = Sandbox::new();
    settings(
        &sb,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [pre_tool_use("allow")]}]}),
    );
    let rule = "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"touch\"\ndecision = \"deny\"\npriority = 500\n";
    let policy = sb.write("deny.toml", rule);
    let policy = policy.display().to_string();
    let (fake, _) = run(&sb, &["--yolo", "--policy", &policy]);
    assert!(sb.read("ran.txt").is_none());
    let text = response(&fake);
    assert!(text.contains("Tool execution denied by policy."), "{text}");
}
