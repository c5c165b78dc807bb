//! Scheduler tests with real tools: modify-with-editor on write_file and
//! replace, and the shell's live output.

use super::*;
use crate::config::Settings;
use crate::events::{AgentEvent, ConfirmationOutcome, ConfirmationResponse};
use crate::tools::builtin::builtin_tools;
use crate::workspace::Workspace;
use serde_json::json;

struct Env {
    scheduler: Scheduler,
    events: mpsc::Receiver<AgentEvent>,
    answers: mpsc::Sender<ConfirmationResponse>,
    root: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn env(mode: ApprovalMode) -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let mut registry = ToolRegistry::new();
    for tool in builtin_tools() {
        if ["write_file", "replace", "run_shell_command"].contains(&tool.name()) {
            registry.register(tool);
        }
    }
    let (events_tx, events) = crate::events::event_channel();
    let (answers, confirmations) = mpsc::channel(8);
    let ctx = ToolContext::new(
        Arc::new(Workspace::new(root.clone(), vec![], root.join(".tmp"))),
        Arc::new(Settings::from_value(json!({}))),
        "gemini-2.5-flash",
    );
    let scheduler = Scheduler::new(SchedulerParts {
        registry: Arc::new(registry).into(),
        policy: Arc::new(PolicyEngine::new(true)),
        hooks: Arc::new(crate::hooks::NoHooks),
        ctx,
        mode: Arc::new(RwLock::new(mode)),
        trusted: true,
        events: events_tx,
        confirmations: crate::scheduler::shared_confirmations(confirmations),
        checkpointer: None,
        stats: Arc::new(Mutex::new(SessionStats::default())),
    });
    Env {
        scheduler,
        events,
        answers,
        root,
        _dir: dir,
    }
}

/// Answers the first confirmation with `modified`, the next with "allow
/// once"; returns the new contents the dialogs proposed.
fn front_end(
    env: &mut Env,
    modified: serde_json::Map<String, Value>,
) -> tokio::task::JoinHandle<Vec<String>> {
    let mut events = std::mem::replace(&mut env.events, mpsc::channel(1).1);
    let answers = env.answers.clone();
    tokio::spawn(async move {
        let mut proposals = Vec::new();
        while let Some(e) = events.recv().await {
            if let AgentEvent::ToolAwaitingApproval {
                call_id, details, ..
            } = e
            {
                if let ConfirmationDetails::Edit { new_content, .. } = details {
                    proposals.push(new_content);
                }
                let answer = if proposals.len() == 1 {
                    ConfirmationResponse::modified(call_id, modified.clone())
                } else {
                    ConfirmationResponse::new(call_id, ConfirmationOutcome::ProceedOnce)
                };
                answers.send(answer).await.unwrap();
            }
        }
        proposals
    })
}

fn output(done: &[CompletedCall]) -> String {
    let r = &done[0].parts[0]
        .function_response
        .as_ref()
        .unwrap()
        .response;
    r["output"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn modify_with_editor_rebuilds_write_file_and_asks_again() {
    let mut env = env(ApprovalMode::Default);
    let mut changes = serde_json::Map::new();
    changes.insert("content".into(), json!("edited by the user\n"));
    let front = front_end(&mut env, changes);
    let req = ToolCallRequest {
        call_id: "w1".into(),
        name: "write_file".into(),
        args: json!({"file_path": "a.txt", "content": "proposed by the model\n"}),
    };
    let done = env
        .scheduler
        .run_batch(vec![req], &CancellationToken::new())
        .await;
    assert_eq!(done[0].status, ToolCallStatus::Success, "{:?}", done[0]);
    assert_eq!(
        std::fs::read_to_string(env.root.join("a.txt")).unwrap(),
        "edited by the user\n"
    );
    let out = output(&done);
    assert!(
        out.ends_with(" User modified the `content` to be: edited by the user\n"),
        "{out}"
    );
    drop(env.scheduler);
    let proposals = front.await.unwrap();
    assert_eq!(
        proposals,
        ["proposed by the model\n", "edited by the user\n"],
        "the second dialog shows the user's version"
    );
}

#[tokio::test]
async fn modify_with_editor_on_replace_notes_the_new_string() {
    let mut env = env(ApprovalMode::Default);
    std::fs::write(env.root.join("b.txt"), "one\ntwo\n").unwrap();
    let mut changes = serde_json::Map::new();
    changes.insert("old_string".into(), json!("one\ntwo\n"));
    changes.insert("new_string".into(), json!("one\nTWO!\n"));
    let front = front_end(&mut env, changes);
    let req = ToolCallRequest {
        call_id: "r1".into(),
        name: "replace".into(),
        args: json!({"file_path": "b.txt", "instruction": "Change two.", "old_string": "two", "new_string": "2"}),
    };
    let done = env
        .scheduler
        .run_batch(vec![req], &CancellationToken::new())
        .await;
    assert_eq!(
        std::fs::read_to_string(env.root.join("b.txt")).unwrap(),
        "one\nTWO!\n",
        "{done:?}"
    );
    let out = output(&done);
    assert!(
        out.ends_with(" User modified the `new_string` content to be: one\nTWO!\n."),
        "{out}"
    );
    drop(env.scheduler);
    assert_eq!(front.await.unwrap().len(), 2);
}

#[tokio::test]
async fn shell_output_streams_while_the_command_runs() {
    let env = env(ApprovalMode::Yolo);
    let mut events = env.events;
    let req = ToolCallRequest {
        call_id: "s1".into(),
        name: "run_shell_command".into(),
        args: json!({"command": "echo first; sleep 0.5; echo second"}),
    };
    let done = env
        .scheduler
        .run_batch(vec![req], &CancellationToken::new())
        .await;
    assert_eq!(done[0].status, ToolCallStatus::Success);
    let mut seen = Vec::new();
    while let Ok(e) = events.try_recv() {
        match e {
            AgentEvent::ToolOutput { call_id, chunk } => {
                assert_eq!(call_id, "s1");
                seen.push(chunk);
            }
            AgentEvent::ToolFinished(_) => seen.push("<finished>".into()),
            _ => {}
        }
    }
    let first = seen.iter().position(|c| c == "first");
    let finished = seen.iter().position(|c| c == "<finished>");
    assert!(
        first.is_some() && first < finished,
        "`first` must be shown alone before the end: {seen:?}"
    );
    assert!(seen.iter().any(|c| c == "first\nsecond"), "{seen:?}");
}
