//! ATIF trajectories through the binary: `--trajectory FILE` headless and
//! `_meta.trajectory` per ACP session (driven by `examples/ray/acp_driver.py`,
//! the client the Ray example runs), each validated by the PyPI `atif`
//! package's own models; `model.logprobs` asking an OpenAI-compatible
//! server for logprobs and token ids and recording them; bad paths.

use crate::support::{Sandbox, peer_missing};
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Python with the `atif` package (1.8) installed.
pub fn atif_python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = std::env::var_os("GEMINI_RS_ATIF_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/atif-py/bin/python")])
        .find(|p| {
            Command::new(p)
                .args(["-c", "import atif"])
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        peer_missing(
            "the Python atif package",
            "python3 -m venv target/atif-py && target/atif-py/bin/pip install atif==1.8.0, \
             or set GEMINI_RS_ATIF_PYTHON",
        );
    }
    found
}

/// Validates `files` with `atif.Trajectory`; each one's JSON as the
/// package dumps it (unset fields left out).
pub fn validate(python: &Path, files: &[PathBuf]) -> Vec<Value> {
    let script = "import json, sys, atif\n\
        for p in sys.argv[1:]:\n    \
            t = atif.Trajectory.model_validate(json.load(open(p)))\n    \
            print(json.dumps(t.to_json_dict()))\n";
    let out = Command::new(python)
        .args(["-c", script])
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "atif refused a trajectory: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// One OpenAI stream chunk choice with a delta and its logprobs.
fn chunk(delta: Value, logprobs: Value, extra: Value) -> Value {
    let mut choice = json!({"index": 0, "delta": delta, "logprobs": {"content": logprobs}});
    for (k, v) in extra.as_object().unwrap() {
        choice[k] = v.clone();
    }
    json!({"choices": [choice]})
}

/// A read_file call as llama.cpp sends it (ids in the logprob entries),
/// the prompt's ids as vLLM sends them.
fn call_with_logprobs() -> Reply {
    let mut first = chunk(
        json!({"role": "assistant", "content": "Reading."}),
        json!([{"id": 101, "token": "Reading", "logprob": -0.25, "top_logprobs": []},
               {"id": 13, "token": ".", "logprob": -0.5, "top_logprobs": []}]),
        json!({}),
    );
    first["prompt_token_ids"] = json!([1, 2, 3]);
    Reply::openai_stream([
        first,
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_7",
            "type": "function", "function": {"name": "read_file",
            "arguments": "{\"file_path\": \"a.txt\"}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 2, "total_tokens": 52}}),
    ])
}

/// A text answer with vLLM's `token_ids` beside the logprob entries.
fn answer_with_logprobs() -> Reply {
    Reply::openai_stream([
        chunk(
            json!({"content": "alpha"}),
            json!([{"token": "alpha", "logprob": -0.125}]),
            json!({"token_ids": [7]}),
        ),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 80, "completion_tokens": 1, "total_tokens": 81}}),
    ])
}

