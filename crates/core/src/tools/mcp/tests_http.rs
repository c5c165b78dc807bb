//! MCP client tests over HTTP against hand-written servers on
//! `std::net::TcpListener`: streamable HTTP (JSON responses), legacy SSE,
//! and a bare `url` that falls back from streamable HTTP to SSE.

use super::tests::{ctx, plain};
use super::*;
use serde_json::{Map, Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// The JSON-RPC answer to one message (`None` for notifications).
fn answer(msg: &Value, seen_headers: &Mutex<Vec<String>>, headers: &[String]) -> Option<Value> {
    seen_headers.lock().unwrap().extend(headers.iter().cloned());
    let id = msg.get("id")?.clone();
    let method = msg.get("method")?.as_str()?;
    let result = match method {
        "initialize" => {
            json!({"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "h", "version": "1"}})
        }
        "tools/list" => {
            json!({"tools": [{"name": "echo", "description": "echoes", "inputSchema": {"type": "object", "properties": {"m": {"type": "string"}}}}, {"name": "noschema", "inputSchema": {}}]})
        }
        "tools/call" => {
            json!({"content": [{"type": "text", "text": format!("echo: {}", msg["params"]["arguments"])}]})
        }
        "ping" => json!({}),
        _ => {
            return Some(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "nope"}}),
            );
        }
    };
    Some(json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

struct Request {
    method: String,
    path: String,
    headers: Vec<String>,
    body: Vec<u8>,
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let path = parts.next()?.to_string();
    let mut headers = Vec::new();
    let mut len = 0usize;
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end().to_string();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("content-length")
        {
            len = v.trim().parse().ok()?;
        }
        headers.push(h.to_ascii_lowercase());
    }
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request {
        method,
        path,
        headers,
        body,
    })
}

fn respond(mut s: &TcpStream, status: &str, ctype: &str, body: &str) {
    let _ = write!(
        s,
        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nMcp-Session-Id: sess-1\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = s.flush();
}

/// Serves streamable HTTP at `/mcp` and legacy SSE at `/sse` (+ POSTs to
/// `/messages`). Returns the base URL and the request headers seen.
fn serve() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sse_tx: Arc<Mutex<Option<mpsc::Sender<Value>>>> = Arc::new(Mutex::new(None));
    let seen2 = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let seen = seen2.clone();
            let sse_tx = sse_tx.clone();
            std::thread::spawn(move || {
                let Some(req) = read_request(&stream) else {
                    return;
                };
                let msg: Value = serde_json::from_slice(&req.body).unwrap_or(Value::Null);
                match (req.method.as_str(), req.path.as_str()) {
                    ("POST", "/mcp") => match answer(&msg, &seen, &req.headers) {
                        Some(a) => respond(&stream, "200 OK", "application/json", &a.to_string()),
                        None => respond(&stream, "202 Accepted", "application/json", ""),
                    },
                    ("GET", "/mcp") | ("POST", "/sse") => {
                        respond(&stream, "405 Method Not Allowed", "text/plain", "")
                    }
                    ("DELETE", _) => respond(&stream, "200 OK", "text/plain", ""),
                    ("GET", "/sse") => {
                        seen.lock().unwrap().extend(req.headers.iter().cloned());
                        let (tx, rx) = mpsc::channel::<Value>();
                        *sse_tx.lock().unwrap() = Some(tx);
                        let mut s = &stream;
                        let _ = write!(
                            s,
                            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\nevent: endpoint\ndata: /messages?sessionId=1\n\n"
                        );
                        let _ = s.flush();
                        while let Ok(v) = rx.recv() {
                            if write!(s, "event: message\ndata: {v}\n\n")
                                .and_then(|_| s.flush())
                                .is_err()
                            {
                                break;
                            }
                        }
                    }
                    ("POST", p) if p.starts_with("/messages") => {
                        respond(&stream, "202 Accepted", "text/plain", "Accepted");
                        if let Some(a) = answer(&msg, &seen, &req.headers)
                            && let Some(tx) = sse_tx.lock().unwrap().as_ref()
                        {
                            let _ = tx.send(a);
                        }
                    }
                    _ => respond(&stream, "404 Not Found", "text/plain", ""),
                }
            });
        }
    });
    (base, seen)
}

/// True when an HTTP client can be built: reqwest needs a rustls crypto
/// provider installed process-wide, which core's tests cannot do without a
/// `rustls` dev-dependency. Without one these tests are skipped.
fn http_ready() -> bool {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ok = super::host(
        &crate::config::GeminiPaths::from_env(),
        &crate::config::Env::from_process(),
    )
    .http_client()
    .is_ok();
    if !ok {
        crate::test_peers::missing(
            "a rustls crypto provider",
            "the ring provider should install itself",
        );
    }
    ok
}

async fn check_echo(server: Value) -> Arc<Mutex<Vec<String>>> {
    let dir = tempfile::tempdir().unwrap();
    let (base, seen) = serve();
    let mut server = server;
    for key in ["url", "httpUrl"] {
        if let Some(u) = server.get(key).and_then(Value::as_str) {
            let full = u.replace("BASE", &base);
            server[key] = json!(full);
        }
    }
    let settings = Settings::from_value(json!({"mcpServers": {"h": server}}));
    let mgr = McpManager::start(&settings, &[dir.path().to_path_buf()], &[], true).await;
    assert!(mgr.failures().is_empty(), "{:?}", mgr.failures());
    let tools = mgr.tools(&|_| false);
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["echo", "noschema"]);
    assert_eq!(
        tools[1].parameter_schema(),
        &json!({"type": "object", "properties": {}})
    );
    let c = ctx(dir.path());
    let a: Map<String, Value> = json!({"m": "hi"}).as_object().unwrap().clone();
    let r = tools[0]
        .build(&a, &c)
        .unwrap()
        .execute(&c, CancellationToken::new())
        .await;
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!(plain(r.llm_text()), "echo: {\"m\":\"hi\"}");
    mgr.shutdown().await;
    seen
}

#[tokio::test]
async fn streamable_http_with_headers() {
    if !http_ready() {
        return;
    }
    let seen = check_echo(json!({"httpUrl": "BASE/mcp", "headers": {"X-Api-Key": "k1"}})).await;
    assert!(seen.lock().unwrap().iter().any(|h| h == "x-api-key: k1"));
    check_echo(json!({"url": "BASE/mcp", "type": "http"})).await;
}

#[tokio::test]
async fn legacy_sse() {
    if !http_ready() {
        return;
    }
    let seen = check_echo(
        json!({"url": "BASE/sse", "type": "sse", "headers": {"Authorization": "Bearer t"}}),
    )
    .await;
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .any(|h| h == "authorization: bearer t")
    );
}

#[tokio::test]
async fn bare_url_falls_back_to_sse() {
    if !http_ready() {
        return;
    }
    check_echo(json!({"url": "BASE/sse"})).await;
    check_echo(json!({"url": "BASE/mcp"})).await;
}
