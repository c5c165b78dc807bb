//! The shape every non-Gemini wire shares: SSE events parsed to JSON, a
//! translator turning them into Gemini response chunks, the raw events
//! recorded (`--record-responses`) and replayed through the same
//! translator (`--fake-responses`), and a whole answer collected from a
//! stream for one-shot calls.

use super::error::{Failure, ModelError, snippet};
use super::{ChunkStream, ResponseSink};
use bytes::Bytes;
use eventsource_stream::{EventStreamError, Eventsource};
use futures::stream::{BoxStream, Stream, StreamExt};
use gemini_rs_protocol::{
    Candidate, Content, GenerateContentResponse, Part, RecordedResponse, UsageMetadata,
};
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Arc;

/// Where and how to reach one non-Gemini API (an OpenAI-compatible server
/// or the Anthropic API); the URL and the key's header follow the wire.
#[derive(Clone)]
pub struct WireConfig {
    /// The API root: with its version for OpenAI-compatible servers
    /// (`https://api.openai.com/v1`), without for Anthropic.
    pub base_url: String,
    /// The key (`Authorization: Bearer` or `x-api-key`); `None` for
    /// servers without keys.
    pub api_key: Option<String>,
    /// The variable the key came from, named in authentication errors.
    pub api_key_env: Option<String>,
    /// Extra headers for every request.
    pub headers: Vec<(String, String)>,
    /// Retry policy.
    pub retry: super::RetryConfig,
    /// Output-token limits by model (the models' `maxOutputTokens` in
    /// settings), sent when the request sets none.
    pub max_output_tokens: std::collections::BTreeMap<String, u64>,
    /// Where raw stream events are recorded (`--record-responses`).
    pub recorder: Option<Arc<ResponseSink>>,
    /// Timeouts, size caps and the retry notifier.
    pub transport: super::Transport,
}

impl std::fmt::Debug for WireConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WireConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("headers", &self.headers.len())
            .finish()
    }
}

/// Turns one wire's stream events into Gemini response chunks.
pub trait StreamTranslator: Send + 'static {
    /// The chunks one event yields (often none: a tool call still arriving).
    /// The translator parses the event's data into its own typed form.
    fn push(&mut self, event: &SseEvent) -> Result<Vec<GenerateContentResponse>, ModelError>;
    /// The server sent `data: [DONE]`.
    fn done(&mut self) {}
    /// The chunks still held when the stream ends.
    fn finish(&mut self) -> Result<Vec<GenerateContentResponse>, ModelError>;
}

/// One item of an SSE body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Sse {
    /// An event: its name and JSON data, parsed once by the translator.
    Event(SseEvent),
    /// `data: [DONE]`, OpenAI's end marker.
    Done,
}

/// One SSE event as it arrived: the translator of its wire parses `data`
/// straight into its typed form (no `Value` on the way).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SseEvent {
    /// The `event:` name; empty when none was sent (or it was `message`).
    pub name: String,
    /// The event's `data` (JSON text, trimmed).
    pub data: String,
}

impl SseEvent {
    /// An event from its JSON (a recording, an unstreamed answer).
    pub(crate) fn from_value(value: &Value) -> Self {
        SseEvent {
            name: String::new(),
            data: value.to_string(),
        }
    }

    /// The event as JSON for a recording: its name added as `"type"` when
    /// the data lacks one.
    pub(crate) fn to_value(&self) -> Result<Value, ModelError> {
        let mut value: Value = self.parse()?;
        if let Some(obj) = value.as_object_mut()
            && !obj.contains_key("type")
            && !self.name.is_empty()
        {
            obj.insert("type".into(), Value::String(self.name.clone()));
        }
        Ok(value)
    }

    /// The data parsed as `T`; what does not parse is a malformed chunk
    /// naming the start of the data.
    pub(crate) fn parse<'a, T: serde::Deserialize<'a>>(&'a self) -> Result<T, ModelError> {
        serde_json::from_str(&self.data).map_err(|e| self.malformed(&e))
    }

