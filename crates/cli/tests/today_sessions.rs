//! Issue 25, items 6 and 8 (Harbor): the session files of today's Gemini
//! CLI. The project's folder is its slug, registered in
//! `~/.gemini/projects.json` (a 0.27.4 hash folder copied into it); chats
//! are `session-*.jsonl`; files recorded by Gemini CLI 0.61 and 0.27.4
//! (real recordings, in `today_sessions/`) are listed, resumed and deleted;
//! old sessions go after 30 days by default.

use crate::e2e::{call, lines, text};
use crate::support::{Output, Sandbox, parse_session_jsonl};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A session Gemini CLI 0.61 recorded (`read a.txt`: a thought, a
/// read_file call and an answer).
pub const UPSTREAM_0_61: (&str, &str) = (
    "session-2026-11-26T09-03-104fa088.jsonl",
    include_str!("today_sessions/session-2026-11-26T09-03-104fa088.jsonl"),
);
/// Its session id.
pub const UPSTREAM_0_61_ID: &str = "104fa088-bc6f-437a-bee2-5ae395032882";
/// The same conversation recorded by Gemini CLI 0.27.4.
pub const UPSTREAM_0_27: (&str, &str) = (
    "session-2026-11-26T09-03-32e732ba.json",
    include_str!("today_sessions/session-2026-11-26T09-03-32e732ba.json"),
);
pub const UPSTREAM_0_27_ID: &str = "32e732ba-2f52-479e-8e36-9a8068ade86c";

/// Writes a recorded session into `dir`, its times moved to `age` ago
/// (the recordings are from 2026-11-26 09:03 UTC).
pub fn install(dir: &Path, (name, text): (&str, &str), age: chrono::Duration) -> PathBuf {
    let when = (chrono::Utc::now() - age)
        .format("%Y-%m-%dT%H:%M")
        .to_string();
    std::fs::create_dir_all(dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text.replace("2026-11-26T09:03", &when)).unwrap();
    path
}

/// The SHA-256 hex of the project root: 0.27.4's folder name.
fn hash_of(p: &Path) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(p.to_str().unwrap().as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn settings(sb: &Sandbox) {
    sb.write_home(
        ".gemini/settings.json",
        &json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
            "model": {"retry": {"initialDelayMs": 1}}})
        .to_string(),
    );
}

/// Runs in today's dialect: these are 0.61's session files.
fn run(sb: &Sandbox, fake: &FakeServer, args: &[&str]) -> Output {
    sb.run(
        args,
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_CLI_TRUST_WORKSPACE", "true"),
            ("GEMINI_RS_DIALECT", "today"),
        ],
    )
}

/// The streamed requests' contents, one line each (`role: kinds/texts`),
/// without the environment-context turn.
fn contents(fake: &FakeServer) -> Vec<Vec<String>> {
    fake.requests()
        .into_iter()
        .filter(|r| r.rpc() == "streamGenerateContent")
        .map(|r| {
            r.body["contents"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| !c.to_string().contains("setting up the context"))
                .map(|c| {
                    let parts: Vec<String> = c["parts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|p| match (&p["text"], &p["thought"]) {
                            (Value::String(t), Value::Bool(true)) => format!("thought:{t}"),
                            (Value::String(t), _) => t.clone(),
                            _ if p.get("functionCall").is_some() => {
                                format!("call:{}", p["functionCall"]["name"].as_str().unwrap())
                            }
                            _ => format!("response:{}", p["functionResponse"]["response"]),
                        })
                        .collect();
                    format!("{}: {}", c["role"].as_str().unwrap(), parts.join(" | "))
                })
                .collect()
        })
        .collect()
}

/// The newest `session-*.json(l)` anywhere under `~/.gemini/tmp`, as
/// Harbor picks it after a run.
fn harbor_newest(home: &Path) -> PathBuf {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("session-")
            {
                out.push(p);
            }
        }
    }
    let mut all = Vec::new();
    walk(&home.join(".gemini/tmp"), &mut all);
    all.into_iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().modified().unwrap())
        .expect("a session file")
}

