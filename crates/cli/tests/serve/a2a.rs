//! `gemini-rs serve` as an A2A v1.0 agent, driven by PyPI's `a2a-sdk`
//! client (`tests/serve/a2a_client.py`): the card, `SendMessage`,
//! `SendStreamingMessage`, `GetTask`, `CancelTask`, one session per context.

use super::{Served, ended_sessions, hello_model, session_end_hook, settings};
use crate::support::{Sandbox, peer_missing};
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

/// The Python with `a2a-sdk` installed: `GEMINI_RS_A2A_PYTHON`, else
/// `target/a2a-py` (where `.ci/run` installs it).
pub fn python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = std::env::var_os("GEMINI_RS_A2A_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/a2a-py/bin/python")])
        .find(|p| p.exists());
    if found.is_none() {
        peer_missing(
            "a2a-sdk (PyPI)",
            "python3 -m venv target/a2a-py && target/a2a-py/bin/pip install 'a2a-sdk[http-server]' uvicorn, or set GEMINI_RS_A2A_PYTHON",
        );
    }
    found
}

/// Runs the a2a-sdk client on `steps` against `served`; its log.
fn client(sb: &Sandbox, served: &Served, token: Option<&str>, steps: Value) -> Option<Value> {
    let python = python()?;
    let script = sb.write("a2a_client.py", include_str!("a2a_client.py"));
    let scenario =
        json!({"base": format!("http://{}", served.addr), "token": token, "steps": steps});
    let file = sb.write("a2a_scenario.json", &scenario.to_string());
    let out = Command::new(python)
        .arg(script)
        .arg(file)
        .output()
        .expect("python runs the A2A client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "{e}: {stdout}\n{}\nserver: {}",
            String::from_utf8_lossy(&out.stderr),
            served.stderr()
        )
    });
    Some(log)
}

fn answer(log: &Value, i: usize) -> &Value {
    let s = &log["steps"][i];
    assert!(s.get("error").is_none(), "step {i}: {log:#}");
    &s["answer"]
}

