use super::*;
use crate::model::wire::{self, WireConfig};
use crate::model::{ContentGenerator, ModelError, ResponseSink, RetryConfig};
use futures::StreamExt;
use gemini_rs_protocol::{
    Content, FunctionCall, FunctionDeclaration, FunctionResponse, GenerationConfig, Part, Role,
    ThinkingConfig, Tool,
};
use gemini_rs_protocol::{GenerateContentRequest, RecordedResponse};
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::Value;
use serde_json::json;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

fn config(base_url: &str) -> WireConfig {
    let _ = rustls::crypto::ring::default_provider().install_default();
    WireConfig {
        base_url: base_url.to_string(),
        api_key: Some("sk-ant".into()),
        api_key_env: Some("ANTHROPIC_API_KEY".into()),
        headers: Vec::new(),
        retry: RetryConfig {
            max_attempts: 3,
            initial_delay_ms: 1,
            max_delay_ms: 5,
        },
        max_output_tokens: Default::default(),
        recorder: None,
        transport: crate::model::Transport::default(),
    }
}

fn thought(text: &str, signature: Option<&str>) -> Part {
    Part {
        text: Some(text.into()),
        thought: Some(true),
        thought_signature: signature.map(str::to_string),
        ..Part::default()
    }
}

fn conversation() -> GenerateContentRequest {
    let call = |id: &str, path: &str| Part {
        function_call: Some(FunctionCall {
            id: Some(id.into()),
            name: "read_file".into(),
            args: Some(json!({"file_path": path})),
            ..FunctionCall::default()
        }),
        ..Part::default()
    };
    let result = |id: &str, response: Value| {
        Part::function_response(FunctionResponse {
            id: Some(id.into()),
            name: "read_file".into(),
            response,
            ..FunctionResponse::default()
        })
    };
    GenerateContentRequest {
        system_instruction: Some(Content::user_text("be brief")),
        contents: vec![
            Content::user_text("context"),
            Content::user_text("read a and b"),
            Content::new(
                Role::Model,
                vec![
                    thought("I should ", None),
                    thought("read both.", None),
                    thought("", Some("sig-1")),
                    Part::text("Reading."),
                    call("toolu_a", "a"),
                    call("toolu_b", "b"),
                ],
            ),
            Content::new(
                Role::User,
                vec![
                    result("toolu_a", json!({"output": "A"})),
                    result("toolu_b", json!({"error": "no b"})),
                    Part::inline_data("image/png", "AAAA"),
                ],
            ),
        ],
        tools: Some(vec![Tool {
            function_declarations: Some(vec![FunctionDeclaration {
                name: "read_file".into(),
                description: Some("Reads".into()),
                parameters: Some(
                    json!({"type": "OBJECT", "properties": {"file_path": {"type": "STRING"}}}),
                ),
                ..FunctionDeclaration::default()
            }]),
            ..Tool::default()
        }]),
        generation_config: Some(GenerationConfig {
            temperature: Some(0.into()),
            top_p: Some(1.into()),
            ..GenerationConfig::default()
        }),
        ..GenerateContentRequest::default()
    }
}

