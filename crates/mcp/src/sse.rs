//! The legacy HTTP+SSE client transport (MCP 2024-11-05), which rmcp no
//! longer ships: GET the SSE stream, wait for the `endpoint` event, then
//! POST each message to that endpoint; responses arrive as `message`
//! events on the stream.

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use std::future::Future;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Failures of the SSE transport.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    /// The HTTP request failed.
    #[error("SSE error: {0}")]
    Http(#[from] reqwest::Error),
    /// The server answered with a non-success status.
    #[error("SSE error: Non-200 status code ({0})")]
    Status(u16),
    /// The server asked for authorization (401, its `WWW-Authenticate`).
    #[error("SSE error: Non-200 status code (401)")]
    Unauthorized(String),
    /// The stream ended or failed before the `endpoint` event.
    #[error("SSE error: stream ended before the endpoint event")]
    NoEndpoint,
    /// The `endpoint` event did not hold a usable URL.
    #[error("SSE error: invalid endpoint {0}")]
    Endpoint(String),
}

/// A connected legacy-SSE transport.
pub struct SseClientTransport {
    http: reqwest::Client,
    endpoint: reqwest::Url,
    headers: HeaderMap,
    rx: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    stop: CancellationToken,
}

impl SseClientTransport {
    /// Opens the SSE stream at `url` and waits for the `endpoint` event.
    pub async fn connect(
        http: reqwest::Client,
        url: &str,
        headers: HeaderMap,
    ) -> Result<Self, SseError> {
        let base =
            reqwest::Url::parse(url).map_err(|e| SseError::Endpoint(format!("{url}: {e}")))?;
        let resp = http
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, HeaderValue::from_static("text/event-stream"))
            .send()
            .await?;
        if resp.status() == reqwest::StatusCode::UNAUTHORIZED
            && let Some(challenge) = resp.headers().get(reqwest::header::WWW_AUTHENTICATE)
        {
            let challenge = challenge.to_str().unwrap_or_default().to_string();
            return Err(SseError::Unauthorized(challenge));
        }
        if !resp.status().is_success() {
            return Err(SseError::Status(resp.status().as_u16()));
        }
        let mut events = resp.bytes_stream().eventsource();
        let endpoint = loop {
            match events.next().await {
                Some(Ok(ev)) if ev.event == "endpoint" => {
                    let data = ev.data.trim();
                    break base
                        .join(data)
                        .map_err(|e| SseError::Endpoint(format!("{data}: {e}")))?;
                }
                Some(Ok(ev)) => {
                    tracing::debug!(event = %ev.event, "SSE event before the endpoint ignored");
                }
                Some(Err(e)) => {
                    tracing::debug!("SSE stream error before the endpoint: {e}");
                    return Err(SseError::NoEndpoint);
                }
                None => return Err(SseError::NoEndpoint),
            }
        };
        let (tx, rx) = mpsc::channel(64);
        let stop = CancellationToken::new();
        let reader_stop = stop.clone();
        tokio::spawn(async move {
            loop {
                let next = tokio::select! {
                    _ = reader_stop.cancelled() => break,
                    next = events.next() => next,
                };
                match next {
                    Some(Ok(ev)) if ev.event.is_empty() || ev.event == "message" => {
                        match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&ev.data) {
                            Ok(msg) => {
                                if tx.send(msg).await.is_err() {
                                    break;
                                }
                            }
                            Err(e) => tracing::debug!("unparsable SSE message ignored: {e}"),
                        }
                    }
                    Some(Ok(_)) => {}
                    Some(Err(e)) => {
                        tracing::debug!("SSE stream failed: {e}");
                        break;
                    }
                    None => break,
                }
            }
        });
        Ok(SseClientTransport {
            http,
            endpoint,
            headers,
            rx,
            stop,
        })
    }
}

impl Drop for SseClientTransport {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Transport<RoleClient> for SseClientTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let http = self.http.clone();
        let endpoint = self.endpoint.clone();
        let headers = self.headers.clone();
        async move {
            let body = serde_json::to_vec(&item).map_err(|e| SseError::Endpoint(e.to_string()))?;
            let resp = http
                .post(endpoint)
                .headers(headers)
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body)
                .send()
                .await?;
            if resp.status().is_success() {
                Ok(())
            } else {
                Err(SseError::Status(resp.status().as_u16()))
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        self.rx.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.stop.cancel();
        self.rx.close();
        Ok(())
    }
}
