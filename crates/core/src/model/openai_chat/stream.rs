//! OpenAI chat-completion stream chunks as Gemini response chunks: text and
//! reasoning deltas pass through at once; tool calls are assembled from
//! their pieces (by `index`) and given out whole when the choice finishes;
//! the usage-only final chunk becomes `usageMetadata`.

use crate::model::error::ModelError;
use crate::model::logprobs;
use crate::model::wire::{StreamTranslator, chunk};
use gemini_rs_protocol::{FunctionCall, GenerateContentResponse, Part, UsageMetadata};
use serde_json::Value;

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
    fn add_call_piece(&mut self, piece: &Value) {
        let index = piece.get("index").and_then(Value::as_u64).unwrap_or(0);
        let at = match self.calls.iter().position(|(i, _)| *i == index) {
            Some(at) => at,
            None => {
                self.calls.push((index, PendingCall::default()));
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[at].1;
        if let Some(id) = piece.get("id").and_then(Value::as_str)
            && call.id.is_empty()
        {
            call.id = id.to_string();
        }
        let function = piece.get("function");
        // Some servers repeat the name on every piece; it is never split.
        if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str)
            && call.name.is_empty()
        {
            call.name = name.to_string();
        }
        if let Some(args) = function
            .and_then(|f| f.get("arguments"))
            .and_then(Value::as_str)
        {
            call.arguments.push_str(args);
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
fn usage(usage: &Value) -> UsageMetadata {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64);
    UsageMetadata {
        prompt_token_count: n(usage.get("prompt_tokens")),
        candidates_token_count: n(usage.get("completion_tokens")),
        total_token_count: n(usage.get("total_tokens")),
        cached_content_token_count: n(usage.pointer("/prompt_tokens_details/cached_tokens")),
        thoughts_token_count: n(usage.pointer("/completion_tokens_details/reasoning_tokens")),
        ..UsageMetadata::default()
    }
}

impl StreamTranslator for OpenAiTranslator {
    fn push(&mut self, event: &Value) -> Result<Vec<GenerateContentResponse>, ModelError> {
        if let Some(err) = event.get("error").filter(|e| !e.is_null()) {
            let message = err
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("an error was reported inside the response stream");
            let status = err
                .get("code")
                .and_then(Value::as_u64)
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or(500);
            return Err(ModelError::Provider {
                provider: "The OpenAI-compatible API".to_string(),
                status,
                message: message.to_string(),
            });
        }
        let mut out = Vec::new();
        for choice in event
            .get("choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let delta = choice.get("delta").or_else(|| choice.get("message"));
            if let Some(delta) = delta {
                let thought = ["reasoning_content", "reasoning"]
                    .iter()
                    .find_map(|k| delta.get(*k).and_then(Value::as_str))
                    .filter(|t| !t.is_empty());
                if let Some(thought) = thought {
                    let part = Part {
                        text: Some(thought.to_string()),
                        thought: Some(true),
                        ..Part::default()
                    };
                    out.push(chunk(vec![part], None));
                }
                if let Some(text) = delta.get("content").and_then(Value::as_str)
                    && !text.is_empty()
                {
                    out.push(chunk(vec![Part::text(text)], None));
                }
                for piece in delta
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    self.add_call_piece(piece);
                }
            }
            if let Some((result, prompt_ids)) = logprobs::from_openai_choice(event, choice) {
                let mut with = chunk(Vec::new(), None);
                if let Some(c) = with.candidates.as_mut().and_then(|c| c.first_mut()) {
                    c.extra.insert("logprobsResult".into(), result);
                    if let Some(ids) = prompt_ids {
                        c.extra.insert("promptTokenIds".into(), ids);
                    }
                }
                out.push(with);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finished = true;
                out.push(chunk(self.take_calls(), Some(finish_reason(reason))));
            }
        }
        if let Some(u) = event.get("usage").filter(|u| u.is_object()) {
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
