//! The session protocol: its committed JSON Schema matches the types, and
//! ops and events survive a JSON round trip in their documented shape.

use gemini_rs_protocol::events::*;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

fn schema_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/schema")
        .join(name)
}

/// Fails when the committed schema `name` no longer matches `generated`;
/// `UPDATE_SCHEMAS=1 cargo test -p gemini-rs-protocol` rewrites it.
fn committed_matches(name: &str, generated: &Value) {
    let generated = serde_json::to_string_pretty(generated).unwrap() + "\n";
    let path = schema_path(name);
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is out of date: run `UPDATE_SCHEMAS=1 cargo test -p gemini-rs-protocol` and commit it",
        path.display()
    );
}

/// Fails when `docs/schema/events.schema.json` no longer matches the types.
#[test]
fn the_committed_schema_matches_the_types() {
    committed_matches("events.schema.json", &events_schema());
}

/// The same for `-o json` and `-o stream-json`.
#[test]
fn the_committed_output_schemas_match_the_types() {
    committed_matches("json-output.schema.json", &json_output_schema());
    committed_matches("stream-json.schema.json", &stream_json_schema());
}

/// A stream line validates against the committed schema, and the init
/// line carries the protocol version.
#[test]
fn stream_lines_fit_their_schema() {
    let validator = jsonschema::validator_for(&stream_json_schema()).unwrap();
    let init = serde_json::to_value(StreamEvent::Init(InitEvent::new(
        "2026-01-01T00:00:00.000Z".into(),
        "s".into(),
        "m".into(),
    )))
    .unwrap();
    assert_eq!(init["schema_version"], json!(PROTOCOL_VERSION));
    assert!(validator.is_valid(&init), "{init}");
    let bad = json!({"type": "result", "timestamp": "t", "status": "done", "stats": {}});
    assert!(!validator.is_valid(&bad));
    let json_validator = jsonschema::validator_for(&json_output_schema()).unwrap();
    assert!(json_validator.is_valid(&json!({"session_id": "s", "response": "hi"})));
    assert!(!json_validator.is_valid(&json!({"error": {"message": 1}})));
}

/// Checks `value` against the schema's definition `def`.
fn valid(def: &str, value: &Value) {
    let mut schema = events_schema();
    schema["$ref"] = json!(format!("#/$defs/{def}"));
    let root = schema.as_object_mut().unwrap();
    for key in ["required", "properties", "type"] {
        root.remove(key);
    }
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{e} at {} ({})", e.instance_path(), e.schema_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{value} is not a valid {def}: {errors:?}"
    );
}

fn round_trip<T>(value: &T, expected: Value)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_value(value).unwrap();
    assert_eq!(json, expected);
    let name = std::any::type_name::<T>().rsplit("::").next().unwrap();
    valid(name, &json);
    let back: T = serde_json::from_value(json).unwrap();
    assert_eq!(&back, value);
}

#[test]
fn events_are_tagged_by_type() {
    round_trip(
        &AgentEvent::Content { text: "hi".into() },
        json!({"type": "content", "text": "hi"}),
    );
    round_trip(
        &AgentEvent::ApprovalModeChanged {
            mode: ApprovalMode::AutoEdit,
        },
        json!({"type": "approval_mode_changed", "mode": "auto_edit"}),
    );
    round_trip(
        &AgentEvent::finished(Finished::Compress { compressed: true }),
        json!({"type": "finished", "op": "compress", "compressed": true}),
    );
    round_trip(
        &AgentEvent::Finished {
            op_id: Some("p-1".into()),
            finished: Finished::Clear,
        },
        json!({"type": "finished", "op": "clear", "op_id": "p-1"}),
    );
    round_trip(
        &AgentEvent::PromptStarted {
            text: "hi".into(),
            op_id: Some("p-2".into()),
        },
        json!({"type": "prompt_started", "text": "hi", "op_id": "p-2"}),
    );
    round_trip(
        &AgentEvent::Acknowledged {
            op_id: "c-1".into(),
        },
        json!({"type": "acknowledged", "op_id": "c-1"}),
    );
    round_trip(
        &AgentEvent::finished(Finished::Prompt(Err(AgentError::Model {
            error: ModelError::RateLimited {
                message: "slow down".into(),
            },
        }))),
        json!({"type": "finished", "op": "prompt",
            "Err": {"kind": "model", "error": {"kind": "rate_limited", "message": "slow down"}}}),
    );
    round_trip(
        &AgentEvent::Nested {
            parent_call_id: "c1".into(),
            event: Box::new(AgentEvent::ToolRunning {
                call_id: "c2".into(),
            }),
        },
        json!({"type": "nested", "parent_call_id": "c1",
            "event": {"type": "tool_running", "call_id": "c2"}}),
    );
}

#[test]
fn a_finished_call_carries_its_display_and_error() {
    let finished = ToolCallFinished {
        call_id: "c".into(),
        name: "read_file".into(),
        args: json!({"file_path": "a"}),
        status: ToolCallStatus::Error,
        display: ToolDisplay::Text("File not found".into()),
        error: Some(ToolError::new(
            ToolErrorKind::FileNotFound,
            "File not found",
        )),
        duration: Duration::from_millis(12),
    };
    round_trip(
        &AgentEvent::ToolFinished(finished),
        json!({"type": "tool_finished", "call_id": "c", "name": "read_file",
            "args": {"file_path": "a"}, "status": "error", "display": {"text": "File not found"},
            "error": {"kind": "file_not_found", "message": "File not found"}, "duration_ms": 12}),
    );
}

#[test]
fn ops_are_tagged_by_type() {
    round_trip(
        &Op::prompt("hello"),
        json!({"type": "prompt", "parts": [{"text": "hello"}]}),
    );
    round_trip(
        &Op::Confirm(ConfirmationResponse::new(
            "c",
            ConfirmationOutcome::ProceedOnce,
        )),
        json!({"type": "confirm", "call_id": "c", "outcome": "proceed_once", "modified_args": null}),
    );
    round_trip(&Op::Cancel, json!({"type": "cancel"}));
    round_trip(
        &Submission::new("x-7", Op::Cancel),
        json!({"id": "x-7", "op": {"type": "cancel"}}),
    );
    round_trip(
        &Op::AnswerElicitation {
            id: 3,
            reply: ElicitationReply::Decline,
        },
        json!({"type": "answer_elicitation", "id": 3, "reply": {"action": "decline"}}),
    );
}

#[test]
fn confirmation_details_are_tagged_by_type() {
    round_trip(
        &ConfirmationDetails::Exec {
            title: "Confirm Shell Command".into(),
            command: "ls".into(),
            root_commands: vec!["ls".into()],
        },
        json!({"type": "exec", "title": "Confirm Shell Command", "command": "ls",
            "root_commands": ["ls"]}),
    );
}
