//! A Gemini request as an Anthropic Messages body: the system instruction
//! as `system`, turns merged so roles alternate, calls as `tool_use`,
//! results as `tool_result` (first in their user message), signed thinking
//! sent back verbatim, images and PDFs as content blocks.

use crate::model::schema;
use crate::model::wire::CallIds;
use gemini_rs_protocol::{Content, FunctionCallingConfig, GenerateContentRequest, Part};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// Output tokens when neither the request, settings nor the model's known
/// limits say.
const DEFAULT_MAX_TOKENS: u64 = 8_192;
/// The smallest thinking budget the API takes.
const MIN_THINKING_BUDGET: i64 = 1_024;

/// The body for `POST {base}/v1/messages`.
pub(crate) fn body(
    model: &str,
    request: &GenerateContentRequest,
    max_output_tokens: Option<u64>,
) -> Value {
    let mut messages: Vec<(String, Vec<Value>)> = Vec::new();
    let mut ids = CallIds::default();
    for (turn, content) in request.contents.iter().enumerate() {
        let (role, blocks) = if content.is_model() {
            ("assistant", assistant_blocks(turn, content, &mut ids))
        } else {
            ("user", user_blocks(content, &mut ids))
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last, existing)) if last == role => existing.extend(blocks),
            _ => messages.push((role.to_string(), blocks)),
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    let max_tokens = request
        .generation_config
        .as_ref()
        .and_then(|c| c.max_output_tokens.as_ref())
        .and_then(serde_json::Number::as_u64)
        .or(max_output_tokens)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    body.insert("max_tokens".into(), json!(max_tokens));
    if let Some(system) = &request.system_instruction {
        let text = plain_text(&system.parts);
        if !text.is_empty() {
            body.insert("system".into(), json!(text));
        }
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    body.insert("messages".into(), Value::Array(messages));
    let tools: Vec<Value> = schema::declarations(request)
        .map(|d| Value::Object(schema::function(d, "input_schema")))
        .collect();
    // A forced tool (`any` or one named tool) cannot be combined with
    // thinking: the API refuses the request, so thinking is left out.
    let mut forced = false;
    if !tools.is_empty() {
        let choice = schema::calling_config(request).and_then(tool_choice);
        body.insert("tools".into(), Value::Array(tools));
        if let Some(choice) = choice {
            forced = matches!(choice["type"].as_str(), Some("any" | "tool"));
            body.insert("tool_choice".into(), choice);
        }
    }
    let thinking = request
        .generation_config
        .as_ref()
        .and_then(|c| c.thinking_config.as_ref())
        .filter(|t| t.include_thoughts == Some(true))
        .and_then(|t| t.thinking_budget)
        .map(|budget| budget.min(max_tokens as i64 - 1))
        .filter(|budget| *budget >= MIN_THINKING_BUDGET && !forced);
    match thinking {
        // Thinking takes no sampling settings.
        Some(budget) => {
            body.insert(
                "thinking".into(),
                json!({"type": "enabled", "budget_tokens": budget}),
            );
        }
        None => {
            if let Some(config) = &request.generation_config {
                // Newer models refuse temperature and top_p together.
                if let Some(t) = &config.temperature {
                    body.insert("temperature".into(), Value::Number(t.clone()));
                } else if let Some(p) = &config.top_p {
                    body.insert("top_p".into(), Value::Number(p.clone()));
                }
                if let Some(k) = &config.top_k {
                    body.insert("top_k".into(), Value::Number(k.clone()));
                }
            }
        }
    }
    body.insert("stream".into(), json!(true));
    Value::Object(body)
}

/// Gemini's function-calling mode as `tool_choice`.
fn tool_choice(config: &FunctionCallingConfig) -> Option<Value> {
    let mode = config.mode.as_deref()?.to_ascii_uppercase();
    let allowed = config.allowed_function_names.as_deref().unwrap_or_default();
    match mode.as_str() {
        "ANY" | "VALIDATED" if allowed.len() == 1 => {
            Some(json!({"type": "tool", "name": allowed[0]}))
        }
        "ANY" | "VALIDATED" => Some(json!({"type": "any"})),
        "NONE" => Some(json!({"type": "none"})),
        _ => None,
    }
}

/// A model turn's blocks: signed thinking (unsigned thoughts cannot be sent
/// back and are left out), text, then calls.
fn assistant_blocks(turn: usize, content: &Content, ids: &mut CallIds) -> Vec<Value> {
    ids.start_turn();
    let mut blocks = Vec::new();
    let mut thinking = String::new();
    let mut call_index = 0;
    for part in &content.parts {
        if part.is_thought() {
            match (&part.text, &part.thought_signature) {
                (Some(text), Some(signature)) => {
                    thinking.push_str(text);
                    blocks.push(json!({"type": "thinking", "thinking": std::mem::take(&mut thinking), "signature": signature}));
                }
                (None, Some(data)) => {
                    blocks.push(json!({"type": "redacted_thinking", "data": data}))
                }
                (Some(text), None) => thinking.push_str(text),
                (None, None) => {}
            }
            continue;
        }
        if let Some(call) = &part.function_call {
            let id = call
                .id
                .clone()
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| format!("toolu_{turn}_{call_index}"));
            call_index += 1;
            ids.called(&call.name, &id);
            let input = call.args.clone().unwrap_or_else(|| json!({}));
            blocks.push(json!({"type": "tool_use", "id": id, "name": call.name, "input": input}));
        } else if let Some(text) = part.text.as_deref().filter(|t| !t.is_empty()) {
            blocks.push(json!({"type": "text", "text": text}));
        }
    }
    blocks
}

