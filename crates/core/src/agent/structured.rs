//! Structured output (`--output-schema`, `--json-schema`): the final
//! answer must be a JSON value valid against a schema. Wires with a
//! structured-output feature get the schema as `responseJsonSchema`
//! (Gemini; OpenAI's `response_format`); Anthropic gets a
//! `structured_output` tool whose input is the answer, forced when the
//! model ends without calling it. An invalid answer is sent back once with
//! the validation errors.

use super::{Agent, AgentError, PromptOutcome};
use crate::model::provider::Wire;
use gemini_rs_protocol::{
    Content, FunctionCall, FunctionCallingConfig, FunctionDeclaration, FunctionResponse,
    GenerateContentRequest, Part, Role, ToolConfig,
};
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The tool whose input is the final answer (wires without the feature).
pub const STRUCTURED_TOOL: &str = "structured_output";

/// Why a schema given on the command line cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum OutputSchemaError {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    NotJson(#[from] serde_json::Error),
    /// The JSON is not an object.
    #[error("a JSON Schema must be a JSON object")]
    NotObject,
    /// The object is not a valid JSON Schema.
    #[error("not a valid JSON Schema: {0}")]
    NotSchema(String),
    /// Past the bounds that keep validation fast.
    #[error("too complex to validate: {0}")]
    TooComplex(#[from] super::schema_bound::SchemaBoundError),
}

/// The most validation errors reported for one answer.
const MAX_REPORTED: usize = 20;
/// How long gathering an answer's validation errors may take.
const REPORT_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// A checked output schema, cheap to clone.
#[derive(Clone)]
pub struct OutputSchema {
    schema: Arc<Value>,
    validator: Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("OutputSchema").field(&self.schema).finish()
    }
}

impl OutputSchema {
    /// Parses and checks a JSON Schema given as text.
    pub fn parse(text: &str) -> Result<OutputSchema, OutputSchemaError> {
        let schema: Value = serde_json::from_str(text)?;
        if !schema.is_object() {
            return Err(OutputSchemaError::NotObject);
        }
        super::schema_bound::check(&schema)?;
        jsonschema::meta::validate(&schema)
            .map_err(|e| OutputSchemaError::NotSchema(e.to_string()))?;
        let validator = jsonschema::validator_for(&schema)
            .map_err(|e| OutputSchemaError::NotSchema(e.to_string()))?;
        Ok(OutputSchema {
            schema: Arc::new(schema),
            validator: Arc::new(validator),
        })
    }

    /// The schema.
    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// `Ok` when `value` fits; else the validation errors. The schema's
    /// size is bounded when it is parsed (`schema_bound`); the report is
    /// too: at most [`MAX_REPORTED`] errors, gathered within
    /// [`REPORT_BUDGET`] (an answer over it is judged invalid with what was
    /// found by then).
    fn check(&self, value: &Value) -> Result<(), AnswerError> {
        if self.validator.is_valid(value) {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let mut errors = Vec::new();
        for e in self.validator.iter_errors(value) {
            let at = e.instance_path().as_str().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            errors.push(format!("at {at}: {e}"));
            if errors.len() >= MAX_REPORTED || started.elapsed() > REPORT_BUDGET {
                errors.push("(further errors not listed)".to_string());
                break;
            }
        }
        if errors.is_empty() {
            errors.push("the answer does not match the schema".to_string());
        }
        Err(AnswerError::Invalid(errors))
    }

    /// The tool's input schema: the schema itself when it is of an object,
    /// else an object holding it under `value`.
    fn tool_schema(&self) -> Value {
        if self.wrapped() {
            json!({"type": "object", "properties": {"value": *self.schema}, "required": ["value"]})
        } else {
            (*self.schema).clone()
        }
    }

    // open shape: the caller's output schema is any JSON Schema.
    fn wrapped(&self) -> bool {
        self.schema.get("type") != Some(&json!("object"))
    }
}

/// Why a final answer is not the structured output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
enum AnswerError {
    /// The model did not call the structured-output tool.
    #[error("`{STRUCTURED_TOOL}` was not called")]
    NotCalled,
    /// Nothing was answered.
    #[error("the answer is empty, not JSON")]
    Empty,
    /// The text is not JSON.
    #[error("the answer is not JSON ({0})")]
    NotJson(String),
    /// JSON that the schema refuses: one line per violation.
    #[error("{}", .0.join("; "))]
    Invalid(Vec<String>),
}

/// The answer text as JSON (a Markdown code fence around it is dropped).
fn parse_answer(text: &str) -> Result<Value, AnswerError> {
    let trimmed = text.trim();
    let inner = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.strip_suffix("```"))
        .unwrap_or(trimmed);
    serde_json::from_str(inner.trim()).map_err(|e| {
        if trimmed.is_empty() {
            AnswerError::Empty
        } else {
            AnswerError::NotJson(e.to_string())
        }
    })
}

