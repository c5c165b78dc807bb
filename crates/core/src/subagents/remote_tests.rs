#![allow(clippy::unwrap_used)]
use super::*;

fn ev(v: Value) -> StreamResponse {
    serde_json::from_value(v).unwrap()
}

fn card_of(v: Value) -> AgentCard {
    serde_json::from_value(v).unwrap()
}

#[test]
fn messages_then_named_artifacts_as_0_61_joins_them() {
    let mut r = Reassembler::default();
    r.update(&ev(
        json!({"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
    ));
    r.update(&ev(
        json!({"statusUpdate": {"status": {"state": "TASK_STATE_WORKING",
        "message": {"role": "ROLE_AGENT", "parts": [{"text": "Looking."}]}}}}),
    ));
    // The same text twice in a row counts once; user messages never.
    r.update(&ev(
        json!({"message": {"role": "ROLE_AGENT", "parts": [{"text": "Looking."}]}}),
    ));
    r.update(&ev(
        json!({"message": {"role": "ROLE_USER", "parts": [{"text": "q"}]}}),
    ));
    r.update(&ev(json!({"artifactUpdate": {"artifact": {"artifactId": "a", "name": "out", "parts": [{"text": "1"}]}}})));
    r.update(&ev(json!({"artifactUpdate": {"append": true, "artifact": {"artifactId": "a", "parts": [{"text": "2"}]}}})));
    r.update(&ev(
        json!({"message": {"role": "ROLE_AGENT", "parts": [{"data": {"k": 1}}]}}),
    ));
    assert_eq!(r.text(), "Looking.Data: {\"k\":1}\n\nArtifact (out):\n12");
}

#[test]
fn a_finished_task_without_messages_answers_with_its_last_agent_message() {
    let mut r = Reassembler::default();
    r.update(&ev(
        json!({"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"},
        "history": [{"role": "ROLE_USER", "parts": [{"text": "q"}]},
                    {"role": "ROLE_AGENT", "parts": [{"text": "A."}]}]}}),
    ));
    assert_eq!(r.text(), "A.");
}

#[test]
fn ids_carry_over_until_the_task_is_final() {
    let mut c = Conversation::default();
    track(
        &mut c,
        &ev(
            json!({"task": {"id": "t1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}),
        ),
    );
    assert_eq!(
        (c.context_id.as_deref(), c.task_id.as_deref()),
        (Some("c"), Some("t1"))
    );
    track(
        &mut c,
        &ev(
            json!({"statusUpdate": {"taskId": "t1", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}),
        ),
    );
    assert_eq!((c.context_id.as_deref(), c.task_id), (Some("c"), None));
}

#[test]
fn the_endpoint_is_the_jsonrpc_interface() {
    let card = card_of(json!({"supportedInterfaces": [
        {"url": "http://h/grpc", "protocolBinding": "GRPC"},
        {"url": "http://h/rpc", "protocolBinding": "JSONRPC"}]}));
    assert_eq!(endpoint(&card).unwrap(), "http://h/rpc");
    let old = card_of(json!({"url": "http://h/", "preferredTransport": "JSONRPC"}));
    assert!(endpoint(&old).unwrap_err().to_string().contains("A2A 1.0"));
}

#[test]
fn an_answer_that_does_not_fit_a2a_names_the_field() {
    let answer = json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"status": {"state": 5}}}});
    let e = result(answer).unwrap_err().to_string();
    assert!(e.contains("task.status.state: invalid type"), "{e}");
    let failed = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "gone"}});
    assert_eq!(
        result(failed).unwrap_err().to_string(),
        "Error calling remote agent: JSON-RPC Error -32001: gone"
    );
    let e = read::<AgentCard>("card", br#"{"supportedInterfaces": {}}"#).unwrap_err();
    let e = e.to_string();
    assert!(
        e.ends_with("card: supportedInterfaces: invalid type: map, expected a sequence"),
        "{e}"
    );
}
