//! The client every non-Gemini wire uses: what differs between wires (the
//! URL, how the key is sent, the body, the stream translator, the recorded
//! method) is a [`WireSpec`]; opening the stream with retries, recording,
//! one-shot calls and token estimates are written once here.

use super::error::{Failure, ModelError};
use super::http::{cancellable, http_client, send, with_retry};
use super::limits::bounded;
use super::wire::{
    self, EventRecorder, StreamTranslator, WireConfig, provider_failure, sse_events, translate,
};
use super::{ChunkStream, ContentGenerator};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse, RecordedResponse};
use serde_json::Value;
use std::marker::PhantomData;
use tokio_util::sync::CancellationToken;

/// What one wire does differently.
pub trait WireSpec: Send + Sync + 'static {
    /// Turns the wire's stream events into Gemini chunks.
    type Translator: StreamTranslator + Default;
    /// The API's name in error messages (followed by its URL).
    const NAME: &'static str;
    /// The streaming endpoint under `base`.
    fn url(base: &str) -> String;
    /// The request with the key (when there is one) and the wire's fixed
    /// headers.
    fn authorize(request: reqwest::RequestBuilder, key: Option<&str>) -> reqwest::RequestBuilder;
    /// The body of a streamed request for `model`.
    fn body(model: &str, request: &GenerateContentRequest, max_output_tokens: Option<u64>)
    -> Value;
    /// The output limit when neither the request nor settings set one.
    fn default_max_output(model: &str) -> Option<u64>;
    /// The recorded line of a stream's events.
    fn recorded(events: Vec<Value>) -> RecordedResponse;
    /// For a stream that ended without one event: the body of the same
    /// request unstreamed, when the wire has that form.
    fn unstreamed(_body: &Value) -> Option<Value> {
        None
    }
    /// An unstreamed answer as the one stream event it amounts to.
    fn as_event(_answer: Value) -> Option<Value> {
        None
    }
}

/// A [`ContentGenerator`] speaking the wire `W`.
pub struct WireClient<W> {
    http: reqwest::Client,
    config: WireConfig,
    label: String,
    wire: PhantomData<W>,
}

impl<W: WireSpec> WireClient<W> {
    /// Builds the HTTP client once.
    pub fn new(config: WireConfig) -> Result<Self, ModelError> {
        let connect = config.transport.connect_timeout_for(&config.base_url);
        let http = http_client(None, connect)?;
        let label = format!("{} at {}", W::NAME, config.base_url.trim_end_matches('/'));
        Ok(WireClient {
            http,
            config,
            label,
            wire: PhantomData,
        })
    }

    /// Opens one stream: the POST and its status.
    async fn open(&self, body: &Value, model: &str) -> Result<reqwest::Response, Failure> {
        let url = W::url(self.config.base_url.trim_end_matches('/'));
        let mut request = W::authorize(self.http.post(&url), self.config.api_key.as_deref());
        for (name, value) in &self.config.headers {
            request = request.header(name, value);
        }
        let key_env = self.config.api_key_env.as_deref();
        send(
            request.json(body),
            &url,
            &self.config.transport,
            |status, text, hint| provider_failure(&self.label, key_env, model, status, text, hint),
        )
        .await
    }
}

impl<W: WireSpec> WireClient<W> {
    /// Sends `body` (unstreamed) and yields its answer as one event.
    async fn unstreamed(
        &self,
        body: &Value,
        model: &str,
        cancel: &CancellationToken,
    ) -> Result<futures::stream::BoxStream<'static, Result<wire::Sse, ModelError>>, ModelError>
    {
        // The first try may meet the connection the server closed: the
        // second (on a fresh one) and later ones are retries as usual.
        let response = match self.open(body, model).await {
            Ok(response) => response,
            Err(_) => {
                with_retry(
                    &self.config.retry,
                    &self.config.transport,
                    (model, cancel),
                    || self.open(body, model),
                )
                .await?
            }
        };
        let text = response
            .text()
            .await
            .map_err(|e| ModelError::MalformedChunk {
                message: e.to_string(),
                snippet: String::new(),
            })?;
        let answer: Value =
            serde_json::from_str(&text).map_err(|e| ModelError::MalformedChunk {
                message: e.to_string(),
                snippet: text.chars().take(200).collect(),
            })?;
        let events: Vec<Result<wire::Sse, ModelError>> = W::as_event(answer)
            .map(|event| wire::Sse::Event(wire::SseEvent::from_value(&event)))
            .into_iter()
            .chain([wire::Sse::Done])
            .map(Ok)
            .collect();
        Ok(futures::stream::iter(events).boxed())
    }
}

/// A recorded stream of wire `W` replayed through its translator.
pub(crate) fn replay<W: WireSpec>(events: Vec<Value>) -> ChunkStream {
    wire::replay(events, W::Translator::default())
}

impl<W: WireSpec> ContentGenerator for WireClient<W> {
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
                .or_else(|| W::default_max_output(model));
            let body = W::body(model, request, max);
            let response = with_retry(
                &self.config.retry,
                &self.config.transport,
                (model, &cancel),
                || self.open(&body, model),
            )
            .await?;
            let record = self.config.recorder.clone().map(|sink| EventRecorder {
                sink,
                line: W::recorded,
            });
            let mut events = sse_events(bounded(
                response.bytes_stream(),
                &self.config.transport,
                true,
            ));
            // A server may end a stream it cannot make without a word
            // (llama-cpp-python's automatic tool choice): ask unstreamed.
            let first = tokio::select! {
                first = events.next() => first,
                _ = cancel.cancelled() => None,
            };
            let events = match (first, W::unstreamed(&body)) {
                (None, Some(unstreamed)) if !cancel.is_cancelled() => {
                    self.unstreamed(&unstreamed, model, &cancel).await?
                }
                (first, _) => futures::stream::iter(first).chain(events).boxed(),
            };
            Ok(cancellable(
                translate(events, W::Translator::default(), record),
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
}
