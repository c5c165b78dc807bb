//! ACP's session lifecycle driven by the official TypeScript SDK's client
//! (`tests/acp/lifecycle.mjs`) against the binary and the fake Gemini
//! endpoint: resume, close, delete, list, fork, message ids, usage updates
//! and the order of updates and answers on the wire.

use super::{client_dir, node, sandbox};
use crate::e2e::{lines, text, turn};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::process::Command;

/// Runs the lifecycle client over `steps` against the binary talking to
/// `fake`, in a trusted folder; the client's log.
fn run(sb: &Sandbox, name: &str, fake: &FakeServer, steps: Value) -> Option<Value> {
    run_trusting(sb, name, fake, steps, "true")
}

/// [`run`] with `GEMINI_CLI_TRUST_WORKSPACE` set to `trust` ("" for an
/// untrusted folder).
fn run_trusting(
    sb: &Sandbox,
    name: &str,
    fake: &FakeServer,
    steps: Value,
    trust: &str,
) -> Option<Value> {
    let dir = client_dir()?;
    let script = dir.join(format!("gemini-rs-lifecycle-{name}.mjs"));
    std::fs::write(&script, include_str!("lifecycle.mjs")).unwrap();
    let home = |k: &str, v: &std::path::Path| format!("{k}={}", v.display());
    let scenario = json!({
        "cwd": sb.work,
        "steps": steps,
        "command": [
            "env", "-i",
            format!("PATH={}", std::env::var("PATH").unwrap_or_default()),
            home("HOME", &sb.home),
            home("GEMINI_CLI_HOME", &sb.home),
            home("GEMINI_CLI_SYSTEM_SETTINGS_PATH", &sb.home.join("none.json")),
            "GEMINI_API_KEY=dummy",
            format!("GEMINI_CLI_TRUST_WORKSPACE={trust}"),
            format!("GOOGLE_GEMINI_BASE_URL={}", fake.base_url),
            env!("CARGO_BIN_EXE_gemini-rs"),
            "--acp",
        ],
    });
    let file = sb.write(&format!("{name}.scenario.json"), &scenario.to_string());
    let out = Command::new(node())
        .arg(&script)
        .arg(&file)
        .current_dir(&dir)
        .output()
        .expect("node runs the ACP client");
    let _ = std::fs::remove_file(&script);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert!(log.get("error").is_none(), "{log:#}");
    assert_eq!(log["exitCode"], 0, "{log:#}");
    Some(log)
}

/// Step `i`'s answer (it must have one).
fn answer(log: &Value, i: usize) -> &Value {
    let step = &log["steps"][i];
    assert!(step.get("error").is_none(), "step {i} failed: {log:#}");
    &step["answer"]
}

fn id(log: &Value, alias: &str) -> String {
    log["ids"][alias].as_str().unwrap().to_string()
}

/// Where on the wire the `n`th request of `method` and its answer are,
/// and the positions of the notifications `update` for `session`.
fn positions(
    log: &Value,
    method: &str,
    n: usize,
    update: &str,
    session: &str,
) -> (usize, usize, Vec<usize>) {
    let wire = log["wire"].as_array().unwrap();
    let (sent, request) = wire
        .iter()
        .enumerate()
        .filter(|(_, m)| m["dir"] == "out" && m["method"] == method)
        .nth(n)
        .unwrap_or_else(|| panic!("no {method} #{n}: {log:#}"));
    let answered = wire
        .iter()
        .position(|m| m["dir"] == "in" && m["method"].is_null() && m["id"] == request["id"])
        .unwrap();
    let notes = wire
        .iter()
        .enumerate()
        .filter(|(_, m)| m["update"] == update && m["sessionId"] == session)
        .map(|(i, _)| i)
        .collect();
    (sent, answered, notes)
}

/// The text of every request's contents, by request.
fn request_texts(fake: &FakeServer) -> Vec<String> {
    fake.requests()
        .iter()
        .map(|r| r.body["contents"].to_string())
        .collect()
}

#[test]
fn initialize_advertises_the_session_lifecycle() {
    let sb = sandbox();
    let fake = FakeServer::replaying("");
    let Some(log) = run(&sb, "caps", &fake, json!([])) else {
        return;
    };
    let caps = &log["initialize"]["agentCapabilities"]["sessionCapabilities"];
    for cap in ["list", "delete", "resume", "close", "fork"] {
        assert_eq!(caps[cap], json!({}), "{cap}: {log:#}");
    }
}

