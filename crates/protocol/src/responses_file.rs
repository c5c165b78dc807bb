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
}

impl RecordedMethod {
    /// The name used in the file and in error texts.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordedMethod::GenerateContentStream => "generateContentStream",
            RecordedMethod::GenerateContent => "generateContent",
            RecordedMethod::CountTokens => "countTokens",
            RecordedMethod::EmbedContent => "embedContent",
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
}

impl RecordedResponse {
    /// Which method this line answers.
    pub fn method(&self) -> RecordedMethod {
        match self {
            RecordedResponse::GenerateContentStream(_) => RecordedMethod::GenerateContentStream,
            RecordedResponse::GenerateContent(_) => RecordedMethod::GenerateContent,
            RecordedResponse::CountTokens(_) => RecordedMethod::CountTokens,
            RecordedResponse::EmbedContent(_) => RecordedMethod::EmbedContent,
        }
    }
}
