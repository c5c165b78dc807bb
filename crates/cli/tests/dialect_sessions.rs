//! Issue 36: session files across dialects. The `0.27` dialect writes
//! 0.27.4's one `session-*.json` document, rewritten as the session grows;
//! `today` writes 0.61's JSONL. Either dialect lists, resumes and deletes
//! both, so a user switching dialect keeps their sessions. Checked against
//! the references (docs/sessions.md): 0.61 resumes a `.json` by carrying it
//! over to a `.jsonl` beside it; 0.27.4 rewrites its `.json` in place and
//! does not see `.jsonl` files at all (gemini-rs reads them in both).

use crate::e2e::{call, lines, text};
use crate::support::{Output, Sandbox, parse_session_jsonl};
use crate::today_sessions::{UPSTREAM_0_27, UPSTREAM_0_27_ID, install};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn settings(sb: &Sandbox) {
    sb.write_home(
        ".gemini/settings.json",
        &json!({"security": {"auth": {"selectedType": "gemini-api-key"}},
            "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}}})
        .to_string(),
    );
}

/// Runs gemini-rs in `dialect` against `fake` (none for subcommands).
fn run(sb: &Sandbox, dialect: &str, fake: Option<&FakeServer>, args: &[&str]) -> Output {
    let url = fake.map(|f| f.base_url.clone()).unwrap_or_default();
    let mut env = vec![("GEMINI_RS_DIALECT", dialect)];
    if fake.is_some() {
        env.push(("GOOGLE_GEMINI_BASE_URL", &url));
    }
    let out = sb.run(args, None, &env);
    assert_eq!(out.code, 0, "{args:?} in {dialect}: {out:?}");
    out
}

/// The session files of the project, by name.
fn chat_files(chats: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(chats)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("session-")
        })
        .collect();
    files.sort();
    files
}

/// The texts of the user turns the model was sent in its first streamed
/// request (the environment context left out).
fn prompts_sent(fake: &FakeServer) -> Vec<String> {
    let request = fake
        .requests()
        .into_iter()
        .find(|r| r.rpc() == "streamGenerateContent")
        .expect("a streamed request");
    request.body["contents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["role"] == "user")
        .flat_map(|c| c["parts"].as_array().unwrap().clone())
        .filter_map(|p| p["text"].as_str().map(str::to_string))
        .filter(|t| !t.contains("setting up the context"))
        .collect()
}

fn document(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn the_0_27_dialect_writes_one_document_that_today_resumes() {
    let sb = Sandbox::new();
    settings(&sb);
    sb.write("a.txt", "hello\n");
    let chats = sb.project_temp_dir().join("chats");
    let fake = FakeServer::replaying(&lines(&[
        call("read_file", json!({"file_path": "a.txt"})),
        text("It says hello."),
    ]));
    run(&sb, "0.27", Some(&fake), &["--yolo", "-p", "read a.txt"]);
    let files = chat_files(&chats);
    assert_eq!(files.len(), 1, "{files:?}");
    let file = files[0].clone();
    assert_eq!(file.extension().unwrap(), "json");
    let raw = std::fs::read_to_string(&file).unwrap();
    assert!(
        raw.starts_with("{\n  \"sessionId\": "),
        "pretty-printed: {raw}"
    );
    let doc = document(&file);
    let keys: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "sessionId",
            "projectHash",
            "startTime",
            "lastUpdated",
            "messages"
        ]
    );
    // As 0.27.4 records them: the prompt as text, the model message with
    // its calls (their results inside), no user message of responses.
    let messages = doc["messages"].as_array().unwrap();
    let kinds: Vec<&str> = messages
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["user", "gemini", "gemini"]);
    assert_eq!(messages[0]["content"], "read a.txt");
    let tool = &messages[1]["toolCalls"][0];
    assert_eq!(tool["renderOutputAsMarkdown"], true);
    assert_eq!(
        tool["result"][0]["functionResponse"]["response"]["output"],
        "hello\n"
    );
    assert_eq!(messages[2]["content"], "It says hello.");
    let id = doc["sessionId"].as_str().unwrap().to_string();

    // Resumed in the same dialect: the same file, rewritten whole.
    let fake = FakeServer::replaying(&lines(&[text("Still hello.")]));
    run(
        &sb,
        "0.27",
        Some(&fake),
        &["--resume", "latest", "-p", "and now?"],
    );
    assert_eq!(prompts_sent(&fake), ["read a.txt", "and now?"]);
    assert_eq!(chat_files(&chats), std::slice::from_ref(&file));
    let doc = document(&file);
    assert_eq!(doc["messages"].as_array().unwrap().len(), 5);
    assert_eq!(doc["messages"][3]["content"], "and now?");

    // Today's dialect lists it and resumes it as 0.61 does: carried over
    // to a `.jsonl` beside it, the `.json` left as it was.
    let out = run(&sb, "today", None, &["--list-sessions"]);
    assert!(
        out.stdout.contains("  1. read a.txt (") && out.stdout.contains(&id),
        "{out:?}"
    );
    let fake = FakeServer::replaying(&lines(&[text("Yes.")]));
    run(&sb, "today", Some(&fake), &["--resume", &id, "-p", "sure?"]);
    assert_eq!(prompts_sent(&fake), ["read a.txt", "and now?", "sure?"]);
    let jsonl = PathBuf::from(format!("{}l", file.display()));
    assert_eq!(chat_files(&chats), [file.clone(), jsonl.clone()]);
    let (meta, messages) = parse_session_jsonl(&std::fs::read_to_string(&jsonl).unwrap());
    assert_eq!(meta["sessionId"], id.as_str());
    assert_eq!(messages.last().unwrap()["content"], "Yes.");
    assert_eq!(document(&file)["messages"].as_array().unwrap().len(), 5);

    // Listed once, deleted whole, from either dialect.
    let out = run(&sb, "0.27", None, &["--list-sessions"]);
    assert!(out.stdout.contains("(1):"), "{out:?}");
    run(&sb, "0.27", None, &["--delete-session", &id]);
    assert!(chat_files(&chats).is_empty());
}

