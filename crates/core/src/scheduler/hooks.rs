//! What the scheduler hands to hooks: a tool result as AfterTool's
//! `tool_response` JSON.

use crate::tools::ToolResult;
use serde_json::{Map, Value, json};

/// `tool_response` of AfterTool: `{llmContent, returnDisplay, error?}`.
pub fn tool_response_json(result: &ToolResult) -> Value {
    let llm = match result.llm_content.as_slice() {
        [one] if one.text.is_some() && one.inline_data.is_none() => {
            Value::String(one.text.clone().unwrap_or_default())
        }
        parts => serde_json::to_value(parts).unwrap_or(Value::Null),
    };
    let display = result.display.to_json();
    let mut m = Map::new();
    m.insert("llmContent".into(), llm);
    m.insert("returnDisplay".into(), display);
    if let Some(e) = &result.error {
        m.insert(
            "error".into(),
            json!({"message": e.message, "type": e.kind.as_str()}),
        );
    }
    Value::Object(m)
}