#[test]
fn request_merges_turns_and_sends_signed_thinking_back() {
    let body = request::body("claude-sonnet-4-5", &conversation(), Some(64_000));
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "context"}, {"type": "text", "text": "read a and b"}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "I should read both.", "signature": "sig-1"},
                {"type": "text", "text": "Reading."},
                {"type": "tool_use", "id": "toolu_a", "name": "read_file", "input": {"file_path": "a"}},
                {"type": "tool_use", "id": "toolu_b", "name": "read_file", "input": {"file_path": "b"}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_a",
                 "content": [{"type": "text", "text": "{\"output\":\"A\"}"}]},
                {"type": "tool_result", "tool_use_id": "toolu_b",
                 "content": [{"type": "text", "text": "{\"error\":\"no b\"}"}], "is_error": true},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}]}
        ])
    );
    assert_eq!(body["system"], "be brief");
    assert_eq!(body["max_tokens"], 64_000);
    assert_eq!(body["temperature"], 0);
    assert!(
        body.get("top_p").is_none(),
        "temperature and top_p never go together"
    );
    assert_eq!(
        body["tools"][0],
        json!({"name": "read_file", "description": "Reads",
            "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}}})
    );
}

#[test]
fn thinking_replaces_sampling_settings() {
    let mut req = conversation();
    if let Some(c) = req.generation_config.as_mut() {
        c.thinking_config = Some(ThinkingConfig {
            include_thoughts: Some(true),
            thinking_budget: Some(8192),
            ..ThinkingConfig::default()
        });
    }
    let body = request::body("claude-sonnet-4-5", &req, Some(4096));
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 4095})
    );
    assert!(body.get("temperature").is_none());
    // A forced tool leaves thinking out: the API refuses both together.
    req.tool_config = Some(gemini_rs_protocol::ToolConfig {
        function_calling_config: Some(gemini_rs_protocol::FunctionCallingConfig {
            mode: Some("ANY".into()),
            allowed_function_names: Some(vec!["read_file".into()]),
            ..Default::default()
        }),
        ..Default::default()
    });
    let body = request::body("claude-sonnet-4-5", &req, Some(4096));
    assert_eq!(
        body["tool_choice"],
        json!({"type": "tool", "name": "read_file"})
    );
    assert!(body.get("thinking").is_none(), "{body}");
}

/// A documented-shape stream: thinking with a signature, text, two tool
/// uses with their input split, usage.
fn stream_events() -> Vec<Value> {
    [
        r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me see."}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading."}}"#,
        r#"{"type":"content_block_stop","index":1}"#,
        r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"file_pa"}}"#,
        r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"th\": \"a\"}"}}"#,
        r#"{"type":"content_block_stop","index":2}"#,
        r#"{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"glob","input":{}}}"#,
        r#"{"type":"content_block_stop","index":3}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":42}}"#,
        r#"{"type":"message_stop"}"#,
    ]
    .iter()
    .map(|e| serde_json::from_str(e).unwrap())
    .collect()
}

#[tokio::test]
async fn stream_gives_thoughts_text_calls_and_usage() {
    let whole = wire::collect(replay(stream_events())).await.unwrap();
    let candidate = &whole.candidates.as_ref().unwrap()[0];
    let parts = &candidate.content.as_ref().unwrap().parts;
    assert_eq!(parts[0].text.as_deref(), Some("Let me see."));
    assert_eq!(parts[1].thought_signature.as_deref(), Some("EqQB"));
    assert_eq!(parts[2].text.as_deref(), Some("Reading."));
    let calls = whole.function_calls();
    assert_eq!(calls[0].id.as_deref(), Some("toolu_1"));
    assert_eq!(calls[0].args, Some(json!({"file_path": "a"})));
    assert_eq!(calls[1].args, Some(json!({})));
    assert_eq!(candidate.finish_reason.as_deref(), Some("STOP"));
    let usage = whole.usage_metadata.unwrap();
    assert_eq!(usage.prompt_token_count, Some(15));
    assert_eq!(usage.cached_content_token_count, Some(5));
    assert_eq!(usage.candidates_token_count, Some(42));
}

