//! The Gemini REST client: `streamGenerateContent` (SSE), `generateContent`
//! and `countTokens`, with retries and cancellation.

use super::error::{Failure, ModelError, error_chain, snippet};
use super::retry::{RetryConfig, parse_delay, status_failure};
use super::{ChunkStream, ContentGenerator, sse};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use gemini_rs_protocol::{
    CountTokensRequest, CountTokensResponse, GenerateContentRequest, GenerateContentResponse,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Settings of a [`GeminiClient`].
#[derive(Clone)]
pub struct GeminiConfig {
    /// Sent as `x-goog-api-key`.
    pub api_key: String,
    /// API root, e.g. `https://generativelanguage.googleapis.com`.
    pub base_url: String,
    /// Retry policy.
    pub retry: RetryConfig,
    /// Proxy URL for all requests; `None` uses HTTPS_PROXY / HTTP_PROXY.
    pub proxy: Option<String>,
}

impl std::fmt::Debug for GeminiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeminiConfig")
            .field("api_key", &"<redacted>")
            .field("base_url", &self.base_url)
            .field("retry", &self.retry)
            .field("proxy", &self.proxy)
            .finish()
    }
}

/// A [`ContentGenerator`] talking to the Gemini API over HTTPS.
#[derive(Clone, Debug)]
pub struct GeminiClient {
    http: reqwest::Client,
    config: GeminiConfig,
}

impl GeminiClient {
    /// Builds the HTTP client once. Fails on a bad proxy URL or a missing TLS
    /// crypto provider (the binary installs one at start).
    pub fn new(config: GeminiConfig) -> Result<GeminiClient, ModelError> {
        let mut builder = reqwest::Client::builder()
            .user_agent(concat!("gemini-rs/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(Duration::from_secs(30));
        if let Some(proxy) = config.proxy.as_deref().filter(|p| !p.trim().is_empty()) {
            let proxy = reqwest::Proxy::all(proxy).map_err(|e| {
                ModelError::Setup(format!("invalid proxy URL `{proxy}`: {}", error_chain(&e)))
            })?;
            builder = builder.proxy(proxy);
        }
        // reqwest panics when no rustls crypto provider is installed.
        let http = std::panic::catch_unwind(AssertUnwindSafe(|| builder.build()))
            .map_err(|_| {
                ModelError::Setup(
                    "no TLS crypto provider is installed (install rustls' ring provider before \
                     creating the client)"
                        .to_string(),
                )
            })?
            .map_err(|e| ModelError::Setup(error_chain(&e)))?;
        Ok(GeminiClient { http, config })
    }

    /// `{base}/v1beta/models/{model}:{method}`.
    fn url(&self, model: &str, method: &str) -> String {
        let model = model.strip_prefix("models/").unwrap_or(model);
        let base = self.config.base_url.trim_end_matches('/');
        format!("{base}/v1beta/models/{model}:{method}")
    }

    /// One POST; a non-2xx status becomes a [`Failure`] with its retry hint.
    async fn post<B: Serialize + ?Sized>(
        &self,
        url: &str,
        body: &B,
        model: &str,
    ) -> Result<reqwest::Response, Failure> {
        let response = self
            .http
            .post(url)
            .header("x-goog-api-key", &self.config.api_key)
            .json(body)
            .send()
            .await
            .map_err(|e| {
                if e.is_builder() {
                    ModelError::Setup(error_chain(&e))
                } else {
                    ModelError::Connection {
                        url: url.to_string(),
                        message: error_chain(&e),
                    }
                }
            })?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let hint = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(parse_delay);
        let body = response.text().await.unwrap_or_default();
        Err(status_failure(status.as_u16(), &body, model, hint))
    }

    /// POST and parse a whole JSON answer.
    async fn post_json<B, T>(&self, url: &str, body: &B, model: &str) -> Result<T, Failure>
    where
        B: Serialize + ?Sized,
        T: DeserializeOwned,
    {
        let response = self.post(url, body, model).await?;
        let text = response.text().await.map_err(|e| ModelError::StreamCut {
            message: error_chain(&e),
        })?;
        serde_json::from_str(&text).map_err(|e| {
            Failure::from(ModelError::MalformedChunk {
                message: e.to_string(),
                snippet: snippet(&text, 200),
            })
        })
    }

    /// POST a stream request and wait for its first chunk, so a stream that
    /// dies before producing anything can be retried.
    async fn open_stream(
        &self,
        url: &str,
        request: &GenerateContentRequest,
        model: &str,
    ) -> Result<ChunkStream, Failure> {
        let response = self.post(url, request, model).await?;
        let mut chunks = sse::chunk_stream(response.bytes_stream(), model.to_string());
        match chunks.next().await {
            Some(Ok(first)) => Ok(futures::stream::iter([Ok(first)]).chain(chunks).boxed()),
            Some(Err(e)) => Err(e.into()),
            None => Err(ModelError::StreamCut {
                message: "the response stream ended before its first chunk".to_string(),
            }
            .into()),
        }
    }

    /// Runs `attempt` until it succeeds, fails for good, or `cancel` fires.
    async fn with_retry<T, F, Fut>(
        &self,
        cancel: &CancellationToken,
        mut attempt: F,
    ) -> Result<T, ModelError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let mut number = 0u32;
        loop {
            number += 1;
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            let failure = tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(ModelError::Cancelled),
                result = attempt() => match result {
                    Ok(value) => return Ok(value),
                    Err(failure) => failure,
                },
            };
            let Some(delay) = self.config.retry.next_delay(number, &failure) else {
                return Err(if number > 1 {
                    ModelError::RetriesExhausted {
                        attempts: number,
                        last: Box::new(failure.error),
                    }
                } else {
                    failure.error
                });
            };
            tracing::warn!(
                attempt = number,
                delay_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                "model request failed, retrying: {}",
                failure.error
            );
            tokio::select! {
                biased;
                _ = cancel.cancelled() => return Err(ModelError::Cancelled),
                _ = tokio::time::sleep(delay) => {}
            }
        }
    }
}

/// Ends `stream` with [`ModelError::Cancelled`] as soon as `cancel` fires.
fn cancellable(stream: ChunkStream, cancel: CancellationToken) -> ChunkStream {
    futures::stream::unfold(Some((stream, cancel)), |state| async move {
        let (mut stream, cancel) = state?;
        tokio::select! {
            biased;
            _ = cancel.cancelled() => Some((Err(ModelError::Cancelled), None)),
            item = stream.next() => item.map(|item| (item, Some((stream, cancel)))),
        }
    })
    .boxed()
}

impl ContentGenerator for GeminiClient {
    fn generate_stream<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        async move {
            let url = self.url(model, "streamGenerateContent?alt=sse");
            let stream = self
                .with_retry(&cancel, || self.open_stream(&url, request, model))
                .await?;
            Ok(cancellable(stream, cancel))
        }
        .boxed()
    }

    fn generate<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>> {
        async move {
            let url = self.url(model, "generateContent");
            self.with_retry(&cancel, || self.post_json(&url, request, model))
                .await
        }
        .boxed()
    }

    fn count_tokens<'a>(
        &'a self,
        model: &'a str,
        request: &'a CountTokensRequest,
    ) -> BoxFuture<'a, Result<CountTokensResponse, ModelError>> {
        async move {
            let url = self.url(model, "countTokens");
            let never = CancellationToken::new();
            self.with_retry(&never, || self.post_json(&url, request, model))
                .await
        }
        .boxed()
    }
}

#[cfg(test)]
#[path = "gemini_tests.rs"]
mod tests;
