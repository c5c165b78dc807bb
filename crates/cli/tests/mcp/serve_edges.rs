//! `mcp serve` at its edges: malformed requests, cancellation of a call in
//! flight, the end of input with calls still running, and the HTTP
//! endpoint's session and header checks. Written against the hand-written
//! server before it moved onto rmcp, kept to hold the behaviour.

use crate::support::Sandbox;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn initialize(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
}

const INITIALIZED: &str = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

/// `mcp serve` over stdio, talked to line by line.
struct Stdio_ {
    child: std::process::Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Value>,
}

impl Stdio_ {
    fn start(sb: &Sandbox, mode: &str) -> Self {
        let mut s = Self::bare(sb, mode);
        s.send(&initialize(0).to_string());
        s.send(INITIALIZED);
        assert_eq!(s.next()["id"], 0);
        s
    }

    /// Started, with no handshake sent.
    fn bare(sb: &Sandbox, mode: &str) -> Self {
        let mut child = sb
            .command(&["mcp", "serve", "--approval-mode", mode], &[])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        Stdio_ {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    fn next(&self) -> Value {
        self.lines
            .recv_timeout(Duration::from_secs(30))
            .expect("an answer within 30 s")
    }

    /// The answer with `id`, skipping others (and batches).
    fn answer(&self, id: i64) -> Value {
        loop {
            let v = self.next();
            if v["id"] == id {
                return v;
            }
        }
    }
}

impl Drop for Stdio_ {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn call(id: i64, name: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}})
        .to_string()
}

/// A 2026-07-28 request: `method` with `params` and the `_meta` every
/// request of that revision carries.
fn stateless(id: i64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

#[test]
fn serve_stdio_speaks_2026_without_initialize() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "stateless\n");
    let mut s = Stdio_::bare(&sb, "default");
    s.send(&stateless(1, "server/discover", json!({})));
    let found = s.answer(1);
    let versions = &found["result"]["supportedVersions"];
    assert_eq!(versions[0], "2026-07-28", "{found}");
    assert!(versions.as_array().unwrap().contains(&json!("2025-11-25")));
    assert!(
        found["result"]["capabilities"]["tools"].is_object(),
        "{found}"
    );
    s.send(&stateless(2, "tools/list", json!({})));
    let listed = s.answer(2);
    assert!(listed.to_string().contains("\"read_file\""), "{listed}");
    assert!(listed["result"]["ttlMs"].is_u64(), "{listed}");
    let path = sb.work.join("notes.txt").display().to_string();
    let args = json!({"name": "read_file", "arguments": {"file_path": path}});
    s.send(&stateless(3, "tools/call", args));
    let called = s.answer(3);
    assert!(called.to_string().contains("stateless"), "{called}");
    // What 2026-07-28 removed is a method not found.
    s.send(&stateless(4, "logging/setLevel", json!({"level": "info"})));
    assert_eq!(s.answer(4)["error"]["code"], -32601);
    // A request without its `_meta` is refused.
    s.send(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": {}}).to_string());
    assert_eq!(s.answer(5)["error"]["code"], -32602);
}

#[test]
fn serve_stdio_bad_requests_get_json_rpc_errors() {
    let sb = Sandbox::new();
    let mut s = Stdio_::start(&sb, "default");
    s.send("this is not json");
    let parse = s.next();
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert_eq!(parse["id"], Value::Null, "{parse}");
    s.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}}).to_string());
    let missing_name = s.answer(2);
    assert_eq!(missing_name["error"]["code"], -32602, "{missing_name}");
    s.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "no/such/method"}).to_string());
    let unknown = s.answer(3);
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    s.send(&call(4, "no_such_tool", json!({})));
    let unknown_tool = s.answer(4);
    assert_eq!(unknown_tool["error"]["code"], -32602, "{unknown_tool}");
    assert!(
        unknown_tool["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_tool"),
        "{unknown_tool}"
    );
    // A batch (protocol 2025-03-26) gets one array of answers.
    s.send("[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]");
    let batch = s.next();
    let mut ids: Vec<i64> = batch
        .as_array()
        .unwrap_or_else(|| panic!("not a batch answer: {batch}"))
        .iter()
        .map(|a| a["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, [5, 6], "{batch}");
    s.send("{\"id\":8}");
    let garbage = s.answer(8);
    assert_eq!(garbage["error"]["code"], -32600, "{garbage}");
    s.send("[]");
    let empty = s.next();
    assert_eq!(empty["error"]["code"], -32600, "{empty}");
    // Still serving.
    s.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}).to_string());
    assert_eq!(s.answer(7)["result"], json!({}));
}

#[test]
fn serve_stdio_cancelled_call_stops() {
    let sb = Sandbox::new();
    let mut s = Stdio_::start(&sb, "yolo");
    let started = sb.work.join("started");
    s.send(&call(
        1,
        "run_shell_command",
        json!({"command": format!("touch {}; sleep 60; touch late", started.display())}),
    ));
    let t = Instant::now();
    while !started.exists() {
        assert!(t.elapsed() < Duration::from_secs(30), "the call never ran");
        std::thread::sleep(Duration::from_millis(50));
    }
    s.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1, "reason": "test"}})
            .to_string(),
    );
    // Calls run one at a time: this one answers only once the first stopped.
    s.send(&call(
        2,
        "run_shell_command",
        json!({"command": "echo after"}),
    ));
    let t = Instant::now();
    let after = loop {
        let v = s.next();
        if v["id"] == 1 {
            // A cancelled call may still answer, but never with success.
            assert_eq!(v["result"]["isError"], true, "{v}");
            continue;
        }
        if v["id"] == 2 {
            break v;
        }
    };
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert_eq!(after["result"]["isError"], false, "{after}");
    assert!(!sb.work.join("late").exists());
}

