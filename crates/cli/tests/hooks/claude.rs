//! Claude-format hooks through the binary (issue 28 item 6): hooks under
//! Claude Code's event names match Claude's tool names, read Claude's
//! input, and their decisions, `updatedInput`, exit code 2, Stop blocks and
//! PostToolUseFailure reach the model; with `hooksConfig.claudeCompat` the
//! hooks of `.claude/settings.json` run too.

use super::{hook, run, settings, single_response};
use crate::e2e::{call, lines, text, turn};
use crate::support::Sandbox;
use serde_json::{Value, json};

/// A Claude Code hook script: appends its input to
/// `hooklog/<hook_event_name>.jsonl`, then answers as `argv[1]` says.
const CLAUDE_PY: &str = r#"import json, os, sys
d = json.load(sys.stdin)
base = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "hooklog")
os.makedirs(base, exist_ok=True)
with open(os.path.join(base, d["hook_event_name"] + ".jsonl"), "a") as f:
    f.write(json.dumps(d) + "\n")
mode = sys.argv[1]
def out(v):
    print(json.dumps(v))
if mode == "deny-writes":
    out({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
         "permissionDecisionReason": "Writes under secrets/ are not allowed."}})
elif mode == "rewrite-edit":
    i = dict(d["tool_input"])
    i["new_string"] = i["new_string"].upper()
    out({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
         "updatedInput": i}})
elif mode == "failure-context":
    out({"hookSpecificOutput": {"hookEventName": "PostToolUseFailure",
         "additionalContext": "Files live under docs/."}})
elif mode == "stop-once":
    if not d["stop_hook_active"]:
        out({"decision": "block", "reason": "Run the tests before you stop."})
elif mode == "stop-always":
    out({"decision": "block", "reason": "Not yet."})
"#;

/// The command running [`CLAUDE_PY`] in `mode`.
fn claude_hook(sb: &Sandbox, mode: &str) -> Value {
    let py = sb.write("claude_hook.py", CLAUDE_PY);
    json!({"type": "command", "command": format!("python3 \"{}\" {mode}", py.display())})
}

