use super::*;
use crate::model::wire::WireConfig;
use crate::model::{ContentGenerator, ModelError, ResponseSink, RetryConfig};
use futures::StreamExt;
use gemini_rs_protocol::{
    Content, FunctionCall, FunctionDeclaration, FunctionResponse, Part, Role, Tool,
};
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse, RecordedResponse};
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::Value;
use serde_json::json;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

fn config(base_url: &str) -> WireConfig {
    let _ = rustls::crypto::ring::default_provider().install_default();
    WireConfig {
        base_url: format!("{base_url}/v1"),
        api_key: Some("sk-test".into()),
        api_key_env: Some("OPENAI_API_KEY".into()),
        headers: vec![("x-extra".into(), "1".into())],
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

fn call_part(id: Option<&str>, name: &str, args: Value) -> Part {
    Part {
        function_call: Some(FunctionCall {
            id: id.map(str::to_string),
            name: name.into(),
            args: Some(args),
            ..FunctionCall::default()
        }),
        ..Part::default()
    }
}

fn conversation() -> GenerateContentRequest {
    GenerateContentRequest {
        system_instruction: Some(Content::user_text("be brief")),
        contents: vec![
            Content::user_text("read a and b"),
            Content::new(
                Role::Model,
                vec![
                    Part {
                        text: Some("thinking".into()),
                        thought: Some(true),
                        ..Part::default()
                    },
                    Part::text("Reading."),
                    call_part(Some("call_1"), "read_file", json!({"file_path": "a"})),
                    call_part(None, "read_file", json!({"file_path": "b"})),
                ],
            ),
            Content::new(
                Role::User,
                vec![
                    Part::function_response(FunctionResponse {
                        id: Some("call_1".into()),
                        name: "read_file".into(),
                        response: json!({"output": "A"}),
                        ..FunctionResponse::default()
                    }),
                    Part::function_response(FunctionResponse {
                        id: Some("read_file-123-abc".into()),
                        name: "read_file".into(),
                        response: json!({"error": "no b"}),
                        ..FunctionResponse::default()
                    }),
                    Part::inline_data("image/png", "AAAA"),
                ],
            ),
        ],
        tools: Some(vec![Tool {
            function_declarations: Some(vec![FunctionDeclaration {
                name: "read_file".into(),
                description: Some("Reads".into()),
                parameters_json_schema: Some(json!({"type": "object",
                    "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]})),
                ..FunctionDeclaration::default()
            }]),
            ..Tool::default()
        }]),
        ..GenerateContentRequest::default()
    }
}

#[test]
fn request_body_pairs_calls_and_results_by_id() {
    let body = request::body("gpt-x", &conversation(), Some(100));
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "read a and b"},
            {"role": "assistant", "content": "Reading.", "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "read_file", "arguments": "{\"file_path\":\"a\"}"}},
                {"id": "call_1_1", "type": "function",
                 "function": {"name": "read_file", "arguments": "{\"file_path\":\"b\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "{\"output\":\"A\"}"},
            {"role": "tool", "tool_call_id": "call_1_1", "content": "{\"error\":\"no b\"}"},
            {"role": "user", "content": [
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
            ]}
        ])
    );
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], json!(100));
    assert_eq!(
        body["tools"][0],
        json!({"type": "function", "function": {"name": "read_file", "description": "Reads",
            "parameters": {"type": "object", "properties": {"file_path": {"type": "string"}},
            "required": ["file_path"]}}})
    );
    // Said, for servers that show the model no tools without it.
    assert_eq!(body["tool_choice"], json!("auto"));
}

const SPLIT_CALLS: [&str; 7] = [
    r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"hmm"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":"Let me look."}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":"{\"file_"}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"glob","arguments":""}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"path\":\"a\"}"}},{"index":1,"function":{"arguments":"{\"pattern\":\"*\"}"}}]}}]}"#,
    r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"completion_tokens_details":{"reasoning_tokens":2}}}"#,
];

#[tokio::test]
async fn stream_assembles_split_and_parallel_calls() {
    let events: Vec<Value> = SPLIT_CALLS
        .iter()
        .map(|e| serde_json::from_str(e).unwrap())
        .collect();
    let chunks: Vec<_> = replay(events).collect().await;
    let chunks: Vec<GenerateContentResponse> = chunks.into_iter().map(Result::unwrap).collect();
    let parts = |c: &GenerateContentResponse| {
        c.candidates.as_ref().unwrap()[0]
            .content
            .clone()
            .unwrap()
            .parts
    };
    assert_eq!(parts(&chunks[0])[0].thought, Some(true));
    assert_eq!(chunks[1].text(), "Let me look.");
    let calls = chunks[2].function_calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].id.as_deref(), Some("call_a"));
    assert_eq!(calls[0].args, Some(json!({"file_path": "a"})));
    assert_eq!(calls[1].name, "glob");
    assert_eq!(calls[1].args, Some(json!({"pattern": "*"})));
    assert_eq!(
        chunks[2].candidates.as_ref().unwrap()[0]
            .finish_reason
            .as_deref(),
        Some("STOP")
    );
    let usage = chunks[3].usage_metadata.as_ref().unwrap();
    assert_eq!(usage.prompt_token_count, Some(10));
    assert_eq!(usage.thoughts_token_count, Some(2));
}

