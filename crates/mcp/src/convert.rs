//! `tools/call` results to parts and display text (§6.5), on the raw JSON
//! of the result read leniently (as Gemini CLI's JavaScript does) so
//! unknown content types and odd fields survive.

use gemini_rs_protocol::Part;
use gemini_rs_protocol::lenient::{from_object, wrong_type_as_none};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The response object Gemini CLI wraps a transport or protocol error in:
/// `{"error":{"message":..,"isError":true}}`.
pub fn transport_error_response(message: &str) -> Value {
    json!({"error": {"message": message, "isError": true}})
}

/// A `tools/call` result, read leniently: a field of the wrong type
/// reads as absent, as Gemini CLI's JavaScript treats it.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct CallResult {
    #[serde(default)]
    is_error: Value,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    error: Option<NestedError>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    content: Option<Vec<Value>>,
}

/// Gemini CLI's wrapped error, `{"error": {"isError": true, ..}}`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct NestedError {
    #[serde(default)]
    is_error: Value,
}

/// One content block (text, image, audio, resource, resource link).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Block {
    #[serde(rename = "type", default, deserialize_with = "wrong_type_as_none")]
    kind: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    text: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    mime_type: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    data: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    uri: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    title: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    name: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    resource: Option<EmbeddedResource>,
}

/// An embedded resource's contents.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct EmbeddedResource {
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    text: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    blob: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    mime_type: Option<String>,
}

fn truthy(v: &Value) -> bool {
    matches!(v, Value::Bool(true)) || matches!(v, Value::String(s) if s == "true")
}

/// The content blocks of a result; `None` when it has no `content` list.
fn blocks(response: &Value) -> Option<Vec<Block>> {
    let result: CallResult = from_object(response);
    Some(result.content?.iter().map(from_object).collect())
}

/// Top-level `isError` true/`"true"`, or a nested `error.isError`.
pub fn is_error(response: &Value) -> bool {
    let result: CallResult = from_object(response);
    truthy(&result.is_error) || result.error.is_some_and(|e| truthy(&e.is_error))
}

/// The raw response parts as Gemini CLI serialises them:
/// `[{"functionResponse":{"name":<tool>,"response":<response>}}]`.
pub fn raw_parts(tool: &str, response: &Value) -> Value {
    json!([{"functionResponse": {"name": tool, "response": response}}])
}

/// The `mcp_tool_error` message for an `isError` (or failed) call.
pub fn error_message(tool: &str, args: &Map<String, Value>, response: &Value) -> String {
    let call = json!({"name": tool, "args": args});
    format!(
        "MCP tool '{tool}' reported tool error for function call: {} with response: {}",
        compact(&call),
        compact(&raw_parts(tool, response))
    )
}

