//! The model's questions for the user (the `ask_user` tool), as a front
//! end shows them, and the user's answers. The question shape is the
//! tool's argument shape (`multiSelect` in camelCase, as the model sends it).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How a question is answered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuestionType {
    /// Pick among the options (or "Other" with text).
    #[default]
    Choice,
    /// Free text, possibly over several lines.
    Text,
    /// Yes or No (or "Other" with text).
    Yesno,
}

/// One option of a choice question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionOption {
    /// What the user picks (a few words).
    pub label: String,
    /// What it means.
    #[serde(default)]
    pub description: String,
}

/// One question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// The question itself.
    pub question: String,
    /// A short label (a tab title).
    #[serde(default)]
    pub header: String,
    /// How it is answered.
    #[serde(rename = "type", default)]
    pub kind: QuestionType,
    /// The options of a choice question.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<QuestionOption>,
    /// Several options may be picked (choice questions).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub multi_select: bool,
    /// A hint in the empty text field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
}

/// The user's reply to a set of questions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", content = "answers", rename_all = "snake_case")]
pub enum QuestionsReply {
    /// The answers by question index (`"0"`, `"1"`, ...); questions left
    /// unanswered are absent. Several picks are joined with `", "`.
    Submit(BTreeMap<String, String>),
    /// The user closed the form without answering (Esc).
    Dismiss,
}