    /// The error for data that did not parse as expected.
    pub(crate) fn malformed(&self, e: &serde_json::Error) -> ModelError {
        ModelError::MalformedChunk {
            message: e.to_string(),
            snippet: snippet(&self.data, 200),
        }
    }
}

/// The events of an SSE body, their data left as text for the translator.
/// Keep-alives are skipped; the stream ends after an error (the byte
/// stream's own errors, e.g. of [`super::limits::bounded`], pass through).
pub(crate) fn sse_events<S>(bytes: S) -> BoxStream<'static, Result<Sse, ModelError>>
where
    S: Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
{
    let events = bytes.eventsource().boxed();
    futures::stream::unfold(Some(events), |state| async move {
        let mut events = state?;
        loop {
            let item = match events.next().await? {
                Ok(event) => {
                    let data = event.data.trim();
                    if data.is_empty() {
                        continue;
                    }
                    if data == "[DONE]" {
                        Ok(Sse::Done)
                    } else {
                        let mut name = event.event;
                        if name == "message" {
                            name.clear();
                        }
                        let data = if data.len() == event.data.len() {
                            event.data
                        } else {
                            data.to_string()
                        };
                        Ok(Sse::Event(SseEvent { name, data }))
                    }
                }
                Err(EventStreamError::Transport(e)) => Err(e),
                Err(e) => Err(ModelError::MalformedChunk {
                    message: "the event stream is not valid SSE".to_string(),
                    snippet: snippet(&e.to_string(), 200),
                }),
            };
            let next = if item.is_ok() { Some(events) } else { None };
            return Some((item, next));
        }
    })
    .boxed()
}

/// Where the raw events of a stream are recorded, and as which method.
pub(crate) struct EventRecorder {
    /// The `--record-responses` file.
    pub sink: Arc<ResponseSink>,
    /// Wraps the events into the line for this wire's method.
    pub line: fn(Vec<Value>) -> RecordedResponse,
}

/// Runs `events` through `translator`. When `record` is given, the events
/// are appended as one line once the stream ends without an error.
pub(crate) fn translate<T: StreamTranslator>(
    events: BoxStream<'static, Result<Sse, ModelError>>,
    translator: T,
    record: Option<EventRecorder>,
) -> ChunkStream {
    struct State<T> {
        events: BoxStream<'static, Result<Sse, ModelError>>,
        translator: T,
        record: Option<(EventRecorder, Vec<Value>)>,
        ready: std::collections::VecDeque<GenerateContentResponse>,
        done: bool,
    }
    let state = State {
        events,
        translator,
        record: record.map(|r| (r, Vec::new())),
        ready: Default::default(),
        done: false,
    };
    futures::stream::unfold(Some(state), |state| async move {
        let mut st = state?;
        loop {
            if let Some(chunk) = st.ready.pop_front() {
                return Some((Ok(chunk), Some(st)));
            }
            if st.done {
                return None;
            }
            match st.events.next().await {
                Some(Ok(Sse::Done)) => st.translator.done(),
                Some(Ok(Sse::Event(event))) => {
                    let pushed = st.translator.push(&event);
                    if let (Ok(_), Some((_, seen))) = (&pushed, &mut st.record) {
                        match event.to_value() {
                            Ok(value) => seen.push(value),
                            Err(e) => return Some((Err(e), None)),
                        }
                    }
                    match pushed {
                        Ok(chunks) => st.ready.extend(chunks),
                        Err(e) => return Some((Err(e), None)),
                    }
                }
                Some(Err(e)) => return Some((Err(e), None)),
                None => {
                    st.done = true;
                    match st.translator.finish() {
                        Ok(chunks) => st.ready.extend(chunks),
                        Err(e) => return Some((Err(e), None)),
                    }
                    if let Some((rec, seen)) = st.record.take() {
                        rec.sink.append(&(rec.line)(seen));
                    }
                }
            }
        }
    })
    .boxed()
}

