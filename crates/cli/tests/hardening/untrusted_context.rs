//! Context files of an untrusted folder stay out of the model's context
//! (issue 41, item 7), by Gemini CLI 0.61's rule: in a folder that is not
//! trusted only the global `~/.gemini/GEMINI.md` is read, none of the
//! workspace's - its own, the folders above and below, and those of
//! `--include-directories`. Checked over ACP, which serves untrusted
//! folders, against the fake model server.

use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// One prompt over ACP in `sb.work` (trusted or not, with `args`); the
/// system instruction the model got.
fn system_instruction(sb: &Sandbox, trust: &str, args: &[&str]) -> String {
    let fake = FakeServer::with_replies([Reply::gemini_stream([json!({"candidates": [{
        "content": {"role": "model", "parts": [{"text": "ok"}]}, "finishReason": "STOP"}]})])]);
    let mut all = vec!["--acp"];
    all.extend(args);
    let mut cmd = sb.command(
        &all,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_CLI_TRUST_WORKSPACE", trust),
        ],
    );
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut answer =
        |stdin: &mut std::process::ChildStdin, id: u64, method: &str, params: Value| {
            let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
            stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
            let deadline = Instant::now() + Duration::from_secs(30);
            loop {
                assert!(Instant::now() < deadline, "no answer to {method}");
                let mut line = String::new();
                assert!(out.read_line(&mut line).unwrap() > 0, "the agent ended");
                let v: Value = serde_json::from_str(&line).unwrap();
                if v["id"] == id && v.get("method").is_none() {
                    return v;
                }
            }
        };
    answer(
        &mut stdin,
        1,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    let new = answer(
        &mut stdin,
        2,
        "session/new",
        json!({"cwd": sb.work, "mcpServers": []}),
    );
    let session = new["result"]["sessionId"].as_str().unwrap().to_string();
    let done = answer(
        &mut stdin,
        3,
        "session/prompt",
        json!({"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}),
    );
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    drop(stdin);
    let _ = child.wait();
    let requests = fake.requests();
    let body = &requests.last().expect("a model request").body;
    body["systemInstruction"].to_string()
}

#[test]
fn an_untrusted_folder_gives_the_model_only_the_global_context_file() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    sb.write_home(".gemini/GEMINI.md", "GLOBAL-CONTEXT-MARK");
    sb.write("GEMINI.md", "PROJECT-CONTEXT-MARK");
    sb.write("sub/GEMINI.md", "BELOW-CONTEXT-MARK");
    let other = sb.home.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("GEMINI.md"), "INCLUDED-CONTEXT-MARK").unwrap();
    let include = ["--include-directories", other.to_str().unwrap()];

    let untrusted = system_instruction(&sb, "", &include);
    assert!(untrusted.contains("GLOBAL-CONTEXT-MARK"), "{untrusted}");
    for mark in [
        "PROJECT-CONTEXT-MARK",
        "BELOW-CONTEXT-MARK",
        "INCLUDED-CONTEXT-MARK",
    ] {
        assert!(
            !untrusted.contains(mark),
            "{mark} reached the model: {untrusted}"
        );
    }
    // Trusted, the folder's own files reach the model (ACP sessions take
    // their folders from `session/new`, so `--include-directories` adds
    // none there).
    let trusted = system_instruction(&sb, "true", &include);
    for mark in [
        "GLOBAL-CONTEXT-MARK",
        "PROJECT-CONTEXT-MARK",
        "BELOW-CONTEXT-MARK",
    ] {
        assert!(trusted.contains(mark), "{mark} missing: {trusted}");
    }
}
