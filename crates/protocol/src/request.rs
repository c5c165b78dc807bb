//! Request bodies of `generateContent`, `streamGenerateContent` and `countTokens`.

use crate::{Content, Extra};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Body of `generateContent` / `streamGenerateContent`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentRequest {
    /// The conversation.
    #[serde(default)]
    pub contents: Vec<Content>,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<Content>,
    /// Tools the model may call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may call them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<ToolConfig>,
    /// Sampling and thinking settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_config: Option<GenerationConfig>,
    /// Unmodelled fields (safetySettings, cachedContent, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// One entry of `tools`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Callable functions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_declarations: Option<Vec<FunctionDeclaration>>,
    /// Grounding with Google Search (`{}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub google_search: Option<Value>,
    /// The URL-context tool (`{}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_context: Option<Value>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// A function the model may call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionDeclaration {
    /// Name the model calls it by.
    pub name: String,
    /// What it does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Parameters as plain JSON Schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters_json_schema: Option<Value>,
    /// Parameters in the OpenAPI subset (older form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
    /// Unmodelled fields (responseJsonSchema, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `toolConfig`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolConfig {
    /// Function-calling mode and allow-list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_calling_config: Option<FunctionCallingConfig>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `functionCallingConfig`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionCallingConfig {
    /// `AUTO`, `ANY`, `NONE` or `VALIDATED`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Names the model may call (with `ANY`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allowed_function_names: Option<Vec<String>>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// `generationConfig`. Numbers stay JSON numbers so `1` is not re-sent as `1.0`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationConfig {
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<serde_json::Number>,
    /// Nucleus sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<serde_json::Number>,
    /// Top-k sampling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<serde_json::Number>,
    /// Output cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<serde_json::Number>,
    /// Thinking settings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<ThinkingConfig>,
    /// Unmodelled fields (responseMimeType, responseJsonSchema, ...).
    #[serde(flatten)]
    pub extra: Extra,
}

/// `thinkingConfig`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingConfig {
    /// Whether thoughts are returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_thoughts: Option<bool>,
    /// Token budget (gemini-2.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<i64>,
    /// `LOW` / `HIGH` (gemini-3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<String>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}

/// Body of `countTokens`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CountTokensRequest {
    /// The contents to count.
    #[serde(default)]
    pub contents: Vec<Content>,
    /// Unmodelled fields.
    #[serde(flatten)]
    pub extra: Extra,
}
