//! OpenAI chat-completion stream chunks as Gemini response chunks: text and
//! reasoning deltas pass through at once; tool calls are assembled from
//! their pieces (by `index`) and given out whole when the choice finishes;
//! the usage-only final chunk becomes `usageMetadata`.

use crate::model::error::ModelError;
use crate::model::logprobs;
use crate::model::wire::{SseEvent, StreamTranslator, chunk};
use gemini_rs_protocol::{FunctionCall, GenerateContentResponse, Part, UsageMetadata};
use serde::Deserialize;
use serde_json::Value;

/// One chunk of the stream, as far as it is read. Leaves stay `Value`s
/// read with `as_str`/`as_u64`: servers differ in what they put there
/// (`null`, a number for a string), and an odd leaf is passed over, as
/// before, rather than failing the chunk.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireChunk {
    error: Option<WireError>,
    choices: Option<Vec<WireChoice>>,
    usage: Option<WireUsage>,
    /// The prompt's token ids (vLLM), read by [`logprobs`].
    prompt_token_ids: Value,
}

/// An error reported inside the stream.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireError {
    message: Value,
    code: Value,
}

/// One choice: its delta (`message` from servers that send whole
/// messages) and its finish reason.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireChoice {
    delta: Option<WireDelta>,
    message: Option<WireDelta>,
    finish_reason: Value,
    /// Token logprobs, ids and prompt ids, read leniently by [`logprobs`].
    logprobs: Value,
    token_ids: Value,
    prompt_token_ids: Value,
}

/// What a delta adds: reasoning, text and pieces of tool calls.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireDelta {
    reasoning_content: Value,
    reasoning: Value,
    content: Value,
    tool_calls: Option<Vec<WireCallPiece>>,
}

/// A piece of a tool call, by its `index`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireCallPiece {
    index: Value,
    id: Value,
    function: Option<WireFunction>,
}

/// The call's name (whole) and a piece of its arguments' text.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireFunction {
    name: Value,
    arguments: Value,
}

/// The usage of the final chunk.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireUsage {
    prompt_tokens: Value,
    completion_tokens: Value,
    total_tokens: Value,
    prompt_tokens_details: Option<WireTokenDetails>,
    completion_tokens_details: Option<WireTokenDetails>,
}

/// The breakdown of a usage count.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct WireTokenDetails {
    cached_tokens: Value,
    reasoning_tokens: Value,
}

/// One tool call while its pieces arrive.
#[derive(Debug, Default)]
struct PendingCall {
    id: String,
    name: String,
    arguments: String,
}

/// The translator's state for one stream.
#[derive(Debug, Default)]
pub struct OpenAiTranslator {
    /// Calls by their `index`, in order of first appearance.
    calls: Vec<(u64, PendingCall)>,
    /// Set once the choice reported its finish reason.
    finished: bool,
    /// Set once `[DONE]` arrived.
    done: bool,
}

impl OpenAiTranslator {
    /// The assembled calls as function-call parts; empty arguments are
    /// `{}`, arguments that are not JSON stay the raw text (a string), for
    /// the tool call to answer the model with what was wrong.
    fn take_calls(&mut self) -> Vec<Part> {
        std::mem::take(&mut self.calls)
            .into_iter()
            .map(|(_, call)| Part {
                function_call: Some(FunctionCall {
                    id: (!call.id.is_empty()).then_some(call.id),
                    args: Some(call_args(call.arguments)),
                    name: call.name,
                    ..FunctionCall::default()
                }),
                ..Part::default()
            })
            .collect()
    }