#[tokio::test]
async fn bad_call_arguments_reach_the_call_as_text() {
    let events = vec![
        json!({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{nope"}}]}}]}),
        json!({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}),
    ];
    let chunks: Vec<_> = replay(events).collect().await;
    let last = chunks.last().unwrap().as_ref().unwrap();
    let call = last.candidates.as_ref().unwrap()[0]
        .content
        .as_ref()
        .unwrap()
        .parts[0]
        .function_call
        .clone()
        .unwrap();
    assert_eq!(call.args, Some(json!("{nope")));
}

#[tokio::test]
async fn a_stream_without_its_end_marker_is_incomplete() {
    let server = FakeServer::with_replies(vec![Reply::sse([
        json!({"choices":[{"index":0,"delta":{"content":"half an ans"}}]}),
    ])]);
    let client = OpenAiChatClient::new(config(&server.base_url)).unwrap();
    let stream = client
        .generate_stream("gpt-x", &conversation(), CancellationToken::new())
        .await
        .unwrap();
    let chunks: Vec<_> = stream.collect().await;
    let err = chunks.last().unwrap().as_ref().unwrap_err();
    assert!(matches!(err, ModelError::Incomplete { .. }), "{err:?}");
    assert!(err.to_string().contains("[DONE]"), "{err}");
}

#[tokio::test]
async fn live_stream_sends_key_headers_and_records_the_events() {
    let server = FakeServer::with_replies(vec![
        Reply::json(429, r#"{"error":{"message":"slow down"}}"#),
        Reply::openai_stream(SPLIT_CALLS),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rec.responses");
    let mut cfg = config(&server.base_url);
    cfg.recorder = Some(Arc::new(ResponseSink::new(out.clone())));
    let client = OpenAiChatClient::new(cfg).unwrap();
    let stream = client
        .generate_stream("gpt-x", &conversation(), CancellationToken::new())
        .await
        .unwrap();
    let live: Vec<_> = stream.map(Result::unwrap).collect().await;
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2, "the 429 is retried");
    assert_eq!(reqs[1].path, "/v1/chat/completions");
    assert_eq!(reqs[1].header("authorization"), Some("Bearer sk-test"));
    assert_eq!(reqs[1].header("x-extra"), Some("1"));
    assert_eq!(reqs[1].body["model"], "gpt-x");
    // The recorded line replays to the same chunks.
    let line: gemini_rs_protocol::RecordedResponse =
        serde_json::from_str(std::fs::read_to_string(&out).unwrap().trim()).unwrap();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with(r#"{"method":"openai.chat.completions.stream","response":["#));
    let RecordedResponse::OpenAiChatStream(events) = line else {
        panic!("{text}")
    };
    let replayed: Vec<_> = replay(events).map(Result::unwrap).collect().await;
    assert_eq!(replayed, live);
}

#[tokio::test]
async fn errors_name_the_server_and_what_to_do() {
    let server = FakeServer::with_replies(vec![
        Reply::json(
            401,
            r#"{"error":{"message":"bad key","code":"invalid_api_key"}}"#,
        ),
        Reply::json(
            400,
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens","code":"context_length_exceeded"}}"#,
        ),
    ]);
    let client = OpenAiChatClient::new(config(&server.base_url)).unwrap();
    let req = conversation();
    let err = client
        .generate_stream("gpt-x", &req, CancellationToken::new())
        .await
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("bad key") && err.contains("OPENAI_API_KEY"),
        "{err}"
    );
    assert!(err.contains(&server.base_url), "{err}");
    let err = client
        .generate("gpt-x", &req, CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::ContextTooLong { .. }), "{err}");
}

#[tokio::test]
async fn logprobs_and_prompt_ids_ride_on_the_chunk() {
    let events = vec![
        json!({"prompt_token_ids": [1, 2], "choices": [{"index": 0, "delta": {"content": "Hi"},
            "logprobs": {"content": [{"id": 7, "token": "Hi", "logprob": -0.5}]}}]}),
        json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop",
            "logprobs": "not a list"}]}),
    ];
    let chunks: Vec<GenerateContentResponse> = replay(events).map(Result::unwrap).collect().await;
    let extra: Vec<_> = chunks
        .iter()
        .filter_map(|c| c.first_candidate())
        .filter_map(|c| c.extra.get("logprobsResult").map(|r| (r, &c.extra)))
        .collect();
    assert_eq!(extra.len(), 1, "an odd logprobs field is passed over");
    assert_eq!(
        extra[0].0["chosenCandidates"][0],
        json!({"token": "Hi", "tokenId": 7, "logProbability": -0.5})
    );
    assert_eq!(extra[0].1["promptTokenIds"], json!([1, 2]));
}

#[tokio::test]
async fn data_that_is_not_json_is_a_malformed_chunk() {
    let bytes = futures::stream::iter([Ok(bytes::Bytes::from("data: {\"choices\": [\n\n"))]);
    let stream = crate::model::wire::translate(
        crate::model::wire::sse_events(bytes),
        OpenAiTranslator::default(),
        None,
    );
    let chunks: Vec<_> = stream.collect().await;
    let err = chunks[0].as_ref().unwrap_err();
    assert!(matches!(err, ModelError::MalformedChunk { .. }), "{err}");
    assert!(err.to_string().contains("{\"choices\": ["), "{err}");
}