#[test]
fn the_0_27_dialect_resumes_0_61s_and_0_27_4s_files() {
    let sb = Sandbox::new();
    settings(&sb);
    let chats = sb.project_temp_dir().join("chats");
    // A today session: JSONL, which the 0.27 dialect goes on appending to.
    let fake = FakeServer::replaying(&lines(&[text("first answer")]));
    run(&sb, "today", Some(&fake), &["-p", "first prompt"]);
    let files = chat_files(&chats);
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].extension().unwrap(), "jsonl");
    let fake = FakeServer::replaying(&lines(&[text("second answer")]));
    run(
        &sb,
        "0.27",
        Some(&fake),
        &["--resume", "latest", "-p", "second prompt"],
    );
    assert_eq!(prompts_sent(&fake), ["first prompt", "second prompt"]);
    assert_eq!(chat_files(&chats), files, "no .json written beside it");
    let (_, messages) = parse_session_jsonl(&std::fs::read_to_string(&files[0]).unwrap());
    assert_eq!(messages.last().unwrap()["content"], "second answer");

    // A file 0.27.4 recorded: rewritten in place, keeping its messages.
    let older = install(&chats, UPSTREAM_0_27, chrono::Duration::minutes(65));
    let out = run(&sb, "0.27", None, &["--list-sessions"]);
    assert!(out.stdout.contains("(2):"), "{out:?}");
    let fake = FakeServer::replaying(&lines(&[text("again")]));
    run(
        &sb,
        "0.27",
        Some(&fake),
        &["--resume", UPSTREAM_0_27_ID, "-p", "once more"],
    );
    assert_eq!(prompts_sent(&fake), ["read a.txt", "once more"]);
    assert_eq!(chat_files(&chats).len(), 2, "no .jsonl beside it");
    let doc = document(&older);
    let contents: Vec<&Value> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["content"])
        .collect();
    assert_eq!(contents.first().unwrap().as_str(), Some("read a.txt"));
    assert_eq!(contents[contents.len() - 2].as_str(), Some("once more"));
    assert_eq!(contents.last().unwrap().as_str(), Some("again"));
    assert!(doc.get("kind").is_none(), "{doc:#}");
}