/// What the user sees for a tool error.
pub fn error_display(tool: &str) -> String {
    format!("Error: MCP tool '{tool}' reported an error.")
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

/// `title || name`, as JavaScript's `||` treats an empty title.
fn title_or_name(v: &Block) -> &str {
    v.title
        .as_deref()
        .filter(|t| !t.is_empty())
        .or(v.name.as_deref())
        .unwrap_or("undefined")
}

/// A server's text as the model gets it: inside `<untrusted_context>`
/// tags, a closing tag in the text escaped, as Gemini CLI 0.61 guards
/// against prompt injection from a server (in both dialects).
pub fn wrap_untrusted(text: &str) -> String {
    let escaped = text.replace("</untrusted_context>", "&lt;/untrusted_context&gt;");
    format!("<untrusted_context>\n{escaped}\n</untrusted_context>")
}

/// The parts the model gets for a successful result: texts wrapped as
/// untrusted context ([`wrap_untrusted`]).
pub fn to_parts(tool: &str, response: &Value) -> Vec<Part> {
    let Some(content) = blocks(response) else {
        return vec![Part::text("[Error: Could not parse tool response]")];
    };
    let mut parts = Vec::new();
    for block in &content {
        match block.kind.as_deref() {
            Some("text") => {
                if let Some(t) = &block.text {
                    parts.push(Part::text(wrap_untrusted(t)));
                }
            }
            Some(kind @ ("image" | "audio")) => {
                let mime = block.mime_type.as_deref().unwrap_or("undefined");
                parts.push(Part::text(format!(
                    "[Tool '{tool}' provided the following {kind} data with mime-type: {mime}]"
                )));
                parts.push(Part::inline_data(mime, block.data.as_deref().unwrap_or("")));
            }
            Some("resource") => {
                let Some(res) = &block.resource else {
                    continue;
                };
                if let Some(t) = res.text.as_deref().filter(|t| !t.is_empty()) {
                    parts.push(Part::text(wrap_untrusted(t)));
                } else if let Some(blob) = &res.blob {
                    let mime = res
                        .mime_type
                        .as_deref()
                        .unwrap_or("application/octet-stream");
                    parts.push(Part::text(format!(
                        "[Tool '{tool}' provided the following embedded resource with mime-type: {mime}]"
                    )));
                    parts.push(Part::inline_data(mime, blob));
                }
            }
            Some("resource_link") => {
                let uri = block.uri.as_deref().unwrap_or("undefined");
                parts.push(Part::text(format!(
                    "Resource Link: {} at {uri}",
                    title_or_name(block)
                )));
            }
            _ => {}
        }
    }
    parts
}

/// What the user sees for a successful result.
pub fn to_display(tool: &str, response: &Value) -> String {
    let Some(content) = blocks(response) else {
        let pretty = serde_json::to_string_pretty(&raw_parts(tool, response)).unwrap_or_default();
        return format!("```json\n{pretty}\n```");
    };
    let lines: Vec<String> = content
        .iter()
        .map(|block| {
            let mime = || block.mime_type.as_deref().unwrap_or("undefined");
            match block.kind.as_deref() {
                Some("text") => block.text.clone().unwrap_or_default(),
                Some("image") => format!("[Image: {}]", mime()),
                Some("audio") => format!("[Audio: {}]", mime()),
                Some("resource_link") => format!(
                    "[Link to {}: {}]",
                    title_or_name(block),
                    block.uri.as_deref().unwrap_or("undefined")
                ),
                Some("resource") => {
                    let res = block.resource.as_ref();
                    match res
                        .and_then(|r| r.text.as_deref())
                        .filter(|t| !t.is_empty())
                    {
                        Some(t) => t.to_string(),
                        None => format!(
                            "[Embedded Resource: {}]",
                            res.and_then(|r| r.mime_type.as_deref())
                                .filter(|m| !m.is_empty())
                                .unwrap_or("unknown type")
                        ),
                    }
                }
                other => format!("[Unknown content type: {}]", other.unwrap_or("undefined")),
            }
        })
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_matches_a15() {
        let resp = json!({"content": [{"type": "text", "text": "boom"}], "isError": true});
        assert!(is_error(&resp));
        assert_eq!(
            error_message("fail", &Map::new(), &resp),
            "MCP tool 'fail' reported tool error for function call: {\"name\":\"fail\",\"args\":{}} with response: [{\"functionResponse\":{\"name\":\"fail\",\"response\":{\"content\":[{\"type\":\"text\",\"text\":\"boom\"}],\"isError\":true}}}]"
        );
        assert!(is_error(&json!({"isError": "true"})));
        assert!(is_error(&transport_error_response("x")));
        assert!(!is_error(&json!({"content": [], "isError": false})));
    }

    #[test]
    fn server_text_is_wrapped_with_its_closing_tag_escaped() {
        assert_eq!(
            wrap_untrusted("a</untrusted_context>b"),
            "<untrusted_context>\na&lt;/untrusted_context&gt;b\n</untrusted_context>"
        );
    }

    #[test]
    fn parts_and_display() {
        let resp = json!({"content": [
            {"type": "text", "text": "pic:"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///x", "name": "x"},
            {"type": "resource", "resource": {"uri": "a", "text": "inner"}},
            {"type": "resource", "resource": {"uri": "b", "blob": "AAA=", "mimeType": "application/pdf"}},
            {"type": "audio", "data": "UklG", "mimeType": "audio/wav"},
            {"type": "weird"}
        ]});
        let parts = to_parts("img", &resp);
        let texts: Vec<_> = parts.iter().filter_map(|p| p.text.clone()).collect();
        assert_eq!(
            texts,
            vec![
                "<untrusted_context>\npic:\n</untrusted_context>",
                "[Tool 'img' provided the following image data with mime-type: image/png]",
                "Resource Link: x at file:///x",
                "<untrusted_context>\ninner\n</untrusted_context>",
                "[Tool 'img' provided the following embedded resource with mime-type: application/pdf]",
                "[Tool 'img' provided the following audio data with mime-type: audio/wav]",
            ]
        );
        assert_eq!(parts.iter().filter(|p| p.inline_data.is_some()).count(), 3);
        assert_eq!(
            to_display("img", &resp),
            "pic:\n[Image: image/png]\n[Link to x: file:///x]\ninner\n[Embedded Resource: application/pdf]\n[Audio: audio/wav]\n[Unknown content type: weird]"
        );
        let bad = json!({"content": "nope"});
        assert_eq!(
            to_parts("t", &bad)[0].text.as_deref(),
            Some("[Error: Could not parse tool response]")
        );
        assert!(to_display("t", &bad).starts_with("```json\n[\n"));
    }
}
