//! The server over a real socket, with a minimal client.

use crate::{FakeServer, Fault, Reply};
use serde_json::json;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// Sends one request and reads the whole answer (to connection close).
fn send(server: &FakeServer, method: &str, path: &str, body: &str) -> String {
    let mut s = TcpStream::connect(server.addr()).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nhost: x\r\nx-goog-api-key: k-1\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    out
}

const STREAM: &str = "/v1beta/models/m:streamGenerateContent?alt=sse";

#[test]
fn routes_queue_and_404_answer_in_that_order() {
    let server = FakeServer::builder()
        .route("GET /page", Reply::ok("text/html", "<p>hi</p>"))
        .route_replies("/flaky", [Reply::text(503, "busy"), Reply::text(200, "ok")])
        .replies([Reply::json(429, json!({"error": "slow"}))])
        .start();
    let page = send(&server, "GET", "/page?q=1", "");
    assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
    assert!(page.contains("content-type: text/html\r\ncontent-length: 9\r\n"));
    assert!(page.ends_with("\r\n\r\n<p>hi</p>"));
    assert!(send(&server, "POST", "/page", "").starts_with("HTTP/1.1 429 "));
    assert!(send(&server, "POST", "/page", "").starts_with("HTTP/1.1 404 "));
    let flaky: Vec<String> = (0..3).map(|_| send(&server, "GET", "/flaky", "")).collect();
    assert!(flaky[0].ends_with("busy") && flaky[1].ends_with("ok") && flaky[2].ends_with("ok"));
    assert_eq!(server.paths()[0], "/page?q=1");
}

#[test]
fn requests_are_recorded() {
    let server = FakeServer::with_replies([Reply::json(200, "{}")]);
    send(&server, "POST", STREAM, r#"{"contents":[]}"#);
    let r = &server.requests()[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", STREAM));
    assert_eq!(
        (r.model(), r.rpc(), r.api_key()),
        ("m", "streamGenerateContent", Some("k-1"))
    );
    assert_eq!(r.body, json!({"contents": []}));
    assert_eq!(r.raw, r#"{"contents":[]}"#);
}

#[test]
fn the_replay_answers_each_wire_and_applies_faults() {
    let lines = [
        json!({"method": "generateContentStream", "response": [{"candidates": [{"content": {"parts": [{"text": "hello"}]}}]}]}),
        json!({"method": "countTokens", "response": {"totalTokens": 7}}),
        json!({"method": "openai.chat.completions.stream", "response": [{"choices": []}]}),
        json!({"method": "anthropic.messages.stream", "response": [{"type": "message_stop"}]}),
        json!({"method": "generateContentStream", "response": [{"candidates": [{"content": {"parts": [{"text": "again"}]}}]}]}),
    ];
    let text: Vec<String> = lines.iter().map(std::string::ToString::to_string).collect();
    let server = FakeServer::replaying(&text.join("\n"));
    server.push_fault(Fault::Status(500, json!({"error": "boom"})));
    server.push_fault(Fault::CutBeforeFirstChunk);
    assert!(send(&server, "POST", STREAM, "{}").starts_with("HTTP/1.1 500 "));
    let cut = send(&server, "POST", STREAM, "{}");
    assert!(cut.ends_with("connection: close\r\n\r\n"), "{cut}");
    let stream = send(&server, "POST", STREAM, "{}");
    assert!(
        stream.contains(
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"he\"}]}}]}\r\n\r\n"
        ),
        "{stream}"
    );
    let count = send(&server, "POST", "/v1beta/models/m:countTokens", "{}");
    assert!(count.ends_with(r#"{"totalTokens":7}"#), "{count}");
    let openai = send(&server, "POST", "/v1/chat/completions", "{}");
    assert!(
        openai.ends_with("data: {\"choices\":[]}\n\ndata: [DONE]\n\n"),
        "{openai}"
    );
    let anthropic = send(&server, "POST", "/v1/messages", "{}");
    assert!(anthropic.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
    server.push_fault(Fault::CutAfterFirstChunk);
    let cut = send(&server, "POST", STREAM, "{}");
    assert!(cut.contains("\"ag\"") && !cut.contains("\"ain\""), "{cut}");
    let none = send(&server, "POST", STREAM, "{}");
    assert!(
        none.contains("No more mock responses for streamGenerateContent"),
        "{none}"
    );
}

#[test]
fn a_hang_ends_when_the_server_is_dropped() {
    let server = FakeServer::with_replies([Reply::hang()]);
    let mut s = TcpStream::connect(server.addr()).unwrap();
    s.write_all(b"GET / HTTP/1.1\r\n\r\n").unwrap();
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let mut buf = [0u8; 16];
    assert!(s.read(&mut buf).is_err(), "no answer while hanging");
    let started = Instant::now();
    drop(server);
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    assert_eq!(s.read(&mut buf).unwrap(), 0);
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn redirects_and_unsized_bodies() {
    let server = FakeServer::with_routes([
        ("/r", Reply::redirect("/x")),
        ("/u", Reply::untyped(200, "abc").without_length()),
    ]);
    let r = send(&server, "GET", "/r", "");
    assert!(
        r.starts_with("HTTP/1.1 302 Found\r\nlocation: /x\r\ncontent-length: 0\r\n"),
        "{r}"
    );
    let u = send(&server, "GET", "/u", "");
    assert_eq!(u, "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nabc");
}
