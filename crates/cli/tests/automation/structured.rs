//! `--output-schema` / `--json-schema` on each wire: valid at once,
//! invalid then fixed after the retry, invalid twice (exit 58); and the
//! bad schemas refused before any model call (exit 42).

use super::{SCHEMA, Wire, anthropic_call, ends_with_error, run, sandbox, stream_lines};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

fn schema() -> Value {
    serde_json::from_str(SCHEMA).unwrap()
}

/// The text of the last user message of a request, on any wire.
fn last_user_text(wire: Wire, body: &Value) -> String {
    match wire {
        Wire::Gemini => body["contents"].as_array().unwrap().last().unwrap()["parts"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        Wire::OpenAi | Wire::Anthropic => {
            let last = body["messages"].as_array().unwrap().last().unwrap().clone();
            match &last["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }
        }
    }
}

/// The wire carries the schema as its structured-output feature.
fn asks_for_schema(wire: Wire, body: &Value) {
    match wire {
        Wire::Gemini => {
            assert_eq!(body["generationConfig"]["responseJsonSchema"], schema());
            assert_eq!(
                body["generationConfig"]["responseMimeType"],
                "application/json"
            );
        }
        Wire::OpenAi => {
            assert_eq!(body["response_format"]["type"], "json_schema");
            assert_eq!(body["response_format"]["json_schema"]["schema"], schema());
        }
        Wire::Anthropic => {
            let tool = body["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == "structured_output")
                .cloned()
                .unwrap();
            assert_eq!(tool["input_schema"], schema());
        }
    }
}

#[test]
fn a_valid_answer_is_the_structured_output_on_every_wire() {
    for wire in [Wire::Gemini, Wire::OpenAi] {
        let sb = sandbox();
        let fake = FakeServer::with_replies([wire.text("{\"n\": 3}")]);
        let out = run(&sb, wire, &fake, &["--json-schema", SCHEMA, "-o", "json"]);
        assert_eq!(out.code, 0, "{wire:?} {out:?}");
        let body: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(body["structured_output"], json!({"n": 3}), "{wire:?}");
        asks_for_schema(wire, &fake.requests()[0].body);
        // Text output prints the JSON alone.
        let fake = FakeServer::with_replies([wire.text("{\"n\": 3}")]);
        let path = sb.write("schema.json", SCHEMA);
        let out = run(
            &sb,
            wire,
            &fake,
            &["--output-schema", path.to_str().unwrap()],
        );
        assert_eq!(out.code, 0, "{wire:?} {out:?}");
        assert_eq!(out.stdout, "{\"n\":3}\n", "{wire:?}");
    }
    // Anthropic: the model ends with text, is made to call the tool.
    let sb = sandbox();
    let fake = FakeServer::with_replies([
        Wire::Anthropic.text("Here it is."),
        anthropic_call("structured_output", &json!({"n": 5})),
    ]);
    let out = run(
        &sb,
        Wire::Anthropic,
        &fake,
        &["--json-schema", SCHEMA, "-o", "stream-json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let lines = stream_lines(&out);
    let result = lines.last().unwrap();
    assert_eq!(result["structured_output"], json!({"n": 5}), "{out:?}");
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 2);
    asks_for_schema(Wire::Anthropic, &reqs[0].body);
    assert!(
        reqs[0].body.get("tool_choice").is_none(),
        "{}",
        reqs[0].body
    );
    assert_eq!(
        reqs[1].body["tool_choice"],
        json!({"type": "tool", "name": "structured_output"})
    );
}

#[test]
fn an_invalid_answer_is_retried_once_with_its_errors() {
    for wire in [Wire::Gemini, Wire::OpenAi, Wire::Anthropic] {
        let sb = sandbox();
        let (bad, good) = match wire {
            Wire::Anthropic => (
                anthropic_call("structured_output", &json!({"n": "x"})),
                anthropic_call("structured_output", &json!({"n": 4})),
            ),
            _ => (wire.text("{\"n\": \"x\"}"), wire.text("{\"n\": 4}")),
        };
        let fake = FakeServer::with_replies([bad, good]);
        let out = run(&sb, wire, &fake, &["--json-schema", SCHEMA, "-o", "json"]);
        assert_eq!(out.code, 0, "{wire:?} {out:?}");
        let body: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(body["structured_output"], json!({"n": 4}), "{wire:?}");
        let reqs = fake.requests();
        assert_eq!(reqs.len(), 2, "{wire:?}");
        let retry = last_user_text(wire, &reqs[1].body);
        assert!(
            retry.contains("does not match the required JSON Schema") && retry.contains("/n"),
            "{wire:?}: {retry}"
        );
    }
}

#[test]
fn an_answer_invalid_twice_exits_58() {
    for wire in [Wire::Gemini, Wire::OpenAi, Wire::Anthropic] {
        let sb = sandbox();
        let replies = match wire {
            Wire::Anthropic => vec![
                anthropic_call("structured_output", &json!({"n": "x"})),
                anthropic_call("structured_output", &json!({})),
            ],
            _ => vec![wire.text("not json"), wire.text("{\"n\": 1.5}")],
        };
        let fake = FakeServer::with_replies(replies);
        let out = run(
            &sb,
            wire,
            &fake,
            &["--json-schema", SCHEMA, "-o", "stream-json"],
        );
        assert_eq!(out.code, 58, "{wire:?} {out:?}");
        ends_with_error(&out, "FatalStructuredOutputError");
        assert_eq!(fake.requests().len(), 2, "{wire:?}");
        let out = run(
            &sb,
            wire,
            &FakeServer::with_replies(match wire {
                Wire::Anthropic => vec![
                    anthropic_call("structured_output", &json!({"n": "x"})),
                    anthropic_call("structured_output", &json!({})),
                ],
                _ => vec![wire.text("not json"), wire.text("{\"n\": 1.5}")],
            }),
            &["--json-schema", SCHEMA, "-o", "json"],
        );
        assert_eq!(out.code, 58, "{wire:?} {out:?}");
        assert!(out.stderr.contains("\"code\": 58"), "{out:?}");
    }
}

#[test]
fn bad_schemas_exit_42_before_any_model_call() {
    let sb = sandbox();
    let fake = FakeServer::with_replies([]);
    let missing = sb.work.join("nope.json");
    let cases: [(&[&str], &str); 4] = [
        (
            &["--output-schema", missing.to_str().unwrap()],
            "--output-schema",
        ),
        (&["--json-schema", "{oops"], "--json-schema: not valid JSON"),
        (
            &["--json-schema", r#"{"type": 12}"#],
            "--json-schema: not a valid JSON Schema",
        ),
        (
            &["--json-schema", "[]"],
            "--json-schema: a JSON Schema must be a JSON object",
        ),
    ];
    for (args, named) in cases {
        let out = run(&sb, Wire::Gemini, &fake, args);
        assert_eq!(out.code, 42, "{args:?} {out:?}");
        assert!(out.stderr.contains(named), "{args:?} {out:?}");
    }
    assert!(fake.requests().is_empty());
}

/// `$defs` d0..d{depth}, each an `anyOf` of two `$ref`s to the next: a
/// 1.5 KB schema whose expansion doubles with every level.
fn chained_schema(depth: usize) -> String {
    let mut defs = serde_json::Map::new();
    for i in 0..depth {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({"anyOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert(format!("d{depth}"), json!({"type": "string"}));
    json!({"$defs": defs, "$ref": "#/$defs/d0"}).to_string()
}

/// Issue 41.6: a schema whose `$ref`s expand exponentially is refused
/// with exit 42, at once and before any model call.
#[test]
fn an_exponential_schema_is_refused_before_any_model_call() {
    let sb = sandbox();
    let fake = FakeServer::with_replies([]);
    for depth in [22, 40] {
        let schema = chained_schema(depth);
        let started = std::time::Instant::now();
        let out = run(&sb, Wire::Gemini, &fake, &["--json-schema", &schema]);
        assert_eq!(out.code, 42, "depth {depth}: {out:?}");
        assert!(
            out.stderr
                .contains("--json-schema: too complex to validate"),
            "{out:?}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "depth {depth} took {:?}",
            started.elapsed()
        );
    }
    assert!(fake.requests().is_empty());
}
