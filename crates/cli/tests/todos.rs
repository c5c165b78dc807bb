//! `write_todos` through the binary: declared as Gemini CLI v0.27.4
//! declares it, answered with its texts, shown in stream-json.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

fn settings(sb: &Sandbox, model: &str, extra: Value) {
    let mut s = json!({"model": {"name": model, "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}});
    if let (Some(s), Some(extra)) = (s.as_object_mut(), extra.as_object()) {
        s.extend(extra.clone());
    }
    sb.settings(&s);
}

fn declared(fake: &FakeServer) -> Vec<String> {
    fake.requests()[0].body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect()
}

fn run(sb: &Sandbox, calls: &[String], args: &[&str]) -> (FakeServer, crate::support::Output) {
    let fake = FakeServer::replaying(&lines(calls));
    let mut all = vec!["--approval-mode=yolo"];
    all.extend_from_slice(args);
    all.push("go");
    let out = sb.run(&all, None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    (fake, out)
}

#[test]
fn write_todos_answers_like_the_reference() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash", json!({}));
    let good = call(
        "write_todos",
        json!({"todos": [{"description": "a", "status": "pending"}, {"description": "b", "status": "completed"}]}),
    );
    let two = call(
        "write_todos",
        json!({"todos": [{"description": "a", "status": "in_progress"}, {"description": "b", "status": "in_progress"}]}),
    );
    let (fake, out) = run(
        &sb,
        &[good, two, text("done")],
        &["--output-format", "stream-json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let names = declared(&fake);
    let at = |n: &str| names.iter().position(|x| x == n).unwrap();
    assert_eq!(at("write_todos"), at("google_web_search") + 1, "{names:?}");
    let decl = &fake.requests()[0].body["tools"][0]["functionDeclarations"][at("write_todos")];
    assert!(decl["responseJsonSchema"].is_object(), "{decl}");
    let frs = fake.function_responses();
    assert_eq!(
        frs[0]["functionResponse"]["response"],
        json!({"output": "Successfully updated the todo list. The current list is now:\n1. [pending] a\n2. [completed] b"})
    );
    assert_eq!(
        frs[1]["functionResponse"]["response"],
        json!({"error": "Invalid parameters: Only one task can be \"in_progress\" at a time."})
    );
    let results: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_result")
        .collect();
    assert_eq!(results[0]["status"], "success", "{results:?}");
    assert_eq!(results[1]["status"], "error", "{results:?}");
}

#[test]
fn write_todos_is_not_declared_for_preview_models_or_when_switched_off() {
    for (model, extra) in [
        ("gemini-3-flash-preview", json!({})),
        ("gemini-2.5-flash", json!({"useWriteTodos": false})),
    ] {
        let sb = Sandbox::new();
        settings(&sb, model, extra);
        let (fake, out) = run(&sb, &[text("hi")], &[]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(!declared(&fake).contains(&"write_todos".to_string()));
    }
}