/// A user turn's blocks: tool results first (the API wants them before
/// other content), then text and media.
fn user_blocks(content: &Content, ids: &mut CallIds) -> Vec<Value> {
    let mut results = Vec::new();
    let mut rest = Vec::new();
    for part in &content.parts {
        if let Some(fr) = &part.function_response {
            let id = ids.answer(&fr.name, fr.id.as_deref());
            let mut result = Map::new();
            result.insert("type".into(), json!("tool_result"));
            result.insert("tool_use_id".into(), json!(id));
            let mut blocks = vec![json!({"type": "text", "text": fr.response.to_string()})];
            blocks.extend(fr.parts.iter().flatten().filter_map(media_block));
            result.insert("content".into(), Value::Array(blocks));
            let answer = ToolAnswer::of(&fr.response);
            if answer.error.is_some() || failed_shell(&fr.name, &answer) {
                result.insert("is_error".into(), json!(true));
            }
            results.push(Value::Object(result));
        } else if !part.is_thought() {
            if let Some(text) = part.text.as_deref().filter(|t| !t.is_empty()) {
                rest.push(json!({"type": "text", "text": text}));
            } else if let Some(block) = media_block(part) {
                rest.push(block);
            }
        }
    }
    results.extend(rest);
    results
}

/// A function response's `response` as tools give it: `{"output": ...}`
/// or `{"error": ...}`; another shape has neither.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ToolAnswer<'a> {
    #[serde(borrow)]
    output: Option<&'a str>,
    error: Option<serde::de::IgnoredAny>,
}

impl<'a> ToolAnswer<'a> {
    fn of(response: &'a Value) -> Self {
        ToolAnswer::deserialize(response).unwrap_or_default()
    }
}

/// True for the result of a shell command that exited non-zero: Claude
/// Code's `Bash` flags it `is_error`, and Claude models read it so.
fn failed_shell(name: &str, answer: &ToolAnswer<'_>) -> bool {
    use crate::catalogue::claude::{claude_name, shell_failure};
    claude_name(name) == Some("Bash") && answer.output.and_then(shell_failure).is_some()
}

/// An image, a PDF, or a note for media the API has no block for.
fn media_block(part: &Part) -> Option<Value> {
    if let Some(blob) = &part.inline_data {
        let source = json!({"type": "base64", "media_type": blob.mime_type, "data": blob.data});
        return Some(match blob.mime_type.as_str() {
            m if m.starts_with("image/") => json!({"type": "image", "source": source}),
            "application/pdf" => json!({"type": "document", "source": source}),
            other => json!({"type": "text", "text": format!(
                "[A {other} attachment was left out: the Anthropic API accepts only text, images and PDFs.]"
            )}),
        });
    }
    if let Some(text) = part.text.as_deref().filter(|t| !t.is_empty()) {
        return Some(json!({"type": "text", "text": text}));
    }
    part.file_data
        .as_ref()
        .map(|f| json!({"type": "text", "text": format!("[File: {}]", f.file_uri)}))
}

/// The non-thought text parts, joined.
fn plain_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_thought())
        .filter_map(|p| p.text.as_deref())
        .collect()
}
