//! A fake Gemini REST endpoint on 127.0.0.1: it replays `.responses` lines
//! as SSE streams (splitting text parts across extra chunks and adding a
//! metadata-only chunk), serves `generateContent`, can fail on demand, and
//! records every request.

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request the server received.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// `streamGenerateContent`, `generateContent` or `countTokens`.
    pub method: String,
    /// The model in the URL.
    pub model: String,
    /// The `x-goog-api-key` header.
    pub api_key: Option<String>,
    /// The JSON body.
    pub body: Value,
}

/// What to do with the next request instead of replaying.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer with this HTTP status and JSON error body.
    Status(u16, Value),
    /// Send the SSE headers and close before any chunk.
    CutBeforeFirstChunk,
    /// Send the first chunk of the next stream line, then close.
    CutAfterFirstChunk,
    /// Serve `after` requests normally, then hold the next one open for
    /// 30 s without answering (a process can be killed mid-request).
    Hang { after: usize },
    /// Serve this request normally (to fail later ones).
    Pass,
}

#[derive(Default)]
struct State {
    lines: Vec<(String, Value)>,
    used: Vec<bool>,
    faults: VecDeque<Fault>,
    requests: Vec<Recorded>,
}

/// The running server.
pub struct FakeGemini {
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    state: Arc<Mutex<State>>,
}

impl FakeGemini {
    /// Starts a server replaying the JSONL `responses` text.
    pub fn start(responses: &str) -> FakeGemini {
        let lines = responses
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                (
                    v["method"].as_str().unwrap().to_string(),
                    v["response"].clone(),
                )
            })
            .collect::<Vec<_>>();
        let state = Arc::new(Mutex::new(State {
            used: vec![false; lines.len()],
            lines,
            ..State::default()
        }));
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
        FakeGemini { base_url, state }
    }

    /// Makes the next request(s) fail, in order.
    pub fn push_fault(&self, fault: Fault) {
        self.state.lock().unwrap().faults.push_back(fault);
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }

    /// The function responses of the last user content of each streamed request.
    pub fn function_responses(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for r in self.requests() {
            if r.method != "streamGenerateContent" {
                continue;
            }
            let last = r.body["contents"]
                .as_array()
                .and_then(|c| c.last())
                .cloned();
            for part in last
                .and_then(|c| c["parts"].as_array().cloned())
                .unwrap_or_default()
            {
                if part.get("functionResponse").is_some() {
                    out.push(part);
                }
            }
        }
        out
    }
}

fn handle(stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let mut length = 0;
    let mut api_key = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            match k.to_ascii_lowercase().as_str() {
                "content-length" => length = v.trim().parse().unwrap_or(0),
                "x-goog-api-key" => api_key = Some(v.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let tail = path.split("/models/").nth(1).unwrap_or("");
    let (model, method) = tail.split_once(':').unwrap_or((tail, ""));
    let method = method.split('?').next().unwrap_or("").to_string();
    let mut out = stream;
    let (fault, line) = {
        let mut s = state.lock().unwrap();
        s.requests.push(Recorded {
            method: method.clone(),
            model: model.to_string(),
            api_key,
            body,
        });
        let fault = match s.faults.front_mut() {
            Some(Fault::Hang { after }) if *after > 0 => {
                *after -= 1;
                None
            }
            _ => s.faults.pop_front().filter(|f| !matches!(f, Fault::Pass)),
        };
        let wanted = if method == "streamGenerateContent" {
            "generateContentStream"
        } else {
            method.as_str()
        };
        let line = match &fault {
            Some(Fault::Status(..))
            | Some(Fault::CutBeforeFirstChunk)
            | Some(Fault::Hang { .. }) => None,
            _ => {
                let idx = s
                    .lines
                    .iter()
                    .enumerate()
                    .position(|(i, (m, _))| m == wanted && !s.used[i]);
                idx.map(|i| {
                    s.used[i] = true;
                    s.lines[i].1.clone()
                })
            }
        };
        (fault, line)
    };
    match (fault, line) {
        (Some(Fault::Hang { .. }), _) => {
            std::thread::sleep(std::time::Duration::from_secs(30));
            Ok(())
        }
        (Some(Fault::Status(code, err)), _) => {
            respond(&mut out, code, "application/json", &err.to_string())
        }
        (Some(Fault::CutBeforeFirstChunk), _) => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
            )
        }
        (Some(Fault::CutAfterFirstChunk), Some(chunks)) => {
            write!(
                out,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
            )?;
            if let Some(first) =
                split_chunks(chunks.as_array().cloned().unwrap_or_default()).first()
            {
                write!(out, "data: {first}\r\n\r\n")?;
            }
            out.flush()
        }
        (_, None) => respond(
            &mut out,
            400,
            "application/json",
            &json!({"error": {"code": 400, "status": "FAILED_PRECONDITION",
                "message": format!("No more mock responses for {method}")}})
            .to_string(),
        ),
        (_, Some(response)) if method == "streamGenerateContent" => {
            let mut sse = String::new();
            for chunk in split_chunks(response.as_array().cloned().unwrap_or_default()) {
                sse.push_str(&format!("data: {chunk}\r\n\r\n"));
            }
            respond(&mut out, 200, "text/event-stream", &sse)
        }
        (_, Some(response)) => respond(&mut out, 200, "application/json", &response.to_string()),
    }
}

fn respond(out: &mut TcpStream, code: u16, ctype: &str, body: &str) -> std::io::Result<()> {
    write!(
        out,
        "HTTP/1.1 {code} X\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

/// Splits every long text part into two chunks and adds a metadata-only
/// chunk at the end, as the real API sometimes streams.
fn split_chunks(chunks: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    for chunk in chunks {
        let parts = chunk["candidates"][0]["content"]["parts"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let splittable = parts.len() == 1
            && parts[0]["text"]
                .as_str()
                .is_some_and(|t| t.chars().count() > 3)
            && parts[0].get("thoughtSignature").is_none();
        if !splittable {
            out.push(chunk);
            continue;
        }
        let text = parts[0]["text"].as_str().unwrap_or_default();
        let mid = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map(|(i, _)| i)
            .unwrap_or(0);
        let mut first = chunk.clone();
        first["candidates"][0]["content"]["parts"][0]["text"] = json!(&text[..mid]);
        if let Some(obj) = first["candidates"][0].as_object_mut() {
            obj.remove("finishReason");
        }
        if let Some(obj) = first.as_object_mut() {
            obj.remove("usageMetadata");
        }
        let mut second = chunk.clone();
        second["candidates"][0]["content"]["parts"][0]["text"] = json!(&text[mid..]);
        out.push(first);
        out.push(second);
    }
    out.push(json!({"candidates": [{"content": {"role": "model", "parts": []}, "index": 0}]}));
    out
}