/// The inputs a Claude event's hooks were given, in order.
fn logged(sb: &Sandbox, event: &str) -> Vec<Value> {
    sb.read(&format!("hooklog/{event}.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_pre_tool_use_hook_on_write_or_edit_denies_a_write() {
    let sb = Sandbox::new();
    sb.write("a.txt", "A");
    let defs = json!({"PreToolUse": [{"matcher": "Write|Edit", "hooks": [claude_hook(&sb, "deny-writes")]}]});
    settings(&sb, defs);
    let both = turn(json!([
        {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}},
        {"functionCall": {"name": "write_file", "args": {"file_path": "secrets/key.txt", "content": "k"}}}
    ]));
    let (fake, out) = run(&sb, &lines(&[both, text("ok")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(sb.read("secrets/key.txt").is_none(), "the write ran");
    let responses = fake.function_responses();
    assert_eq!(responses.len(), 2, "{responses:?}");
    assert_eq!(
        responses[0]["functionResponse"]["response"],
        json!({"output": "A"})
    );
    let refusal = responses[1]["functionResponse"]["response"].to_string();
    assert!(
        refusal.contains("Writes under secrets/ are not allowed."),
        "{refusal}"
    );
    let seen = logged(&sb, "PreToolUse");
    assert_eq!(seen.len(), 1, "Read is not Write|Edit: {seen:?}");
    let input = &seen[0];
    assert_eq!(input["tool_name"], "Write");
    assert_eq!(
        input["tool_input"],
        json!({"file_path": "secrets/key.txt", "content": "k"})
    );
    assert_eq!(input["permission_mode"], "bypassPermissions");
    assert_eq!(input["cwd"], json!(sb.work.display().to_string()));
    assert!(
        input["tool_use_id"]
            .as_str()
            .is_some_and(|id| !id.is_empty())
    );
    assert!(
        input["transcript_path"]
            .as_str()
            .is_some_and(|p| !p.is_empty())
    );
    assert!(input.get("timestamp").is_none(), "{input}");
}

#[test]
fn a_pre_tool_use_hook_rewrites_an_edit_through_updated_input() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "status: draft\n");
    let defs =
        json!({"PreToolUse": [{"matcher": "Edit", "hooks": [claude_hook(&sb, "rewrite-edit")]}]});
    settings(&sb, defs);
    let edit = call(
        "replace",
        json!({"file_path": "notes.txt", "instruction": "Mark the notes final.",
            "old_string": "draft", "new_string": "final", "allow_multiple": false}),
    );
    let (fake, out) = run(&sb, &lines(&[edit, text("ok")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        sb.read("notes.txt").as_deref(),
        Some("status: FINAL\n"),
        "{out:?} {:?} {:?}",
        fake.function_responses(),
        sb.read("hooklog/PreToolUse.jsonl")
    );
    let seen = logged(&sb, "PreToolUse");
    assert_eq!(seen[0]["tool_name"], "Edit");
    assert_eq!(
        seen[0]["tool_input"],
        json!({"file_path": "notes.txt", "old_string": "draft", "new_string": "final",
            "replace_all": false}),
        "Claude's parameter names, without `instruction` (Claude's Edit has none)"
    );
    let response = single_response(&fake).to_string();
    assert!(
        response.contains("Tool input parameters (new_string) were modified by a hook"),
        "{response}"
    );
}

#[test]
fn exit_code_2_blocks_and_its_stderr_reaches_the_model() {
    let sb = Sandbox::new();
    sb.write("keep.txt", "k");
    let guard = "cat > /dev/null; echo 'rm is not allowed in this repository' >&2; exit 2";
    let defs = json!({"PreToolUse": [{"matcher": "Bash", "hooks": [hook("guard", guard)]}]});
    settings(&sb, defs);
    let rm = call("run_shell_command", json!({"command": "rm -f keep.txt"}));
    let (fake, out) = run(&sb, &lines(&[rm, text("ok")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(sb.read("keep.txt").as_deref(), Some("k"), "the command ran");
    let response = single_response(&fake).to_string();
    assert!(
        response.contains("rm is not allowed in this repository"),
        "{response}"
    );
}

#[test]
fn post_tool_use_failure_fires_on_a_failed_call_and_post_tool_use_does_not() {
    let sb = Sandbox::new();
    let defs = json!({
        "PostToolUse": [{"matcher": "Read", "hooks": [claude_hook(&sb, "log")]}],
        "PostToolUseFailure": [{"matcher": "Read", "hooks": [claude_hook(&sb, "failure-context")]}]
    });
    settings(&sb, defs);
    let read = call("read_file", json!({"file_path": "missing.txt"}));
    let (fake, out) = run(&sb, &lines(&[read, text("ok")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        logged(&sb, "PostToolUse").is_empty(),
        "PostToolUse fired on a failure"
    );
    let seen = logged(&sb, "PostToolUseFailure");
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["tool_name"], "Read");
    assert_eq!(seen[0]["tool_input"], json!({"file_path": "missing.txt"}));
    assert_eq!(seen[0]["is_interrupt"], false);
    let error = seen[0]["error"].as_str().unwrap();
    assert!(error.contains("missing.txt"), "{error}");
    let response = single_response(&fake).to_string();
    assert!(response.contains("Files live under docs/."), "{response}");
}

#[test]
fn a_stop_hook_blocking_once_sends_the_agent_on_with_its_reason() {
    let sb = Sandbox::new();
    let defs = json!({"Stop": [{"hooks": [claude_hook(&sb, "stop-once")]}]});
    settings(&sb, defs);
    let (fake, out) = run(&sb, &lines(&[text("done"), text("tests pass")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("tests pass"), "{out:?}");
    let seen = logged(&sb, "Stop");
    let active: Vec<&Value> = seen.iter().map(|s| &s["stop_hook_active"]).collect();
    assert_eq!(active, [&json!(false), &json!(true)]);
    assert_eq!(seen[0]["last_assistant_message"], "done");
    assert_eq!(seen[1]["last_assistant_message"], "tests pass");
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let last = requests[1].body["contents"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        last["parts"][0]["text"],
        json!("Run the tests before you stop."),
        "{last}"
    );
}

#[test]
fn a_stop_hook_that_always_blocks_is_bounded() {
    let sb = Sandbox::new();
    let defs = json!({"Stop": [{"hooks": [claude_hook(&sb, "stop-always")]}]});
    settings(&sb, defs);
    let answers: Vec<String> = (0..8).map(|i| text(&format!("answer {i}"))).collect();
    let (fake, out) = run(&sb, &lines(&answers));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        fake.requests().len(),
        6,
        "one answer and five continuations"
    );
    assert_eq!(logged(&sb, "Stop").len(), 6);
    assert!(
        out.stderr.contains("Stop hooks blocked 5 times in a row"),
        "{out:?}"
    );
}

#[test]
fn claude_settings_hooks_run_with_claude_compat() {
    let sb = Sandbox::new();
    let py = sb.write("claude_hook.py", CLAUDE_PY);
    let deny = json!({"hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [
        {"type": "command", "command": format!("python3 \"{}\" deny-writes", py.display()), "timeout": 30}]}]}});
    sb.write(".claude/settings.json", &deny.to_string());
    let user = json!({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": format!("python3 \"{}\" log", py.display())}]}]}});
    sb.write_home(".claude/settings.json", &user.to_string());
    let write = || {
        lines(&[
            call(
                "write_file",
                json!({"file_path": "out.txt", "content": "x"}),
            ),
            text("ok"),
        ])
    };

    // Without claudeCompat, Claude Code's settings are not read.
    settings(&sb, json!({}));
    let (_, out) = run(&sb, &write());
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(sb.read("out.txt").as_deref(), Some("x"));
    assert!(logged(&sb, "SessionStart").is_empty());
    std::fs::remove_file(sb.work.join("out.txt")).unwrap();

    sb.settings(&json!({
        "model": {"name": super::MODEL, "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooksConfig": {"claudeCompat": true}
    }));
    let (fake, out) = run(&sb, &write());
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        sb.read("out.txt").is_none(),
        "the project's Claude hook did not deny"
    );
    let response = single_response(&fake).to_string();
    assert!(
        response.contains("Writes under secrets/ are not allowed."),
        "{response}"
    );
    let started = logged(&sb, "SessionStart");
    assert_eq!(started.len(), 1, "the user's Claude hook did not run");
    assert_eq!(started[0]["source"], "startup");
    assert!(
        out.stderr.contains(".claude/settings.json"),
        "first-sighting warning names the file: {out:?}"
    );
}

