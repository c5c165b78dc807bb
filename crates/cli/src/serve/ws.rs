//! ACP over WebSocket at `/acp`: hyper answers the upgrade, tungstenite
//! frames the socket, and each text frame is one JSON-RPC message for the
//! same ACP agent `--acp` runs on stdio ([`crate::acp::serve`]). Frames the
//! SDK would answer badly get the answers `--acp` gives on stdio; a binary
//! frame is refused with `-32700`. The socket's end ends the connection's
//! sessions.

use super::Shared;
use super::{Body, full};
use crate::acp::transport::{MAX_FRAME, answer_early, error_answer};
use agent_client_protocol::{ErrorCode, Lines};
use futures::channel::mpsc;
use futures::{SinkExt, StreamExt};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Request, Response, StatusCode};
use serde_json::Value;
use std::io;
use std::sync::Arc;
use std::time::Duration;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};

/// Whether a header's comma-separated tokens include `token`.
fn has_token(request: &Request<Incoming>, name: header::HeaderName, token: &str) -> bool {
    request.headers().get_all(name).iter().any(|v| {
        v.to_str()
            .unwrap_or_default()
            .split(',')
            .any(|t| t.trim().eq_ignore_ascii_case(token))
    })
}

/// Answers a WebSocket upgrade at `/acp` and serves ACP on the socket.
pub fn upgrade(shared: Arc<Shared>, mut request: Request<Incoming>) -> Response<Body> {
    let bad = |message: &str| full(StatusCode::BAD_REQUEST, "text/plain", message.to_string());
    if request.method() != hyper::Method::GET
        || !has_token(&request, header::UPGRADE, "websocket")
        || !has_token(&request, header::CONNECTION, "upgrade")
    {
        let mut response = full(
            StatusCode::UPGRADE_REQUIRED,
            "text/plain",
            "/acp speaks ACP over WebSocket: send a GET with `Upgrade: websocket`",
        );
        response
            .headers_mut()
            .insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        return response;
    }
    if request
        .headers()
        .get(header::SEC_WEBSOCKET_VERSION)
        .is_none_or(|v| v.as_bytes() != b"13")
    {
        return bad("unsupported Sec-WebSocket-Version (13 is)");
    }
    let Some(key) = request.headers().get(header::SEC_WEBSOCKET_KEY) else {
        return bad("no Sec-WebSocket-Key");
    };
    let accept = derive_accept_key(key.as_bytes());
    let on_upgrade = hyper::upgrade::on(&mut request);
    tokio::spawn(async move {
        match on_upgrade.await {
            Ok(upgraded) => {
                let io = hyper_util::rt::TokioIo::new(upgraded);
                let config = WebSocketConfig::default()
                    .max_message_size(Some(MAX_FRAME))
                    .max_frame_size(Some(MAX_FRAME));
                let socket = WebSocketStream::from_raw_socket(io, Role::Server, Some(config)).await;
                serve(shared, socket).await;
            }
            Err(e) => tracing::debug!("serve: the WebSocket upgrade failed: {e}"),
        }
    });
    let mut response = Response::new(Body::default());
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let headers = response.headers_mut();
    headers.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    if let Ok(v) = HeaderValue::from_str(&accept) {
        headers.insert(header::SEC_WEBSOCKET_ACCEPT, v);
    }
    response
}

/// One ACP connection on `socket`, until it closes.
async fn serve<S>(shared: Arc<Shared>, socket: WebSocketStream<S>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (mut sink, stream) = socket.split();
    let (tx, mut rx) = mpsc::unbounded::<String>();
    let writer = tokio::spawn(async move {
        while let Some(text) = rx.next().await {
            if sink.send(Message::text(text)).await.is_err() {
                return;
            }
        }
        let _ = sink.close().await;
    });
    let out = tx.clone();
    let incoming = futures::stream::unfold(Some(stream), move |stream| {
        let out = out.clone();
        async move {
            let mut stream = stream?;
            loop {
                match stream.next().await {
                    Some(Ok(Message::Text(text))) => match answer_early(text.as_str()) {
                        Some(answer) => {
                            let _ = out.unbounded_send(answer);
                        }
                        None => return Some((Ok(text.as_str().to_string()), Some(stream))),
                    },
                    Some(Ok(Message::Binary(_))) => {
                        let message = "Parse error: ACP messages are text frames, not binary";
                        let answer = error_answer(Value::Null, ErrorCode::PARSE_ERROR, message);
                        let _ = out.unbounded_send(answer);
                    }
                    Some(Ok(Message::Close(_))) | None => return None,
                    // Pings are answered by tungstenite.
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        tracing::debug!("serve: WebSocket read failed: {e}");
                        return None;
                    }
                }
            }
        }
    });
    let outgoing = tx.sink_map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "closed"));
    let wire = Lines::new(outgoing, incoming);
    if let Err(e) = crate::acp::serve(shared.args.clone(), shared.paths.clone(), wire).await {
        tracing::debug!("serve: ACP connection ended: {e:?}");
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), writer).await;
}
