//! Response bodies: `GenerateContentResponse` (also each streamed chunk) and `countTokens`.

use crate::{Content, Extra, FunctionCall};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One `generateContent` answer, or one chunk of a stream.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentResponse {
    /// The candidates (normally one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Candidate>>,
    /// Token usage so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_metadata: Option<UsageMetadata>,
    /// The model that answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_version: Option<String>,
    /// Server-side id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// Set when the prompt itself was blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_feedback: Option<Value>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

impl GenerateContentResponse {
    /// The first candidate, if any.
    pub fn first_candidate(&self) -> Option<&Candidate> {
        self.candidates.as_ref().and_then(|c| c.first())
    }

    /// Concatenated non-thought text of the first candidate.
    pub fn text(&self) -> String {
        self.first_candidate()
            .and_then(|c| c.content.as_ref())
            .map(Content::text)
            .unwrap_or_default()
    }

    /// The function calls of the first candidate, in order.
    pub fn function_calls(&self) -> Vec<&FunctionCall> {
        self.first_candidate()
            .and_then(|c| c.content.as_ref())
            .map(|c| {
                c.parts
                    .iter()
                    .filter_map(|p| p.function_call.as_ref())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// One candidate answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// The produced content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Content>,
    /// Why generation stopped (`STOP`, `MAX_TOKENS`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Candidate index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// Safety ratings, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub safety_ratings: Option<Vec<Value>>,
    /// Search grounding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding_metadata: Option<GroundingMetadata>,
    /// URL-context retrieval results, kept raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_context_metadata: Option<Value>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Token usage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageMetadata {
    /// Prompt tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_token_count: Option<u64>,
    /// Output tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidates_token_count: Option<u64>,
    /// Total tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_token_count: Option<u64>,
    /// Tokens served from cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_content_token_count: Option<u64>,
    /// Thinking tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thoughts_token_count: Option<u64>,
    /// Tool-use prompt tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_use_prompt_token_count: Option<u64>,
    /// Unmodelled fields (per-modality details, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// Search grounding of a candidate.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingMetadata {
    /// The sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding_chunks: Option<Vec<GroundingChunk>>,
    /// Which text spans each source supports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding_supports: Option<Vec<GroundingSupport>>,
    /// The queries the model ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web_search_queries: Option<Vec<String>>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One grounding source.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingChunk {
    /// A web page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub web: Option<GroundingChunkWeb>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A web source.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingChunkWeb {
    /// Page URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
    /// Page title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A span of the answer and the sources supporting it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingSupport {
    /// The span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<GroundingSegment>,
    /// Indices into `groundingChunks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding_chunk_indices: Option<Vec<usize>>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A span of text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroundingSegment {
    /// Start offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_index: Option<usize>,
    /// End offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_index: Option<usize>,
    /// The text of the span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Answer of `countTokens`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CountTokensResponse {
    /// The count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}
