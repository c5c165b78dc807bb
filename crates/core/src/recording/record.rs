//! The JSON shape of a recorded session (Gemini CLI's `ConversationRecord`).
//! Fields we do not model are kept, so a file written by Gemini CLI
//! survives being resumed and rewritten.

use gemini_rs_protocol::Extra;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One session file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversationRecord {
    /// The session id (uuid).
    pub session_id: String,
    /// SHA-256 of the project root.
    #[serde(default)]
    pub project_hash: String,
    /// ISO start time.
    #[serde(default)]
    pub start_time: String,
    /// ISO time of the last message.
    #[serde(default)]
    pub last_updated: String,
    /// The messages, in order.
    #[serde(default)]
    pub messages: Vec<MessageRecord>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// The session-level fields a file may carry beyond the modelled ones
/// (kept in [`ConversationRecord::extra`] so their place in the file
/// stays); one of another type reads as absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RecordMeta {
    /// `main` or `subagent`.
    #[serde(deserialize_with = "crate::config::lenient::wrong_type_as_none")]
    pub kind: Option<String>,
    /// The summary Gemini CLI writes for `/resume`'s list.
    #[serde(deserialize_with = "crate::config::lenient::wrong_type_as_none")]
    pub summary: Option<String>,
}

impl ConversationRecord {
    /// The session-level fields of [`RecordMeta`].
    pub fn meta(&self) -> RecordMeta {
        RecordMeta::deserialize(&self.extra).unwrap_or_default()
    }
}

/// One message: `user`, `gemini`, `info`, `warning` or `error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRecord {
    /// Message id (uuid).
    pub id: String,
    /// ISO time.
    pub timestamp: String,
    /// The kind.
    #[serde(rename = "type")]
    pub kind: String,
    /// Text, or the user's parts.
    pub content: Value,
    /// Tool calls of a model turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCallRecord>>,
    /// Unmodelled fields (thoughts, tokens, model, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

#[cfg(test)]
impl MessageRecord {
    /// A new message stamped now.
    pub fn new(kind: &str, content: Value) -> Self {
        MessageRecord {
            id: uuid::Uuid::new_v4().to_string(),
            timestamp: chrono::Utc::now()
                .format("%Y-%m-%dT%H:%M:%S%.3fZ")
                .to_string(),
            kind: kind.to_string(),
            content,
            tool_calls: None,
            extra: Extra::new(),
        }
    }
}

/// One tool call of a model turn and its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    /// The call id.
    pub id: String,
    /// The name as called.
    pub name: String,
    /// The arguments as sent.
    #[serde(default)]
    pub args: Value,
    /// The functionResponse parts sent back.
    #[serde(default)]
    pub result: Value,
    /// `success`, `error` or `cancelled`.
    #[serde(default)]
    pub status: String,
    /// ISO time.
    #[serde(default)]
    pub timestamp: String,
    /// What the user was shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_display: Option<Value>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What a model message records beyond its text and calls (Gemini CLI's
/// `thoughts`, `tokens`, `model` and gemini-rs' `logprobs`), each field
/// read on its own: one of another shape reads as absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct ModelFields {
    /// The thoughts.
    #[serde(deserialize_with = "lenient")]
    pub thoughts: Option<Vec<RecordedThought>>,
    /// The token counts.
    #[serde(deserialize_with = "lenient")]
    pub tokens: Option<RecordedTokens>,
    /// The model that answered.
    #[serde(deserialize_with = "lenient")]
    pub model: Option<String>,
    /// The answer's logprobs and token ids.
    #[serde(deserialize_with = "lenient")]
    pub logprobs: Option<RecordedLogprobs>,
}

/// One recorded thought.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RecordedThought {
    /// Its `**subject**`.
    pub subject: String,
    /// The rest.
    pub description: String,
}

/// A model message's token counts.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct RecordedTokens {
    /// Prompt tokens.
    #[serde(deserialize_with = "lenient")]
    pub input: Option<u64>,
    /// Answer tokens.
    #[serde(deserialize_with = "lenient")]
    pub output: Option<u64>,
    /// Cached prompt tokens.
    #[serde(deserialize_with = "lenient")]
    pub cached: Option<u64>,
    /// Thinking tokens.
    #[serde(deserialize_with = "lenient")]
    pub thoughts: Option<u64>,
    /// Tool-use prompt tokens.
    #[serde(deserialize_with = "lenient")]
    pub tool: Option<u64>,
}

/// A model message's `logprobs` (see `model::logprobs`).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RecordedLogprobs {
    /// The answer's tokens as text.
    #[serde(deserialize_with = "lenient")]
    pub tokens: Option<Vec<Value>>,
    /// The answer's token ids.
    #[serde(deserialize_with = "lenient")]
    pub token_ids: Option<Vec<i64>>,
    /// Each token's logprob.
    #[serde(deserialize_with = "lenient")]
    pub logprobs: Option<Vec<f64>>,
    /// The prompt's token ids.
    #[serde(deserialize_with = "lenient")]
    pub prompt_token_ids: Option<Vec<i64>>,
}

/// A field read as `T`, or absent when it has another shape.
fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    Ok(serde_json::from_value(Value::deserialize(d)?).ok())
}

impl MessageRecord {
    /// The model fields of this message (all absent on other kinds).
    pub fn model_fields(&self) -> ModelFields {
        ModelFields::deserialize(&self.extra).unwrap_or_default()
    }
}
