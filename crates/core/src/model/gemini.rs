//! The Gemini REST client: `streamGenerateContent` (SSE), `generateContent`
//! and `countTokens`, with retries and cancellation.

use super::error::{Failure, ModelError, snippet};
use super::google_auth::GoogleCredentials;
use super::http::{cancellable, http_client, send, with_retry};
use super::limits::{Transport, bounded, read_body};
use super::retry::{RetryConfig, status_failure};
use super::{ChunkStream, ContentGenerator, sse};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::future::Future;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Vertex AI: the Gemini wire under Vertex's URLs, authorized by OAuth2
/// tokens (a project and location) or by an API key (express mode).
#[derive(Clone, Debug)]
pub struct VertexTarget {
    /// `(project, location)`; `None` in express mode.
    pub project_location: Option<(String, String)>,
    /// Where the Bearer tokens come from; `None` in express mode.
    pub credentials: Option<Arc<GoogleCredentials>>,
}

/// Settings of a [`GeminiClient`].
#[derive(Clone)]
pub struct GeminiConfig {
    /// Sent as `x-goog-api-key` (unless Vertex AI uses OAuth2).
    pub api_key: String,
    /// Set for Vertex AI.
    pub vertex: Option<VertexTarget>,
    /// API root, e.g. `https://generativelanguage.googleapis.com`.
    pub base_url: String,
    /// Retry policy.
    pub retry: RetryConfig,
    /// Proxy URL for all requests; `None` uses HTTPS_PROXY / HTTP_PROXY.
    pub proxy: Option<String>,
    /// Timeouts, size caps and the retry notifier.
    pub transport: Transport,
}

impl std::fmt::Debug for GeminiConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GeminiConfig")
            .field("api_key", &"<redacted>")
            .field("base_url", &self.base_url)
            .field("vertex", &self.vertex)
            .field("retry", &self.retry)
            .field("proxy", &self.proxy)
            .field("transport", &self.transport)
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
        let connect = config.transport.connect_timeout_for(&config.base_url);
        let http = http_client(config.proxy.as_deref(), connect)?;
        Ok(GeminiClient { http, config })
    }

    /// `{base}/v1beta/models/{model}:{method}`; on Vertex AI
    /// `{base}/v1beta1/[projects/{p}/locations/{l}/]publishers/google/models/{model}:{method}`.
    fn url(&self, model: &str, method: &str) -> String {
        let model = model.strip_prefix("models/").unwrap_or(model);
        let base = self.config.base_url.trim_end_matches('/');
        match &self.config.vertex {
            None => format!("{base}/v1beta/models/{model}:{method}"),
            Some(VertexTarget {
                project_location: Some((project, location)),
                ..
            }) => format!(
                "{base}/v1beta1/projects/{project}/locations/{location}/publishers/google/models/{model}:{method}"
            ),
            Some(VertexTarget {
                project_location: None,
                ..
            }) => format!("{base}/v1beta1/publishers/google/models/{model}:{method}"),
        }
    }

    /// One POST; a non-2xx status becomes a [`Failure`] with its retry hint.
    async fn post<B: Serialize + ?Sized>(
        &self,
        url: &str,
        body: &B,
        model: &str,
    ) -> Result<reqwest::Response, Failure> {
        let credentials = self
            .config
            .vertex
            .as_ref()
            .and_then(|v| v.credentials.as_ref());
        let request = match credentials {
            Some(credentials) => {
                let token = credentials.token(&self.http).await?;
                self.http.post(url).bearer_auth(token)
            }
            None => self
                .http
                .post(url)
                .header("x-goog-api-key", &self.config.api_key),
        }
        .json(body);
        send(
            request,
            url,
            &self.config.transport,
            |status, body, hint| status_failure(status, body, model, hint),
        )
        .await
    }

    /// POST and parse a whole JSON answer.
    async fn post_json<B, T>(&self, url: &str, body: &B, model: &str) -> Result<T, Failure>
    where
        B: Serialize + ?Sized,
        T: DeserializeOwned,
    {
        let response = self.post(url, body, model).await?;
        let text = read_body(response, &self.config.transport).await?;
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
        let bytes = bounded(response.bytes_stream(), &self.config.transport, true);
        let mut chunks = sse::chunk_stream(bytes, model.to_string());
        match chunks.next().await {
            Some(Ok(first)) => Ok(futures::stream::iter([Ok(first)]).chain(chunks).boxed()),
            Some(Err(e)) => Err(e.into()),
            None => Err(ModelError::StreamCut {
                message: "the response stream ended before its first chunk".to_string(),
            }
            .into()),
        }
    }

    /// Runs `attempt` under this client's retry policy.
    async fn with_retry<T, F, Fut>(
        &self,
        (model, cancel): (&str, &CancellationToken),
        attempt: F,
    ) -> Result<T, ModelError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let transport = &self.config.transport;
        with_retry(&self.config.retry, transport, (model, cancel), attempt).await
    }
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
                .with_retry((model, &cancel), || self.open_stream(&url, request, model))
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
            self.with_retry((model, &cancel), || self.post_json(&url, request, model))
                .await
        }
        .boxed()
    }
}

#[cfg(test)]
#[path = "gemini_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "vertex_tests.rs"]
mod vertex_tests;
