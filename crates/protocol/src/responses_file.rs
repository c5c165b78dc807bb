//! One line of a `--fake-responses` / `--record-responses` JSONL file.

use crate::{CountTokensResponse, GenerateContentResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The model method a recorded line answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RecordedMethod {
    /// A streamed turn.
    GenerateContentStream,
    /// A one-shot call.
    GenerateContent,
    /// A token count.
    CountTokens,
    /// An embedding.
    EmbedContent,
    /// A streamed OpenAI-compatible chat completion (raw stream events).
    #[serde(rename = "openai.chat.completions.stream")]
    OpenAiChatStream,
    /// A streamed Anthropic Messages answer (raw stream events).
    #[serde(rename = "anthropic.messages.stream")]
    AnthropicMessagesStream,
}

impl RecordedMethod {
    /// The name used in the file and in error texts.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordedMethod::GenerateContentStream => "generateContentStream",
            RecordedMethod::GenerateContent => "generateContent",
            RecordedMethod::CountTokens => "countTokens",
            RecordedMethod::EmbedContent => "embedContent",
            RecordedMethod::OpenAiChatStream => "openai.chat.completions.stream",
            RecordedMethod::AnthropicMessagesStream => "anthropic.messages.stream",
        }
    }

    /// Whether this line answers a streamed turn, on any provider's wire.
    pub fn is_stream(self) -> bool {
        match self {
            RecordedMethod::GenerateContentStream
            | RecordedMethod::OpenAiChatStream
            | RecordedMethod::AnthropicMessagesStream => true,
            RecordedMethod::GenerateContent
            | RecordedMethod::CountTokens
            | RecordedMethod::EmbedContent => false,
        }
    }
}

/// One recorded answer: `{"method": ..., "response": ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "method", content = "response", rename_all = "camelCase")]
pub enum RecordedResponse {
    /// The chunks of a stream.
    GenerateContentStream(Vec<GenerateContentResponse>),
    /// One answer.
    GenerateContent(Box<GenerateContentResponse>),
    /// A token count.
    CountTokens(CountTokensResponse),
    /// An embedding, kept raw.
    EmbedContent(Value),
    /// The parsed events of an OpenAI-compatible chat completion stream,
    /// replayed through the same translator as a live stream.
    #[serde(rename = "openai.chat.completions.stream")]
    OpenAiChatStream(Vec<Value>),
    /// The parsed events of an Anthropic Messages stream.
    #[serde(rename = "anthropic.messages.stream")]
    AnthropicMessagesStream(Vec<Value>),
}

impl RecordedResponse {
    /// Which method this line answers.
    pub fn method(&self) -> RecordedMethod {
        match self {
            RecordedResponse::GenerateContentStream(_) => RecordedMethod::GenerateContentStream,
            RecordedResponse::GenerateContent(_) => RecordedMethod::GenerateContent,
            RecordedResponse::CountTokens(_) => RecordedMethod::CountTokens,
            RecordedResponse::EmbedContent(_) => RecordedMethod::EmbedContent,
            RecordedResponse::OpenAiChatStream(_) => RecordedMethod::OpenAiChatStream,
            RecordedResponse::AnthropicMessagesStream(_) => RecordedMethod::AnthropicMessagesStream,
        }
    }
}
