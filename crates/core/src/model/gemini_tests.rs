//! Tests of [`super::GeminiClient`] against the fake server of
//! `gemini-rs-test-support`.

use super::*;
use gemini_rs_protocol::Content;
use gemini_rs_test_support::{FakeServer, Reply, free_port};
use std::time::Duration;

/// A client for `base` with a short retry policy and no proxy.
fn client(base: &str) -> GeminiClient {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = GeminiConfig {
        api_key: "test-key".into(),
        vertex: None,
        base_url: format!("{base}/"),
        retry: RetryConfig {
            max_attempts: 3,
            initial_delay_ms: 1,
            max_delay_ms: 5,
        },
        proxy: None,
        transport: crate::model::Transport::default(),
    };
    let mut client = GeminiClient::new(config).unwrap();
    // Talk to 127.0.0.1 directly even if HTTPS_PROXY is set.
    client.http = reqwest::Client::builder().no_proxy().build().unwrap();
    client
}

fn request() -> GenerateContentRequest {
    GenerateContentRequest {
        contents: vec![Content::user_text("hi")],
        ..Default::default()
    }
}

const CHUNK_A: &str =
    r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello "}]}}]}"#;
const CHUNK_B: &str = r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"world"}]},"finishReason":"STOP"}]}"#;

#[tokio::test]
async fn retries_a_500_then_streams_two_chunks() {
    let server = FakeServer::with_replies([
        Reply::json(500, r#"{"error":{"code":500,"message":"boom"}}"#),
        Reply::gemini_stream([CHUNK_A, CHUNK_B]),
    ]);
    let client = client(&server.base_url);
    let stream = client
        .generate_stream("gemini-x", &request(), CancellationToken::new())
        .await
        .unwrap();
    let chunks: Vec<_> = stream.map(|c| c.unwrap().text()).collect().await;
    assert_eq!(chunks, vec!["Hello ", "world"]);
    let seen = server.requests();
    assert_eq!(seen.len(), 2, "one retry expected");
    for req in &seen {
        assert_eq!(req.method, "POST");
        assert_eq!(
            req.path,
            "/v1beta/models/gemini-x:streamGenerateContent?alt=sse"
        );
        assert_eq!(req.api_key(), Some("test-key"));
        assert_eq!(
            req.raw,
            r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#
        );
    }
}

#[tokio::test]
async fn retries_a_stream_that_ends_before_its_first_chunk() {
    let server = FakeServer::with_replies([
        Reply::gemini_stream::<&str>([]),
        Reply::gemini_stream([CHUNK_B]),
    ]);
    let client = client(&server.base_url);
    let stream = client
        .generate_stream("m", &request(), CancellationToken::new())
        .await
        .unwrap();
    let chunks: Vec<_> = stream.collect().await;
    assert_eq!(chunks.len(), 1);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_400_is_not_retried_and_shows_the_api_message() {
    let body = r#"{"error":{"code":400,"message":"Invalid JSON payload received.","status":"INVALID_ARGUMENT"}}"#;
    let server = FakeServer::with_replies([Reply::json(400, body)]);
    let client = client(&server.base_url);
    let err = client
        .generate_stream("m", &request(), CancellationToken::new())
        .await
        .err()
        .unwrap();
    assert!(matches!(err, ModelError::BadRequest { .. }));
    assert_eq!(
        err.to_string(),
        "The Gemini API rejected the request (HTTP 400): Invalid JSON payload received."
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn gives_up_after_max_attempts() {
    let busy = || Reply::text(503, "overloaded");
    let server = FakeServer::with_replies([busy(), busy(), busy()]);
    let client = client(&server.base_url);
    let err = client
        .generate("m", &request(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(server.requests().len(), 3);
    assert_eq!(err.status(), Some(503));
    assert!(
        err.to_string().contains("gave up after 3 attempts"),
        "{err}"
    );
}

#[tokio::test]
async fn generate_parses_json() {
    let server = FakeServer::with_replies([Reply::json(200, CHUNK_B)]);
    let client = client(&server.base_url);
    let one = client
        .generate("m", &request(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(one.text(), "world");
    let seen = server.requests();
    assert_eq!(seen[0].path, "/v1beta/models/m:generateContent");
}

#[tokio::test]
async fn cancel_stops_a_hanging_request() {
    let server = FakeServer::with_replies([Reply::hang()]);
    let client = client(&server.base_url);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let err = client
        .generate_stream("m", &request(), cancel)
        .await
        .err()
        .unwrap();
    assert!(matches!(err, ModelError::Cancelled));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_refused_connection_is_not_retried() {
    let client = client(&format!("http://127.0.0.1:{}", free_port()));
    let err = client
        .generate("m", &request(), CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Unreachable { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("Could not connect to http://127.0.0.1:"),
        "{text}"
    );
    assert!(!text.contains("gave up"), "{text}");
}

#[tokio::test]
async fn a_stream_without_a_finish_reason_is_incomplete() {
    let server = FakeServer::with_replies([Reply::gemini_stream([CHUNK_A])]);
    let client = client(&server.base_url);
    let stream = client
        .generate_stream("m", &request(), CancellationToken::new())
        .await
        .unwrap();
    let chunks: Vec<_> = stream.collect().await;
    assert_eq!(chunks.len(), 2);
    assert!(matches!(chunks[1], Err(ModelError::Incomplete { .. })));
}

#[test]
fn a_bad_proxy_url_is_a_setup_error() {
    let err = GeminiClient::new(GeminiConfig {
        api_key: "k".into(),
        vertex: None,
        base_url: "http://127.0.0.1:1".into(),
        retry: RetryConfig::default(),
        proxy: Some("http://[::1".into()),
        transport: crate::model::Transport::default(),
    })
    .unwrap_err();
    assert!(matches!(err, ModelError::Setup { .. }));
    assert!(err.to_string().contains("http://[::1"), "{err}");
}