#[test]
fn serve_stdio_answers_calls_read_before_end_of_input() {
    let sb = Sandbox::new();
    let input = format!(
        "{}\n{INITIALIZED}\n{}\n",
        initialize(0),
        call(
            1,
            "run_shell_command",
            json!({"command": "sleep 6; echo slow-but-answered"})
        )
    );
    let out = sb.run(
        &["mcp", "serve", "--approval-mode", "yolo"],
        Some(&input),
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let answer: Value = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["id"] == 1)
        .unwrap_or_else(|| panic!("no answer to the call: {out:?}"));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(answer.to_string().contains("slow-but-answered"), "{answer}");
}

/// One HTTP/1.1 exchange on a fresh connection: status, headers, body.
fn http(port: u16, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut req = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    stream.write_all(req.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let mut body = String::new();
    // SSE answers stay open after their last event; JSON ones close.
    let _ = reader.read_to_string(&mut body);
    (status, head.to_ascii_lowercase(), body)
}

const JSON_HEADERS: &[(&str, &str)] = &[
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
];

fn session_id(head: &str) -> String {
    head.lines()
        .find_map(|l| l.strip_prefix("mcp-session-id:"))
        .map(|v| v.trim().to_string())
        .unwrap_or_else(|| panic!("no session id in {head}"))
}

#[test]
fn serve_http_checks_sessions_and_headers() {
    let sb = Sandbox::new();
    let served = super::serve_http(&sb, "default");
    let port = served.port;
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    // No session: 400; an unknown one: 404.
    assert_eq!(http(port, "POST", JSON_HEADERS, &ping).0, 400);
    let mut unknown = JSON_HEADERS.to_vec();
    unknown.push(("Mcp-Session-Id", "nope"));
    assert_eq!(http(port, "POST", &unknown, &ping).0, 404);
    // initialize opens one.
    let (status, head, body) = http(port, "POST", JSON_HEADERS, &initialize(0).to_string());
    assert_eq!(status, 200, "{head}{body}");
    assert!(
        body.contains("\"protocolVersion\":\"2025-06-18\""),
        "{body}"
    );
    let id = session_id(&head);
    let mut with_session = JSON_HEADERS.to_vec();
    with_session.push(("Mcp-Session-Id", &id));
    with_session.push(("Mcp-Protocol-Version", "2025-06-18"));
    let (status, _, body) = http(port, "POST", &with_session, &ping);
    assert_eq!(status, 200);
    assert!(body.contains("\"id\":1"), "{body}");
    // A batch (protocol 2025-03-26): one array of answers.
    let batch = "[{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}]";
    let (status, _, body) = http(port, "POST", &with_session, batch);
    assert_eq!(status, 200, "{body}");
    let answers: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{e}: {body}"));
    let mut ids: Vec<i64> = answers
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    assert_eq!(ids, [5, 6], "{body}");
    // Unparsable JSON: 400 with a parse error.
    let (status, _, body) = http(port, "POST", &with_session, "{not json");
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("-32700"), "{body}");
    // A protocol version we do not speak: 400.
    let mut old = with_session.clone();
    old.retain(|(k, _)| *k != "Mcp-Protocol-Version");
    old.push(("Mcp-Protocol-Version", "1999-01-01"));
    assert_eq!(http(port, "POST", &old, &ping).0, 400);
    // Another origin (DNS rebinding): 403.
    let mut foreign = with_session.clone();
    foreign.push(("Origin", "http://evil.example"));
    assert_eq!(http(port, "POST", &foreign, &ping).0, 403);
    // DELETE ends the session.
    let (status, _, _) = http(port, "DELETE", &with_session, "");
    assert!((200..300).contains(&status), "{status}");
    assert_eq!(http(port, "POST", &with_session, &ping).0, 404);
}

#[test]
fn serve_http_cancelled_call_stops() {
    let sb = Sandbox::new();
    let served = super::serve_http(&sb, "yolo");
    let port = served.port;
    let (status, head, _) = http(port, "POST", JSON_HEADERS, &initialize(0).to_string());
    assert_eq!(status, 200);
    let id = session_id(&head);
    let headers: Vec<(&'static str, String)> = vec![
        ("Content-Type", "application/json".into()),
        ("Accept", "application/json, text/event-stream".into()),
        ("Mcp-Session-Id", id),
        ("Mcp-Protocol-Version", "2025-06-18".into()),
    ];
    let borrowed = |h: &[(&'static str, String)]| -> Vec<(&'static str, String)> { h.to_vec() };
    let post = move |h: Vec<(&'static str, String)>, body: String| {
        let h: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
        http(port, "POST", &h, &body)
    };
    post(borrowed(&headers), INITIALIZED.to_string());
    let started = sb.work.join("started");
    let long = call(
        1,
        "run_shell_command",
        json!({"command": format!("touch {}; sleep 60; touch late", started.display())}),
    );
    let h = borrowed(&headers);
    // Its answer (if any) never matters; the thread is left behind.
    std::thread::spawn(move || post(h, long));
    let t = Instant::now();
    while !started.exists() {
        assert!(t.elapsed() < Duration::from_secs(30), "the call never ran");
        std::thread::sleep(Duration::from_millis(50));
    }
    let cancel =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    assert_eq!(post(borrowed(&headers), cancel.to_string()).0, 202);
    let t = Instant::now();
    let (status, _, body) = post(
        borrowed(&headers),
        call(2, "run_shell_command", json!({"command": "echo after"})),
    );
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains("after") && body.contains("\"isError\":false"),
        "{body}"
    );
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert!(!sb.work.join("late").exists());
}
