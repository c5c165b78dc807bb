//! Other model providers through the binary: `-m openai/...`, `ollama/...`
//! and providers declared in `model.providers`, against a fake
//! OpenAI-compatible server on 127.0.0.1; recording and replaying such a
//! session; the errors for a missing key and an unknown provider.

use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::{Value, json};

/// A streamed answer calling `read_file` on `a.txt`, its arguments split
/// over two deltas, then the usage-only chunk.
fn call_read_file() -> Reply {
    Reply::openai_stream([
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "Reading."}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_7",
            "type": "function", "function": {"name": "read_file", "arguments": "{\"file_"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
            "function": {"arguments": "path\": \"a.txt\"}"}}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57}}),
    ])
}

fn answer(text: &str) -> Reply {
    Reply::openai_stream([
        json!({"choices": [{"index": 0, "delta": {"content": text}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 80, "completion_tokens": 3, "total_tokens": 83}}),
    ])
}

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.write("a.txt", "alpha\n");
    sb.settings(&json!({"model": {"retry": {"initialDelayMs": 1}}}));
    sb
}

/// The `tool` message of the request after the call.
fn tool_message(body: &Value) -> Value {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .unwrap()
}

#[test]
fn openai_runs_a_whole_tool_round_trip() {
    let sb = sandbox();
    let fake = FakeServer::with_replies([call_read_file(), answer("It says alpha.")]);
    let base = format!("{}/v1", fake.base_url);
    let out = sb.run(
        &[
            "-m",
            "openai/gpt-4.1",
            "--approval-mode",
            "yolo",
            "-o",
            "json",
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
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["response"], "It says alpha.");
    assert_eq!(
        json["stats"]["models"]["openai/gpt-4.1"]["tokens"]["prompt"],
        130
    );
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(reqs[0].header("authorization"), Some("Bearer sk-1"));
    assert_eq!(reqs[0].body["model"], "gpt-4.1");
    let names: Vec<&str> = reqs[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"read_file") && names.contains(&"write_file"),
        "{names:?}"
    );
    let msgs = reqs[1].body["messages"].as_array().unwrap();
    let call = msgs.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(
        call["tool_calls"][0],
        json!({"id": "call_7", "type": "function",
            "function": {"name": "read_file", "arguments": "{\"file_path\":\"a.txt\"}"}})
    );
    let tool = tool_message(&reqs[1].body);
    assert_eq!(tool["tool_call_id"], "call_7");
    let content: Value = serde_json::from_str(tool["content"].as_str().unwrap()).unwrap();
    assert_eq!(content, json!({"output": "alpha\n"}));
}

#[test]
fn a_recorded_provider_session_replays_offline() {
    let sb = sandbox();
    let fake = FakeServer::with_replies([call_read_file(), answer("done")]);
    let base = format!("{}/v1", fake.base_url);
    let rec = sb.work.join("session.responses");
    let rec_arg = rec.to_str().unwrap();
    let args = [
        "-m",
        "ollama/qwen3",
        "--approval-mode",
        "yolo",
        "-p",
        "read a.txt",
    ];
    let mut live_args = args.to_vec();
    live_args.extend(["--record-responses", rec_arg]);
    let host = fake.base_url.clone();
    let live = sb.run(&live_args, None, &[("OLLAMA_HOST", &host)]);
    assert_eq!(live.code, 0, "{live:?}");
    assert!(fake.requests()[0].header("authorization").is_none());
    assert_eq!(fake.requests()[0].path, "/v1/chat/completions");
    let text = std::fs::read_to_string(&rec).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines
            .iter()
            .all(|l| l["method"] == "openai.chat.completions.stream")
    );
    let _ = base;
    // Offline: no server, no key; the same output.
    let mut replay_args = args.to_vec();
    replay_args.extend(["--fake-responses", rec_arg]);
    let replayed = sb.run(&replay_args, None, &[("OLLAMA_HOST", "http://127.0.0.1:9")]);
    assert_eq!(replayed.code, 0, "{replayed:?}");
    assert_eq!(replayed.stdout, live.stdout);
    assert_eq!(fake.requests().len(), 2);
}

#[test]
fn declared_providers_send_their_key_and_headers() {
    let sb = sandbox();
    let busy = Reply::json(503, json!({"error": {"message": "overloaded"}}));
    let fake = FakeServer::with_replies([busy, call_read_file(), answer("hi")]);
    sb.settings(
        &json!({"model": {"name": "local/meta/llama-3", "providers": {"local": {
        "type": "openai", "baseUrl": format!("{}/api/v1", fake.base_url),
        "apiKeyEnv": "LOCAL_KEY", "headers": {"x-team": "blue"},
        "models": {"meta/llama-3": {"maxOutputTokens": 512}}}}}}),
    );
    let out = sb.run(
        &["--approval-mode", "yolo", "-p", "hello"],
        None,
        &[("LOCAL_KEY", "k-9")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "Reading.\nhi");
    // The tool's result went back with the call's id.
    let tool = tool_message(&fake.requests()[2].body);
    assert_eq!(tool["tool_call_id"], "call_7");
    // The 503 was retried.
    let req = &fake.requests()[1];
    assert_eq!(req.path, "/api/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer k-9"));
    assert_eq!(req.header("x-team"), Some("blue"));
    assert_eq!(req.body["model"], "meta/llama-3");
    assert_eq!(req.body["max_tokens"], 512);
    // Without the key: exit 41, naming the variable.
    let out = sb.run(&["-p", "hello"], None, &[]);
    assert_eq!(out.code, 41, "{out:?}");
    assert!(out.stderr.contains("LOCAL_KEY"), "{}", out.stderr);
}