    /// Adds one `tool_calls` delta entry.
    fn add_call_piece(&mut self, piece: &WireCallPiece) {
        let index = piece.index.as_u64().unwrap_or(0);
        let at = match self.calls.iter().position(|(i, _)| *i == index) {
            Some(at) => at,
            None => {
                self.calls.push((index, PendingCall::default()));
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[at].1;
        if let Some(id) = piece.id.as_str()
            && call.id.is_empty()
        {
            call.id = id.to_string();
        }
        let Some(function) = &piece.function else {
            return;
        };
        // Some servers repeat the name on every piece; it is never split.
        if let Some(name) = function.name.as_str()
            && call.name.is_empty()
        {
            call.name = name.to_string();
        }
        if let Some(args) = function.arguments.as_str() {
            call.arguments.push_str(args);
        }
    }
}

impl OpenAiTranslator {
    /// A delta's reasoning and text as chunks at once; its call pieces kept.
    fn take_delta(&mut self, delta: &WireDelta, out: &mut Vec<GenerateContentResponse>) {
        let thought = [&delta.reasoning_content, &delta.reasoning]
            .into_iter()
            .find_map(Value::as_str)
            .filter(|t| !t.is_empty());
        if let Some(thought) = thought {
            let part = Part {
                text: Some(thought.to_string()),
                thought: Some(true),
                ..Part::default()
            };
            out.push(chunk(vec![part], None));
        }
        if let Some(text) = delta.content.as_str()
            && !text.is_empty()
        {
            out.push(chunk(vec![Part::text(text)], None));
        }
        for piece in delta.tool_calls.iter().flatten() {
            self.add_call_piece(piece);
        }
    }
}

/// The arguments of a call: `{}` when empty, the parsed JSON, or the raw
/// text when it does not parse.
pub(crate) fn call_args(text: String) -> Value {
    if text.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    }
}

/// Gemini's finish reason for an OpenAI one.
fn finish_reason(reason: &str) -> &'static str {
    match reason {
        "length" => "MAX_TOKENS",
        "content_filter" => "SAFETY",
        _ => "STOP",
    }
}

/// `usage` as `usageMetadata`.
fn usage(usage: &WireUsage) -> UsageMetadata {
    UsageMetadata {
        prompt_token_count: usage.prompt_tokens.as_u64(),
        candidates_token_count: usage.completion_tokens.as_u64(),
        total_token_count: usage.total_tokens.as_u64(),
        cached_content_token_count: usage
            .prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens.as_u64()),
        thoughts_token_count: usage
            .completion_tokens_details
            .as_ref()
            .and_then(|d| d.reasoning_tokens.as_u64()),
        ..UsageMetadata::default()
    }
}

impl StreamTranslator for OpenAiTranslator {
    fn push(&mut self, raw: &SseEvent) -> Result<Vec<GenerateContentResponse>, ModelError> {
        let event = match serde_json::from_str::<WireChunk>(&raw.data) {
            Ok(event) => event,
            Err(e) if e.is_data() => {
                // Not a chunk's shape (a keep-alive object, say): nothing in it.
                tracing::debug!("an OpenAI stream event passed over: {e}");
                return Ok(Vec::new());
            }
            Err(e) => return Err(raw.malformed(&e)),
        };
        if let Some(err) = &event.error {
            let message = err
                .message
                .as_str()
                .unwrap_or("an error was reported inside the response stream");
            let status = err
                .code
                .as_u64()
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or(500);
            return Err(ModelError::Provider {
                provider: "The OpenAI-compatible API".to_string(),
                status,
                message: message.to_string(),
            });
        }
        let mut out = Vec::new();
        for choice in event.choices.iter().flatten() {
            if let Some(delta) = choice.delta.as_ref().or(choice.message.as_ref()) {
                self.take_delta(delta, &mut out);
            }
            if let Some((result, prompt_ids)) = logprobs::from_openai_choice(
                &choice.logprobs,
                &choice.token_ids,
                [&choice.prompt_token_ids, &event.prompt_token_ids],
            ) {
                let mut with = chunk(Vec::new(), None);
                if let Some(c) = with.candidates.as_mut().and_then(|c| c.first_mut()) {
                    c.extra.insert("logprobsResult".into(), result);
                    if let Some(ids) = prompt_ids {
                        c.extra.insert("promptTokenIds".into(), ids);
                    }
                }
                out.push(with);
            }
            if let Some(reason) = choice.finish_reason.as_str() {
                self.finished = true;
                out.push(chunk(self.take_calls(), Some(finish_reason(reason))));
            }
        }
        if let Some(u) = &event.usage {
            out.push(GenerateContentResponse {
                usage_metadata: Some(usage(u)),
                ..GenerateContentResponse::default()
            });
        }
        Ok(out)
    }

    fn done(&mut self) {
        self.done = true;
    }

    fn finish(&mut self) -> Result<Vec<GenerateContentResponse>, ModelError> {
        if self.finished {
            return Ok(Vec::new());
        }
        if !self.done {
            return Err(ModelError::Incomplete {
                marker: "a finish_reason or data: [DONE]".to_string(),
            });
        }
        // `[DONE]` without a finish reason: what arrived counts.
        let calls = self.take_calls();
        Ok(vec![chunk(calls, Some("STOP"))])
    }
}
