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
