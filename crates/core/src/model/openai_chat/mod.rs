//! OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM,
//! LM Studio, OpenRouter, LiteLLM): `POST {base}/chat/completions` with
//! `stream: true`, translated to and from Gemini contents at this edge.

mod request;
mod stream;

use super::error::{Failure, ModelError};
use super::http::{cancellable, http_client, send, with_retry};
use super::retry::RetryConfig;
use super::wire::{self, EventRecorder, provider_failure, sse_events, translate};
use super::{ChunkStream, ContentGenerator, ResponseSink};
use futures::FutureExt;
use futures::future::BoxFuture;
use gemini_rs_protocol::{
    CountTokensRequest, CountTokensResponse, GenerateContentRequest, GenerateContentResponse,
    RecordedResponse,
};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;
use stream::OpenAiTranslator;
use tokio_util::sync::CancellationToken;

/// Where and how to reach one OpenAI-compatible server.
#[derive(Clone)]
pub struct OpenAiChatConfig {
    /// The API root including its version, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer`; `None` for servers without keys.
    pub api_key: Option<String>,
    /// The variable the key came from, named in authentication errors.
    pub api_key_env: Option<String>,
    /// Extra headers for every request.
    pub headers: Vec<(String, String)>,
    /// Retry policy.
    pub retry: RetryConfig,
    /// `max_tokens` by model, when the request sets none (the models'
    /// `maxOutputTokens` in settings).
    pub max_output_tokens: BTreeMap<String, u64>,
    /// Where raw stream events are recorded (`--record-responses`).
    pub recorder: Option<Arc<ResponseSink>>,
}

impl std::fmt::Debug for OpenAiChatConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAiChatConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("headers", &self.headers.len())
            .finish()
    }
}

/// A [`ContentGenerator`] speaking OpenAI chat completions.
pub struct OpenAiChatClient {
    http: reqwest::Client,
    config: OpenAiChatConfig,
    label: String,
}

impl OpenAiChatClient {
    /// Builds the HTTP client once.
    pub fn new(config: OpenAiChatConfig) -> Result<OpenAiChatClient, ModelError> {
        let http = http_client(None)?;
        let label = format!(
            "The OpenAI-compatible API at {}",
            config.base_url.trim_end_matches('/')
        );
        Ok(OpenAiChatClient {
            http,
            config,
            label,
        })
    }

    /// Opens one stream: the POST, its status, then the events.
    async fn open(&self, body: &Value, model: &str) -> Result<reqwest::Response, Failure> {
        let url = format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        );
        let mut request = self.http.post(&url).json(body);
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        for (name, value) in &self.config.headers {
            request = request.header(name, value);
        }
        let key_env = self.config.api_key_env.as_deref();
        send(request, &url, |status, text, hint| {
            provider_failure(&self.label, key_env, model, status, text, hint)
        })
        .await
    }
}

/// The recorded line of an OpenAI chat stream.
fn recorded_line(events: Vec<Value>) -> RecordedResponse {
    RecordedResponse::OpenAiChatStream(events)
}

/// A recorded stream replayed through the live translator.
pub(crate) fn replay(events: Vec<Value>) -> ChunkStream {
    wire::replay(events, OpenAiTranslator::default())
}

impl ContentGenerator for OpenAiChatClient {
    fn generate_stream<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        async move {
            let max = self.config.max_output_tokens.get(model).copied();
            let body = request::body(model, request, max);
            let response =
                with_retry(&self.config.retry, &cancel, || self.open(&body, model)).await?;
            let record = self.config.recorder.clone().map(|sink| EventRecorder {
                sink,
                line: recorded_line,
            });
            let events = sse_events(response.bytes_stream());
            Ok(cancellable(
                translate(events, OpenAiTranslator::default(), record),
                cancel,
            ))
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
            let stream = self.generate_stream(model, request, cancel).await?;
            wire::collect(stream).await
        }
        .boxed()
    }

    fn count_tokens<'a>(
        &'a self,
        _model: &'a str,
        request: &'a CountTokensRequest,
    ) -> BoxFuture<'a, Result<CountTokensResponse, ModelError>> {
        // Chat-completion servers have no counting endpoint: an estimate.
        let total = wire::estimate_tokens(request);
        async move {
            Ok(CountTokensResponse {
                total_tokens: Some(total),
                ..CountTokensResponse::default()
            })
        }
        .boxed()
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
