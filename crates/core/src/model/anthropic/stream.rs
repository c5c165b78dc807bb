//! Anthropic Messages stream events as Gemini response chunks: text and
//! thinking deltas pass through at once; a thinking block's signature
//! comes as an empty signed thought when the block stops (so history keeps
//! it for the next request); `tool_use` input is assembled from its JSON
//! pieces and given out when its block stops; usage and the stop reason
//! come with `message_delta`.

use crate::model::error::ModelError;
use crate::model::openai_chat::call_args;
use crate::model::wire::{SseEvent, StreamTranslator, chunk};
use gemini_rs_protocol::{FunctionCall, GenerateContentResponse, Part, UsageMetadata};
use serde::Deserialize;

/// One stream event, parsed once: every event kind's fields, each absent
/// from the kinds that do not carry it. `type` falls back to the SSE
/// event's name.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Event {
    #[serde(rename = "type")]
    kind: Option<String>,
    index: u64,
    /// `message_start`'s message (its usage).
    message: Option<StartMessage>,
    /// `content_block_start`'s block.
    content_block: Option<BlockStart>,
    /// `content_block_delta`'s and `message_delta`'s delta.
    delta: Option<Delta>,
    /// `message_delta`'s usage.
    usage: Option<Usage>,
    /// An `error` event's error.
    error: Option<ErrorBody>,
}

/// `message_start`'s message.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct StartMessage {
    usage: Usage,
}

/// Token counts (cache reads and writes apart from `input_tokens`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Usage {
    input_tokens: Option<u64>,
    cache_read_input_tokens: Option<u64>,
    cache_creation_input_tokens: Option<u64>,
    output_tokens: Option<u64>,
}

/// A block as it starts.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct BlockStart {
    #[serde(rename = "type")]
    kind: String,
    id: String,
    name: String,
    signature: String,
    data: String,
    text: String,
}

/// What a delta adds (`content_block_delta`) or ends with (`message_delta`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Delta {
    #[serde(rename = "type")]
    kind: String,
    text: String,
    thinking: String,
    signature: String,
    partial_json: String,
    stop_reason: Option<String>,
}

/// An error reported inside the stream.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ErrorBody {
    #[serde(rename = "type")]
    kind: Option<String>,
    message: Option<String>,
}

/// A content block while it streams.
#[derive(Debug)]
enum Block {
    Text,
    Thinking {
        signature: String,
    },
    Redacted {
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        json: String,
    },
}

/// The translator's state for one stream.
#[derive(Debug, Default)]
pub struct AnthropicTranslator {
    blocks: Vec<(u64, Block)>,
    /// Input tokens from `message_start` (cache reads and writes included).
    input_tokens: u64,
    cached_tokens: u64,
    output_tokens: u64,
    /// Set once `message_stop` arrived.
    stopped: bool,
}

/// Gemini's finish reason for a `stop_reason`.
fn finish_reason(reason: &str) -> &'static str {
    match reason {
        "max_tokens" => "MAX_TOKENS",
        "refusal" => "SAFETY",
        _ => "STOP",
    }
}

impl AnthropicTranslator {
    fn usage(&self) -> GenerateContentResponse {
        GenerateContentResponse {
            usage_metadata: Some(UsageMetadata {
                prompt_token_count: Some(self.input_tokens),
                candidates_token_count: Some(self.output_tokens),
                total_token_count: Some(self.input_tokens + self.output_tokens),
                cached_content_token_count: Some(self.cached_tokens),
                ..UsageMetadata::default()
            }),
            ..GenerateContentResponse::default()
        }
    }

    fn block_mut(&mut self, index: u64) -> Option<&mut Block> {
        self.blocks
            .iter_mut()
            .find(|(i, _)| *i == index)
            .map(|(_, b)| b)
    }

    /// The part a finished block leaves, if any.
    fn stop_block(&mut self, index: u64) -> Option<Part> {
        let at = self.blocks.iter().position(|(i, _)| *i == index)?;
        let (_, block) = self.blocks.remove(at);
        match block {
            Block::Text => None,
            Block::Thinking { signature } => (!signature.is_empty()).then(|| Part {
                text: Some(String::new()),
                thought: Some(true),
                thought_signature: Some(signature),
                ..Part::default()
            }),
            Block::Redacted { data } => Some(Part {
                thought: Some(true),
                thought_signature: Some(data),
                ..Part::default()
            }),
            Block::ToolUse { id, name, json } => {
                // Input that is not JSON stays text: the tool call answers
                // the model with what was wrong.
                Some(Part {
                    function_call: Some(FunctionCall {
                        id: Some(id),
                        name,
                        args: Some(call_args(json)),
                        ..FunctionCall::default()
                    }),
                    ..Part::default()
                })
            }
        }
    }
}

