//! A fake streaming API on 127.0.0.1 for the non-Gemini wires: each POST
//! gets the next canned reply (an SSE body or an error status); every
//! request's path, headers and JSON body are kept.

use serde_json::Value;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Request {
    /// The path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The JSON body.
    pub body: Value,
}

impl Request {
    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One canned reply.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A `200` event stream: each item is one event's `data`.
    Sse(Vec<Value>),
    /// A status with a JSON body.
    Status(u16, Value),
}

/// The running server.
pub struct FakeSse {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    state: Arc<Mutex<(VecDeque<Reply>, Vec<Request>)>>,
}

impl FakeSse {
    /// Serves `replies` in order; a `500` once they run out.
    pub fn start(replies: Vec<Reply>) -> FakeSse {
        let state = Arc::new(Mutex::new((VecDeque::from(replies), Vec::new())));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let shared = state.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = shared.clone();
                std::thread::spawn(move || {
                    let _ = handle(stream, &state);
                });
            }
        });
        FakeSse { base_url, state }
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Request> {
        self.state.lock().unwrap().1.clone()
    }
}

type State = Mutex<(VecDeque<Reply>, Vec<Request>)>;

fn handle(stream: TcpStream, state: &State) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let reply = {
        let mut s = state.lock().unwrap();
        s.1.push(Request {
            path,
            headers,
            body,
        });
        s.0.pop_front()
    };
    let (status, kind, text) = match reply {
        Some(Reply::Sse(events)) => {
            let mut sse = String::new();
            for e in events {
                sse.push_str(&format!("data: {e}\n\n"));
            }
            sse.push_str("data: [DONE]\n\n");
            (200, "text/event-stream", sse)
        }
        Some(Reply::Status(code, body)) => (code, "application/json", body.to_string()),
        None => (500, "text/plain", "no more replies".to_string()),
    };
    let mut out = stream;
    write!(
        out,
        "HTTP/1.1 {status} X\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{text}",
        text.len()
    )?;
    out.flush()
}