#[test]
fn logprobs_and_token_ids_reach_the_session_file_and_the_trajectory() {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n");
    sb.settings(&json!({"model": {"logprobs": true, "retry": {"initialDelayMs": 1}}}));
    let fake = FakeServer::with_replies([call_with_logprobs(), answer_with_logprobs()]);
    let base = format!("{}/v1", fake.base_url);
    let traj = sb.work.join("out/trajectory.json");
    let out = sb.run(
        &[
            "-m",
            "openai/gpt-4.1",
            "--approval-mode",
            "yolo",
            "--trajectory",
            "out/trajectory.json",
            "-p",
            "read a.txt",
        ],
        None,
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_API_KEY", "sk-1"),
            ("GEMINI_API_KEY", ""),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    // The request asks for logprobs and ids in the fields the servers read.
    for req in fake.requests() {
        assert_eq!(req.body["logprobs"], true, "{}", req.body);
        assert_eq!(req.body["top_logprobs"], 1);
        assert_eq!(req.body["return_token_ids"], true);
    }
    // The session file holds them with each model message.
    let chats = sb.project_temp_dir().join("chats");
    let file = std::fs::read_dir(&chats).unwrap().next().unwrap().unwrap();
    let text = std::fs::read_to_string(file.path()).unwrap();
    let recorded: Vec<Value> = crate::support::parse_session_jsonl(&text)
        .1
        .into_iter()
        .filter(|l| l["type"] == "gemini" && l.get("logprobs").is_some())
        .map(|l| l["logprobs"].clone())
        .collect();
    assert!(
        recorded.contains(&json!({"tokens": ["Reading", "."], "tokenIds": [101, 13],
            "logprobs": [-0.25, -0.5], "promptTokenIds": [1, 2, 3]})),
        "{recorded:?}"
    );
    assert!(
        recorded.contains(&json!({"tokens": ["alpha"], "tokenIds": [7], "logprobs": [-0.125]})),
        "{recorded:?}"
    );
    // The trajectory is created 0600, holds them, and atif accepts it.
    let mode = std::os::unix::fs::PermissionsExt::mode(&traj.metadata().unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    let Some(python) = atif_python() else { return };
    let doc = &validate(&python, std::slice::from_ref(&traj))[0];
    assert_eq!(doc["schema_version"], "ATIF-v1.8");
    assert_eq!(doc["agent"]["name"], "gemini-rs");
    let steps = doc["steps"].as_array().unwrap();
    let sources: Vec<&str> = steps
        .iter()
        .map(|s| s["source"].as_str().unwrap())
        .collect();
    assert_eq!(sources, ["user", "agent", "agent"], "{doc}");
    assert_eq!(steps[0]["message"], "read a.txt");
    let call = &steps[1];
    assert_eq!(call["tool_calls"][0]["function_name"], "read_file");
    assert_eq!(
        call["observation"]["results"][0],
        json!({"source_call_id": "call_7", "content": "alpha\n"})
    );
    assert_eq!(call["metrics"]["completion_token_ids"], json!([101, 13]));
    assert_eq!(call["metrics"]["logprobs"], json!([-0.25, -0.5]));
    assert_eq!(call["metrics"]["prompt_token_ids"], json!([1, 2, 3]));
    assert_eq!(call["metrics"]["prompt_tokens"], 50);
    assert_eq!(steps[2]["message"], "alpha");
    assert_eq!(steps[2]["metrics"]["completion_token_ids"], json!([7]));
    assert_eq!(doc["final_metrics"]["total_prompt_tokens"], 130);
}

#[test]
fn without_the_setting_nothing_is_asked() {
    let sb = Sandbox::new();
    let fake = FakeServer::with_replies([answer_with_logprobs()]);
    let base = format!("{}/v1", fake.base_url);
    let out = sb.run(
        &["-m", "openai/gpt-4.1", "-p", "hi"],
        None,
        &[("OPENAI_BASE_URL", &base), ("OPENAI_API_KEY", "sk-1")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let body = &fake.requests()[0].body;
    assert!(body.get("logprobs").is_none() && body.get("return_token_ids").is_none());
}

#[test]
fn a_trajectory_path_that_cannot_be_a_file_exits_42_naming_it() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(sb.work.join("adir")).unwrap();
    let fifo = sb.work.join("t.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for (path, why) in [
        ("adir", "is a directory"),
        ("t.fifo", "not a regular file (a FIFO)"),
    ] {
        let out = sb.run(&["--trajectory", path, "-p", "hi"], None, &[]);
        assert_eq!(out.code, 42, "{out:?}");
        assert!(
            out.stderr.contains("--trajectory: ") && out.stderr.contains(why),
            "{}",
            out.stderr
        );
    }
    let out = sb.run(&["--acp", "--trajectory", "t.json"], None, &[]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("_meta"), "{}", out.stderr);
}

/// A replayed five-tool task: list, read, write, edit, read, then an answer.
pub fn five_tool_responses() -> String {
    use crate::e2e::{call, lines, text};
    lines(&[
        call("list_directory", json!({"dir_path": "."})),
        call("read_file", json!({"file_path": "NOTES.md"})),
        call(
            "write_file",
            json!({"file_path": "OUT.md", "content": "# Out\nfirst\n"}),
        ),
        call(
            "replace",
            json!({"file_path": "OUT.md", "old_string": "first", "new_string": "second",
                "instruction": "Change first to second."}),
        ),
        call("read_file", json!({"file_path": "OUT.md"})),
        text("Done: OUT.md says second."),
    ])
}

#[test]
fn acp_sessions_of_one_process_keep_their_own_trajectories() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    let responses = sb.write("task.responses", &five_tool_responses());
    sb.write("template/NOTES.md", "a note\n");
    let driver = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/ray/acp_driver.py");
    let bin = std::env::var("GEMINI_RS_TEST_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_gemini-rs").to_string());
    let out_dir = sb.work.join("rollouts");
    // The driver runs with the environment the binary would get.
    let env_of = sb.command::<&str>(&[], &[]);
    let envs: Vec<(std::ffi::OsString, std::ffi::OsString)> = env_of
        .get_envs()
        .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
        .collect();
    let mut cmd = Command::new("python3");
    cmd.current_dir(&sb.work)
        .env_clear()
        .envs(envs)
        .arg(&driver);
    cmd.args(["--sessions", "3", "--prompt", "Do the task.", "--out"]);
    cmd.arg(&out_dir)
        .arg("--template")
        .arg(sb.work.join("template"));
    cmd.args([
        "--",
        &bin,
        "--acp",
        "--approval-mode",
        "yolo",
        "--fake-responses",
    ]);
    cmd.arg(&responses);
    let run = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let results: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(results.len(), 3, "{stdout}");
    let files: Vec<PathBuf> = results
        .iter()
        .map(|r| {
            assert_eq!(r["stopReason"], "end_turn", "{r}");
            PathBuf::from(r["trajectory"].as_str().unwrap())
        })
        .collect();
    for n in 0..3 {
        let edited = std::fs::read_to_string(out_dir.join(format!("s{n}/work/OUT.md"))).unwrap();
        assert_eq!(edited, "# Out\nsecond\n");
    }
    let Some(python) = atif_python() else { return };
    let docs = validate(&python, &files);
    for (doc, r) in docs.iter().zip(&results) {
        assert_eq!(doc["session_id"], r["sessionId"]);
        let steps = doc["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 7, "{doc}");
        let names: Vec<&str> = steps
            .iter()
            .filter_map(|s| s["tool_calls"][0]["function_name"].as_str())
            .collect();
        assert_eq!(
            names,
            [
                "list_directory",
                "read_file",
                "write_file",
                "replace",
                "read_file"
            ]
        );
        assert_eq!(steps[6]["message"], "Done: OUT.md says second.");
    }
}
