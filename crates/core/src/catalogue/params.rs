//! Parameters of today's Gemini CLI that a built-in takes by converting
//! them rather than renaming them (`read_file`'s 1-based `start_line` and
//! `end_line`), with the types 0.61 declares for them. A call's arguments
//! are checked against these before the conversion, so a wrong type gets
//! 0.61's answer (`params/start_line must be integer`) in both dialects.

use serde_json::{Value, json};

/// The JSON Schema of the converted parameters of the built-in `tool`
/// (its 0.27.4 name), as Gemini CLI 0.61 declares them; `None` when it has
/// none.
pub fn converted_params_schema(tool: &str) -> Option<Value> {
    match tool {
        "read_file" => Some(json!({
            "type": "object",
            "properties": {
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1}
            }
        })),
        _ => None,
    }
}
