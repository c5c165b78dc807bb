//! `elicitation/create`: a server asks the user for structured input during
//! a call. The session decides who answers (the terminal shows a form;
//! without a user, the schema's defaults are accepted in yolo mode when
//! every required field has one, and the request is declined otherwise).

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use std::sync::{Arc, RwLock};

/// One request, as the user sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationRequest {
    /// The server asking.
    pub server: String,
    /// What it asks.
    pub message: String,
    /// The requested schema: an object of flat properties.
    pub schema: Value,
}

/// The answer.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationReply {
    /// The values.
    Accept(Map<String, Value>),
    /// The user said no (the call goes on).
    Decline,
    /// The user cancelled (the call should stop).
    Cancel,
}

/// Answers requests for the session.
pub type Elicitor =
    Arc<dyn Fn(ElicitationRequest) -> BoxFuture<'static, ElicitationReply> + Send + Sync>;

/// Where a session puts its [`Elicitor`]; requests before it is set are
/// declined.
pub type ElicitorSlot = Arc<RwLock<Option<Elicitor>>>;

/// The schema's defaults, when every required property has one.
pub fn defaults(schema: &Value) -> Option<Map<String, Value>> {
    let props = schema.get("properties").and_then(Value::as_object);
    let mut values = Map::new();
    for (name, prop) in props.into_iter().flatten() {
        if let Some(d) = prop.get("default") {
            values.insert(name.clone(), d.clone());
        }
    }
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    required
        .iter()
        .filter_map(Value::as_str)
        .all(|r| values.contains_key(r))
        .then_some(values)
}

/// Checks and converts what a user typed for property `prop` (a string
/// from the form) to the property's type.
pub fn parse_field(prop: &Value, typed: &str) -> Result<Value, String> {
    let kind = prop.get("type").and_then(Value::as_str).unwrap_or("string");
    if let Some(options) = prop.get("enum").and_then(Value::as_array)
        && !options.iter().any(|o| o.as_str() == Some(typed))
    {
        let names: Vec<String> = options
            .iter()
            .filter_map(|o| o.as_str().map(str::to_string))
            .collect();
        return Err(format!("choose one of: {}", names.join(", ")));
    }
    match kind {
        "integer" => typed
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "a whole number, please".to_string()),
        "number" => typed
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| "a number, please".to_string()),
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
            _ => Err("yes or no, please".to_string()),
        },
        _ => Ok(Value::String(typed.to_string())),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_need_every_required_field() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John"}, "age": {"type": "integer"}},
            "required": ["name"]});
        assert_eq!(
            defaults(&schema).unwrap(),
            json!({"name": "John"}).as_object().unwrap().clone()
        );
        let strict = json!({"properties": {"age": {"type": "integer"}}, "required": ["age"]});
        assert!(defaults(&strict).is_none());
    }

    #[test]
    fn typed_values_follow_the_schema() {
        assert_eq!(
            parse_field(&json!({"type": "integer"}), "30").unwrap(),
            json!(30)
        );
        assert!(parse_field(&json!({"type": "integer"}), "x").is_err());
        assert_eq!(
            parse_field(&json!({"type": "boolean"}), "yes").unwrap(),
            json!(true)
        );
        assert_eq!(
            parse_field(&json!({"type": "number"}), "9.5").unwrap(),
            json!(9.5)
        );
        assert!(parse_field(&json!({"enum": ["a", "b"]}), "c").is_err());
        assert_eq!(
            parse_field(&json!({"type": "array"}), "a, b").unwrap(),
            json!(["a", "b"])
        );
        assert_eq!(
            parse_field(&json!({"type": "array"}), "[\"x\"]").unwrap(),
            json!(["x"])
        );
    }
}
