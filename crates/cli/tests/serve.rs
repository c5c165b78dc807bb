//! `gemini-rs serve --listen ADDR` through the binary: `/health`, the
//! token rules, ACP over WebSocket driven by the official TypeScript SDK's
//! WebSocket client (many sessions on several connections; a closed
//! connection ends its sessions), and the A2A agent driven by PyPI's
//! `a2a-sdk` client.

mod a2a;
mod remote;

use crate::acp::{client_dir, node};
use crate::e2e::{lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A token long enough to be accepted.
const TOKEN: &str = "serve-test-token-0123456789";

/// A running `gemini-rs serve`, killed when dropped.
pub struct Served {
    child: Child,
    /// `127.0.0.1:PORT` (whatever address it bound, reached on loopback).
    pub addr: String,
    stderr: Arc<Mutex<String>>,
}

impl Served {
    /// Starts `serve --listen <listen>` in `sb.work` and waits until it
    /// listens.
    pub fn start(sb: &Sandbox, listen: &str, env: &[(&str, &str)]) -> Served {
        let mut cmd = sb.command(&["serve", "--listen", listen], env);
        cmd.stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("spawn gemini-rs serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let pipe = child.stderr.take().unwrap();
        let log = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                log.lock().unwrap().push_str(&format!("{line}\n"));
                if let Some(rest) = line.split("listening on http://").nth(1) {
                    let bound = rest.split_whitespace().next().unwrap_or_default();
                    let port = bound.rsplit(':').next().unwrap_or_default().to_string();
                    let _ = tx.send(format!("127.0.0.1:{port}"));
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("serve did not start: {}", stderr.lock().unwrap()));
        Served {
            child,
            addr,
            stderr,
        }
    }

    /// What it wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 exchange on a new connection: the status and the rest of
/// the answer (headers and body; a 101 answer is read up to its headers).
pub fn http(addr: &str, request: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
        if answer.starts_with(b"HTTP/1.1 101") && answer.windows(4).any(|w| w == b"\r\n\r\n") {
            break;
        }
    }
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text
        .get(9..12)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
    (status, text)
}

/// A request with `Connection: close` and the given extra header lines.
pub fn request(method: &str, path: &str, headers: &[&str], body: &str) -> String {
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for h in headers {
        text.push_str(h);
        text.push_str("\r\n");
    }
    if !body.is_empty() {
        text.push_str("Content-Type: application/json\r\n");
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    text
}

/// Settings for the fake model (and `extra`), as user and project settings.
pub fn settings(sb: &Sandbox, extra: Value) {
    let mut s = json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}});
    if let (Some(s), Some(extra)) = (s.as_object_mut(), extra.as_object()) {
        s.extend(extra.clone());
    }
    sb.settings(&s);
}

/// A SessionEnd hook command writing its input to a new file in `dir`
/// (hooks of sessions ending together run at once).
pub fn session_end_hook(dir: &std::path::Path) -> String {
    std::fs::create_dir_all(dir).unwrap();
    format!("cat > \"$(mktemp -p {})\"", dir.display())
}

/// The session id of a hook's input.
pub fn session_id(input: &str) -> String {
    let v: Value = serde_json::from_str(input).unwrap_or_else(|e| panic!("{e}: {input}"));
    v["session_id"].as_str().unwrap().to_string()
}

/// The session ids of the SessionEnd hook runs written to `dir`.
pub fn ended_sessions(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| session_id(&std::fs::read_to_string(e.unwrap().path()).unwrap()))
        .collect()
}

/// A fake model answering every request "Hello there.".
pub fn hello_model(n: usize) -> FakeServer {
    FakeServer::replaying(&lines(&vec![text("Hello there."); n]))
}

#[test]
fn a_public_address_needs_a_token() {
    let sb = Sandbox::new();
    let out = sb.run(&["serve", "--listen", "0.0.0.0:0"], None, &[]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("refusing to listen on 0.0.0.0:0 without a token")
            && out.stderr.contains("GEMINI_RS_SERVE_TOKEN"),
        "{}",
        out.stderr
    );
    let out = sb.run(
        &["serve", "--listen", "0.0.0.0:0"],
        None,
        &[("GEMINI_RS_SERVE_TOKEN", "sekrit")],
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("16 to 4096"), "{}", out.stderr);
    assert!(!out.stderr.contains("sekrit"), "the token is never printed");
    let out = sb.run(&["serve", "--listen", "nowhere"], None, &[]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("expected IP:PORT"), "{}", out.stderr);
    let out = sb.run(&["serve", "a prompt"], None, &[]);
    assert_ne!(out.code, 0);
    assert!(out.stderr.contains("takes no prompt"), "{}", out.stderr);
}