impl AnthropicTranslator {
    /// `message_start`: the prompt's tokens, cache reads and writes included.
    fn start(&mut self, usage: &Usage) {
        let read = usage.cache_read_input_tokens.unwrap_or(0);
        let written = usage.cache_creation_input_tokens.unwrap_or(0);
        self.input_tokens = usage.input_tokens.unwrap_or(0) + read + written;
        self.cached_tokens = read;
        self.output_tokens = usage.output_tokens.unwrap_or(0);
    }

    /// `content_block_start`: the block kept, its first text given out.
    fn start_block(
        &mut self,
        index: u64,
        block: BlockStart,
        out: &mut Vec<GenerateContentResponse>,
    ) {
        if !block.text.is_empty() {
            out.push(chunk(vec![Part::text(block.text)], None));
        }
        let started = match block.kind.as_str() {
            "tool_use" => Block::ToolUse {
                id: block.id,
                name: block.name,
                json: String::new(),
            },
            "thinking" => Block::Thinking {
                signature: block.signature,
            },
            "redacted_thinking" => Block::Redacted { data: block.data },
            _ => Block::Text,
        };
        self.blocks.push((index, started));
    }

    /// `content_block_delta`: text and thinking given out, signatures and
    /// call input kept with their block.
    fn delta(&mut self, index: u64, delta: Delta, out: &mut Vec<GenerateContentResponse>) {
        match delta.kind.as_str() {
            "text_delta" if !delta.text.is_empty() => {
                out.push(chunk(vec![Part::text(delta.text)], None));
            }
            "thinking_delta" if !delta.thinking.is_empty() => {
                let part = Part {
                    text: Some(delta.thinking),
                    thought: Some(true),
                    ..Part::default()
                };
                out.push(chunk(vec![part], None));
            }
            "signature_delta" => {
                if let Some(Block::Thinking { signature }) = self.block_mut(index) {
                    signature.push_str(&delta.signature);
                }
            }
            "input_json_delta" => {
                if let Some(Block::ToolUse { json, .. }) = self.block_mut(index) {
                    json.push_str(&delta.partial_json);
                }
            }
            _ => {}
        }
    }
}

/// An `error` event as the provider's error, with the status its type
/// stands for.
fn stream_error(err: ErrorBody) -> ModelError {
    let kind = err.kind.unwrap_or_else(|| "error".to_string());
    let message = err
        .message
        .unwrap_or_else(|| "an error was reported inside the response stream".to_string());
    let status = match kind.as_str() {
        "overloaded_error" => 529,
        "rate_limit_error" => 429,
        "invalid_request_error" => 400,
        _ => 500,
    };
    ModelError::Provider {
        provider: "The Anthropic API".to_string(),
        status,
        message: format!("{message} ({kind})"),
    }
}

impl StreamTranslator for AnthropicTranslator {
    fn push(&mut self, raw: &SseEvent) -> Result<Vec<GenerateContentResponse>, ModelError> {
        let event: Event = raw.parse()?;
        let kind = event.kind.as_deref().unwrap_or(&raw.name);
        let mut out = Vec::new();
        match kind {
            "message_start" => self.start(&event.message.unwrap_or_default().usage),
            "content_block_start" => {
                let block = event.content_block.unwrap_or_default();
                self.start_block(event.index, block, &mut out);
            }
            "content_block_delta" => {
                self.delta(event.index, event.delta.unwrap_or_default(), &mut out);
            }
            "content_block_stop" => {
                if let Some(part) = self.stop_block(event.index) {
                    out.push(chunk(vec![part], None));
                }
            }
            "message_delta" => {
                if let Some(n) = event.usage.and_then(|u| u.output_tokens) {
                    self.output_tokens = n;
                }
                let reason = event.delta.and_then(|d| d.stop_reason);
                let reason = reason.as_deref().unwrap_or("end_turn");
                out.push(chunk(Vec::new(), Some(finish_reason(reason))));
                out.push(self.usage());
            }
            "message_stop" => self.stopped = true,
            "error" => return Err(stream_error(event.error.unwrap_or_default())),
            _ => {}
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<GenerateContentResponse>, ModelError> {
        let open: Vec<u64> = self.blocks.iter().map(|(i, _)| *i).collect();
        let mut parts = Vec::new();
        for index in open {
            parts.extend(self.stop_block(index));
        }
        if self.stopped {
            return Ok(if parts.is_empty() {
                Vec::new()
            } else {
                vec![chunk(parts, None)]
            });
        }
        Err(ModelError::Incomplete {
            marker: "its message_stop event".to_string(),
        })
    }
}
