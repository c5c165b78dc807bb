//! The listener of `gemini-rs serve`: hyper's HTTP/1 server (with upgrades
//! for the WebSocket), the routes, and the checks in front of them.

use super::{Body, Shared, a2a, full, ws};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use serde_json::json;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};

/// A JSON answer with an error message.
fn refusal(status: StatusCode, message: &str) -> Response<Body> {
    let body = json!({"error": message}).to_string();
    full(status, "application/json", body)
}

/// Whether an `Origin` header names this machine (a page elsewhere must
/// not drive a loopback server through the browser: DNS rebinding).
fn local_origin(origin: &str) -> bool {
    let rest = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    let Some(rest) = rest else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => rest.split(':').next().unwrap_or_default(),
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

/// One request.
async fn respond(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    let path = request.uri().path().to_string();
    let get = request.method() == hyper::Method::GET;
    match path.as_str() {
        "/health" if get => {
            return full(StatusCode::OK, "application/json", r#"{"status":"ok"}"#);
        }
        a2a::CARD_PATH if get => return a2a::card(&shared, request.headers()),
        "/health" | a2a::CARD_PATH => {
            return refusal(StatusCode::METHOD_NOT_ALLOWED, "use GET");
        }
        _ => {}
    }
    match &shared.token {
        Some(token) if !token.admits(request.headers()) => {
            let mut response = refusal(
                StatusCode::UNAUTHORIZED,
                "Unauthorized: send `Authorization: Bearer <GEMINI_RS_SERVE_TOKEN>`",
            );
            response.headers_mut().insert(
                hyper::header::WWW_AUTHENTICATE,
                hyper::header::HeaderValue::from_static("Bearer"),
            );
            return response;
        }
        Some(_) => {}
        None => {
            let origin = request
                .headers()
                .get(hyper::header::ORIGIN)
                .map(|v| v.to_str().unwrap_or_default());
            if origin.is_some_and(|o| !local_origin(o)) {
                return refusal(
                    StatusCode::FORBIDDEN,
                    "Forbidden: a page of another origin may not use this server",
                );
            }
        }
    }
    match path.as_str() {
        "/acp" | "/acp/" => ws::upgrade(shared, request),
        a2a::RPC_PATH | "/a2a/" => a2a::handle(shared, request).await,
        _ => refusal(
            StatusCode::NOT_FOUND,
            "Not Found: the routes are /acp (WebSocket), /a2a, /.well-known/agent-card.json and /health",
        ),
    }
}

/// Serves one TCP connection (HTTP/1 keep-alive, upgrades allowed).
async fn connection(stream: TcpStream, shared: Arc<Shared>) {
    let io = hyper_util::rt::TokioIo::new(stream);
    let handler = hyper::service::service_fn(move |request| {
        let shared = shared.clone();
        async move { Ok::<_, Infallible>(respond(shared, request).await) }
    });
    if let Err(e) = hyper::server::conn::http1::Builder::new()
        .serve_connection(io, handler)
        .with_upgrades()
        .await
    {
        tracing::debug!("serve: {e}");
    }
}

/// Accepts connections until Ctrl-C or SIGTERM.
pub async fn accept(listener: TcpListener, shared: Arc<Shared>) -> Result<(), String> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term =
        signal(SignalKind::terminate()).map_err(|e| format!("cannot watch SIGTERM: {e}"))?;
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    tokio::spawn(connection(stream, shared.clone()));
                }
                Err(e) => tracing::warn!("serve: accept failed: {e}"),
            },
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = term.recv() => return Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_origins() {
        for o in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:8080",
        ] {
            assert!(local_origin(o), "{o}");
        }
        for o in [
            "http://evil.example",
            "http://localhost.evil.example",
            "null",
            "file://",
        ] {
            assert!(!local_origin(o), "{o}");
        }
    }
}
