//! A2A 1.0's JSON binding, the parts gemini-rs speaks as a client (remote
//! agents) and as a server (`gemini-rs serve`): the agent card, messages,
//! tasks and the events of a stream. Fields a type does not model are
//! kept in `extra`, so a message survives a round trip.

use crate::Extra;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The task states after which a task takes no more messages.
pub const FINAL_STATES: [&str; 4] = [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
];

/// Whether a task state is final.
pub fn is_final(state: &str) -> bool {
    FINAL_STATES.contains(&state)
}

/// One part of a message or artifact: text, data, a file by URL or raw
/// bytes (base64).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// Text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Structured data (any JSON: its shape is the agent's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    /// A file by URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A file's bytes, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// A file's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// A file's media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part {
            text: Some(text.into()),
            ..Part::default()
        }
    }
}

/// A message from the user (`ROLE_USER`) or the agent (`ROLE_AGENT`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// Its id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// `ROLE_USER` or `ROLE_AGENT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Its parts.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// The context it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// The task it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Everything else (`metadata`, `extensions`, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

impl Message {
    /// Whether the agent sent it.
    pub fn is_agent(&self) -> bool {
        self.role.as_deref() == Some("ROLE_AGENT")
    }

    /// Whether the user sent it.
    pub fn is_user(&self) -> bool {
        self.role.as_deref() == Some("ROLE_USER")
    }
}

/// Where a task is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatus {
    /// `TASK_STATE_SUBMITTED`, `TASK_STATE_WORKING`, ... .
    #[serde(default)]
    pub state: String,
    /// The agent's message with the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// When, as an RFC 3339 timestamp.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl TaskStatus {
    /// Whether the state is final.
    pub fn is_final(&self) -> bool {
        is_final(&self.state)
    }
}

/// An output of a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    /// Its id.
    #[serde(default)]
    pub artifact_id: String,
    /// Its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its parts.
    #[serde(default)]
    pub parts: Vec<Part>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A task: one message's work.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    /// Its id.
    #[serde(default)]
    pub id: String,
    /// Its context.
    #[serde(default)]
    pub context_id: String,
    /// Where it is.
    #[serde(default)]
    pub status: TaskStatus,
    /// Its messages so far.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Message>>,
    /// Its outputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A task's new status.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusUpdate {
    /// The task.
    #[serde(default)]
    pub task_id: String,
    /// Its context.
    #[serde(default)]
    pub context_id: String,
    /// The status.
    #[serde(default)]
    pub status: TaskStatus,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A task's new or grown artifact.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactUpdate {
    /// The task.
    #[serde(default)]
    pub task_id: String,
    /// Its context.
    #[serde(default)]
    pub context_id: String,
    /// The artifact (or its next chunk).
    #[serde(default)]
    pub artifact: Artifact,
    /// Whether the parts add to the artifact's earlier ones.
    #[serde(default)]
    pub append: bool,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// One event of a stream, or the answer to `SendMessage`: exactly one of
/// its fields is set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamResponse {
    /// A task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<Task>,
    /// A message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    /// A status change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_update: Option<StatusUpdate>,
    /// An artifact change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_update: Option<ArtifactUpdate>,
}

/// An agent card: how to reach the agent and what it can do.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCard {
    /// Its endpoints.
    #[serde(default)]
    pub supported_interfaces: Vec<AgentInterface>,
    /// What it can do.
    #[serde(default)]
    pub capabilities: AgentCapabilities,
    /// Everything else (name, skills, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One endpoint of an agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInterface {
    /// Its URL.
    #[serde(default)]
    pub url: String,
    /// `JSONRPC`, `GRPC` or `HTTP+JSON`.
    #[serde(default)]
    pub protocol_binding: String,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

/// What an agent can do.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentCapabilities {
    /// Whether it streams (`SendStreamingMessage`).
    #[serde(default)]
    pub streaming: Option<bool>,
    /// Everything else.
    #[serde(flatten)]
    pub extra: Extra,
}

impl AgentCard {
    /// The URL of its JSON-RPC endpoint.
    pub fn jsonrpc_url(&self) -> Option<&str> {
        self.supported_interfaces
            .iter()
            .find(|i| i.protocol_binding.eq_ignore_ascii_case("JSONRPC"))
            .map(|i| i.url.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stream_event_round_trips_with_unknown_fields() {
        let event = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
            "status": {"state": "TASK_STATE_WORKING", "message": {"messageId": "m",
                "role": "ROLE_AGENT", "parts": [{"text": "hi", "metadata": {"k": 1}}]}},
            "metadata": {"x": true}}});
        let typed: StreamResponse = serde_json::from_value(event.clone()).unwrap();
        let update = typed.status_update.as_ref().unwrap();
        assert!(!update.status.is_final());
        assert!(update.status.message.as_ref().unwrap().is_agent());
        assert_eq!(serde_json::to_value(&typed).unwrap(), event);
    }

    #[test]
    fn a_card_names_its_jsonrpc_endpoint() {
        let card: AgentCard = serde_json::from_value(json!({"name": "a",
            "supportedInterfaces": [{"url": "http://g", "protocolBinding": "GRPC"},
                {"url": "http://j", "protocolBinding": "jsonrpc"}],
            "capabilities": {"streaming": true}}))
        .unwrap();
        assert_eq!(card.jsonrpc_url(), Some("http://j"));
        assert_eq!(card.capabilities.streaming, Some(true));
    }
}
