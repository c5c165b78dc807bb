//! `gemini-rs --acp` on the raw wire: answers to malformed and unexpected
//! messages (JSON-RPC error codes), and bad frames (invalid UTF-8, lone
//! surrogates, frames over the size limit) that must not stop the agent.

use crate::e2e::{call, lines};
use crate::support::Sandbox;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The agent started on a pipe, its output lines read by a thread.
pub(super) struct Wire {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    _sb: Sandbox,
}

impl Wire {
    pub(super) fn start(responses: &str) -> Wire {
        let sb = Sandbox::new();
        sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
            "security": {"auth": {"selectedType": "gemini-api-key"}}}));
        let file = sb.write("wire.responses", responses);
        let file = file.to_str().unwrap();
        let mut cmd = sb.command(&["--acp", "--fake-responses", file], &[]);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = cmd.spawn().expect("spawn gemini-rs --acp");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Wire {
            child,
            stdin,
            lines: rx,
            _sb: sb,
        }
    }

    pub(super) fn work(&self) -> &std::path::Path {
        &self._sb.work
    }

    /// Writes raw bytes (a frame and its newline, or a part of one).
    pub(super) fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    pub(super) fn send(&mut self, message: &Value) {
        self.send_raw(format!("{message}\n").as_bytes());
    }

    /// The next message from the agent.
    pub(super) fn recv(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("the agent answers within 30 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    /// The next answer (skipping notifications and our-side requests).
    pub(super) fn answer(&self) -> Value {
        loop {
            let message = self.recv();
            if message.get("method").is_none() {
                return message;
            }
        }
    }

    /// Sends a request and returns its answer.
    pub(super) fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let answer = self.answer();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// Sends a raw line and returns the answer to `id`.
    pub(super) fn request_raw(&mut self, id: u64, line: &str) -> Value {
        self.send_raw(format!("{line}\n").as_bytes());
        let answer = self.answer();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// `initialize` and `session/new`; the session id.
    pub(super) fn session(&mut self) -> String {
        let init = self.request(
            1000,
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        );
        assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
        let cwd = self.work().to_path_buf();
        let new = self.request(1001, "session/new", json!({"cwd": cwd, "mcpServers": []}));
        new["result"]["sessionId"].as_str().unwrap().to_string()
    }

    /// Proves the agent still serves: `initialize` is answered.
    pub(super) fn still_serving(&mut self, id: u64) {
        let init = self.request(
            id,
            "initialize",
            json!({"protocolVersion": 1, "clientCapabilities": {}}),
        );
        assert_eq!(init["result"]["protocolVersion"], 1, "{init}");
    }

    /// Closes stdin; the agent exits cleanly.
    pub(super) fn close(mut self) {
        drop(self.stdin.take());
        for _ in 0..200 {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.child.kill().ok();
        panic!("the agent did not exit after stdin closed");
    }

    /// The peak resident memory of the agent, in bytes (Linux).
    pub(super) fn peak_rss(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kb * 1024)
    }
}

impl Drop for Wire {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn error_of(answer: &Value) -> (i64, String) {
    let error = &answer["error"];
    (
        error["code"].as_i64().unwrap_or_else(|| panic!("{answer}")),
        error["message"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn malformed_messages_get_json_rpc_errors() {
    let mut wire = Wire::start("");
    // Not JSON: a parse error with a null id.
    wire.send_raw(b"{not json\n");
    let answer = wire.answer();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    assert_eq!(error_of(&answer).0, -32700);
    // JSON but not a message: an invalid request, answered to its id.
    wire.send(&json!({"jsonrpc": "2.0", "id": 3}));
    let answer = wire.answer();
    assert_eq!(error_of(&answer).0, -32600, "{answer}");
    assert_eq!(answer["id"], 3);
    // Without "jsonrpc": "2.0" it is not a request either.
    let answer = wire.request_raw(30, r#"{"id":30,"method":"initialize","params":{}}"#);
    assert_eq!(error_of(&answer).0, -32600, "{answer}");
    // A batch is not supported either.
    wire.send_raw(b"[]\n");
    assert_eq!(error_of(&wire.answer()).0, -32600);
    // Before `initialize`, requests are refused (ACP: agents SHOULD).
    let answer = wire.request(4, "session/new", json!({"cwd": "/", "mcpServers": []}));
    assert_eq!(error_of(&answer).0, -32600, "{answer}");
    assert!(answer.to_string().contains("initialization"), "{answer}");
    wire.still_serving(40);
    // An unknown method.
    let answer = wire.request(41, "session/nope", json!({}));
    assert_eq!(error_of(&answer).0, -32601, "{answer}");
    assert!(answer.to_string().contains("session/nope"), "{answer}");
    // Unknown notifications and answers to nothing we asked are ignored.
    wire.send(&json!({"jsonrpc": "2.0", "method": "session/nope", "params": {}}));
    wire.send(&json!({"jsonrpc": "2.0", "id": 99999, "result": {}}));
    wire.send(&json!({"jsonrpc": "2.0", "method": "session/cancel",
        "params": {"sessionId": "nope"}}));
    wire.still_serving(5);
    wire.close();
}

#[test]
fn requests_for_an_unknown_session_or_with_bad_params_are_invalid_params() {
    let mut wire = Wire::start("");
    let id = wire.session();
    let prompt = json!({"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]});
    let (code, message) = error_of(&wire.request(1, "session/prompt", prompt));
    assert_eq!(code, -32602);
    assert!(message.contains("nope"), "{message}");
    let mode = json!({"sessionId": "nope", "modeId": "yolo"});
    assert_eq!(
        error_of(&wire.request(2, "session/set_mode", mode)).0,
        -32602
    );
    let mode = json!({"sessionId": id, "modeId": "reckless"});
    assert_eq!(
        error_of(&wire.request(3, "session/set_mode", mode)).0,
        -32602
    );
    let video = json!({"sessionId": id, "prompt": [{"type": "video", "data": "AA"}]});
    assert_eq!(
        error_of(&wire.request(4, "session/prompt", video)).0,
        -32602
    );
    assert_eq!(
        error_of(&wire.request(5, "session/new", json!({"mcpServers": []}))).0,
        -32602
    );
    let missing = json!({"cwd": "/no/such/dir/anywhere", "mcpServers": []});
    assert_eq!(error_of(&wire.request(6, "session/new", missing)).0, -32602);
    wire.close();
}

#[test]
fn a_second_prompt_while_one_runs_is_refused() {
    let responses = lines(&[call("run_shell_command", json!({"command": "sleep 30"}))]);
    let mut wire = Wire::start(&responses);
    let id = wire.session();
    let mode = json!({"sessionId": id, "modeId": "yolo"});
    assert!(wire.request(1, "session/set_mode", mode)["result"].is_object());
    let prompt = json!({"sessionId": id, "prompt": [{"type": "text", "text": "wait"}]});
    wire.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": prompt}));
    // Wait until the command runs.
    loop {
        let message = wire.recv();
        if message["params"]["update"]["status"] == "in_progress" {
            break;
        }
    }
    let (code, message) = error_of(&wire.request(3, "session/prompt", prompt));
    assert_eq!(code, -32600);
    assert!(message.contains("already running"), "{message}");
    wire.send(&json!({"jsonrpc": "2.0", "method": "session/cancel",
        "params": {"sessionId": id}}));
    let answer = wire.answer();
    assert_eq!(answer["id"], 2);
    assert_eq!(answer["result"]["stopReason"], "cancelled");
    wire.close();
}

#[test]
fn invalid_utf8_and_lone_surrogates_are_parse_errors() {
    let mut wire = Wire::start("");
    wire.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\xff\xfe\"}\n");
    let answer = wire.answer();
    assert_eq!(error_of(&answer).0, -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);
    wire.still_serving(2);
    wire.send_raw(
        br#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":1,"x":"\udcff"}}"#,
    );
    wire.send_raw(b"\n");
    let answer = wire.answer();
    assert_eq!(error_of(&answer).0, -32700, "{answer}");
    wire.still_serving(4);
    wire.close();
}

#[test]
fn a_frame_over_the_limit_is_refused_without_being_buffered() {
    const MIB: usize = 1024 * 1024;
    let mut wire = Wire::start("");
    wire.still_serving(1);
    let before = wire.peak_rss();
    // 160 MiB of one string, sent in pieces, then the newline.
    let chunk = vec![b'a'; MIB];
    wire.send_raw(br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"x":""#);
    for _ in 0..160 {
        wire.send_raw(&chunk);
    }
    wire.send_raw(b"\"}}\n");
    let answer = wire.answer();
    let (code, message) = error_of(&answer);
    assert_eq!(code, -32700, "{answer}");
    assert!(message.contains("64 MiB"), "{message}");
    assert_eq!(answer["id"], Value::Null);
    wire.still_serving(3);
    // At most the limit was held, not the frame.
    if let (Some(before), Some(after)) = (before, wire.peak_rss()) {
        let grown = after.saturating_sub(before) / MIB as u64;
        assert!(grown < 100, "peak RSS grew by {grown} MiB");
    }
    wire.close();
}
