//! Anthropic Messages: `POST {base}/v1/messages` with `stream: true`,
//! `x-api-key` and `anthropic-version`, translated to and from Gemini
//! contents at this edge.

mod request;
mod stream;

use super::error::{Failure, ModelError};
use super::http::{cancellable, http_client, send, with_retry};
use super::provider::known_limits;
use super::wire::{self, EventRecorder, WireConfig, provider_failure, sse_events, translate};
use super::{ChunkStream, ContentGenerator};
use futures::FutureExt;
use futures::future::BoxFuture;
use gemini_rs_protocol::{
    CountTokensRequest, CountTokensResponse, GenerateContentRequest, GenerateContentResponse,
    RecordedResponse,
};
use serde_json::Value;
use stream::AnthropicTranslator;
use tokio_util::sync::CancellationToken;

/// The `anthropic-version` header.
const API_VERSION: &str = "2023-06-01";

/// A [`ContentGenerator`] speaking Anthropic Messages.
pub struct AnthropicClient {
    http: reqwest::Client,
    config: WireConfig,
    label: String,
}

impl AnthropicClient {
    /// Builds the HTTP client once.
    pub fn new(config: WireConfig) -> Result<AnthropicClient, ModelError> {
        let http = http_client(None)?;
        let label = format!(
            "The Anthropic API at {}",
            config.base_url.trim_end_matches('/')
        );
        Ok(AnthropicClient {
            http,
            config,
            label,
        })
    }

    /// Opens one stream: the POST, its status, then the events.
    async fn open(&self, body: &Value, model: &str) -> Result<reqwest::Response, Failure> {
        let url = format!("{}/v1/messages", self.config.base_url.trim_end_matches('/'));
        let mut request = self
            .http
            .post(&url)
            .header("anthropic-version", API_VERSION)
            .json(body);
        if let Some(key) = &self.config.api_key {
            request = request.header("x-api-key", key);
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

/// The recorded line of an Anthropic Messages stream.
fn recorded_line(events: Vec<Value>) -> RecordedResponse {
    RecordedResponse::AnthropicMessagesStream(events)
}

/// A recorded stream replayed through the live translator.
pub(crate) fn replay(events: Vec<Value>) -> ChunkStream {
    wire::replay(events, AnthropicTranslator::default())
}

impl ContentGenerator for AnthropicClient {
    fn generate_stream<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        async move {
            let max = self
                .config
                .max_output_tokens
                .get(model)
                .copied()
                .or_else(|| known_limits(model).max_output_tokens);
            let body = request::body(model, request, max);
            let response =
                with_retry(&self.config.retry, &cancel, || self.open(&body, model)).await?;
            let record = self.config.recorder.clone().map(|sink| EventRecorder {
                sink,
                line: recorded_line,
            });
            let events = sse_events(response.bytes_stream());
            Ok(cancellable(
                translate(events, AnthropicTranslator::default(), record),
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
        // An estimate: the counting endpoint would cost a round trip per turn.
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
