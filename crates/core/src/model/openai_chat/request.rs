//! A Gemini request as an OpenAI chat-completions body: the system
//! instruction as a system message, model turns as assistant messages with
//! `tool_calls`, function responses as `tool` messages answering them by
//! id, images as data URLs.

use crate::model::wire::CallIds;
use crate::model::{logprobs, schema};
use gemini_rs_protocol::{Content, FunctionCallingConfig, GenerateContentRequest, Part};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The body for `POST {base}/chat/completions`.
pub(crate) fn body(
    model: &str,
    request: &GenerateContentRequest,
    max_output_tokens: Option<u64>,
) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &request.system_instruction {
        let text = plain_text(&system.parts);
        if !text.is_empty() {
            messages.push(json!({"role": "system", "content": text}));
        }
    }
    let mut ids = CallIds::default();
    for (turn, content) in request.contents.iter().enumerate() {
        if content.is_model() {
            messages.extend(assistant_message(turn, content, &mut ids));
        } else {
            messages.extend(user_messages(content, &mut ids));
        }
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("stream".into(), json!(true));
    body.insert("stream_options".into(), json!({"include_usage": true}));
    let tools: Vec<Value> = schema::declarations(request)
        .map(|d| json!({"type": "function", "function": schema::function(d, "parameters")}))
        .collect();
    if !tools.is_empty() {
        // `auto` is OpenAI's default, but llama-cpp-python's server shows
        // the model no tools at all unless it is said.
        let choice = schema::calling_config(request)
            .and_then(tool_choice)
            .unwrap_or_else(|| json!("auto"));
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), choice);
    }
    if let Some(config) = &request.generation_config {
        if let Some(t) = &config.temperature {
            body.insert("temperature".into(), Value::Number(t.clone()));
        }
        if let Some(p) = &config.top_p {
            body.insert("top_p".into(), Value::Number(p.clone()));
        }
        let output = OutputConfig::deserialize(&config.extra).unwrap_or_else(|e| {
            tracing::debug!("generationConfig's output fields passed over: {e}");
            OutputConfig::default()
        });
        if let Some(schema) = output.response_json_schema {
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {"name": "response", "schema": schema}}),
            );
        } else if output.response_mime_type.as_deref() == Some("application/json") {
            body.insert("response_format".into(), json!({"type": "json_object"}));
        }
        if output.response_logprobs == Some(true) {
            logprobs::openai_request_fields(&mut body);
        }
    }
    let max = request
        .generation_config
        .as_ref()
        .and_then(|c| c.max_output_tokens.as_ref())
        .and_then(serde_json::Number::as_u64)
        .or(max_output_tokens);
    if let Some(max) = max {
        body.insert("max_tokens".into(), json!(max));
    }
    Value::Object(body)
}

/// Gemini's function-calling mode as `tool_choice`: `ANY` with one allowed
/// name forces that function, `ANY` forces some call, `NONE` forbids calls.
fn tool_choice(config: &FunctionCallingConfig) -> Option<Value> {
    let mode = config.mode.as_deref()?.to_ascii_uppercase();
    let allowed = config.allowed_function_names.as_deref().unwrap_or_default();
    match mode.as_str() {
        "ANY" | "VALIDATED" if allowed.len() == 1 => {
            Some(json!({"type": "function", "function": {"name": allowed[0]}}))
        }
        "ANY" | "VALIDATED" => Some(json!("required")),
        "NONE" => Some(json!("none")),
        _ => None,
    }
}

/// The assistant message of a model turn (none when it holds only thoughts).
fn assistant_message(turn: usize, content: &Content, ids: &mut CallIds) -> Option<Value> {
    ids.start_turn();
    let text = plain_text(&content.parts);
    let calls: Vec<Value> = content
        .parts
        .iter()
        .filter_map(|p| p.function_call.as_ref())
        .enumerate()
        .map(|(i, call)| {
            let id = call
                .id
                .clone()
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| format!("call_{turn}_{i}"));
            ids.called(&call.name, &id);
            let args = call.args.clone().unwrap_or_else(|| json!({}));
            json!({"id": id, "type": "function",
                "function": {"name": call.name, "arguments": args.to_string()}})
        })
        .collect();
    if text.is_empty() && calls.is_empty() {
        return None;
    }
    let mut msg = Map::new();
    msg.insert("role".into(), json!("assistant"));
    // An empty string rather than null: some servers (llama.cpp's Python
    // server) take only strings here, and OpenAI takes both.
    msg.insert("content".into(), json!(text));
    if !calls.is_empty() {
        msg.insert("tool_calls".into(), Value::Array(calls));
    }
    Some(Value::Object(msg))
}

