//! Checking a sub-agent's `complete_task` output against its schema, with
//! the error in the shape Gemini CLI reports (zod's flattened errors:
//! `{"formErrors": [...], "fieldErrors": {"<key>": [...]}}`).

use jsonschema::error::{TypeKind, ValidationErrorKind};
use serde_json::{Map, Value, json};

/// Why a sub-agent's output was refused; the Display text follows `Output
/// validation failed: `.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The agent's own output schema does not compile.
    #[error("{0}")]
    Schema(Box<jsonschema::ValidationError<'static>>),
    /// The output does not fit: zod's flattened errors as JSON.
    #[error("{0}")]
    Mismatch(Value),
}

/// `Ok` when `value` fits `schema`; else why not.
pub fn validate_output(schema: &Value, value: &Value) -> Result<(), OutputError> {
    let validator =
        jsonschema::validator_for(schema).map_err(|e| OutputError::Schema(Box::new(e)))?;
    let mut form: Vec<String> = Vec::new();
    let mut fields: Map<String, Value> = Map::new();
    for err in validator.iter_errors(value) {
        let path = err.instance_path().as_str();
        let (field, message) = match err.kind() {
            ValidationErrorKind::Required { property } if path.is_empty() => (
                property.as_str().map(str::to_string),
                "Required".to_string(),
            ),
            ValidationErrorKind::Type { kind } => (
                first_segment(path),
                format!(
                    "Expected {}, received {}",
                    expected(kind),
                    received(err.instance())
                ),
            ),
            _ => (first_segment(path), err.to_string()),
        };
        match field {
            Some(f) => {
                if let Value::Array(list) = fields.entry(f).or_insert_with(|| json!([])) {
                    list.push(Value::String(message));
                }
            }
            None => form.push(message),
        }
    }
    if form.is_empty() && fields.is_empty() {
        return Ok(());
    }
    // In the order the schema lists its properties, as zod reports them.
    // open shape: the agent's output schema is any JSON Schema.
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        let mut ordered = Map::new();
        for key in props.keys() {
            if let Some(v) = fields.remove(key) {
                ordered.insert(key.clone(), v);
            }
        }
        ordered.extend(fields);
        fields = ordered;
    }
    Err(OutputError::Mismatch(
        json!({"formErrors": form, "fieldErrors": fields}),
    ))
}

fn first_segment(path: &str) -> Option<String> {
    path.strip_prefix('/')
        .and_then(|p| p.split('/').next())
        .filter(|s| !s.is_empty())
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
}

fn expected(kind: &TypeKind) -> String {
    match kind {
        TypeKind::Single(t) => t.to_string().replace("integer", "number"),
        TypeKind::Multiple(set) => set
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(" | "),
    }
}

fn received(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_read_like_the_reference() {
        let schema = json!({"type": "object", "properties": {
            "SummaryOfFindings": {"type": "string"},
            "ExplorationTrace": {"type": "array", "items": {"type": "string"}}},
            "required": ["SummaryOfFindings", "ExplorationTrace"]});
        let err = validate_output(&schema, &json!({"SummaryOfFindings": 3}))
            .unwrap_err()
            .to_string();
        // Properties in schema order, whatever order the checks ran in.
        assert_eq!(
            err,
            r#"{"formErrors":[],"fieldErrors":{"SummaryOfFindings":["Expected string, received number"],"ExplorationTrace":["Required"]}}"#
        );
        assert!(
            validate_output(
                &schema,
                &json!({"SummaryOfFindings": "s", "ExplorationTrace": []})
            )
            .is_ok()
        );
    }
}