/// Replays recorded `events` through `translator`; a recording holds only
/// streams that ended well, so it ends as if with `[DONE]`.
pub(crate) fn replay<T: StreamTranslator>(events: Vec<Value>, translator: T) -> ChunkStream {
    let events = events
        .iter()
        .map(|v| Sse::Event(SseEvent::from_value(v)))
        .collect::<Vec<_>>()
        .into_iter()
        .chain([Sse::Done]);
    translate(
        futures::stream::iter(events.map(Ok)).boxed(),
        translator,
        None,
    )
}

/// One whole answer from a stream of chunks: text and thoughts joined,
/// calls in order, the last finish reason and usage.
pub(crate) async fn collect(
    mut stream: ChunkStream,
) -> Result<GenerateContentResponse, ModelError> {
    let mut parts: Vec<Part> = Vec::new();
    let mut finish = None;
    let mut usage: Option<UsageMetadata> = None;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk?;
        if let Some(u) = chunk.usage_metadata {
            usage = Some(u);
        }
        for candidate in chunk.candidates.unwrap_or_default() {
            if candidate.finish_reason.is_some() {
                finish = candidate.finish_reason;
            }
            for part in candidate.content.map(|c| c.parts).unwrap_or_default() {
                match (parts.last_mut(), &part.text) {
                    (Some(last), Some(text))
                        if last.text.is_some()
                            && last.function_call.is_none()
                            && last.thought == part.thought
                            && part.thought_signature.is_none() =>
                    {
                        if let Some(t) = last.text.as_mut() {
                            t.push_str(text);
                        }
                    }
                    _ => parts.push(part),
                }
            }
        }
    }
    Ok(GenerateContentResponse {
        candidates: Some(vec![Candidate {
            content: Some(Content {
                role: Some("model".to_string()),
                parts,
                ..Content::default()
            }),
            finish_reason: finish,
            index: Some(0),
            ..Candidate::default()
        }]),
        usage_metadata: usage,
        ..GenerateContentResponse::default()
    })
}

/// A chunk holding `parts` from the model, with an optional finish reason.
pub(crate) fn chunk(parts: Vec<Part>, finish_reason: Option<&str>) -> GenerateContentResponse {
    GenerateContentResponse {
        candidates: Some(vec![Candidate {
            content: Some(Content {
                role: Some("model".to_string()),
                parts,
                ..Content::default()
            }),
            finish_reason: finish_reason.map(str::to_string),
            index: Some(0),
            ..Candidate::default()
        }]),
        ..GenerateContentResponse::default()
    }
}

/// Ids for calls that arrived without one (a Gemini recording, a resumed
/// session): generated per call, and handed to the responses in order.
#[derive(Debug, Default)]
pub(crate) struct CallIds {
    /// (name, id) of the last assistant turn's calls not answered yet.
    pending: VecDeque<(String, String)>,
}

impl CallIds {
    /// A new assistant turn: earlier calls can no longer be answered.
    pub(crate) fn start_turn(&mut self) {
        self.pending.clear();
    }

    /// The assistant turn calls `name` as `id`.
    pub(crate) fn called(&mut self, name: &str, id: &str) {
        self.pending.push_back((name.to_string(), id.to_string()));
    }

    /// The id a response to `name` (with the id it carries) answers.
    pub(crate) fn answer(&mut self, name: &str, id: Option<&str>) -> String {
        if let Some(id) = id.filter(|id| !id.is_empty())
            && let Some(i) = self.pending.iter().position(|(_, p)| p == id)
        {
            self.pending.remove(i);
            return id.to_string();
        }
        match self.pending.iter().position(|(n, _)| n == name) {
            Some(i) => self.pending.remove(i).map(|(_, id)| id).unwrap_or_default(),
            None => id.map_or_else(|| format!("call_{name}"), str::to_string),
        }
    }
}

