//! The model-facing conversation of a recorded session, rebuilt as Gemini
//! CLI 0.61 rebuilds it, so files of both eras (and of gemini-rs) resume
//! alike.
//!
//! - `info`, `warning` and `error` messages are left out.
//! - A user message is left out when its text is empty or starts with `/`,
//!   `?`, `<session_context>` or `<hook_context>`, and when it holds only
//!   responses to calls already answered, by a model message's `toolCalls`
//!   or an earlier message (Gemini CLI 0.61 records the responses twice and
//!   sends both on resume; gemini-rs sends them once).
//! - A model message becomes its thoughts (`**subject** description`, as
//!   thought parts), its text and its function calls; when its content is
//!   already a part list with calls or thoughts (a file rewritten from
//!   Gemini CLI's history), that list is taken as it is.
//! - The tool calls' results follow as one user turn of functionResponse
//!   parts (a call without a recorded result gets an error response).

use super::record::{MessageRecord, ToolCallRecord};
use gemini_rs_protocol::{Content, FunctionCall, FunctionResponse, Part, Role};
use serde_json::{Value, json};

/// Text or parts, as recorded, as a part list.
pub(super) fn parts_of(content: &Value) -> Vec<Part> {
    match content {
        Value::String(s) if s.is_empty() => Vec::new(),
        Value::String(s) => vec![Part::text(s.clone())],
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(Part::text(s.clone())),
                other => serde_json::from_value(other.clone()).ok(),
            })
            .collect(),
        Value::Object(_) => serde_json::from_value(content.clone())
            .map(|p| vec![p])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The text of a content, as Gemini CLI's `partListUnionToString` gives
/// it: the text parts joined, other parts as a bracketed placeholder (so
/// an image-only prompt is not empty).
pub(super) fn text_of(content: &Value) -> String {
    parts_of(content)
        .iter()
        .map(|p| match (&p.text, p.is_thought()) {
            (Some(t), false) => t.clone(),
            (Some(_), true) => "[Thought]".to_string(),
            (None, _) => "[Part]".to_string(),
        })
        .collect()
}

/// The prompt text of a content: its text parts only (listings).
pub(super) fn prompt_text(content: &Value) -> String {
    parts_of(content)
        .iter()
        .filter(|p| !p.is_thought())
        .filter_map(|p| p.text.as_deref())
        .collect()
}

/// True for a user message Gemini CLI does not resume (nor list).
pub(super) fn is_ignored_user_text(text: &str) -> bool {
    let t = text.trim();
    t.is_empty()
        || t.starts_with('/')
        || t.starts_with('?')
        || t.starts_with("<session_context>")
        || t.starts_with("<hook_context>")
}

/// True when the message has something to resume.
pub(super) fn is_resumable(msg: &MessageRecord) -> bool {
    match msg.kind.as_str() {
        "user" => !is_ignored_user_text(&text_of(&msg.content)),
        "gemini" => {
            !text_of(&msg.content).trim().is_empty()
                || msg.tool_calls.as_ref().is_some_and(|c| !c.is_empty())
                || (msg.model_fields().thoughts).is_some_and(|t| !t.is_empty())
        }
        _ => false,
    }
}

fn model_parts(msg: &MessageRecord, calls: &[ToolCallRecord]) -> Vec<Part> {
    let content = parts_of(&msg.content);
    if content
        .iter()
        .any(|p| p.function_call.is_some() || p.is_thought())
    {
        return content;
    }
    let thoughts = msg.model_fields().thoughts.unwrap_or_default();
    let mut parts: Vec<Part> = thoughts
        .into_iter()
        .map(|t| Part {
            thought: Some(true),
            ..Part::text(if t.subject.is_empty() {
                t.description
            } else {
                format!("**{}** {}", t.subject, t.description)
            })
        })
        .collect();
    parts.extend(content);
    parts.extend(calls.iter().map(|call| Part {
        function_call: Some(FunctionCall {
            id: Some(call.id.clone()),
            name: call.name.clone(),
            args: Some(call.args.clone()),
            ..FunctionCall::default()
        }),
        ..Part::default()
    }));
    parts
}

/// Rebuilds the model-facing history of recorded messages.
pub fn history_of_messages(messages: &[MessageRecord]) -> Vec<Content> {
    let mut history = Vec::new();
    // Calls already answered (by a model message's `toolCalls` or an
    // earlier user message).
    let mut answered = std::collections::HashSet::new();
    for msg in messages {
        match msg.kind.as_str() {
            "user" if !is_ignored_user_text(&text_of(&msg.content)) => {
                let parts = parts_of(&msg.content);
                // The user message Gemini CLI records with the responses it
                // sent repeats the calls' results (0.61 sends them twice on
                // resume; once is right).
                let repeated = parts.iter().all(|p| {
                    p.function_response
                        .as_ref()
                        .is_some_and(|r| r.id.as_ref().is_some_and(|id| answered.contains(id)))
                });
                if !repeated {
                    answered.extend(
                        parts
                            .iter()
                            .filter_map(|p| p.function_response.as_ref()?.id.clone()),
                    );
                    history.push(Content::new(Role::User, parts));
                }
            }
            "gemini" => {
                let calls = msg.tool_calls.clone().unwrap_or_default();
                answered.extend(calls.iter().map(|c| c.id.clone()));
                let parts = model_parts(msg, &calls);
                if parts.is_empty() {
                    continue;
                }
                history.push(Content::new(Role::Model, parts));
                let responses: Vec<Part> = calls.iter().flat_map(response_parts).collect();
                if !responses.is_empty() {
                    history.push(Content::new(Role::User, responses));
                }
            }
            _ => {}
        }
    }
    history
}

/// The functionResponse parts of a call: its recorded parts, a bare string
/// result as `{output}`, or an error when nothing was recorded.
fn response_parts(call: &ToolCallRecord) -> Vec<Part> {
    let response = |response: Value| {
        vec![Part::function_response(FunctionResponse {
            id: Some(call.id.clone()),
            name: call.name.clone(),
            response,
            ..FunctionResponse::default()
        })]
    };
    match &call.result {
        Value::String(s) => response(json!({"output": s})),
        Value::Null => response(json!({"error": "No result was recorded for this call."})),
        other => {
            let parts = parts_of(other);
            if parts.is_empty() {
                response(json!({"error": "No result was recorded for this call."}))
            } else {
                parts
            }
        }
    }
}
