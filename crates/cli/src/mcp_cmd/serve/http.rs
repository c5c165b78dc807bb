//! The streamable HTTP transport on 127.0.0.1: a small HTTP/1.1 server on
//! tokio with one endpoint, `/mcp`. A POST carries a JSON-RPC message (or
//! batch) and gets the answer as `application/json` (202 for notifications
//! only); `initialize` opens a session (`Mcp-Session-Id`), later requests
//! must name it, DELETE ends it. We send no server-initiated messages, so
//! GET (the optional SSE stream) is 405. Requests naming another host or
//! origin (DNS rebinding) are refused (403).

use super::stdio::answer;
use super::{McpServer, PROTOCOL_VERSIONS, rpc_error};
use serde_json::Value;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// Largest request body accepted.
const MAX_BODY: usize = 16 * 1024 * 1024;
/// Largest header block accepted.
const MAX_HEADERS: usize = 64 * 1024;

struct Request {
    method: String,
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Request {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct Response {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

impl Response {
    fn new(status: u16) -> Self {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    fn json(status: u16, value: &Value) -> Self {
        let mut r = Response::new(status);
        r.headers
            .push(("Content-Type", "application/json".to_string()));
        r.body = value.to_string().into_bytes();
        r
    }

    fn error(status: u16, code: i64, message: &str) -> Self {
        Response::json(status, &rpc_error(Value::Null, code, message))
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        413 => "Payload Too Large",
        _ => "Error",
    }
}

async fn read_line<R: AsyncBufReadExt + Unpin>(
    r: &mut R,
    budget: &mut usize,
) -> Result<Option<String>, String> {
    let mut line = String::new();
    let n = r.read_line(&mut line).await.map_err(|e| e.to_string())?;
    if n == 0 {
        return Ok(None);
    }
    *budget = budget.checked_sub(n).ok_or("headers too large")?;
    Ok(Some(line.trim_end_matches(['\r', '\n']).to_string()))
}

/// Reads one request; `None` at a clean end of the connection.
async fn read_request<R: AsyncBufReadExt + Unpin>(r: &mut R) -> Result<Option<Request>, String> {
    let mut budget = MAX_HEADERS;
    let first = loop {
        match read_line(r, &mut budget).await? {
            None => return Ok(None),
            Some(l) if l.is_empty() => continue,
            Some(l) => break l,
        }
    };
    let mut parts = first.split_whitespace();
    let (Some(method), Some(target)) = (parts.next(), parts.next()) else {
        return Err(format!("bad request line: {first}"));
    };
    let path = target.split('?').next().unwrap_or(target).to_string();
    let mut headers = Vec::new();
    loop {
        let Some(line) = read_line(r, &mut budget).await? else {
            return Err("connection closed in the headers".to_string());
        };
        if line.is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    let mut request = Request {
        method: method.to_string(),
        path,
        headers,
        body: Vec::new(),
    };
    let chunked = request
        .header("transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        loop {
            let size_line = read_line(r, &mut budget)
                .await?
                .ok_or("connection closed in a chunk")?;
            let hex = size_line.split(';').next().unwrap_or("").trim();
            let size =
                usize::from_str_radix(hex, 16).map_err(|_| format!("bad chunk size: {hex}"))?;
            if size == 0 {
                // Trailers, up to the empty line.
                while let Some(l) = read_line(r, &mut budget).await? {
                    if l.is_empty() {
                        break;
                    }
                }
                break;
            }
            if request.body.len() + size > MAX_BODY {
                return Err("body too large".to_string());
            }
            let start = request.body.len();
            request.body.resize(start + size + 2, 0);
            r.read_exact(&mut request.body[start..])
                .await
                .map_err(|e| e.to_string())?;
            request.body.truncate(start + size);
        }
    } else if let Some(len) = request.header("content-length") {
        let len: usize = len
            .parse()
            .map_err(|_| format!("bad content-length: {len}"))?;
        if len > MAX_BODY {
            return Err("body too large".to_string());
        }
        request.body.resize(len, 0);
        r.read_exact(&mut request.body)
            .await
            .map_err(|e| e.to_string())?;
    }
    Ok(Some(request))
}

/// True for a `Host` or `Origin` naming this machine (or none given: not
/// a browser). Anything else may be a DNS-rebinding page.
fn host_allowed(origin: Option<&str>) -> bool {
    let Some(origin) = origin else { return true };
    let rest = origin.split_once("://").map(|(_, r)| r).unwrap_or(origin);
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        rest.split([':', '/']).next().unwrap_or("")
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

/// The shared state of the endpoint.
struct Endpoint {
    server: Arc<McpServer>,
    sessions: Mutex<HashSet<String>>,
}

fn is_initialize(msg: &Value) -> bool {
    let one = |m: &Value| m.get("method").and_then(Value::as_str) == Some("initialize");
    match msg {
        Value::Array(items) => items.iter().any(one),
        other => one(other),
    }
}

impl Endpoint {
    fn has_session(&self, id: &str) -> bool {
        self.sessions.lock().is_ok_and(|s| s.contains(id))
    }

    async fn respond(&self, req: &Request) -> Response {
        if req.path != "/mcp" && req.path != "/mcp/" {
            return Response::error(404, -32000, "Not Found: the MCP endpoint is /mcp");
        }
        if !host_allowed(req.header("origin")) || !host_allowed(req.header("host")) {
            return Response::error(403, -32000, "Forbidden: host or origin not allowed");
        }
        match req.method.as_str() {
            "POST" => self.post(req).await,
            "DELETE" => {
                let Some(id) = req.header("mcp-session-id") else {
                    return Response::error(
                        400,
                        -32000,
                        "Bad Request: Mcp-Session-Id header is required",
                    );
                };
                let removed = self.sessions.lock().is_ok_and(|mut s| s.remove(id));
                if removed {
                    self.server.cancel_scope(id);
                    Response::new(200)
                } else {
                    Response::error(404, -32001, "Session not found")
                }
            }
            _ => {
                let mut r = Response::error(405, -32000, "Method Not Allowed");
                r.headers.push(("Allow", "POST, DELETE".to_string()));
                r
            }
        }
    }

    async fn post(&self, req: &Request) -> Response {
        let msg: Value = match serde_json::from_slice(&req.body) {
            Ok(v) => v,
            Err(e) => return Response::error(400, -32700, &format!("Parse error: {e}")),
        };
        if let Some(v) = req.header("mcp-protocol-version")
            && !PROTOCOL_VERSIONS.contains(&v)
        {
            return Response::error(
                400,
                -32000,
                &format!("Bad Request: unsupported protocol version {v}"),
            );
        }
        let session = if is_initialize(&msg) {
            let id = uuid::Uuid::new_v4().simple().to_string();
            if let Ok(mut s) = self.sessions.lock() {
                s.insert(id.clone());
            }
            id
        } else {
            match req.header("mcp-session-id") {
                None => {
                    return Response::error(
                        400,
                        -32000,
                        "Bad Request: Mcp-Session-Id header is required",
                    );
                }
                Some(id) if !self.has_session(id) => {
                    return Response::error(404, -32001, "Session not found");
                }
                Some(id) => id.to_string(),
            }
        };
        let mut response = match answer(&self.server, msg, &session).await {
            Some(v) => Response::json(200, &v),
            None => Response::new(202),
        };
        response.headers.push(("Mcp-Session-Id", session));
        response
    }
}

async fn connection(stream: TcpStream, endpoint: Arc<Endpoint>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read);
    loop {
        let req = match read_request(&mut reader).await {
            Ok(Some(r)) => r,
            Ok(None) => return,
            Err(e) => {
                tracing::debug!("mcp serve http: {e}");
                let r = Response::error(400, -32000, &format!("Bad Request: {e}"));
                let _ = write_response(&mut write, &r, true).await;
                return;
            }
        };
        let close = req
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let response = endpoint.respond(&req).await;
        if write_response(&mut write, &response, close).await.is_err() || close {
            return;
        }
    }
}

async fn write_response<W: AsyncWriteExt + Unpin>(
    w: &mut W,
    r: &Response,
    close: bool,
) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", r.status, reason(r.status));
    for (k, v) in &r.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n", r.body.len()));
    head.push_str(if close {
        "Connection: close\r\n\r\n"
    } else {
        "Connection: keep-alive\r\n\r\n"
    });
    w.write_all(head.as_bytes()).await?;
    w.write_all(&r.body).await?;
    w.flush().await
}

/// Serves `http://127.0.0.1:<port>/mcp` until interrupted.
pub(super) async fn serve(server: Arc<McpServer>, port: u16) -> Result<(), String> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    eprintln!("gemini-rs MCP server listening on http://127.0.0.1:{port}/mcp");
    let endpoint = Arc::new(Endpoint {
        server,
        sessions: Mutex::new(HashSet::new()),
    });
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, endpoint.clone()));
                }
                Err(e) => tracing::warn!("mcp serve http: accept failed: {e}"),
            },
            _ = tokio::signal::ctrl_c() => return Ok(()),
        }
    }
}
