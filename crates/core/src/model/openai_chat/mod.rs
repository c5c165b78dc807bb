//! OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM,
//! LM Studio, OpenRouter, LiteLLM): `POST {base}/chat/completions` with
//! `stream: true`, translated to and from Gemini contents at this edge.

mod request;
mod stream;

use super::error::{Failure, ModelError};
use super::http::{cancellable, http_client, send, with_retry};
use super::wire::{self, EventRecorder, WireConfig, provider_failure, sse_events, translate};
use super::{ChunkStream, ContentGenerator};
use futures::FutureExt;
use futures::future::BoxFuture;
use gemini_rs_protocol::{
    CountTokensRequest, CountTokensResponse, GenerateContentRequest, GenerateContentResponse,
    RecordedResponse,
};
use serde_json::Value;
use stream::OpenAiTranslator;
use tokio_util::sync::CancellationToken;

/// A [`ContentGenerator`] speaking OpenAI chat completions.
pub struct OpenAiChatClient {
    http: reqwest::Client,
    config: WireConfig,
    label: String,
}

impl OpenAiChatClient {
    /// Builds the HTTP client once.
    pub fn new(config: WireConfig) -> Result<OpenAiChatClient, ModelError> {
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
