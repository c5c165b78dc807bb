//! Turning a finished call into the `functionResponse` parts the model gets.

use crate::tools::ToolResult;
use gemini_rs_protocol::{FunctionResponse, Part};
use serde_json::{Value, json};

/// The parts for one finished call: the functionResponse first, then
/// sibling media parts (nested instead for gemini-3 models).
pub fn function_response_parts(
    name: &str,
    call_id: &str,
    result: &ToolResult,
    model: &str,
) -> Vec<Part> {
    if let Some(error) = &result.error {
        return vec![response_part(
            name,
            call_id,
            json!({ "error": error.message }),
            None,
        )];
    }
    let mut texts = Vec::new();
    let mut media = Vec::new();
    let mut siblings = Vec::new();
    for part in &result.llm_content {
        if let Some(inner) = &part.function_response {
            return vec![response_part(name, call_id, inner.response.clone(), None)];
        }
        if let Some(text) = &part.text {
            texts.push(text.as_str());
        } else if part.inline_data.is_some() {
            media.push(part.clone());
        } else if part.file_data.is_some() {
            siblings.push(part.clone());
        }
    }
    let response = if !texts.is_empty() {
        json!({ "output": texts.join("\n") })
    } else if !media.is_empty() || !siblings.is_empty() {
        json!({ "output": format!("Binary content provided ({} item(s)).", media.len() + siblings.len()) })
    } else {
        json!({})
    };
    let nest = crate::model::is_gemini_3(model) && !media.is_empty();
    let mut out = vec![response_part(
        name,
        call_id,
        response,
        nest.then(|| media.clone()),
    )];
    if !nest {
        out.extend(media);
    }
    out.extend(siblings);
    out
}

fn response_part(name: &str, call_id: &str, response: Value, parts: Option<Vec<Part>>) -> Part {
    Part::function_response(FunctionResponse {
        id: Some(call_id.to_string()),
        name: name.to_string(),
        response,
        parts,
        ..FunctionResponse::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{ToolDisplay, ToolErrorKind};

    fn to_json(parts: &[Part]) -> Value {
        serde_json::to_value(parts).unwrap()
    }

    #[test]
    fn text_output() {
        let r = ToolResult::text("x\ny", "");
        assert_eq!(
            to_json(&function_response_parts(
                "read_file",
                "id1",
                &r,
                "gemini-2.5-flash"
            )),
            json!([{"functionResponse": {"id": "id1", "name": "read_file", "response": {"output": "x\ny"}}}])
        );
    }

    #[test]
    fn error_discards_llm_content() {
        let r = ToolResult::error(ToolErrorKind::FileNotFound, "File not found: /w/x", "d");
        assert_eq!(
            to_json(&function_response_parts("read_file", "i", &r, "m")),
            json!([{"functionResponse": {"id": "i", "name": "read_file", "response": {"error": "File not found: /w/x"}}}])
        );
    }

    #[test]
    fn media_sibling_or_nested() {
        let r = ToolResult::parts(
            vec![Part::inline_data("image/png", "AAA")],
            ToolDisplay::Text(String::new()),
        );
        let flat = to_json(&function_response_parts(
            "read_file",
            "i",
            &r,
            "gemini-2.5-flash",
        ));
        assert_eq!(
            flat[0]["functionResponse"]["response"]["output"],
            "Binary content provided (1 item(s))."
        );
        assert_eq!(flat[1]["inlineData"]["mimeType"], "image/png");
        let nested = to_json(&function_response_parts(
            "read_file",
            "i",
            &r,
            "gemini-3-flash-preview",
        ));
        assert_eq!(nested.as_array().unwrap().len(), 1);
        assert_eq!(
            nested[0]["functionResponse"]["parts"][0]["inlineData"]["data"],
            "AAA"
        );
    }

    #[test]
    fn empty_gives_empty_response() {
        let r = ToolResult::parts(vec![], ToolDisplay::Text(String::new()));
        assert_eq!(
            to_json(&function_response_parts("t", "i", &r, "m"))[0]["functionResponse"]["response"],
            json!({})
        );
    }
}
