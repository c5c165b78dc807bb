//! The session's queues: a slow reader holds the session at the event
//! bound without losing anything, ops carry their ids into the events that
//! answer them, a cancel gets through a flood, and a reader that goes
//! away ends the session.

use super::{Session, SessionConfig, SessionHandle};
use crate::config::{Env, GeminiPaths};
use crate::events::{AgentError, AgentEvent, EVENT_QUEUE_CAPACITY, Finished, Op, Submission};
use crate::policy::ApprovalMode;
use crate::startup::Startup;
use gemini_rs_protocol::events::ModelError;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::json;
use std::time::Duration;
use tokio::time::timeout;

/// One streamed chunk of model text.
fn chunk(text: &str) -> String {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}).to_string()
}

/// The last chunk of an answer.
fn last_chunk(text: &str) -> String {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
        "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}})
    .to_string()
}

/// A session of a fresh home and project, its model `server`.
async fn start(server: &FakeServer, dir: &tempfile::TempDir) -> SessionHandle {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let home = dir.path().join("home");
    let root = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&root).unwrap();
    let root = std::fs::canonicalize(root).unwrap();
    let paths = GeminiPaths::new(
        home.clone(),
        dir.path().join("system-settings.json"),
        dir.path().join("system-defaults.json"),
    );
    let home = home.to_string_lossy().into_owned();
    let env = Env::from_pairs([
        ("HOME", home.as_str()),
        ("GEMINI_API_KEY", "dummy"),
        ("GOOGLE_GEMINI_BASE_URL", server.base_url.as_str()),
    ]);
    let startup = Startup::load(root, paths, env).unwrap();
    let config = SessionConfig::new(startup);
    match Session::start(config).await {
        Ok(session) => session,
        Err(e) => panic!("the session did not start: {e:?}"),
    }
}

/// The next event, failing after ten seconds.
async fn next(session: &mut SessionHandle) -> AgentEvent {
    match timeout(Duration::from_secs(10), session.events.recv()).await {
        Ok(Some(event)) => event,
        other => panic!("no event: {other:?}"),
    }
}

/// Events until the `Finished` of op `id` (included).
async fn until_finished(session: &mut SessionHandle, id: &str) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    loop {
        let event = next(session).await;
        let done = matches!(&event, AgentEvent::Finished { .. }) && event.op_id() == Some(id);
        seen.push(event);
        if done {
            return seen;
        }
    }
}

/// The model text among `events`.
fn text(events: &[AgentEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Content { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_holds_the_session_at_the_bound_and_loses_nothing() {
    let n = 3 * EVENT_QUEUE_CAPACITY;
    let mut chunks: Vec<String> = (0..n).map(|i| chunk(&format!("w{i} "))).collect();
    chunks.push(last_chunk("end"));
    let expected: String = (0..n).map(|i| format!("w{i} ")).collect::<String>() + "end";
    let server = FakeServer::with_replies([Reply::gemini_stream(chunks)]);
    let dir = tempfile::tempdir().unwrap();
    let mut session = start(&server, &dir).await;
    session
        .send(Submission::new("p-1", Op::prompt("go")))
        .unwrap();
    // Nobody reads: the session fills the stream up to its bound and waits.
    let full = async {
        while session.events.len() < EVENT_QUEUE_CAPACITY {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    timeout(Duration::from_secs(10), full).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(session.events.len(), EVENT_QUEUE_CAPACITY);
    // Read late: every chunk arrives, in order, and the answer names its op.
    let events = until_finished(&mut session, "p-1").await;
    assert_eq!(text(&events), expected);
    assert!(events.iter().any(|e| matches!(e,
        AgentEvent::PromptStarted { op_id: Some(id), .. } if id == "p-1")));
    assert!(matches!(
        events.last(),
        Some(AgentEvent::Finished {
            finished: Finished::Prompt(Ok(_)),
            ..
        })
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_prompt_and_each_immediate_op_is_answered_under_its_id() {
    let server = FakeServer::with_replies([
        Reply::gemini_stream([last_chunk("one")]),
        Reply::gemini_stream([last_chunk("two")]),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut session = start(&server, &dir).await;
    // Both prompts are in flight before either answers.
    session
        .send(Submission::new("first", Op::prompt("a")))
        .unwrap();
    session
        .send(Submission::new("second", Op::prompt("b")))
        .unwrap();
    let first = until_finished(&mut session, "first").await;
    let second = until_finished(&mut session, "second").await;
    assert_eq!(text(&first), "one");
    assert_eq!(text(&second), "two");
    for (events, id) in [(&first, "first"), (&second, "second")] {
        let ids: Vec<_> = events.iter().filter_map(AgentEvent::op_id).collect();
        assert_eq!(ids, [id, id], "{events:?}");
    }
    let mode = Op::SetApprovalMode {
        mode: ApprovalMode::Plan,
    };
    session.send(Submission::new("mode", mode)).unwrap();
    assert!(matches!(
        next(&mut session).await,
        AgentEvent::ApprovalModeChanged { .. }
    ));
    assert_eq!(
        next(&mut session).await,
        AgentEvent::Acknowledged {
            op_id: "mode".into()
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_gets_through_a_flood_and_a_reader_gone_ends_the_session() {
    let unit = format!("data: {}\r\n\r\n", chunk("w{n} "));
    let server = FakeServer::with_replies([
        Reply::endless_numbered(200, "text/event-stream", "", &unit),
        Reply::endless_numbered(200, "text/event-stream", "", &unit),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let mut session = start(&server, &dir).await;
    session
        .send(Submission::new("flood", Op::prompt("go")))
        .unwrap();
    let full = async {
        while session.events.len() < EVENT_QUEUE_CAPACITY {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    timeout(Duration::from_secs(10), full).await.unwrap();
    session.send(Submission::new("stop", Op::Cancel)).unwrap();
    let events = until_finished(&mut session, "flood").await;
    assert!(events.contains(&AgentEvent::Acknowledged {
        op_id: "stop".into()
    }));
    assert!(
        matches!(
            events.last(),
            Some(AgentEvent::Finished {
                finished: Finished::Prompt(Err(AgentError::Cancelled
                    | AgentError::Model {
                        error: ModelError::Cancelled
                    })),
                ..
            })
        ),
        "{:?}",
        events.last()
    );
    // Another flood, and the reader goes away: the session ends by itself.
    session
        .send(Submission::new("again", Op::prompt("go")))
        .unwrap();
    let (ops, events, _view, task) = session.into_parts();
    drop(events);
    timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap();
    assert!(!ops.submit(Op::prompt("late")));
}
