//! An MCP server's request for input during a call (`elicitation/create`),
//! as a front end shows it, and the user's answer.

use crate::lenient::{from_object, present, strings_of_list, wrong_type_as_none};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One request, as the user sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ElicitationRequest {
    /// The server asking.
    pub server: String,
    /// What it asks.
    pub message: String,
    /// The requested schema: an object of flat properties.
    pub schema: Value,
}

impl ElicitationRequest {
    /// The requested schema, typed.
    pub fn requested(&self) -> RequestedSchema {
        from_object(&self.schema)
    }
}

/// MCP's requested schema: an object of flat, primitive properties (read
/// leniently: a field of the wrong type reads as absent).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct RequestedSchema {
    /// The properties, in the server's order, each as it was sent.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    properties: Option<Map<String, Value>>,
    /// The names of the required properties.
    #[serde(default, deserialize_with = "strings_of_list")]
    required: Option<Vec<String>>,
}

/// One property of a requested schema.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct PropertySchema {
    /// `string`, `number`, `integer`, `boolean` or `array`.
    #[serde(rename = "type", default, deserialize_with = "wrong_type_as_none")]
    pub kind: Option<String>,
    /// The allowed values (their strings).
    #[serde(rename = "enum", default, deserialize_with = "strings_of_list")]
    pub options: Option<Vec<String>>,
    /// The default value (a `null` default is kept).
    #[serde(default, deserialize_with = "present")]
    pub default: Option<Value>,
    /// What the property is for.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    pub description: Option<String>,
}

impl RequestedSchema {
    /// The properties, in order, typed.
    pub fn properties(&self) -> Vec<(String, PropertySchema)> {
        self.properties
            .iter()
            .flatten()
            .map(|(name, prop)| (name.clone(), from_object(prop)))
            .collect()
    }

    /// The names of the required properties.
    pub fn required(&self) -> &[String] {
        self.required.as_deref().unwrap_or_default()
    }
}

/// The answer, in the shape of MCP's elicitation result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", content = "content", rename_all = "snake_case")]
pub enum ElicitationReply {
    /// The values.
    Accept(Map<String, Value>),
    /// The user said no (the call goes on).
    Decline,
    /// The user cancelled (the call should stop).
    Cancel,
}

/// Why a typed value does not fit its property.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct FieldError(pub String);

/// Checks and converts what a user typed for property `prop` (a string
/// from a form) to the property's type.
pub fn parse_field(prop: &PropertySchema, typed: &str) -> Result<Value, FieldError> {
    let kind = prop.kind.as_deref().unwrap_or("string");
    if let Some(options) = &prop.options
        && !options.iter().any(|o| o == typed)
    {
        return Err(FieldError(format!("choose one of: {}", options.join(", "))));
    }
    let refuse = |what: &str| FieldError(what.to_string());
    match kind {
        "integer" => typed
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| refuse("a whole number, please")),
        "number" => typed
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| refuse("a number, please")),
        "array" => match serde_json::from_str::<Value>(typed) {
            Ok(v @ Value::Array(_)) => Ok(v),
            _ => Ok(Value::Array(
                typed
                    .split(',')
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(|t| Value::String(t.to_string()))
                    .collect(),
            )),
        },
        "boolean" => match typed.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "y" => Ok(Value::Bool(true)),
            "false" | "no" | "n" => Ok(Value::Bool(false)),
            _ => Err(refuse("yes or no, please")),
        },
        _ => Ok(Value::String(typed.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn prop(v: Value) -> PropertySchema {
        from_object(&v)
    }

    #[test]
    fn typed_values_follow_the_schema() {
        assert_eq!(
            parse_field(&prop(json!({"type": "integer"})), "30").unwrap(),
            json!(30)
        );
        assert!(parse_field(&prop(json!({"type": "integer"})), "x").is_err());
        assert_eq!(
            parse_field(&prop(json!({"type": "boolean"})), "yes").unwrap(),
            json!(true)
        );
        assert_eq!(
            parse_field(&prop(json!({"type": "number"})), "9.5").unwrap(),
            json!(9.5)
        );
        assert!(parse_field(&prop(json!({"enum": ["a", "b"]})), "c").is_err());
        assert_eq!(
            parse_field(&prop(json!({"type": "array"})), "a, b").unwrap(),
            json!(["a", "b"])
        );
        assert_eq!(
            parse_field(&prop(json!({"type": "array"})), "[\"x\"]").unwrap(),
            json!(["x"])
        );
    }

    #[test]
    fn a_reply_has_mcps_shape() {
        let accept = ElicitationReply::Accept(json!({"a": 1}).as_object().unwrap().clone());
        assert_eq!(
            serde_json::to_value(&accept).unwrap(),
            json!({"action": "accept", "content": {"a": 1}})
        );
        assert_eq!(
            serde_json::to_value(ElicitationReply::Decline).unwrap(),
            json!({"action": "decline"})
        );
    }
}