#[test]
fn health_and_the_bearer_token() {
    let sb = Sandbox::new();
    let served = Served::start(&sb, "0.0.0.0:0", &[("GEMINI_RS_SERVE_TOKEN", TOKEN)]);
    assert!(served.stderr().contains("ACP: ws://0.0.0.0:"));
    let addr = &served.addr;
    let (status, answer) = http(addr, &request("GET", "/health", &[], ""));
    assert_eq!(status, 200, "{answer}");
    assert!(answer.ends_with(r#"{"status":"ok"}"#), "{answer}");
    let (status, answer) = http(
        addr,
        &request("GET", "/.well-known/agent-card.json", &[], ""),
    );
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains(r#""httpAuthSecurityScheme":{"scheme":"bearer"}"#));
    let rpc = r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}"#;
    let bearer = format!("Authorization: Bearer {TOKEN}");
    let upgrade = [
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
    ];
    for headers in [vec![], vec!["Authorization: Bearer wrong-token-0123456789"]] {
        let (status, answer) = http(addr, &request("POST", "/a2a", &headers, rpc));
        assert_eq!(status, 401, "{answer}");
        assert!(
            answer.contains("WWW-Authenticate: Bearer")
                || answer.contains("www-authenticate: Bearer")
        );
        let mut ws = upgrade.to_vec();
        ws.extend(headers.iter().copied());
        let (status, _) = http(addr, &request("GET", "/acp", &ws, ""));
        assert_eq!(status, 401);
    }
    let (status, answer) = http(addr, &request("POST", "/a2a", &[&bearer], rpc));
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains(r#""code":-32001"#), "{answer}");
    let mut ws = upgrade.to_vec();
    ws.push(&bearer);
    let (status, answer) = http(addr, &request("GET", "/acp", &ws, ""));
    assert_eq!(status, 101, "{answer}");
    // RFC 6455's own example key and answer.
    assert!(answer.contains("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="), "{answer}");
    let (status, _) = http(addr, &request("GET", "/elsewhere", &[&bearer], ""));
    assert_eq!(status, 404);
}

#[test]
fn a_loopback_server_refuses_pages_of_other_origins() {
    let sb = Sandbox::new();
    let served = Served::start(&sb, "127.0.0.1:0", &[]);
    let rpc = r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}"#;
    let (status, _) = http(
        &served.addr,
        &request("POST", "/a2a", &["Origin: http://evil.example"], rpc),
    );
    assert_eq!(status, 403);
    let (status, _) = http(
        &served.addr,
        &request("POST", "/a2a", &["Origin: http://localhost:3000"], rpc),
    );
    assert_eq!(status, 200);
}

/// Runs `tests/serve/ws.mjs` on `steps` against `served`; the client's log.
fn ws_client(served: &Served, token: Option<&str>, steps: Value) -> Option<Value> {
    let dir = client_dir()?;
    let script = dir.join(format!("gemini-rs-serve-{}.mjs", std::process::id()));
    std::fs::write(&script, include_str!("serve/ws.mjs")).unwrap();
    let scenario =
        json!({"url": format!("ws://{}/acp", served.addr), "token": token, "steps": steps});
    let file = std::env::temp_dir().join(format!("serve-ws-{}.json", uuid_like()));
    std::fs::write(&file, scenario.to_string()).unwrap();
    let out = Command::new(node())
        .arg(&script)
        .arg(&file)
        .current_dir(&dir)
        .output()
        .expect("node runs the ACP client");
    let _ = std::fs::remove_file(&script);
    let _ = std::fs::remove_file(&file);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{e}: {stdout}\n{}\nserver: {}",
            String::from_utf8_lossy(&out.stderr),
            served.stderr()
        )
    });
    assert!(log.get("error").is_none(), "{log:#}");
    Some(log)
}

/// A name unique to this process and moment.
fn uuid_like() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{}-{nanos}", std::process::id())
}

fn step(log: &Value, i: usize) -> &Value {
    let s = &log["steps"][i];
    assert!(s.get("error").is_none(), "step {i}: {log:#}");
    &s["answer"]
}

