//! Tokens and context with servers that say little: estimated usage when
//! an OpenAI-compatible server sends none, the context window read from a
//! llama.cpp server's `/props`, and its context-overflow answer told as
//! the window and the tokens needed.

use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::{Value, json};

/// A streamed answer without any usage chunk (as many local servers send).
fn answer_without_usage(text: &str) -> Reply {
    Reply::openai_stream([
        json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": text}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
    ])
}

/// `n` different words (repeated text would trip the loop guard).
fn words(n: usize) -> String {
    (0..n).map(|i| format!("w{i:04} ")).collect()
}

fn run_local(sb: &Sandbox, fake: &FakeServer, args: &[&str]) -> crate::support::Output {
    let base = format!("{}/v1", fake.base_url);
    let mut all = vec!["-m", "openai/gemma-3-270m"];
    all.extend_from_slice(args);
    sb.run(
        &all,
        None,
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_API_KEY", "none"),
            ("GEMINI_API_KEY", ""),
        ],
    )
}

#[test]
fn tokens_are_estimated_and_marked_when_the_server_sends_no_usage() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"retry": {"initialDelayMs": 1}}}));
    let answer = words(40);
    let fake = FakeServer::with_replies([answer_without_usage(&answer)]);
    let prompt = words(800);
    let out = run_local(&sb, &fake, &["-o", "json", "-p", &prompt]);
    assert_eq!(out.code, 0, "{out:?}");
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let tokens = &json["stats"]["models"]["openai/gemma-3-270m"]["tokens"];
    assert_eq!(tokens["estimated"], true, "{tokens}");
    // The prompt alone is 1,000 tokens at four characters a token; the
    // system instruction and the tool declarations add more.
    let prompt_tokens = tokens["prompt"].as_u64().unwrap();
    assert!(prompt_tokens > 1_000, "{tokens}");
    let candidates = answer.len() as u64 / 4;
    assert_eq!(tokens["candidates"], candidates, "{tokens}");
    assert_eq!(
        tokens["total"].as_u64().unwrap(),
        prompt_tokens + candidates,
        "{tokens}"
    );

    // The stream's `result` has per-model stats (`models`) in today's
    // dialect only, as 0.61 (docs/dialects.md).
    let fake = FakeServer::with_replies([answer_without_usage("ok")]);
    let base = format!("{}/v1", fake.base_url);
    let out = sb.run(
        &["-m", "openai/gemma-3-270m", "-o", "stream-json", "-p", "hi"],
        None,
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_API_KEY", "none"),
            ("GEMINI_API_KEY", ""),
            ("GEMINI_RS_DIALECT", "today"),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let result: Value = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "result")
        .unwrap();
    assert_eq!(result["stats"]["estimated"], true, "{result}");
    assert_eq!(
        result["stats"]["models"]["openai/gemma-3-270m"]["estimated"], true,
        "{result}"
    );
    assert!(
        result["stats"]["input_tokens"].as_u64().unwrap() > 0,
        "{result}"
    );
}

#[test]
fn a_reported_usage_is_not_marked_estimated() {
    let sb = Sandbox::new();
    let fake = FakeServer::with_replies([Reply::openai_stream([
        json!({"choices": [{"index": 0, "delta": {"content": "ok"}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
        json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 1, "total_tokens": 10}}),
    ])]);
    let out = run_local(&sb, &fake, &["-o", "json", "-p", "hi"]);
    assert_eq!(out.code, 0, "{out:?}");
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let tokens = &json["stats"]["models"]["openai/gemma-3-270m"]["tokens"];
    assert_eq!(tokens["prompt"], 9, "{tokens}");
    assert!(tokens.get("estimated").is_none(), "{tokens}");
}

/// llama.cpp's answer to a prompt over its context.
fn llama_overflow() -> Reply {
    Reply::json(
        400,
        json!({"error": {"code": 400, "type": "exceed_context_size_error",
            "message": "the request exceeds the available context size, try increasing it",
            "n_prompt_tokens": 21808, "n_ctx": 8192}}),
    )
}

#[test]
fn a_context_overflow_names_the_window_and_the_tokens_needed() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"retry": {"initialDelayMs": 1}}}));
    let fake = FakeServer::builder()
        .route(
            "GET /props",
            Reply::json(200, json!({"default_generation_settings": {"n_ctx": 8192}})),
        )
        .replies([llama_overflow()])
        .start();
    let prompt = "tell me about this: ".to_string() + &words(2000);
    let out = run_local(&sb, &fake, &["-p", &prompt]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("the model's context window is 8192 tokens; this request needed about 21808"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("/compress"), "{}", out.stderr);
    assert!(
        !out.stderr.contains("Nothing to compress"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("broke off"), "{}", out.stderr);
    // Not retried: one model request after the window was asked.
    let paths = fake.paths();
    assert_eq!(paths, ["/props", "/v1/chat/completions"], "{paths:?}");
}

#[test]
fn the_window_from_props_moves_the_footer_budget_for_compression() {
    // With the 8,192-token window llama.cpp reports (instead of the
    // 32,768 assumed for unknown models), a conversation of about 5,000
    // tokens is over half the window: it is compressed before the next
    // request, where the assumed window would have sent it whole.
    let sb = Sandbox::new();
    let fake = FakeServer::builder()
        .route(
            "GET /props",
            Reply::json(200, json!({"default_generation_settings": {"n_ctx": 8192}})),
        )
        .replies([
            answer_without_usage(&words(3400)),
            answer_without_usage("Summary: a long answer was given."),
            answer_without_usage("second answer"),
        ])
        .start();
    let base = format!("{}/v1", fake.base_url);
    let env = [
        ("OPENAI_BASE_URL", base.as_str()),
        ("OPENAI_API_KEY", "none"),
        ("GEMINI_API_KEY", ""),
    ];
    let out = sb.run(&["-m", "openai/gemma-3-270m", "-p", "first"], None, &env);
    assert_eq!(out.code, 0, "{out:?}");
    let out = sb.run(
        &[
            "-m",
            "openai/gemma-3-270m",
            "--resume",
            "latest",
            "-p",
            "second",
        ],
        None,
        &env,
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("second answer"), "{out:?}");
    // The summary request went out before the second prompt.
    let chats: Vec<Value> = fake
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/chat/completions")
        .map(|r| r.body)
        .collect();
    assert_eq!(chats.len(), 3, "{chats:?}");
    assert!(
        chats[1]
            .to_string()
            .contains("Summarise the conversation so far"),
        "{}",
        chats[1]
    );
    assert!(
        chats[2]
            .to_string()
            .contains("Summary: a long answer was given."),
        "{}",
        chats[2]
    );
}
