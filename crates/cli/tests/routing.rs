//! `-m auto` through the binary: a classifier call picks flash or pro per
//! prompt, a persistent quota error moves to flash, replays make no
//! classifier call.

use crate::e2e::{lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Fault};
use serde_json::{Value, json};

fn classifier(choice: &str) -> String {
    let answer = json!({"reasoning": "because", "model_choice": choice}).to_string();
    json!({"method": "generateContent", "response": {"candidates": [{"content": {"role": "model",
        "parts": [{"text": answer}]}, "finishReason": "STOP"}]}})
    .to_string()
}

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.settings(
        &json!({"model": {"name": "auto", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}),
    );
    sb
}

fn run(sb: &Sandbox, fake: &FakeServer) -> (i32, Value, String) {
    let out = sb.run(
        &["-o", "json", "-p", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    let json = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
    (out.code, json, out.stderr)
}

#[test]
fn the_classifier_picks_the_model_per_prompt() {
    for (choice, model) in [("flash", "gemini-2.5-flash"), ("pro", "gemini-2.5-pro")] {
        let sb = sandbox();
        let fake = FakeServer::replaying(&lines(&[classifier(choice), text("hi")]));
        let (code, json, stderr) = run(&sb, &fake);
        assert_eq!(code, 0, "{stderr}");
        let reqs = fake.requests();
        assert_eq!(reqs[0].rpc(), "generateContent");
        assert_eq!(reqs[0].model(), "gemini-2.5-flash-lite");
        let schema = &reqs[0].body["generationConfig"]["responseJsonSchema"];
        assert_eq!(
            schema["properties"]["model_choice"]["enum"],
            json!(["flash", "pro"])
        );
        assert_eq!(reqs[1].rpc(), "streamGenerateContent");
        assert_eq!(reqs[1].model(), model);
        assert!(json["stats"]["models"][model].is_object(), "{json}");
    }
}

#[test]
fn a_persistent_quota_error_falls_back_to_flash() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[classifier("pro"), text("from flash")]));
    // The classifier's call goes through; every attempt on pro is refused.
    fake.push_fault(Fault::Pass);
    for _ in 0..5 {
        fake.push_fault(Fault::Status(
            429,
            json!({"error": {"code": 429, "message": "quota exhausted"}}),
        ));
    }
    let (code, json, stderr) = run(&sb, &fake);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json["response"], "from flash");
    let models: Vec<String> = fake
        .requests()
        .iter()
        .map(|r| r.model().to_string())
        .collect();
    assert_eq!(models[1], "gemini-2.5-pro");
    assert_eq!(models.last().unwrap(), "gemini-2.5-flash");
    assert!(stderr.contains("switching to gemini-2.5-flash"), "{stderr}");
}

#[test]
fn replays_make_no_classifier_call() {
    let sb = sandbox();
    let file = sb.write("r.responses", &lines(&[text("replayed")]));
    let out = sb.run(
        &["--fake-responses", file.to_str().unwrap(), "-p", "go"],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "replayed");
}