/// A user turn: first one `tool` message per function response (they must
/// follow the assistant's calls), then the rest as one user message.
fn user_messages(content: &Content, ids: &mut CallIds) -> Vec<Value> {
    let mut out = Vec::new();
    let mut pieces: Vec<Value> = Vec::new();
    for part in &content.parts {
        if let Some(fr) = &part.function_response {
            let id = ids.answer(&fr.name, fr.id.as_deref());
            out.push(
                json!({"role": "tool", "tool_call_id": id, "content": fr.response.to_string()}),
            );
            for nested in fr.parts.iter().flatten() {
                pieces.extend(user_piece(nested));
            }
        } else {
            pieces.extend(user_piece(part));
        }
    }
    if !pieces.is_empty() {
        let only_text = pieces.iter().all(|p| p["type"] == "text");
        let content = if only_text {
            let texts: Vec<&str> = pieces.iter().filter_map(|p| p["text"].as_str()).collect();
            json!(texts.join("\n"))
        } else {
            Value::Array(pieces)
        };
        out.push(json!({"role": "user", "content": content}));
    }
    out
}

/// One content piece of a user message, or nothing for parts with no
/// meaning here (thoughts).
fn user_piece(part: &Part) -> Option<Value> {
    if part.is_thought() {
        return None;
    }
    if let Some(text) = &part.text {
        return Some(json!({"type": "text", "text": text}));
    }
    if let Some(blob) = &part.inline_data {
        if blob.mime_type.starts_with("image/") {
            let url = format!("data:{};base64,{}", blob.mime_type, blob.data);
            return Some(json!({"type": "image_url", "image_url": {"url": url}}));
        }
        return Some(json!({"type": "text", "text": format!(
            "[A {} attachment was left out: this provider's chat API accepts only text and images.]",
            blob.mime_type
        )}));
    }
    if let Some(file) = &part.file_data {
        return Some(json!({"type": "text", "text": format!("[File: {}]", file.file_uri)}));
    }
    None
}

/// The non-thought text parts, joined.
fn plain_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_thought())
        .filter_map(|p| p.text.as_deref())
        .collect()
}

/// The generation-config fields (unmodelled in the protocol's type) that
/// shape an OpenAI answer: structured output and logprobs.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct OutputConfig {
    response_json_schema: Option<Value>,
    response_mime_type: Option<String>,
    /// [`logprobs::REQUEST_KEY`].
    response_logprobs: Option<bool>,
}

/// An unstreamed `chat.completion`, as far as it is read.
#[derive(Debug, Deserialize)]
struct Completion {
    choices: Vec<CompletionChoice>,
    #[serde(default)]
    usage: Option<Value>,
}

/// A completion's choice.
#[derive(Debug, Deserialize)]
struct CompletionChoice {
    #[serde(default)]
    message: CompletionMessage,
    #[serde(default)]
    finish_reason: Value,
}

/// A choice's whole message; its leaves pass on to the chunk as they are.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct CompletionMessage {
    content: Value,
    reasoning_content: Value,
    tool_calls: Option<Vec<Value>>,
}

/// An unstreamed `chat.completion` as the one `chat.completion.chunk` it
/// amounts to: the message as the delta, each call with its index; the
/// usage kept. `None` for a body without choices.
pub(super) fn completion_as_chunk(answer: Value) -> Option<Value> {
    let completion = Completion::deserialize(answer)
        .map_err(|e| tracing::debug!("an unstreamed answer of another shape: {e}"))
        .ok()?;
    let choice = completion.choices.into_iter().next()?;
    let message = choice.message;
    let mut delta = Map::new();
    delta.insert("role".into(), json!("assistant"));
    for (key, v) in [
        ("content", message.content),
        ("reasoning_content", message.reasoning_content),
    ] {
        if !v.is_null() {
            delta.insert(key.into(), v);
        }
    }
    if let Some(calls) = message.tool_calls {
        let calls: Vec<Value> = calls
            .into_iter()
            .enumerate()
            .map(|(i, mut c)| {
                if let Some(obj) = c.as_object_mut() {
                    obj.insert("index".into(), json!(i));
                }
                c
            })
            .collect();
        delta.insert("tool_calls".into(), Value::Array(calls));
    }
    let mut chunk = json!({"choices": [{"index": 0, "delta": Value::Object(delta),
        "finish_reason": choice.finish_reason}]});
    if let Some(usage) = completion.usage {
        chunk["usage"] = usage;
    }
    Some(chunk)
}
