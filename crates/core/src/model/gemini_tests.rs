//! Tests of [`super::GeminiClient`] against a hand-written HTTP/1.1 server.

use super::*;
use gemini_rs_protocol::Content;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// What the fake server does with one connection.
enum Reply {
    /// Write these bytes, then close.
    Send(String),
    /// Read the request and never answer.
    Hang,
}

/// Serves one reply per connection, in order; returns the base URL and the
/// raw requests received.
async fn serve(replies: Vec<Reply>) -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tokio::spawn(async move {
        for reply in replies {
            let (mut socket, _) = listener.accept().await.unwrap();
            let request = read_request(&mut socket).await;
            log.lock().unwrap().push(request);
            match reply {
                Reply::Send(bytes) => {
                    socket.write_all(bytes.as_bytes()).await.unwrap();
                    socket.shutdown().await.ok();
                }
                Reply::Hang => {
                    tokio::time::sleep(Duration::from_secs(30)).await;
                }
            }
        }
    });
    (base, seen)
}

/// Reads the head and a `Content-Length` body.
async fn read_request(socket: &mut tokio::net::TcpStream) -> String {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.unwrap();
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if buf.len() >= end + 4 + length {
                break;
            }
        }
    }
    String::from_utf8_lossy(&buf).to_string()
}

fn http(status: &str, content_type: &str, body: &str) -> Reply {
    Reply::Send(format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    ))
}

fn sse(events: &[&str]) -> Reply {
    let body: String = events
        .iter()
        .map(|e| format!("data: {e}\r\n\r\n"))
        .collect();
    http("200 OK", "text/event-stream", &body)
}

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
    let (base, seen) = serve(vec![
        http(
            "500 Internal Server Error",
            "application/json",
            r#"{"error":{"code":500,"message":"boom"}}"#,
        ),
        sse(&[CHUNK_A, CHUNK_B]),
    ])
    .await;
    let client = client(&base);
    let stream = client
        .generate_stream("gemini-x", &request(), CancellationToken::new())
        .await
        .unwrap();
    let chunks: Vec<_> = stream.map(|c| c.unwrap().text()).collect().await;
    assert_eq!(chunks, vec!["Hello ", "world"]);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "one retry expected");
    for req in seen.iter() {
        assert!(
            req.starts_with("POST /v1beta/models/gemini-x:streamGenerateContent?alt=sse HTTP/1.1"),
            "{req}"
        );
        assert!(
            req.to_ascii_lowercase()
                .contains("x-goog-api-key: test-key")
        );
        assert!(req.ends_with(r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#));
    }
}

#[tokio::test]
async fn retries_a_stream_that_ends_before_its_first_chunk() {
    let (base, seen) = serve(vec![sse(&[]), sse(&[CHUNK_A])]).await;
    let client = client(&base);
    let stream = client
        .generate_stream("m", &request(), CancellationToken::new())
        .await
        .unwrap();
    let chunks: Vec<_> = stream.collect().await;
    assert_eq!(chunks.len(), 1);
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_400_is_not_retried_and_shows_the_api_message() {
    let body = r#"{"error":{"code":400,"message":"Invalid JSON payload received.","status":"INVALID_ARGUMENT"}}"#;
    let (base, seen) = serve(vec![http("400 Bad Request", "application/json", body)]).await;
    let client = client(&base);
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
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn gives_up_after_max_attempts() {
    let busy = || http("503 Service Unavailable", "text/plain", "overloaded");
    let (base, seen) = serve(vec![busy(), busy(), busy()]).await;
    let client = client(&base);
    let err = client
        .generate("m", &request(), CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(seen.lock().unwrap().len(), 3);
    assert_eq!(err.status(), Some(503));
    assert!(
        err.to_string().contains("gave up after 3 attempts"),
        "{err}"
    );
}

#[tokio::test]
async fn generate_and_count_tokens_parse_json() {
    let (base, seen) = serve(vec![
        http("200 OK", "application/json", CHUNK_B),
        http("200 OK", "application/json", r#"{"totalTokens":7}"#),
    ])
    .await;
    let client = client(&base);
    let one = client
        .generate("m", &request(), CancellationToken::new())
        .await
        .unwrap();
    assert_eq!(one.text(), "world");
    let count = client
        .count_tokens("m", &CountTokensRequest::default())
        .await
        .unwrap();
    assert_eq!(count.total_tokens, Some(7));
    let seen = seen.lock().unwrap();
    assert!(seen[0].starts_with("POST /v1beta/models/m:generateContent HTTP/1.1"));
    assert!(seen[1].starts_with("POST /v1beta/models/m:countTokens HTTP/1.1"));
}

#[tokio::test]
async fn cancel_stops_a_hanging_request() {
    let (base, _seen) = serve(vec![Reply::Hang]).await;
    let client = client(&base);
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
async fn unreachable_server_is_a_connection_error() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let client = client(&base);
    let err = client
        .count_tokens("m", &CountTokensRequest::default())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("Could not connect to the Gemini API"),
        "{text}"
    );
    assert!(text.contains("gave up after 3 attempts"), "{text}");
}

#[test]
fn a_bad_proxy_url_is_a_setup_error() {
    let err = GeminiClient::new(GeminiConfig {
        api_key: "k".into(),
        vertex: None,
        base_url: "http://127.0.0.1:1".into(),
        retry: RetryConfig::default(),
        proxy: Some("http://[::1".into()),
    })
    .unwrap_err();
    assert!(matches!(err, ModelError::Setup { .. }));
    assert!(err.to_string().contains("http://[::1"), "{err}");
}