impl Agent {
    /// Whether the current model gets the answer through the tool.
    pub(super) fn structured_by_tool(&self) -> bool {
        self.config.output_schema.is_some()
            && self.config.context_windows.wire(&self.config.model) == Wire::Anthropic
    }

    /// Adds the schema (or the tool, forced when asked) to a request.
    pub(super) fn add_structured(&self, request: &mut GenerateContentRequest) {
        let Some(schema) = &self.config.output_schema else {
            return;
        };
        if !self.structured_by_tool() {
            let config = request
                .generation_config
                .get_or_insert_with(Default::default);
            config
                .extra
                .insert("responseMimeType".into(), json!("application/json"));
            config
                .extra
                .insert("responseJsonSchema".into(), schema.schema().clone());
            return;
        }
        let declaration = FunctionDeclaration {
            name: STRUCTURED_TOOL.to_string(),
            description: Some(
                "Give your final answer: call this once you are done, with the answer as the input."
                    .to_string(),
            ),
            parameters_json_schema: Some(schema.tool_schema()),
            parameters: None,
            extra: Default::default(),
        };
        let tools = request.tools.get_or_insert_with(Vec::new);
        match tools.first_mut() {
            Some(tool) => tool
                .function_declarations
                .get_or_insert_with(Vec::new)
                .push(declaration),
            None => tools.push(gemini_rs_protocol::Tool {
                function_declarations: Some(vec![declaration]),
                ..Default::default()
            }),
        }
        if let Some(system) = request.system_instruction.as_mut() {
            system.parts.push(Part::text(format!(
                "\n\nWhen you have the final answer, call the `{STRUCTURED_TOOL}` tool with it; do not write it as text."
            )));
        }
        if self.force_structured {
            request.tool_config = Some(ToolConfig {
                function_calling_config: Some(FunctionCallingConfig {
                    mode: Some("ANY".to_string()),
                    allowed_function_names: Some(vec![STRUCTURED_TOOL.to_string()]),
                    extra: Default::default(),
                }),
                extra: Default::default(),
            });
        }
    }

    /// When the model called the answer tool: its input, with every call
    /// of the turn answered in the history (the others are not run).
    pub(super) fn take_structured_call(&mut self, calls: &[FunctionCall]) -> Option<Value> {
        if !self.structured_by_tool() {
            return None;
        }
        let call = calls.iter().find(|c| c.name == STRUCTURED_TOOL)?;
        let mut input = call.args.clone().unwrap_or_else(|| json!({}));
        if self
            .config
            .output_schema
            .as_ref()
            .is_some_and(OutputSchema::wrapped)
        {
            /// The answer tool's input when the schema is not an object's.
            #[derive(Default, serde::Deserialize)]
            struct Wrapped {
                #[serde(default)]
                value: Value,
            }
            input = Wrapped::deserialize(input).unwrap_or_default().value;
        }
        let answers = calls
            .iter()
            .map(|c| {
                let response = if c.name == STRUCTURED_TOOL {
                    json!({"output": "Final answer received."})
                } else {
                    json!({"error": "Not run: the final answer was already given."})
                };
                Part::function_response(FunctionResponse {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    response,
                    parts: None,
                    extra: Default::default(),
                })
            })
            .collect();
        self.history.push(Content::new(Role::User, answers));
        Some(input)
    }