/// The message of an error answer's body: `error.message` (OpenAI,
/// Anthropic) or a top-level `message`.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum ErrorBody {
    Nested { error: ErrorMessage },
    Flat(ErrorMessage),
}

/// An error's `message`.
#[derive(serde::Deserialize)]
struct ErrorMessage {
    message: String,
}

impl ErrorBody {
    fn message(self) -> String {
        match self {
            ErrorBody::Nested { error } | ErrorBody::Flat(error) => error.message,
        }
    }
}

/// An HTTP error answer of a non-Gemini API as a [`Failure`]: the API's
/// own message (`error.message` in both OpenAI's and Anthropic's bodies),
/// advice for the statuses a user can fix, context-length errors named.
pub(crate) fn provider_failure(
    provider: &str,
    key_env: Option<&str>,
    model: &str,
    status: u16,
    body: &str,
    hint: Option<std::time::Duration>,
) -> Failure {
    let json: Option<Value> = serde_json::from_str(body).ok();
    let message = serde_json::from_str::<ErrorBody>(body)
        .ok()
        .map(ErrorBody::message)
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| {
            if body.trim().is_empty() {
                "no details".to_string()
            } else {
                snippet(body, 500)
            }
        });
    let error = if (400..500).contains(&status)
        && super::overflow::is_overflow(json.as_ref(), &message)
    {
        let n = super::overflow::numbers(json.as_ref(), &message);
        ModelError::ContextTooLong {
            provider: provider.to_string(),
            message,
            window: n.window,
            needed: n.needed,
        }
    } else {
        let advice = match (status, key_env) {
            (401 | 403, Some(env)) => format!(" Check the API key in {env}."),
            (401 | 403, None) => " The server wants credentials: declare them with apiKeyEnv or headers in model.providers.".to_string(),
            (404, _) => format!(" Check the model name `{model}` (-m, GEMINI_MODEL or model.name)."),
            (429, _) => " The rate limit or quota was exceeded; wait a moment and try again.".to_string(),
            _ => String::new(),
        };
        ModelError::Provider {
            provider: provider.to_string(),
            status,
            message: format!("{message}{advice}"),
        }
    };
    Failure {
        error,
        retry_after: hint,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn named_events_get_their_type() {
        let body = "event: ping\ndata: {}\n\ndata: {\"a\":1}\n\ndata: [DONE]\n\n";
        let bytes = futures::stream::iter([Ok(Bytes::from(body))]);
        let events: Vec<_> = sse_events(bytes).collect().await;
        let events: Vec<Sse> = events.into_iter().map(Result::unwrap).collect();
        let values: Vec<Option<Value>> = events
            .iter()
            .map(|e| match e {
                Sse::Event(e) => Some(e.to_value().unwrap()),
                Sse::Done => None,
            })
            .collect();
        assert_eq!(
            values,
            [
                Some(serde_json::json!({"type": "ping"})),
                Some(serde_json::json!({"a": 1})),
                None
            ]
        );
    }

    #[tokio::test]
    async fn collect_joins_text_and_keeps_calls() {
        let call = Part {
            function_call: Some(gemini_rs_protocol::FunctionCall {
                name: "f".into(),
                ..Default::default()
            }),
            ..Part::default()
        };
        let chunks = vec![
            Ok(chunk(vec![Part::text("a")], None)),
            Ok(chunk(vec![Part::text("b")], None)),
            Ok(chunk(vec![call], Some("STOP"))),
        ];
        let whole = collect(futures::stream::iter(chunks).boxed())
            .await
            .unwrap();
        let candidates = whole.candidates.unwrap();
        let parts = &candidates[0].content.as_ref().unwrap().parts;
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0].text.as_deref(), Some("ab"));
    }
}
