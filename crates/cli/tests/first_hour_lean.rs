//! A person's first hour, second pass, through the binary: the lean
//! profile for small local models (chosen by the window the server
//! reports, or by `model.profile`), the warning before a request that does
//! not fit, the man pages, and `examples/run-demo.sh` with an installed
//! gemini-rs and nothing else of the repository.

use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::json;
use std::path::Path;
use std::process::Command;

fn answer(text: &str) -> Reply {
    Reply::openai_stream([
        json!({"choices": [{"index": 0, "delta": {"content": text}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ])
}

/// A local OpenAI-compatible server that answers once, and reports a
/// context window of `n_ctx` at llama.cpp's `/props` when given.
fn local_server(n_ctx: Option<u64>) -> FakeServer {
    let fake = FakeServer::with_replies([answer("ok")]);
    if let Some(n) = n_ctx {
        fake.route(
            "GET /props",
            Reply::json(200, json!({"default_generation_settings": {"n_ctx": n}})),
        );
    }
    fake
}

/// Runs one prompt against `fake` as `-m local/tiny`; the output, the
/// model request's tool names and its system message.
fn run_local(
    fake: &FakeServer,
    profile: Option<&str>,
) -> (crate::support::Output, Vec<String>, String) {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n");
    let mut model = json!({"providers": {"local": {"type": "openai",
        "baseUrl": format!("{}/v1", fake.base_url)}}});
    if let Some(p) = profile {
        model["profile"] = json!(p);
    }
    sb.settings(&json!({"model": model}));
    let out = sb.run(
        &[
            "-m",
            "local/tiny",
            "--approval-mode",
            "yolo",
            "-p",
            "Read the file a.txt.",
        ],
        None,
        &[("GEMINI_API_KEY", "")],
    );
    let request = fake
        .requests()
        .into_iter()
        .find(|r| r.path == "/v1/chat/completions")
        .unwrap_or_else(|| panic!("no model request: {out:?}"));
    let tools = request.body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .filter_map(|t| t["function"]["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    let system = request.body["messages"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["role"] == "system"))
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_string();
    (out, tools, system)
}

const LEAN: [&str; 6] = [
    "read_file",
    "list_directory",
    "glob",
    "write_file",
    "replace",
    "run_shell_command",
];

#[test]
fn a_small_window_gets_the_lean_request_and_says_so() {
    let fake = local_server(Some(2048));
    let (out, tools, system) = run_local(&fake, None);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "ok");
    let mut sorted = tools;
    sorted.sort();
    let mut lean = LEAN.map(String::from).to_vec();
    lean.sort();
    assert_eq!(sorted, lean);
    assert!(system.len() < 1200, "{system}");
    assert!(
        out.stderr
            .contains("context window (2048 tokens) is too small")
            && out.stderr.contains("lean profile"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("does not fit"), "{}", out.stderr);
}

#[test]
fn a_large_window_keeps_the_full_request() {
    let fake = local_server(Some(131_072));
    let (out, tools, system) = run_local(&fake, None);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(tools.len() > LEAN.len(), "{tools:?}");
    assert!(system.contains("# Safety"), "{system}");
    assert!(!out.stderr.contains("lean profile"), "{}", out.stderr);
}

#[test]
fn the_profile_setting_wins_and_an_oversized_request_is_announced() {
    // Full by hand in a small window: it is sent, after a warning.
    let fake = local_server(Some(2048));
    let (out, tools, _) = run_local(&fake, Some("full"));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(tools.len() > LEAN.len(), "{tools:?}");
    assert!(
        out.stderr
            .contains("does not fit local/tiny's context window of 2048 tokens"),
        "{}",
        out.stderr
    );
    // Lean by hand where no window is known.
    let fake = local_server(None);
    let (out, tools, _) = run_local(&fake, Some("lean"));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(tools.len(), LEAN.len(), "{tools:?}");
    // A value that is neither: a warning, and the window decides.
    let fake = local_server(None);
    let (out, tools, _) = run_local(&fake, Some("tiny"));
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("'model.profile' has the value \"tiny\""),
        "{}",
        out.stderr
    );
    assert!(tools.len() > LEAN.len(), "{tools:?}");
}

#[test]
fn the_man_pages_have_their_sections_and_every_page_they_name() {
    let sb = Sandbox::new();
    let out = sb.run(&["completion", "man"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    for section in [
        ".SH \"EXIT STATUS\"",
        ".SH \"ENVIRONMENT\"",
        ".SH \"FILES\"",
        ".SH SUBCOMMANDS",
    ] {
        assert!(out.stdout.contains(section), "{section}");
    }
    assert!(out.stdout.contains("\\fB55\\fR"), "{}", out.stdout);
    assert!(out.stdout.contains("GEMINI_CLI_TRUST_WORKSPACE"));
    let dir = sb.work.join("man1");
    let out = sb.run(&["completion", "man", "--dir", "man1"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let main = std::fs::read_to_string(dir.join("gemini-rs.1")).unwrap();
    assert!(main.contains(".SH \"EXIT STATUS\""));
    // Every page a page refers to is written.
    let mut named = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for (i, _) in text.match_indices("gemini\\-rs") {
            let rest = &text[i..];
            let Some(end) = rest.find("(1)") else {
                continue;
            };
            let name = rest[..end].replace("\\-", "-");
            if name.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                named += 1;
                assert!(dir.join(format!("{name}.1")).exists(), "{name}");
            }
        }
    }
    assert!(named > 20, "{named}");
    assert!(dir.join("gemini-rs-mcp-add.1").exists());
    let out = sb.run(&["completion", "bash", "--dir", "x"], None, &[]);
    assert_eq!(out.code, 42, "{out:?}");
    assert!(out.stderr.contains("--dir goes with `completion man` only"));
}

/// Copies `from` into `to` (files and folders).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn the_demo_runs_with_an_installed_binary_alone_and_cleans_up() {
    let sb = Sandbox::new();
    // Only examples/, away from the repository, and gemini-rs on PATH.
    let examples = sb.work.join("examples");
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples"),
        &examples,
    );
    let bin_dir = sb.work.join("bin");
    std::fs::create_dir_all(&bin_dir).unwrap();
    let bin = std::env::var_os("GEMINI_RS_TEST_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_gemini-rs").into());
    std::os::unix::fs::symlink(&bin, bin_dir.join("gemini-rs")).unwrap();
    let tmp = sb.work.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let out = Command::new("bash")
        .arg(examples.join("run-demo.sh"))
        .current_dir(&sb.work)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
        .env("HOME", &sb.home)
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("== gemini-rs: ") && stdout.contains("/bin/gemini-rs"));
    assert!(!stdout.contains("building"), "{stdout}");
    for card in [
        " ✓ read_file NOTES.md",
        " ✓ write_file CHANGELOG.md",
        "I'll start by reading the release notes draft.",
        "## Unreleased",
    ] {
        assert!(stdout.contains(card), "{card}: {stdout}");
    }
    // The scratch folder is gone, and the user's home was not written.
    assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    assert!(!sb.home.join(".gemini/trustedFolders.json").exists());
}

#[test]
fn a_stream_that_ends_without_an_event_is_asked_again_unstreamed() {
    // llama-cpp-python's server ends the stream of a call its model chose
    // itself without a byte; the same request unstreamed gets the call.
    let completion = json!({"object": "chat.completion", "choices": [{"index": 0,
        "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
            "type": "function", "function": {"name": "read_file",
            "arguments": "{\"file_path\": \"a.txt\"}"}}]},
        "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 300, "completion_tokens": 11, "total_tokens": 311}});
    let fake = FakeServer::with_replies([
        Reply::ok("text/event-stream", ""),
        Reply::json(200, completion),
        answer("It says alpha."),
    ]);
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n");
    sb.settings(&json!({"model": {"providers": {"local": {"type": "openai",
        "baseUrl": format!("{}/v1", fake.base_url)}}}}));
    let out = sb.run(
        &[
            "-m",
            "local/tiny",
            "--approval-mode",
            "yolo",
            "-o",
            "stream-json",
            "-p",
            "Read the file a.txt.",
        ],
        None,
        &[("GEMINI_API_KEY", "")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("\"tool_name\":\"read_file\"") && out.stdout.contains("It says alpha."),
        "{}",
        out.stdout
    );
    let chats: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/chat/completions")
        .collect();
    assert_eq!(chats.len(), 3);
    assert_eq!(chats[0].body["stream"], true);
    assert_eq!(chats[1].body["stream"], false);
    assert!(chats[1].body.get("stream_options").is_none());
    assert_eq!(chats[1].body["tool_choice"], "auto");
    assert_eq!(chats[2].body["stream"], true);
}
