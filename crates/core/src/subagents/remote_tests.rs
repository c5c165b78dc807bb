#![allow(clippy::unwrap_used)]
use super::*;

#[test]
fn messages_then_named_artifacts_as_0_61_joins_them() {
    let mut r = Reassembler::default();
    r.update(&json!({"task": {"id": "t", "status": {"state": "TASK_STATE_SUBMITTED"}}}));
    r.update(
        &json!({"statusUpdate": {"status": {"state": "TASK_STATE_WORKING",
        "message": {"role": "ROLE_AGENT", "parts": [{"text": "Looking."}]}}}}),
    );
    // The same text twice in a row counts once; user messages never.
    r.update(&json!({"message": {"role": "ROLE_AGENT", "parts": [{"text": "Looking."}]}}));
    r.update(&json!({"message": {"role": "ROLE_USER", "parts": [{"text": "q"}]}}));
    r.update(&json!({"artifactUpdate": {"artifact": {"artifactId": "a", "name": "out", "parts": [{"text": "1"}]}}}));
    r.update(&json!({"artifactUpdate": {"append": true, "artifact": {"artifactId": "a", "parts": [{"text": "2"}]}}}));
    r.update(&json!({"message": {"role": "ROLE_AGENT", "parts": [{"data": {"k": 1}}]}}));
    assert_eq!(r.text(), "Looking.Data: {\"k\":1}\n\nArtifact (out):\n12");
}

#[test]
fn a_finished_task_without_messages_answers_with_its_last_agent_message() {
    let mut r = Reassembler::default();
    r.update(
        &json!({"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"},
        "history": [{"role": "ROLE_USER", "parts": [{"text": "q"}]},
                    {"role": "ROLE_AGENT", "parts": [{"text": "A."}]}]}}),
    );
    assert_eq!(r.text(), "A.");
}

#[test]
fn ids_carry_over_until_the_task_is_final() {
    let mut c = Conversation::default();
    track(
        &mut c,
        &json!({"task": {"id": "t1", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}}),
    );
    assert_eq!(
        (c.context_id.as_deref(), c.task_id.as_deref()),
        (Some("c"), Some("t1"))
    );
    track(
        &mut c,
        &json!({"statusUpdate": {"taskId": "t1", "contextId": "c", "status": {"state": "TASK_STATE_COMPLETED"}}}),
    );
    assert_eq!((c.context_id.as_deref(), c.task_id), (Some("c"), None));
}

#[test]
fn the_endpoint_is_the_jsonrpc_interface() {
    let card = json!({"supportedInterfaces": [
        {"url": "http://h/grpc", "protocolBinding": "GRPC"},
        {"url": "http://h/rpc", "protocolBinding": "JSONRPC"}]});
    assert_eq!(endpoint(&card).unwrap(), "http://h/rpc");
    let old = json!({"url": "http://h/", "preferredTransport": "JSONRPC"});
    assert!(endpoint(&old).unwrap_err().to_string().contains("A2A 1.0"));
}