    /// Checks the final answer against the output schema: a missing tool
    /// call is asked for (forced), an invalid answer is sent back once with
    /// its errors; still invalid is [`AgentError::StructuredOutput`].
    pub(super) async fn structured_answer(
        &mut self,
        mut outcome: PromptOutcome,
        cancel: &CancellationToken,
    ) -> Result<PromptOutcome, AgentError> {
        let Some(schema) = self.config.output_schema.clone() else {
            return Ok(outcome);
        };
        let mut retried = false;
        let mut asked_for_call = false;
        loop {
            if outcome.stopped.is_some() || outcome.declined || outcome.loop_detected {
                return Ok(outcome);
            }
            let by_tool = self.structured_by_tool();
            let missing = by_tool && outcome.structured_output.is_none();
            let candidate = match outcome.structured_output.take() {
                Some(value) => Ok(value),
                None if by_tool => Err(AnswerError::NotCalled),
                None => parse_answer(&outcome.last_turn_text),
            };
            let errors = match candidate.and_then(|v| schema.check(&v).map(|()| v)) {
                Ok(value) => {
                    outcome.structured_output = Some(value);
                    return Ok(outcome);
                }
                Err(errors) => errors.to_string(),
            };
            let prompt = if missing && !asked_for_call {
                asked_for_call = true;
                format!("Call `{STRUCTURED_TOOL}` now with your final answer.")
            } else if retried {
                return Err(AgentError::StructuredOutput { message: errors });
            } else {
                retried = true;
                let how = if by_tool {
                    format!("Call `{STRUCTURED_TOOL}` again with an input")
                } else {
                    "Answer again with only a JSON value".to_string()
                };
                format!(
                    "Your final answer does not match the required JSON Schema: {errors}. {how} valid against the schema."
                )
            };
            self.force_structured = by_tool;
            let mut ignored = Vec::new();
            let next = self
                .run_turns(vec![Part::text(prompt)], &mut ignored, cancel)
                .await;
            self.force_structured = false;
            outcome = next?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_report_is_bounded() {
        let required: Vec<String> = (0..50).map(|i| format!("k{i}")).collect();
        let schema = json!({"type": "object", "required": required});
        let schema = OutputSchema::parse(&schema.to_string()).unwrap();
        let Err(AnswerError::Invalid(errors)) = schema.check(&json!({})) else {
            panic!("an empty object lacks every key");
        };
        assert_eq!(errors.len(), MAX_REPORTED + 1, "{errors:?}");
        assert_eq!(errors[MAX_REPORTED], "(further errors not listed)");
        assert!(schema.check(&json!({"k0": 1})).is_err());
    }

    #[test]
    fn schemas_are_checked_before_use() {
        assert!(matches!(
            OutputSchema::parse("{oops"),
            Err(OutputSchemaError::NotJson(_))
        ));
        assert!(matches!(
            OutputSchema::parse("[1]"),
            Err(OutputSchemaError::NotObject)
        ));
        assert!(matches!(
            OutputSchema::parse(r#"{"type": 12}"#),
            Err(OutputSchemaError::NotSchema(_))
        ));
        let schema = OutputSchema::parse(
            r#"{"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}"#,
        )
        .unwrap();
        assert!(schema.check(&json!({"n": 1})).is_ok());
        let err = schema.check(&json!({"n": "x"})).unwrap_err().to_string();
        assert!(err.contains("at /n"), "{err}");
    }

    #[test]
    fn fenced_answers_parse() {
        assert_eq!(
            parse_answer("```json\n{\"a\": 1}\n```"),
            Ok(json!({"a": 1}))
        );
        assert_eq!(parse_answer(" [1] "), Ok(json!([1])));
        assert!(parse_answer("sure!").is_err());
    }
}