/// The text of a status's message.
fn status_text(status: &Value) -> &str {
    status["message"]["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[test]
fn the_a2a_sdk_client_sends_streams_and_reads_tasks() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let fake = hello_model(4);
    let served = Served::start(
        &sb,
        "127.0.0.1:0",
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    let steps = json!([
        {"do": "card"},
        {"do": "send", "text": "hi", "streaming": false, "as": "t1"},
        {"do": "send", "text": "and again", "streaming": true, "context": "t1", "as": "t2"},
        {"do": "get", "task": "t1"},
        {"do": "cancel", "task": "t1"},
        {"do": "send", "text": "elsewhere", "streaming": false, "as": "t3"},
        {"do": "raw", "method": "message/send", "params": {}},
        {"do": "raw", "method": "SendMessage", "params": {"message": {"role": "ROLE_USER", "parts": []}}},
    ]);
    let Some(log) = client(&sb, &served, None, steps) else {
        return;
    };
    let card = answer(&log, 0);
    assert_eq!(card["name"], "gemini-rs");
    let interface = &card["supportedInterfaces"][0];
    assert_eq!(interface["protocolBinding"], "JSONRPC");
    assert_eq!(interface["protocolVersion"], "1.0");
    assert_eq!(interface["url"], format!("http://{}/a2a", served.addr));
    assert_eq!(card["capabilities"]["streaming"], true);

    // SendMessage: one task, completed, with the model's answer.
    let sent = answer(&log, 1);
    let events = sent["events"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{log:#}");
    let task = &events[0]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{log:#}");
    assert_eq!(status_text(&task["status"]), "Hello there.");
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    assert_eq!(task["history"][1]["role"], "ROLE_AGENT");

    // SendStreamingMessage in the same context: the task first, then its
    // status updates; the session remembers the first exchange.
    let streamed = answer(&log, 2);
    let events = streamed["events"].as_array().unwrap();
    assert_eq!(
        events[0]["task"]["status"]["state"], "TASK_STATE_SUBMITTED",
        "{log:#}"
    );
    let last = &events.last().unwrap()["statusUpdate"];
    assert_eq!(last["status"]["state"], "TASK_STATE_COMPLETED", "{log:#}");
    assert_eq!(status_text(&last["status"]), "Hello there.");
    assert_eq!(streamed["contextId"], sent["contextId"]);
    assert_ne!(streamed["taskId"], sent["taskId"]);
    let requests = fake.requests();
    let second = requests
        .iter()
        .map(|r| r.body["contents"].to_string())
        .find(|c| c.contains("and again"))
        .expect("the second prompt reached the model");
    assert!(
        second.contains("hi") && second.contains("Hello there."),
        "{second}"
    );

    // GetTask and CancelTask of a finished task.
    let got = answer(&log, 3);
    assert_eq!(got["id"], sent["taskId"]);
    assert_eq!(got["status"]["state"], "TASK_STATE_COMPLETED");
    let refused = log["steps"][4]["error"].as_str().unwrap_or_default();
    assert!(refused.contains("cannot be canceled"), "{log:#}");

    // A message without a context starts another session.
    assert_ne!(answer(&log, 5)["contextId"], sent["contextId"]);
    let third = requests
        .iter()
        .map(|r| r.body["contents"].to_string())
        .find(|c| c.contains("elsewhere"));
    assert!(third.is_none_or(|c| !c.contains("and again")));

    // A2A 0.3's method names are not 1.0's; an empty message is refused.
    assert_eq!(answer(&log, 6)["error"]["code"], -32601, "{log:#}");
    assert_eq!(answer(&log, 7)["error"]["code"], -32602, "{log:#}");
}

#[test]
fn cancel_ends_a_running_task_and_an_idle_context_resumes_from_its_recording() {
    let sb = Sandbox::new();
    let ended = sb.work.join("ended");
    let hook = session_end_hook(&ended);
    settings(
        &sb,
        json!({"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "name": "end", "command": hook}]}]}}),
    );
    // The first prompt's model call never answers; the others say hello.
    let fake = FakeServer::builder()
        .route_replies(
            "POST /v1beta/models/*",
            [Reply::hang(), Reply::gemini_stream([hello_chunk()])],
        )
        .start();
    let served = Served::start(
        &sb,
        "127.0.0.1:0",
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_RS_SERVE_A2A_IDLE_SECONDS", "1"),
        ],
    );
    let message =
        |text: &str| json!({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": text}]});
    let steps = json!([
        {"do": "raw", "method": "SendMessage", "as": "t1",
         "params": {"message": message("wait forever"), "configuration": {"returnImmediately": true}}},
        {"do": "sleep", "seconds": 1},
        {"do": "cancel", "task": "t1"},
        {"do": "send", "text": "hi", "streaming": false, "as": "t2"},
        {"do": "sleep", "seconds": 4},
        {"do": "send", "text": "still there?", "streaming": false, "context": "t2", "as": "t3"},
    ]);
    let Some(log) = client(&sb, &served, None, steps) else {
        return;
    };
    let submitted = &answer(&log, 0)["result"]["task"];
    assert_eq!(
        submitted["status"]["state"], "TASK_STATE_SUBMITTED",
        "{log:#}"
    );
    assert_eq!(
        answer(&log, 2)["status"]["state"],
        "TASK_STATE_CANCELED",
        "{log:#}"
    );
    let t2 = answer(&log, 3);
    assert_eq!(
        t2["events"][0]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{log:#}"
    );
    // Idle for a second, t2's context was closed (its SessionEnd hook ran,
    // as did t1's); the next message resumed it from its recording.
    let t3 = answer(&log, 5);
    assert_eq!(t3["contextId"], t2["contextId"]);
    assert_eq!(
        t3["events"][0]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{log:#}"
    );
    let ended_ids = ended_sessions(&ended);
    assert!(
        ended_ids.contains(&t2["contextId"].as_str().unwrap().to_string()),
        "{ended_ids:?}"
    );
    let last = fake.requests().last().unwrap().body["contents"].to_string();
    assert!(
        last.contains("hi") && last.contains("Hello there.") && last.contains("still there?"),
        "{last}"
    );
}

/// A model stream chunk saying "Hello there.".
fn hello_chunk() -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hello there."}]},
        "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3, "totalTokenCount": 13}})
}

#[test]
fn a_malformed_message_is_refused_naming_its_field() {
    let sb = Sandbox::new();
    let served = Served::start(&sb, "127.0.0.1:0", &[]);
    let post = |body: &str| {
        let (status, answer) =
            super::http(&served.addr, &super::request("POST", "/a2a", &[], body));
        assert_eq!(status, 200, "{answer}");
        answer
    };
    let wrong_id = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","taskId":5,"parts":[{"text":"hi"}]}}}"#;
    let answer = post(wrong_id);
    assert!(answer.contains(r#""code":-32602"#), "{answer}");
    assert!(
        answer.contains("params.message.taskId: invalid type: integer `5`, expected a string"),
        "{answer}"
    );
    let no_message = r#"{"jsonrpc":"2.0","id":2,"method":"SendStreamingMessage","params":{}}"#;
    assert!(post(no_message).contains("params.message is required"));
    let no_parts = r#"{"jsonrpc":"2.0","id":3,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","parts":[]}}}"#;
    assert!(post(no_parts).contains("message.parts is empty"));
    let no_version = r#"{"id":4,"method":"GetTask","params":{"id":"x"}}"#;
    let answer = post(no_version);
    assert!(
        answer.contains(r#""code":-32600"#) && answer.contains(r#""id":4"#),
        "{answer}"
    );
}
