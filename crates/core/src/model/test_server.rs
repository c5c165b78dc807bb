//! A one-file HTTP/1.1 server on 127.0.0.1 for the wire tests: answers
//! each request with the next canned reply and keeps what it received.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// One canned answer.
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: String,
}

impl Reply {
    /// A `200` SSE stream of `events` (each a `data:` payload, or a full
    /// `event: ...\ndata: ...` block when it starts with `event:`).
    pub fn sse(events: &[&str]) -> Reply {
        let body = events
            .iter()
            .map(|e| {
                if e.starts_with("event:") {
                    format!("{e}\n\n")
                } else {
                    format!("data: {e}\n\n")
                }
            })
            .collect();
        Reply {
            status: 200,
            headers: vec![("content-type", "text/event-stream".into())],
            body,
        }
    }

    /// An error status with a JSON body.
    pub fn status(status: u16, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type", "application/json".into())],
            body: body.to_string(),
        }
    }
}

/// One received request.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: serde_json::Value,
    /// The body as text (form bodies are not JSON).
    pub raw: String,
}

impl Received {
    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The running server.
pub(crate) struct TestServer {
    pub base_url: String,
    pub received: Arc<Mutex<Vec<Received>>>,
}

impl TestServer {
    /// Serves `replies` in order (a `500` once they run out).
    pub async fn start(replies: Vec<Reply>) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(Mutex::new(Vec::new()));
        let replies = Arc::new(Mutex::new(VecDeque::from(replies)));
        let seen = received.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut socket, _)) = listener.accept().await else {
                    return;
                };
                let seen = seen.clone();
                let replies = replies.clone();
                tokio::spawn(async move {
                    let Some(req) = read_request(&mut socket).await else {
                        return;
                    };
                    seen.lock().unwrap().push(req);
                    let reply = replies.lock().unwrap().pop_front().unwrap_or(Reply {
                        status: 500,
                        headers: vec![],
                        body: "no more replies".into(),
                    });
                    let mut head = format!(
                        "HTTP/1.1 {} X\r\ncontent-length: {}\r\nconnection: close\r\n",
                        reply.status,
                        reply.body.len()
                    );
                    for (k, v) in &reply.headers {
                        head.push_str(&format!("{k}: {v}\r\n"));
                    }
                    head.push_str("\r\n");
                    let _ = socket.write_all(head.as_bytes()).await;
                    let _ = socket.write_all(reply.body.as_bytes()).await;
                    let _ = socket.shutdown().await;
                });
            }
        });
        TestServer { base_url, received }
    }

    /// What was received so far.
    pub fn requests(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

async fn read_request(socket: &mut tokio::net::TcpStream) -> Option<Received> {
    let mut buf = Vec::new();
    let mut tmp = [0u8; 8192];
    let head_end = loop {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&tmp[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let mut lines = head.lines();
    let path = lines.next()?.split(' ').nth(1)?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = socket.read(&mut tmp).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&tmp[..n]);
    }
    let raw = String::from_utf8_lossy(&buf[head_end..]).to_string();
    let body = serde_json::from_str(&raw).unwrap_or(serde_json::Value::Null);
    Some(Received {
        path,
        headers,
        body,
        raw,
    })
}