#[tokio::test]
async fn live_calls_retry_overload_and_record() {
    let server = FakeServer::with_replies(vec![
        Reply::json(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
        Reply::anthropic_stream(stream_events()),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rec.responses");
    let mut cfg = config(&server.base_url);
    cfg.recorder = Some(Arc::new(ResponseSink::new(out.clone())));
    let client = AnthropicClient::new(cfg).unwrap();
    let live: Vec<_> = client
        .generate_stream(
            "claude-haiku-4-5",
            &conversation(),
            CancellationToken::new(),
        )
        .await
        .unwrap()
        .map(Result::unwrap)
        .collect()
        .await;
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "the 529 is retried");
    assert_eq!(reqs[1].path, "/v1/messages");
    assert_eq!(reqs[1].header("x-api-key"), Some("sk-ant"));
    assert_eq!(reqs[1].header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        reqs[1].body["max_tokens"], 64_000,
        "the model's known limit"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with(r#"{"method":"anthropic.messages.stream","response":["#));
    let line: RecordedResponse = serde_json::from_str(text.trim()).unwrap();
    let RecordedResponse::AnthropicMessagesStream(events) = line else {
        panic!("{text}")
    };
    let replayed: Vec<_> = replay(events).map(Result::unwrap).collect().await;
    assert_eq!(replayed, live);
}

#[tokio::test]
async fn errors_are_named() {
    let server = FakeServer::with_replies(vec![
        Reply::json(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        ),
        Reply::anthropic_stream([
            r#"{"type":"message_start","message":{"usage":{"input_tokens":1}}}"#,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ]),
    ]);
    let client = AnthropicClient::new(config(&server.base_url)).unwrap();
    let req = conversation();
    let err = client
        .generate("claude-sonnet-4-5", &req, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::ContextTooLong { .. }), "{err}");
    let err = client
        .generate("claude-sonnet-4-5", &req, CancellationToken::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("Overloaded (overloaded_error)"), "{err}");
}

#[test]
fn a_failed_shell_command_is_an_error_result_as_claude_codes_bash_gives_it() {
    let shell = |id: &str, output: &str| {
        let call = Part {
            function_call: Some(FunctionCall {
                id: Some(id.into()),
                name: "run_shell_command".into(),
                args: Some(json!({"command": "x"})),
                ..FunctionCall::default()
            }),
            ..Part::default()
        };
        let result = Part::function_response(FunctionResponse {
            id: Some(id.into()),
            name: "run_shell_command".into(),
            response: json!({"output": output}),
            ..FunctionResponse::default()
        });
        vec![
            Content::new(Role::Model, vec![call]),
            Content::new(Role::User, vec![result]),
        ]
    };
    let mut contents = vec![Content::user_text("go")];
    contents.extend(shell("toolu_ok", "Output: fine"));
    contents.extend(shell("toolu_bad", "Output: oops\nExit Code: 3"));
    let request = GenerateContentRequest {
        contents,
        ..GenerateContentRequest::default()
    };
    let body = request::body("claude-sonnet-4-5", &request, None);
    let flags: Vec<Value> = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["is_error"].clone())
        .collect();
    assert_eq!(flags, vec![Value::Null, json!(true)]);
}

#[tokio::test]
async fn the_sse_event_name_stands_for_a_missing_type() {
    let body = "event: message_start\ndata: {\"message\":{\"usage\":{\"input_tokens\":3}}}\n\n\
        event: content_block_delta\ndata: {\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n\
        event: message_delta\ndata: {\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n\
        event: message_stop\ndata: {}\n\n";
    let bytes = futures::stream::iter([Ok(bytes::Bytes::from(body))]);
    let stream = wire::translate(
        wire::sse_events(bytes),
        AnthropicTranslator::default(),
        None,
    );
    let whole = wire::collect(stream).await.unwrap();
    assert_eq!(whole.text(), "Hi");
    assert_eq!(whole.usage_metadata.unwrap().prompt_token_count, Some(3));
}

#[tokio::test]
async fn an_event_of_the_wrong_shape_is_a_named_malformed_chunk() {
    let events = vec![json!({"type": "content_block_delta", "index": "x"})];
    let err = wire::collect(replay(events)).await.unwrap_err();
    assert!(matches!(err, ModelError::MalformedChunk { .. }), "{err}");
    assert!(err.to_string().contains(r#""index":"x""#), "{err}");
}