#[test]
fn missing_keys_and_unknown_providers_are_clear() {
    let sb = sandbox();
    let out = sb.run(&["-m", "openai/gpt-4.1", "-p", "hi"], None, &[]);
    assert_eq!(out.code, 41, "{out:?}");
    assert!(out.stderr.contains("OPENAI_API_KEY"), "{}", out.stderr);
    let out = sb.run(&["-m", "mistral/large", "-p", "hi"], None, &[]);
    assert_eq!(out.code, 52, "{out:?}");
    assert!(
        out.stderr.contains("gemini, openai, anthropic, ollama"),
        "{}",
        out.stderr
    );
}

#[test]
fn anthropic_runs_a_whole_tool_round_trip() {
    let sb = sandbox();
    let tool_use = Reply::anthropic_stream([
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 40, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use",
            "id": "toolu_9", "name": "read_file", "input": {}}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta",
            "partial_json": "{\"file_path\":"}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta",
            "partial_json": " \"a.txt\"}"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        json!({"type": "message_stop"}),
    ]);
    let text = Reply::anthropic_stream([
        json!({"type": "message_start", "message": {"usage": {"input_tokens": 60, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "alpha"}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}}),
        json!({"type": "message_stop"}),
    ]);
    let fake = FakeServer::with_replies([tool_use, text]);
    let out = sb.run(
        &[
            "-m",
            "anthropic/claude-sonnet-4-5",
            "--approval-mode",
            "yolo",
            "-p",
            "read a.txt",
        ],
        None,
        &[
            ("ANTHROPIC_BASE_URL", &fake.base_url),
            ("ANTHROPIC_API_KEY", "sk-ant"),
            ("GEMINI_API_KEY", ""),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "alpha");
    let reqs = fake.requests();
    assert_eq!(reqs[0].path, "/v1/messages");
    assert_eq!(reqs[0].header("x-api-key"), Some("sk-ant"));
    assert_eq!(reqs[0].body["model"], "claude-sonnet-4-5");
    let last = reqs[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "user");
    assert_eq!(
        last["content"][0],
        json!({"type": "tool_result", "tool_use_id": "toolu_9",
            "content": [{"type": "text", "text": "{\"output\":\"alpha\\n\"}"}]})
    );
}

#[test]
fn vertex_ai_runs_with_a_service_account() {
    let sb = sandbox();
    let pem = std::process::Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
        ])
        .output()
        .expect("openssl makes the test key");
    let token = Reply::json(200, json!({"access_token": "ya29.t", "expires_in": 3600}));
    let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "from vertex"}]},
        "finishReason": "STOP"}]});
    let fake = FakeServer::with_replies([token, Reply::gemini_stream([chunk])]);
    let key = sb.write(
        "sa.json",
        &json!({"type": "service_account", "client_email": "bot@p.iam.gserviceaccount.com",
            "private_key": String::from_utf8(pem.stdout).unwrap(),
            "token_uri": format!("{}/token", fake.base_url)})
        .to_string(),
    );
    let vertex_env = [
        ("GOOGLE_GENAI_USE_VERTEXAI", "true"),
        ("GOOGLE_CLOUD_PROJECT", "proj-1"),
        ("GOOGLE_CLOUD_LOCATION", "europe-west4"),
        ("GOOGLE_APPLICATION_CREDENTIALS", key.to_str().unwrap()),
        ("GOOGLE_VERTEX_BASE_URL", fake.base_url.as_str()),
        ("GEMINI_API_KEY", ""),
    ];
    let out = sb.run(&["-m", "gemini-2.5-flash", "-p", "hi"], None, &vertex_env);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "from vertex");
    let reqs = fake.requests();
    assert_eq!(reqs[0].path, "/token");
    assert_eq!(
        reqs[1].path,
        "/v1beta1/projects/proj-1/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(reqs[1].header("authorization"), Some("Bearer ya29.t"));
    // Neither a project and location nor an express-mode key: exit 41.
    let out = sb.run(
        &["-p", "hi"],
        None,
        &[
            ("GOOGLE_GENAI_USE_VERTEXAI", "true"),
            ("GEMINI_API_KEY", ""),
        ],
    );
    assert_eq!(out.code, 41, "{out:?}");
    assert!(
        out.stderr.contains("GOOGLE_CLOUD_PROJECT"),
        "{}",
        out.stderr
    );
}
