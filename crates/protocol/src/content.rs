//! `Content` and `Part`: the turns of a conversation.

use crate::Extra;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who produced a [`Content`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The user (prompts and function responses).
    User,
    /// The model.
    Model,
}

impl Role {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Model => "model",
        }
    }
}

/// One turn: a role and its parts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Content {
    /// `user` or `model` (absent in some system instructions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The parts, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

impl Content {
    /// A content with the given role and parts.
    pub fn new(role: Role, parts: Vec<Part>) -> Self {
        Content {
            role: Some(role.as_str().to_string()),
            parts,
            extra: Extra::new(),
        }
    }

    /// A user turn made of one text part.
    pub fn user_text(text: impl Into<String>) -> Self {
        Content::new(Role::User, vec![Part::text(text)])
    }

    /// True when the role is `model`.
    pub fn is_model(&self) -> bool {
        self.role.as_deref() == Some("model")
    }

    /// The concatenation of the non-thought text parts.
    pub fn text(&self) -> String {
        self.parts
            .iter()
            .filter(|p| !p.is_thought())
            .filter_map(|p| p.text.as_deref())
            .collect()
    }
}

/// One piece of a turn. Gemini's `Part` is a union; we keep every member
/// optional so unknown combinations survive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    /// Plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// True when `text` is a model thought.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought: Option<bool>,
    /// Opaque signature the model wants echoed back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
    /// Inline bytes (base64).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_data: Option<Blob>,
    /// A reference to a file by URI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_data: Option<FileData>,
    /// A tool call requested by the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_call: Option<FunctionCall>,
    /// A tool result sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_response: Option<FunctionResponse>,
    /// Unmodelled fields.
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

    /// An inline-data part.
    pub fn inline_data(mime_type: impl Into<String>, data: impl Into<String>) -> Self {
        Part {
            inline_data: Some(Blob {
                mime_type: mime_type.into(),
                data: data.into(),
                extra: Extra::new(),
            }),
            ..Part::default()
        }
    }

    /// A function-response part.
    pub fn function_response(response: FunctionResponse) -> Self {
        Part {
            function_response: Some(response),
            ..Part::default()
        }
    }

    /// True for thought parts.
    pub fn is_thought(&self) -> bool {
        self.thought == Some(true)
    }
}

/// Inline bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Blob {
    /// MIME type, e.g. `image/png`.
    #[serde(default)]
    pub mime_type: String,
    /// Base64 data.
    #[serde(default)]
    pub data: String,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A file referenced by URI.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileData {
    /// MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The file URI.
    #[serde(default)]
    pub file_uri: String,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A tool call requested by the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FunctionCall {
    /// Call id, when the model gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Tool name as the model called it.
    #[serde(default)]
    pub name: String,
    /// Arguments (a JSON object, normally).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A tool result for the model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FunctionResponse {
    /// The call id this answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Tool name as the model called it.
    #[serde(default)]
    pub name: String,
    /// `{"output": ...}` or `{"error": ...}`.
    #[serde(default)]
    pub response: Value,
    /// Nested media parts (gemini-3 models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<Part>>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}