#[test]
fn close_ends_the_sessions_processes_and_later_prompts_fail() {
    let Some(everything) = crate::mcp::everything_bin() else {
        return;
    };
    let sb = sandbox();
    let pid = sb.work.join("server.pid");
    let script = format!(
        "echo $$ > {}; exec {} stdio",
        pid.display(),
        everything.display()
    );
    let servers =
        json!([{"name": "everything", "command": "sh", "args": ["-c", script], "env": []}]);
    let fake = FakeServer::replaying(&lines(&[text("never used")]));
    let steps = json!([
        {"do": "new", "as": "a", "mcpServers": servers},
        {"do": "waitFile", "file": pid},
        {"do": "alive", "pidFile": pid},
        {"do": "close", "session": "a"},
        {"do": "alive", "pidFile": pid},
        {"do": "prompt", "session": "a", "text": "still there?"},
    ]);
    let Some(log) = run(&sb, "close", &fake, steps) else {
        return;
    };
    assert_eq!(answer(&log, 1)["exists"], true, "{log:#}");
    assert_eq!(answer(&log, 2)["alive"], true, "{log:#}");
    assert_eq!(answer(&log, 3), &json!({}));
    assert_eq!(
        answer(&log, 4)["alive"],
        false,
        "the MCP server outlived close: {log:#}"
    );
    assert_eq!(log["steps"][5]["error"]["code"], -32602, "{log:#}");
    assert!(fake.requests().is_empty());
}

#[test]
fn resume_continues_a_closed_session_with_its_history() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[text("Noted."), text("It was 42.")]));
    let steps = json!([
        {"do": "new", "as": "a"},
        {"do": "prompt", "session": "a", "text": "remember the number 42"},
        {"do": "close", "session": "a"},
        {"do": "resume", "session": "a"},
        {"do": "prompt", "session": "a", "text": "which number was it?"},
        {"do": "resume", "session": "never-recorded"},
    ]);
    let Some(log) = run(&sb, "resume", &fake, steps) else {
        return;
    };
    let a = id(&log, "a");
    assert!(
        answer(&log, 3)["modes"]["currentModeId"].is_string(),
        "{log:#}"
    );
    assert_eq!(answer(&log, 4)["stopReason"], "end_turn");
    let texts = request_texts(&fake);
    assert_eq!(texts.len(), 2);
    assert!(texts[1].contains("remember the number 42"), "{}", texts[1]);
    // The commands of the resumed session come before its answer.
    let (sent, answered, commands) =
        positions(&log, "session/resume", 0, "available_commands_update", &a);
    assert!(
        commands.iter().any(|&c| sent < c && c < answered),
        "no available_commands_update before the resume answer: {log:#}"
    );
    assert_eq!(log["steps"][5]["error"]["code"], -32002, "{log:#}");
}

#[test]
fn list_and_delete_recorded_sessions() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[text("one"), text("two")]));
    let steps = json!([
        {"do": "new", "as": "a"},
        {"do": "prompt", "session": "a", "text": "first session"},
        {"do": "new", "as": "b"},
        {"do": "prompt", "session": "b", "text": "second session"},
        {"do": "list", "cwd": sb.work},
        {"do": "list", "cwd": sb.home},
        {"do": "delete", "session": "a"},
        {"do": "list", "cwd": sb.work},
        {"do": "list"},
    ]);
    let Some(log) = run(&sb, "list", &fake, steps) else {
        return;
    };
    let (a, b) = (id(&log, "a"), id(&log, "b"));
    let listed = |i: usize| -> Vec<String> {
        answer(&log, i)["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["sessionId"].as_str().unwrap().to_string())
            .collect()
    };
    let mut both = listed(4);
    both.sort();
    let mut expected = vec![a.clone(), b.clone()];
    expected.sort();
    assert_eq!(both, expected, "{log:#}");
    let first = &answer(&log, 4)["sessions"][0];
    assert_eq!(first["cwd"], json!(sb.work));
    assert!(first["updatedAt"].is_string());
    assert!(
        answer(&log, 4)["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["title"] == "first session"),
        "{log:#}"
    );
    assert!(listed(5).is_empty(), "another folder's list: {log:#}");
    assert_eq!(answer(&log, 6), &json!({}));
    assert_eq!(listed(7), std::slice::from_ref(&b));
    assert_eq!(listed(8), std::slice::from_ref(&b), "every project's list");
    // A's files are gone, B's are there.
    let files = |id: &str| -> usize {
        std::fs::read_dir(sb.project_temp_dir().join("chats"))
            .unwrap()
            .flatten()
            .filter(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(id)))
            .count()
    };
    assert_eq!(files(&a), 0);
    assert_eq!(files(&b), 1);
}