#[test]
fn harbor_runs_resumes_and_reads_the_newest_session_file() {
    let sb = Sandbox::new();
    settings(&sb);
    sb.write("a.txt", "hello");
    let first = json!({"method": "generateContentStream", "response": [
        {"candidates": [{"content": {"role": "model", "parts": [
            {"text": "**Looking** at the file", "thought": true}]}, "index": 0}]},
        {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}]},
            "finishReason": "STOP", "index": 0}],
         "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10,
            "cachedContentTokenCount": 5, "thoughtsTokenCount": 15, "toolUsePromptTokenCount": 2,
            "totalTokenCount": 127}}]});
    let fake = FakeServer::replaying(&lines(&[first.to_string(), text("It says hello.")]));
    // Harbor: `gemini --yolo --model=X --prompt=... </dev/null`.
    let out = run(
        &sb,
        &fake,
        &["--yolo", "--model=gemini-2.5-flash", "--prompt=read a.txt"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "It says hello.");

    let fake = FakeServer::replaying(&lines(&[text("Still hello.")]));
    let out = run(
        &sb,
        &fake,
        &[
            "--yolo",
            "--resume",
            "latest",
            "--model=gemini-2.5-flash",
            "--prompt=and now?",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        contents(&fake)[0],
        [
            "user: read a.txt",
            "model: thought:**Looking** at the file | call:read_file",
            r#"user: response:{"output":"hello"}"#,
            "model: It says hello.",
            "user: and now?",
        ]
    );

    // Where and how: the slug folder, registered; one JSONL file.
    let registry: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.home.join(".gemini/projects.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        registry,
        json!({"projects": {sb.work.to_str().unwrap(): "work"}})
    );
    let newest = harbor_newest(&sb.home);
    assert_eq!(
        newest.parent().unwrap(),
        sb.home.join(".gemini/tmp/work/chats")
    );
    let name = newest.file_name().unwrap().to_str().unwrap();
    assert!(
        name.starts_with("session-") && name.ends_with(".jsonl"),
        "{name}"
    );
    let text = std::fs::read_to_string(&newest).unwrap();
    let (meta, messages) = parse_session_jsonl(&text);
    // First the environment context, as 0.61 records its own: a `$set`
    // of the messages, the context in `<session_context>` tags.
    let context = text.lines().nth(1).unwrap();
    assert!(
        context.starts_with(r#"{"$set":{"messages":[{"id":"#),
        "{context}"
    );
    let opening = messages[0]["content"][0]["text"].as_str().unwrap();
    assert!(opening.starts_with("<session_context>\n"), "{opening}");
    let messages = &messages[1..];

    // The fields Harbor's converter reads.
    let id = meta["sessionId"].as_str().unwrap();
    assert_eq!(id.len(), 36);
    assert!(name.ends_with(&format!("-{}.jsonl", &id[..8])));
    assert_eq!(meta["projectHash"], hash_of(&sb.work));
    assert_eq!(meta["kind"], "main");
    let kinds: Vec<&str> = messages
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["user", "gemini", "user", "gemini", "user", "gemini"]
    );
    assert_eq!(messages[0]["content"], json!([{"text": "read a.txt"}]));
    let turn = &messages[1];
    assert_eq!(turn["thoughts"][0]["subject"], "Looking", "{turn:#}");
    assert_eq!(turn["thoughts"][0]["description"], "at the file");
    assert_eq!(
        turn["tokens"],
        json!({"input": 100, "output": 10, "cached": 5, "thoughts": 15, "tool": 2, "total": 127})
    );
    assert_eq!(turn["model"], "gemini-2.5-flash");
    let tool = &turn["toolCalls"][0];
    assert_eq!(tool["name"], "read_file");
    assert_eq!(tool["args"], json!({"file_path": "a.txt"}));
    assert_eq!(tool["status"], "success");
    assert_eq!(tool["displayName"], "ReadFile");
    // The call's own description, as 0.61 records it (not the tool's).
    assert_eq!(tool["description"], "a.txt", "{tool:#}");
    assert_eq!(
        tool["result"][0]["functionResponse"]["response"],
        json!({"output": "hello"})
    );
    assert_eq!(
        messages[2]["content"][0]["functionResponse"]["name"],
        "read_file"
    );
    assert_eq!(messages[3]["content"], "It says hello.");
    assert_eq!(messages[4]["content"], json!([{"text": "and now?"}]));
    assert_eq!(messages[5]["content"], "Still hello.");
    // The model message was written, then updated with its calls.
    let turn_id = format!("\"id\":{}", turn["id"]);
    assert_eq!(text.matches(&turn_id).count(), 2, "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with(r#"{"$set":{"lastUpdated":"#))
    );
}

#[test]
fn sessions_recorded_by_gemini_cli_0_61_and_0_27_are_listed_resumed_and_deleted() {
    let sb = Sandbox::new();
    settings(&sb);
    // Where 0.61 put them: its slug folder, registered.
    let chats = sb.home.join(".gemini/tmp/work/chats");
    std::fs::write(
        sb.home.join(".gemini/projects.json"),
        json!({"projects": {sb.work.to_str().unwrap(): "work"}}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(
        sb.home.join(".gemini/tmp/work/.project_root"),
        sb.work.to_str().unwrap(),
    )
    .unwrap();
    let newer = install(&chats, UPSTREAM_0_61, chrono::Duration::minutes(5));
    let older = install(&chats, UPSTREAM_0_27, chrono::Duration::minutes(65));

    let out = sb.run(&["--list-sessions"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("Available sessions for this project (2):"),
        "{out:?}"
    );
    let at = |id: &str| out.stdout.find(&format!("[{id}]")).unwrap();
    assert!(
        at(UPSTREAM_0_27_ID) < at(UPSTREAM_0_61_ID),
        "oldest first: {out:?}"
    );
    assert!(
        out.stdout.contains(&format!(
            "  1. read a.txt (1 hour ago) [{UPSTREAM_0_27_ID}]"
        )),
        "{out:?}"
    );

    // 0.61's file: resumed by id, the history as 0.61 rebuilds it.
    let fake = FakeServer::replaying(&lines(&[text("It said hello world.")]));
    let out = run(
        &sb,
        &fake,
        &["--resume", UPSTREAM_0_61_ID, "what did it say?"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let sent = &contents(&fake)[0];
    assert_eq!(
        sent,
        &[
            "user: read a.txt",
            "model: thought:Let me think about reading | call:read_file",
            r#"user: response:{"output":"hello world\n"}"#,
            "model: The file says hello world.",
            "user: what did it say?",
        ],
        "no <session_context>, no separate functionResponse turn"
    );
    let (meta, messages) = parse_session_jsonl(&std::fs::read_to_string(&newer).unwrap());
    assert_eq!(meta["sessionId"], UPSTREAM_0_61_ID);
    let last = &messages[messages.len() - 1];
    assert_eq!(last["content"], "It said hello world.");
    assert_eq!(
        messages[messages.len() - 2]["content"],
        json!([{"text": "what did it say?"}])
    );

    // 0.27.4's file: resumed by index; carried over to a .jsonl beside it.
    let fake = FakeServer::replaying(&lines(&[
        call("read_file", json!({"file_path": "a.txt"})),
        text("gone"),
    ]));
    let out = run(&sb, &fake, &["--resume", "1", "read it again"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(contents(&fake)[0][3], "model: The file says hello world.");
    let carried = chats.join(format!("{}l", UPSTREAM_0_27.0));
    let (meta, messages) = parse_session_jsonl(&std::fs::read_to_string(&carried).unwrap());
    assert_eq!(meta["sessionId"], UPSTREAM_0_27_ID);
    assert_eq!(messages[0]["content"], "read a.txt");
    assert!(older.is_file(), "the 0.27.4 file stays as it was");
    let out = sb.run(&["--list-sessions"], None, &[]);
    assert!(out.stdout.contains("(2):"), "still two sessions: {out:?}");

    // Deleting it takes both files; bad input names what failed.
    let out = sb.run(&["--delete-session", UPSTREAM_0_27_ID], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!older.exists() && !carried.exists());
    let out = sb.run(&["--delete-session", "3"], None, &[]);
    assert_eq!(out.code, 42, "{out:?}");
    assert!(
        out.stderr.contains("Invalid session identifier \"3\""),
        "{out:?}"
    );
    let out = sb.run(&["--list-sessions"], None, &[]);
    assert!(
        out.stdout.contains("(1):") && out.stdout.contains(UPSTREAM_0_61_ID),
        "{out:?}"
    );
}

#[test]
fn a_0_27_hash_folder_is_migrated_and_old_sessions_expire() {
    let sb = Sandbox::new();
    settings(&sb);
    let old_dir = sb.home.join(".gemini/tmp").join(hash_of(&sb.work));
    install(
        &old_dir.join("chats"),
        UPSTREAM_0_27,
        chrono::Duration::minutes(5),
    );
    let out = sb.run(&["--list-sessions"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains(UPSTREAM_0_27_ID), "{out:?}");
    let slug = sb.home.join(".gemini/tmp/work");
    assert!(slug.join("chats").join(UPSTREAM_0_27.0).is_file());
    assert!(
        old_dir.join("chats").join(UPSTREAM_0_27.0).is_file(),
        "copied, not moved"
    );
    for marker in [
        slug.join(".project_root"),
        sb.home.join(".gemini/history/work/.project_root"),
    ] {
        assert_eq!(
            std::fs::read_to_string(marker).unwrap(),
            sb.work.to_str().unwrap()
        );
    }

    // A 40-day-old session goes at the next start (30 days by default)...
    install(
        &slug.join("chats"),
        UPSTREAM_0_61,
        chrono::Duration::days(40),
    );
    let out = sb.run(&["--list-sessions"], None, &[]);
    assert!(out.stdout.contains("(2):"), "{out:?}");
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let out = run(&sb, &fake, &["hi"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!slug.join("chats").join(UPSTREAM_0_61.0).exists());
    assert!(slug.join("chats").join(UPSTREAM_0_27.0).exists());
    // ...unless retention is turned off.
    sb.write_home(
        ".gemini/settings.json",
        &json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"sessionRetention": {"enabled": false}}})
        .to_string(),
    );
    install(
        &slug.join("chats"),
        UPSTREAM_0_61,
        chrono::Duration::days(40),
    );
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let out = run(&sb, &fake, &["hi"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(slug.join("chats").join(UPSTREAM_0_61.0).exists());
}

#[test]
fn a_sessions_summary_names_it_in_the_listing() {
    let sb = Sandbox::new();
    settings(&sb);
    let chats = sb.project_temp_dir().join("chats");
    let file = install(&chats, UPSTREAM_0_61, chrono::Duration::minutes(5));
    // 0.61 appends the summary it generated as a metadata update.
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("{\"$set\":{\"summary\":\"Reading the greeting file\"}}\n");
    std::fs::write(&file, text).unwrap();
    let out = sb.run(&["--list-sessions"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    // The age is left out: the fixture's seconds make it 4 or 5 minutes.
    let line = out
        .stdout
        .lines()
        .find(|l| l.starts_with("  1. "))
        .unwrap_or_default();
    assert!(
        line.starts_with("  1. Reading the greeting file (")
            && line.ends_with(&format!("ago) [{UPSTREAM_0_61_ID}]")),
        "{out:?}"
    );
}
