//! Tool parameter schemas for wires that take plain JSON Schema (OpenAI
//! chat, Anthropic): Gemini declarations carry either `parametersJsonSchema`
//! (JSON Schema) or `parameters` (the OpenAPI subset, with upper-case type
//! names such as `STRING`); both become one lower-case JSON Schema object.

use gemini_rs_protocol::{FunctionCallingConfig, FunctionDeclaration, GenerateContentRequest};
use serde_json::{Map, Value, json};

/// The function declarations of a request's tools.
pub(crate) fn declarations(
    request: &GenerateContentRequest,
) -> impl Iterator<Item = &FunctionDeclaration> {
    request
        .tools
        .iter()
        .flatten()
        .flat_map(|t| t.function_declarations.iter().flatten())
}

/// A request's function-calling mode, if it sets one.
pub(crate) fn calling_config(request: &GenerateContentRequest) -> Option<&FunctionCallingConfig> {
    request
        .tool_config
        .as_ref()
        .and_then(|c| c.function_calling_config.as_ref())
}

/// A declaration as `{name, description, <schema_key>: parameters}`.
pub(crate) fn function(decl: &FunctionDeclaration, schema_key: &str) -> Map<String, Value> {
    let mut function = Map::new();
    function.insert("name".into(), json!(decl.name));
    if let Some(desc) = decl.description.as_deref().filter(|s| !s.is_empty()) {
        function.insert("description".into(), json!(desc));
    }
    function.insert(schema_key.into(), parameters(decl));
    function
}

/// Keys no provider's function schema needs; some reject them.
const DROPPED: [&str; 3] = ["$schema", "$id", "$comment"];

/// The parameters of `decl` as a JSON Schema whose root is an object with
/// `properties` (what both APIs require of a function's input).
pub(crate) fn parameters(decl: &FunctionDeclaration) -> Value {
    let source = decl
        .parameters_json_schema
        .as_ref()
        .or(decl.parameters.as_ref());
    let mut schema = source.map(normalize).unwrap_or_else(|| json!({}));
    let Some(root) = schema.as_object_mut() else {
        return json!({"type": "object", "properties": {}});
    };
    if !root.contains_key("type") {
        root.insert("type".into(), json!("object"));
    }
    // open shape: a function's parameters are a JSON Schema.
    if root.get("type") == Some(&json!("object")) && !root.contains_key("properties") {
        root.insert("properties".into(), json!({}));
    }
    schema
}

/// A copy of `schema` with lower-case type names and the dropped keys gone,
/// at every depth.
fn normalize(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (key, value) in map {
                if DROPPED.contains(&key.as_str()) {
                    continue;
                }
                let value = match (key.as_str(), value) {
                    ("type", Value::String(t)) => Value::String(t.to_ascii_lowercase()),
                    ("type", Value::Array(ts)) => Value::Array(
                        ts.iter()
                            .map(|t| match t {
                                Value::String(t) => Value::String(t.to_ascii_lowercase()),
                                other => other.clone(),
                            })
                            .collect(),
                    ),
                    // Property names are data, not schemas: keep the keys,
                    // normalize the schemas under them.
                    (
                        "properties" | "patternProperties" | "$defs" | "definitions",
                        Value::Object(props),
                    ) => Value::Object(
                        props
                            .iter()
                            .map(|(name, s)| (name.clone(), normalize(s)))
                            .collect(),
                    ),
                    (_, other) => normalize(other),
                };
                out.insert(key.clone(), value);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::builtin::builtin_tools;

    fn decl(params: Option<Value>, json_schema: Option<Value>) -> FunctionDeclaration {
        FunctionDeclaration {
            name: "f".into(),
            parameters: params,
            parameters_json_schema: json_schema,
            ..FunctionDeclaration::default()
        }
    }

    #[test]
    fn openapi_subset_becomes_json_schema() {
        let d = decl(
            Some(
                json!({"type": "OBJECT", "properties": {"type": {"type": "STRING"}, "n": {"type": "INTEGER"}}, "required": ["type"]}),
            ),
            None,
        );
        assert_eq!(
            parameters(&d),
            json!({"type": "object", "properties": {"type": {"type": "string"}, "n": {"type": "integer"}}, "required": ["type"]})
        );
    }

    #[test]
    fn mcp_schemas_lose_meta_keys_and_keep_the_rest() {
        let d = decl(
            None,
            Some(
                json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "null"}], "$comment": "x"}},
                "additionalProperties": false}),
            ),
        );
        assert_eq!(
            parameters(&d),
            json!({"type": "object", "properties": {"v": {"anyOf": [{"type": "string"}, {"type": "null"}]}},
                "additionalProperties": false})
        );
        assert_eq!(
            parameters(&decl(None, None)),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn every_builtin_schema_is_an_object_with_properties() {
        for tool in builtin_tools() {
            let p = parameters(&tool.declaration());
            assert_eq!(p["type"], "object", "{}", tool.name());
            assert!(p["properties"].is_object(), "{}", tool.name());
            assert!(!p.to_string().contains("\"$schema\""), "{}", tool.name());
        }
    }
}