#[test]
fn fork_copies_the_history_into_a_new_session() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[text("Noted."), text("It was 42.")]));
    let steps = json!([
        {"do": "new", "as": "a"},
        {"do": "prompt", "session": "a", "text": "remember the number 42"},
        {"do": "fork", "session": "a", "as": "b"},
        {"do": "prompt", "session": "b", "text": "which number was it?"},
        {"do": "list", "cwd": sb.work},
    ]);
    let Some(log) = run(&sb, "fork", &fake, steps) else {
        return;
    };
    assert!(answer(&log, 2)["sessionId"].is_string());
    let (a, b) = (id(&log, "a"), id(&log, "b"));
    assert_ne!(a, b);
    assert_eq!(answer(&log, 3)["stopReason"], "end_turn");
    let texts = request_texts(&fake);
    assert!(texts[1].contains("remember the number 42"), "{}", texts[1]);
    let listed = answer(&log, 4)["sessions"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "the source stays: {log:#}");
}

#[test]
fn chunks_carry_message_ids_and_usage_comes_before_the_answer() {
    let sb = sandbox();
    let thought_then_text = turn(json!([
        {"text": "**Thinking**", "thought": true},
        {"text": "Hello"},
    ]));
    let fake = FakeServer::replaying(&lines(&[thought_then_text]));
    let steps = json!([
        {"do": "new", "as": "a"},
        {"do": "prompt", "session": "a", "text": "hi"},
        {"do": "load", "session": "a"},
    ]);
    let Some(log) = run(&sb, "ids", &fake, steps) else {
        return;
    };
    let a = id(&log, "a");
    let updates = log["updates"].as_array().unwrap();
    let of = |kind: &str| -> Vec<&Value> {
        updates
            .iter()
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    };
    let thought = of("agent_thought_chunk")[0]["messageId"].as_str().unwrap();
    let said = of("agent_message_chunk")[0]["messageId"].as_str().unwrap();
    assert_ne!(thought, said);
    // The replayed history has ids too.
    let user = of("user_message_chunk");
    assert!(user[0]["messageId"].is_string(), "{log:#}");
    // One usage update per turn, before the prompt's answer.
    let usage = of("usage_update");
    assert_eq!(usage[0]["used"], 110, "{log:#}");
    assert!(usage[0]["size"].as_u64().unwrap() > 100_000);
    let (sent, answered, notes) = positions(&log, "session/prompt", 0, "usage_update", &a);
    assert!(notes.iter().any(|&n| sent < n && n < answered), "{log:#}");
    // Every update of the load comes before its answer.
    let (sent, loaded, commands) =
        positions(&log, "session/load", 0, "available_commands_update", &a);
    assert!(
        !commands.iter().any(|&c| c > loaded),
        "commands after the load answer: {log:#}"
    );
    assert!(commands.iter().any(|&c| sent < c && c < loaded), "{log:#}");
}

#[test]
fn agents_md_is_not_read_in_an_untrusted_folder() {
    let sb = sandbox();
    sb.write("AGENTS.md", "Agents rule: use tabs.\n");
    let fake = FakeServer::replaying(&lines(&[text("ok"), text("ok")]));
    let steps = json!([
        {"do": "new", "as": "a"},
        {"do": "prompt", "session": "a", "text": "hi"},
    ]);
    let system = |fake: &FakeServer| {
        fake.requests()[0].body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let Some(_) = run_trusting(&sb, "untrusted", &fake, steps.clone(), "") else {
        return;
    };
    assert!(!system(&fake).contains("Agents rule"), "{}", system(&fake));
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let Some(_) = run(&sb, "trusted", &fake, steps) else {
        return;
    };
    assert!(system(&fake).contains("Agents rule"), "{}", system(&fake));
}