#[test]
fn a_subagent_stop_hook_sends_the_sub_agent_on_once() {
    let sb = Sandbox::new();
    sb.write_home(
        ".gemini/agents/reader.md",
        "---\nname: reader\ndescription: Reads files for you.\ntools: [read_file]\n---\nYou read files.\n",
    );
    sb.settings(&json!({
        "model": {"name": super::MODEL, "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "experimental": {"enableAgents": true},
        "hooks": {"SubagentStop": [{"matcher": "reader", "hooks": [claude_hook(&sb, "stop-once")]}]}
    }));
    let turns = lines(&[
        call("reader", json!({"query": "read a"})),
        call("complete_task", json!({"result": "first"})),
        call("complete_task", json!({"result": "second"})),
        text("done"),
    ]);
    let (fake, out) = run(&sb, &turns);
    assert_eq!(out.code, 0, "{out:?}");
    let seen = logged(&sb, "SubagentStop");
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0]["agent_type"], "reader");
    assert_eq!(seen[0]["stop_hook_active"], false);
    assert_eq!(seen[0]["last_assistant_message"], "first");
    assert_eq!(seen[1]["stop_hook_active"], true);
    assert_eq!(seen[1]["last_assistant_message"], "second");
    let requests = fake.requests();
    assert_eq!(requests.len(), 4);
    let resumed = requests[2].body["contents"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert!(
        resumed
            .to_string()
            .contains("Run the tests before you stop."),
        "{resumed}"
    );
    let last = fake.function_responses().last().unwrap().to_string();
    assert!(last.contains("second"), "{last}");
}

#[test]
fn pre_compact_and_post_compact_fire_around_automatic_compression() {
    let sb = Sandbox::new();
    let log_hook = |sb: &Sandbox| json!([{"matcher": "auto", "hooks": [claude_hook(sb, "log")]}]);
    sb.settings(&json!({
        "model": {"name": super::MODEL, "retry": {"initialDelayMs": 1},
            "compressionThreshold": 0.000001},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooks": {"PreCompact": log_hook(&sb), "PostCompact": log_hook(&sb)}
    }));
    let summary = json!({"method": "generateContent", "response": {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "SUMMARY-ONE"}]},
            "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 5, "totalTokenCount": 55}
    }});
    let (_fake, out) = run(&sb, &lines(&[summary.to_string(), text("done")]));
    assert_eq!(out.code, 0, "{out:?}");
    let pre = logged(&sb, "PreCompact");
    let post = logged(&sb, "PostCompact");
    assert_eq!(pre.len(), 1, "{pre:?}");
    assert_eq!(post.len(), 1, "{post:?}");
    // PreCompact's keys as Claude Code 2.1.197 sends them (no
    // permission_mode; a bare compaction's instructions are null).
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(
        keys(&pre[0]),
        [
            "custom_instructions",
            "cwd",
            "hook_event_name",
            "prompt_id",
            "session_id",
            "transcript_path",
            "trigger"
        ]
    );
    assert_eq!(pre[0]["trigger"], "auto");
    assert_eq!(pre[0]["custom_instructions"], Value::Null);
    assert_eq!(
        keys(&post[0]),
        [
            "compact_summary",
            "cwd",
            "hook_event_name",
            "prompt_id",
            "session_id",
            "transcript_path",
            "trigger"
        ]
    );
    assert_eq!(post[0]["trigger"], "auto");
    assert_eq!(post[0]["compact_summary"], "SUMMARY-ONE");
}