/// What the agent said to session `alias`.
fn said(log: &Value, alias: &str) -> String {
    log["updates"][alias]
        .as_array()
        .map(|u| {
            u.iter()
                .filter(|u| u["sessionUpdate"] == "agent_message_chunk")
                .filter_map(|u| u["content"]["text"].as_str())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn acp_over_websocket_many_sessions_and_a_closed_connection_ends_its_own() {
    let sb = Sandbox::new();
    let ended = sb.work.join("ended");
    let hook = session_end_hook(&ended);
    settings(
        &sb,
        json!({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "name": "end", "command": hook}]}]}}),
    );
    let p1 = sb.work.join("p1");
    let p2 = sb.work.join("p2");
    std::fs::create_dir_all(&p1).unwrap();
    std::fs::create_dir_all(&p2).unwrap();
    let fake = hello_model(10);
    let served = Served::start(
        &sb,
        "127.0.0.1:0",
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    let steps = json!([
        {"do": "connect", "as": "A"},
        {"do": "connect", "as": "B"},
        {"do": "new", "conn": "A", "as": "a1", "cwd": p1},
        {"do": "new", "conn": "A", "as": "a2", "cwd": p2},
        {"do": "new", "conn": "B", "as": "b1", "cwd": p1},
        {"do": "mode", "session": "a2", "mode": "yolo"},
        {"do": "prompts", "sessions": ["a1", "a2", "b1"], "text": "hello"},
        {"do": "disconnect", "conn": "A"},
        {"do": "waitFiles", "dir": ended, "count": 2},
        {"do": "prompts", "sessions": ["b1"], "text": "again"},
        {"do": "list", "conn": "B", "cwd": p1},
        {"do": "list", "conn": "B", "cwd": p2},
    ]);
    let Some(log) = ws_client(&served, None, steps) else {
        return;
    };
    assert_eq!(step(&log, 0)["protocolVersion"], 1, "{log:#}");
    let ids: Vec<&str> = ["a1", "a2", "b1"]
        .iter()
        .map(|a| log["ids"][a].as_str().unwrap())
        .collect();
    assert_eq!(
        step(&log, 3)["modes"]["currentModeId"],
        "default",
        "{log:#}"
    );
    let answers = step(&log, 6).as_array().unwrap();
    assert!(
        answers.iter().all(|a| a["stopReason"] == "end_turn"),
        "{log:#}"
    );
    for alias in ["a1", "a2"] {
        assert_eq!(said(&log, alias), "Hello there.", "{log:#}");
    }
    assert_eq!(said(&log, "b1"), "Hello there.Hello there.", "{log:#}");
    // Closing A ended its two sessions, and only those.
    let ended_ids: Vec<String> = step(&log, 8)["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| session_id(f.as_str().unwrap()))
        .collect();
    let mut expected = vec![ids[0].to_string(), ids[1].to_string()];
    let mut got = ended_ids;
    expected.sort();
    got.sort();
    assert_eq!(got, expected, "{log:#}");
    assert_eq!(step(&log, 9)[0]["stopReason"], "end_turn");
    // Each session recorded under its own folder.
    let listed = |i: usize| -> Vec<String> {
        step(&log, i)["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["sessionId"].as_str().unwrap().to_string())
            .collect()
    };
    let p1_sessions = listed(10);
    assert!(
        p1_sessions.contains(&ids[0].to_string()) && p1_sessions.contains(&ids[2].to_string()),
        "{log:#}"
    );
    assert!(!p1_sessions.contains(&ids[1].to_string()));
    assert_eq!(listed(11), [ids[1].to_string()], "{log:#}");
}

#[test]
fn acp_over_websocket_with_the_token() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let fake = hello_model(2);
    let served = Served::start(
        &sb,
        "0.0.0.0:0",
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_RS_SERVE_TOKEN", TOKEN),
        ],
    );
    let steps = json!([
        {"do": "connect", "as": "A"},
        {"do": "new", "conn": "A", "as": "a", "cwd": sb.work},
        {"do": "prompts", "sessions": ["a"], "text": "hello"},
    ]);
    let Some(log) = ws_client(&served, Some(TOKEN), steps) else {
        return;
    };
    assert_eq!(step(&log, 2)[0]["stopReason"], "end_turn", "{log:#}");
    assert_eq!(said(&log, "a"), "Hello there.");
    // Without it the socket is refused and nothing is asked.
    let log = ws_client(&served, None, json!([{"do": "connect", "as": "A"}])).unwrap();
    assert!(log["steps"][0].get("error").is_some(), "{log:#}");
}
