//! Under load nothing is lost (issue 41, item 8): 200 ACP sessions in one
//! process, each prompted at once, and 20 headless runs at once in one
//! project: every answer and exit code right, every session file whole
//! and parseable, `projects.json` intact.

use crate::e2e::{lines, text};
use crate::support::{Sandbox, parse_session_jsonl};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// The session files (`.jsonl`, or `.json` in the `0.27` dialect) under
/// `dir`.
fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return found;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(session_files(&path));
        } else if path
            .extension()
            .is_some_and(|e| e == "jsonl" || e == "json")
            && path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("session-"))
        {
            found.push(path);
        }
    }
    found
}

/// Every session file under the sandbox's home parses, with a user
/// message and the model's answer; how many there are.
fn check_sessions(sb: &Sandbox, answer: &str) -> usize {
    let files = session_files(&sb.home.join(".gemini/tmp"));
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        // A JSONL file ends its last line; a `0.27` document (no newline
        // at its end, as 0.27.4 writes it) parses whole.
        let whole = text.ends_with('\n') || serde_json::from_str::<Value>(&text).is_ok();
        assert!(whole, "{} is cut short", file.display());
        let (_, messages) = parse_session_jsonl(&text);
        let kinds: Vec<&str> = messages.iter().filter_map(|m| m["type"].as_str()).collect();
        assert!(kinds.contains(&"user"), "{}: {kinds:?}", file.display());
        assert!(text.contains(answer), "{}: no answer", file.display());
    }
    let projects = std::fs::read_to_string(sb.home.join(".gemini/projects.json")).unwrap();
    let projects: Value = serde_json::from_str(&projects).expect("projects.json parses");
    assert!(
        projects.to_string().contains(&*sb.work.to_string_lossy()),
        "{projects}"
    );
    files.len()
}

#[test]
fn twenty_headless_runs_at_once_in_one_project() {
    let sb = Sandbox::new();
    let responses = sb.write("r.responses", &lines(&[text("all fine")]));
    let children: Vec<_> = (0..20)
        .map(|i| {
            let mut cmd = sb.command(
                &[
                    "--fake-responses",
                    responses.to_str().unwrap(),
                    "-p",
                    &format!("run {i}"),
                ],
                &[],
            );
            cmd.stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "all fine");
    }
    assert_eq!(check_sessions(&sb, "all fine"), 20);
}

#[test]
fn two_hundred_acp_sessions_in_one_process() {
    const N: u64 = 200;
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    let replies: Vec<String> = (0..N).map(|_| text("served")).collect();
    let file = sb.write("acp.responses", &lines(&replies));
    let mut cmd = sb.command(&["--acp", "--fake-responses", file.to_str().unwrap()], &[]);
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { return };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                return;
            };
            if tx.send(message).is_err() {
                return;
            }
        }
    });
    let mut send = |message: Value| {
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
    };
    // Answers by id, waiting for all of `ids`.
    let mut answers: HashMap<u64, Value> = HashMap::new();
    let wait_for = |ids: std::ops::Range<u64>, answers: &mut HashMap<u64, Value>| {
        let deadline = Instant::now() + Duration::from_secs(120);
        while !ids.clone().all(|id| answers.contains_key(&id)) {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = rx
                .recv_timeout(left)
                .expect("the agent answers within 120 s");
            if message.get("method").is_none()
                && let Some(id) = message["id"].as_u64()
            {
                answers.insert(id, message);
            }
        }
    };
    send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": 1, "clientCapabilities": {}}}));
    wait_for(0..1, &mut answers);
    // A quarter of the sessions in folders of their own: each a new
    // project, registered behind and all in `projects.json` at the exit.
    let own = |i: u64| i.is_multiple_of(4).then(|| sb.work.join(format!("own{i}")));
    for i in 0..N {
        let cwd = own(i).unwrap_or_else(|| sb.work.clone());
        std::fs::create_dir_all(&cwd).unwrap();
        send(
            json!({"jsonrpc": "2.0", "id": 1 + i, "method": "session/new",
            "params": {"cwd": cwd, "mcpServers": []}}),
        );
    }
    wait_for(0..N + 1, &mut answers);
    let sessions: Vec<String> = (1..=N)
        .map(|id| {
            let a = &answers[&id];
            a["result"]["sessionId"]
                .as_str()
                .unwrap_or_else(|| panic!("{a}"))
                .to_string()
        })
        .collect();
    for (i, session) in sessions.iter().enumerate() {
        send(
            json!({"jsonrpc": "2.0", "id": 1000 + i as u64, "method": "session/prompt",
            "params": {"sessionId": session, "prompt": [{"type": "text", "text": format!("hi {i}")}]}}),
        );
    }
    wait_for(1000..1000 + N, &mut answers);
    for id in 1000..1000 + N {
        assert_eq!(
            answers[&id]["result"]["stopReason"], "end_turn",
            "{}",
            answers[&id]
        );
    }
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the agent did not exit after stdin closed");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
    assert_eq!(check_sessions(&sb, "served"), N as usize);
    let projects = std::fs::read_to_string(sb.home.join(".gemini/projects.json")).unwrap();
    let projects: Value = serde_json::from_str(&projects).unwrap();
    for folder in (0..N).filter_map(own) {
        let key = folder.to_string_lossy();
        assert!(
            projects["projects"][&*key].is_string(),
            "{key} not in {projects}"
        );
    }
}
