//! Streamable HTTP on `127.0.0.1:<port>/mcp`: rmcp's
//! [`StreamableHttpService`] (sessions, SSE streams, `Mcp-Session-Id`,
//! protocol-version header, Host/Origin checks against DNS rebinding)
//! served by hyper's HTTP/1 server. Around it, what rmcp leaves out: the
//! `/mcp` path, a -32700 parse error (rmcp answers 415 for any body it
//! cannot read as one message), and batches (protocol 2025-03-26), sent
//! through rmcp one message at a time and answered as one JSON array.

use super::handler::Handler;
use bytes::Bytes;
use gemini_rs_protocol::jsonrpc::Envelope;
use http_body_util::{BodyExt, Full, Limited, combinators::BoxBody};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use std::convert::Infallible;
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Largest request body accepted.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// The header of MCP's Streamable HTTP session id.
const SESSION_HEADER: &str = "mcp-session-id";

type Service = StreamableHttpService<Handler, LocalSessionManager>;
type Body = BoxBody<Bytes, Infallible>;

fn full(status: StatusCode, content_type: &str, body: impl Into<Bytes>) -> Response<Body> {
    let mut response = Response::new(Full::new(body.into()).boxed());
    *response.status_mut() = status;
    if let Ok(v) = content_type.parse() {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, v);
    }
    response
}

/// A JSON-RPC error as an HTTP answer.
fn rpc_error(status: StatusCode, id: Value, code: i64, message: &str) -> Response<Body> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    full(status, "application/json", body.to_string())
}

/// The JSON-RPC error for a body rmcp could not read as a message.
fn unreadable(body: &[u8]) -> Response<Body> {
    let value = match serde_json::from_slice::<Value>(body) {
        Ok(v) => v,
        Err(e) => {
            let message = format!("Parse error: {e}");
            return rpc_error(StatusCode::BAD_REQUEST, Value::Null, -32700, &message);
        }
    };
    let envelope = Envelope::of(&value);
    match (envelope.id, envelope.method) {
        (Some(id), Some(_)) => rpc_error(StatusCode::BAD_REQUEST, id, -32602, "Invalid params"),
        _ => rpc_error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32600,
            "Invalid Request",
        ),
    }
}

/// `request` with `body` in place of its own.
fn with_body(parts: &hyper::http::request::Parts, body: Bytes) -> Request<Full<Bytes>> {
    let mut request = Request::new(Full::new(body));
    *request.method_mut() = parts.method.clone();
    *request.uri_mut() = parts.uri.clone();
    *request.headers_mut() = parts.headers.clone();
    request
}

/// The JSON-RPC messages in one rmcp answer (JSON, or SSE `data:` lines).
async fn messages(response: Response<Body>) -> Vec<Value> {
    let Ok(body) = response.into_body().collect().await;
    let body = body.to_bytes();
    let text = String::from_utf8_lossy(&body);
    if let Ok(v) = serde_json::from_str::<Value>(&text) {
        return vec![v];
    }
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .filter(|v| Envelope::of(v).id.is_some())
        .collect()
}

/// A batch: each message through rmcp in turn, the answers as one array.
async fn batch(
    service: &Service,
    parts: &hyper::http::request::Parts,
    items: Vec<Value>,
) -> Response<Body> {
    if items.is_empty() {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32600,
            "Invalid Request",
        );
    }
    let mut answers = Vec::new();
    let mut session = None;
    for item in items {
        let response = service
            .handle(with_body(parts, item.to_string().into()))
            .await;
        let status = response.status();
        if let Some(id) = response.headers().get(SESSION_HEADER) {
            session = Some(id.clone());
        }
        if !status.is_success() {
            // Session, header or origin refused: the whole batch is.
            return response;
        }
        answers.extend(messages(response).await);
    }
    let mut response = match answers.is_empty() {
        true => full(StatusCode::ACCEPTED, "application/json", Bytes::new()),
        false => full(
            StatusCode::OK,
            "application/json",
            Value::Array(answers).to_string(),
        ),
    };
    if let Some(id) = session {
        response.headers_mut().insert(SESSION_HEADER, id);
    }
    response
}

/// One HTTP request.
async fn respond(service: &Service, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path();
    if path != "/mcp" && path != "/mcp/" {
        let message = "Not Found: the MCP endpoint is /mcp";
        return rpc_error(StatusCode::NOT_FOUND, Value::Null, -32000, message);
    }
    if request.method() != hyper::Method::POST {
        return service.handle(request).await;
    }
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            let message = format!("Bad Request: {e}");
            return rpc_error(StatusCode::PAYLOAD_TOO_LARGE, Value::Null, -32000, &message);
        }
    };
    let response = service.handle(with_body(&parts, body.clone())).await;
    // rmcp checked host, origin, Accept and Content-Type first; a 415 past
    // a JSON Content-Type means the body was not one message.
    let json_body = parts
        .headers
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE || !json_body {
        return response;
    }
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Array(items)) => batch(service, &parts, items).await,
        _ => unreadable(&body),
    }
}

async fn connection(stream: TcpStream, service: Service) {
    let io = hyper_util::rt::TokioIo::new(stream);
    let handler = hyper::service::service_fn(move |request| {
        let service = service.clone();
        async move { Ok::<_, Infallible>(respond(&service, request).await) }
    });
    if let Err(e) = hyper::server::conn::http1::Builder::new()
        .serve_connection(io, handler)
        .await
    {
        tracing::debug!("mcp serve http: {e}");
    }
}

/// Serves `http://127.0.0.1:<port>/mcp` until interrupted.
pub(super) async fn serve(handler: Handler, port: u16) -> Result<(), String> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(port);
    eprintln!("gemini-rs MCP server listening on http://127.0.0.1:{port}/mcp");
    let stop = CancellationToken::new();
    // Browsers' pages may only reach us from this machine (DNS rebinding).
    let origins = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .flat_map(|h| [format!("http://{h}:*"), format!("https://{h}:*")]);
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(MAX_BODY)
        .with_cancellation_token(stop.clone());
    let sessions = Arc::new(LocalSessionManager::default());
    let service: Service =
        StreamableHttpService::new(move || Ok(handler.clone()), sessions, config);
    let _stop = stop.drop_guard();
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, service.clone()));
                }
                Err(e) => tracing::warn!("mcp serve http: accept failed: {e}"),
            },
            _ = tokio::signal::ctrl_c() => return Ok(()),
        }
    }
}
