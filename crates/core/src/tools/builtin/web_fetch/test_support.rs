//! Test helpers shared by the web tools' tests: a scripted model client that
//! records its requests, a tool context, and a tiny HTTP/1.1 server.

use crate::config::Settings;
use crate::model::{ChunkStream, ContentGenerator, ModelError};
use crate::tools::ToolContext;
use crate::workspace::Workspace;
use futures::future::BoxFuture;
use gemini_rs_protocol::{
    CountTokensRequest, CountTokensResponse, GenerateContentRequest, GenerateContentResponse,
};
use serde_json::{Value, json};
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// A model client answering `generate` from a script, recording every
/// `(model, request)` it gets.
pub(crate) struct FakeGenerator {
    replies: Mutex<VecDeque<Result<GenerateContentResponse, ModelError>>>,
    requests: Mutex<Vec<(String, GenerateContentRequest)>>,
}

impl FakeGenerator {
    /// A client that gives `replies` in order.
    pub(crate) fn new(replies: Vec<Result<GenerateContentResponse, ModelError>>) -> Arc<Self> {
        Arc::new(FakeGenerator {
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
        })
    }

    /// The requests so far.
    pub(crate) fn requests(&self) -> Vec<(String, GenerateContentRequest)> {
        self.requests.lock().unwrap().clone()
    }

    /// The user text of request `i`.
    pub(crate) fn user_text(&self, i: usize) -> String {
        self.requests()[i].1.contents[0].text()
    }
}

impl ContentGenerator for FakeGenerator {
    fn generate_stream<'a>(
        &'a self,
        _model: &'a str,
        _request: &'a GenerateContentRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        Box::pin(async {
            Err(ModelError::Replay {
                message: "streaming is not scripted".into(),
            })
        })
    }

    fn generate<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>> {
        self.requests
            .lock()
            .unwrap()
            .push((model.to_string(), request.clone()));
        let reply = self.replies.lock().unwrap().pop_front().unwrap_or_else(|| {
            Err(ModelError::Replay {
                message: "no more scripted replies".into(),
            })
        });
        Box::pin(async move { reply })
    }

    fn count_tokens<'a>(
        &'a self,
        _model: &'a str,
        _request: &'a CountTokensRequest,
    ) -> BoxFuture<'a, Result<CountTokensResponse, ModelError>> {
        Box::pin(async {
            Err(ModelError::Replay {
                message: "countTokens is not scripted".into(),
            })
        })
    }
}

/// A response from its JSON form.
pub(crate) fn response(v: Value) -> GenerateContentResponse {
    serde_json::from_value(v).unwrap()
}

/// A response with one text part.
pub(crate) fn text_response(text: &str) -> GenerateContentResponse {
    response(json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}))
}

/// A tool context in a temp dir, with the given model client.
pub(crate) fn context(generator: Option<Arc<FakeGenerator>>) -> (ToolContext, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let ws = Workspace::new(root.clone(), vec![], root.join(".tmp"));
    let mut ctx = ToolContext::new(
        Arc::new(ws),
        Arc::new(Settings::from_value(json!({}))),
        "gemini-2.5-flash",
    );
    ctx.generator = generator.map(|g| g as Arc<dyn ContentGenerator>);
    (ctx, dir)
}

/// One canned answer of the test server.
#[derive(Clone)]
pub(crate) enum Reply {
    /// Status line (`200 OK`), content type (None: no header), body.
    Page(&'static str, Option<&'static str>, Vec<u8>),
    /// A body sent without `Content-Length` (read to connection close).
    Unsized(&'static str, Vec<u8>),
    /// `302` to a location.
    Redirect(String),
    /// Wait this long, then answer `200` with `slow`.
    Slow(Duration),
    /// `503` for the first n hits, then `200` with `recovered`.
    Flaky(usize),
}

/// A hand-written HTTP/1.1 server on 127.0.0.1: one thread, one request per
/// connection, answers from a path table, logs the paths it served.
pub(crate) struct TestServer {
    /// Its address.
    pub addr: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
}

impl TestServer {
    /// Starts the server with `routes` (path -> reply); unknown paths get 404.
    pub(crate) fn start(routes: Vec<(&str, Reply)>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let routes: HashMap<String, Reply> = routes
            .into_iter()
            .map(|(p, r)| (p.to_string(), r))
            .collect();
        let server_log = log.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let routes = routes.clone();
                let log = server_log.clone();
                std::thread::spawn(move || serve(stream, &routes, &log));
            }
        });
        TestServer { addr, log }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The paths requested so far.
    pub(crate) fn hits(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

fn serve(mut stream: TcpStream, routes: &HashMap<String, Reply>, log: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let hit_count = {
        let mut log = log.lock().unwrap();
        log.push(path.clone());
        log.iter().filter(|p| **p == path).count()
    };
    let head = |status: &str, ct: Option<&str>, len: Option<usize>| {
        let mut h = format!("HTTP/1.1 {status}\r\nConnection: close\r\n");
        if let Some(ct) = ct {
            h.push_str(&format!("Content-Type: {ct}\r\n"));
        }
        if let Some(len) = len {
            h.push_str(&format!("Content-Length: {len}\r\n"));
        }
        h.push_str("\r\n");
        h
    };
    let (header, body) = match routes.get(&path).cloned() {
        Some(Reply::Page(status, ct, body)) => (head(status, ct, Some(body.len())), body),
        Some(Reply::Unsized(ct, body)) => (head("200 OK", Some(ct), None), body),
        Some(Reply::Redirect(to)) => (
            format!(
                "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            ),
            Vec::new(),
        ),
        Some(Reply::Slow(wait)) => {
            std::thread::sleep(wait);
            (
                head("200 OK", Some("text/plain"), Some(4)),
                b"slow".to_vec(),
            )
        }
        Some(Reply::Flaky(n)) if hit_count <= n => (
            head("503 Service Unavailable", Some("text/plain"), Some(4)),
            b"busy".to_vec(),
        ),
        Some(Reply::Flaky(_)) => (
            head("200 OK", Some("text/plain"), Some(9)),
            b"recovered".to_vec(),
        ),
        None => (
            head("404 Not Found", Some("text/plain"), Some(9)),
            b"not found".to_vec(),
        ),
    };
    let _ = stream.write_all(header.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
}

/// True when an HTTP client can be built in this test binary. reqwest needs
/// a rustls crypto provider installed process-wide (the binary does that at
/// start); without one the direct-fetch tests cannot run and are skipped.
pub(crate) fn http_ready() -> bool {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ok =
        std::panic::catch_unwind(|| reqwest::Client::builder().build().is_ok()).unwrap_or(false);
    if !ok {
        eprintln!("skipped: no rustls crypto provider is installed in this test binary");
    }
    ok
}
