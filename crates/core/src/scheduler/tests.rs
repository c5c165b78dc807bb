//! Scheduler tests with test tools and a test front end that answers the
//! confirmation channel.

use super::*;
use crate::config::Settings;
use crate::events::{AgentEvent, ConfirmationOutcome, ConfirmationResponse};
use crate::tools::{ConfirmationDetails, Tool, ToolInvocation};
use crate::workspace::Workspace;
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tokio::sync::Barrier;

/// A tool whose calls record their order and optionally wait on a barrier.
struct TestTool {
    name: &'static str,
    kind: ToolKind,
    confirm: bool,
    barrier: Option<Arc<Barrier>>,
    log: Arc<Mutex<Vec<String>>>,
    schema: Value,
}

struct TestInvocation {
    tool: &'static str,
    arg: String,
    confirm: bool,
    barrier: Option<Arc<Barrier>>,
    log: Arc<Mutex<Vec<String>>>,
}

impl Tool for TestTool {
    fn name(&self) -> &str {
        self.name
    }
    fn display_name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "test"
    }
    fn kind(&self) -> ToolKind {
        self.kind
    }
    fn parameter_schema(&self) -> &Value {
        &self.schema
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, crate::tools::ToolError> {
        Ok(Box::new(TestInvocation {
            tool: self.name,
            arg: args
                .get("x")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            confirm: self.confirm,
            barrier: self.barrier.clone(),
            log: self.log.clone(),
        }))
    }
}

impl ToolInvocation for TestInvocation {
    fn description(&self) -> String {
        format!("{} {}", self.tool, self.arg)
    }
    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        let confirm = self.confirm;
        Box::pin(async move {
            confirm.then(|| ConfirmationDetails::Info {
                title: "Confirm".into(),
                prompt: "run?".into(),
                urls: vec![],
            })
        })
    }
    fn execute<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            if let Some(b) = &self.barrier {
                tokio::select! {
                    _ = b.wait() => {}
                    _ = cancel.cancelled() => return ToolResult::text("cancelled", ""),
                }
            }
            self.log
                .lock()
                .unwrap()
                .push(format!("{}:{}", self.tool, self.arg));
            ToolResult::text(format!("{} ran {}", self.tool, self.arg), "")
        })
    }
}

struct Harness {
    scheduler: Scheduler,
    events: mpsc::Receiver<AgentEvent>,
    answers: mpsc::Sender<ConfirmationResponse>,
    log: Arc<Mutex<Vec<String>>>,
    _dir: tempfile::TempDir,
}

fn harness(interactive: bool, barrier: Option<Arc<Barrier>>) -> Harness {
    harness_in(interactive, barrier, true)
}

/// [`harness`] in a folder that is `trusted` or not.
fn harness_in(interactive: bool, barrier: Option<Arc<Barrier>>, trusted: bool) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let schema = json!({"type": "object", "properties": {"x": {"type": "string"}}});
    let mut registry = ToolRegistry::new();
    for (name, kind, confirm) in [
        ("reader", ToolKind::Read, false),
        ("write_file", ToolKind::Edit, true),
        ("runner", ToolKind::Execute, true),
    ] {
        registry.register(Arc::new(TestTool {
            name,
            kind,
            confirm,
            barrier: if kind == ToolKind::Read {
                barrier.clone()
            } else {
                None
            },
            log: log.clone(),
            schema: schema.clone(),
        }));
    }
    let policy = PolicyEngine::new(interactive);
    policy.add_rule(PolicyRule::tool("reader", Decision::Allow, 1.5));
    let (events_tx, events) = crate::events::event_channel();
    let (answers, confirmations) = mpsc::channel(8);
    let root = dir.path().to_path_buf();
    let ctx = ToolContext::new(
        Arc::new(Workspace::new(root.clone(), vec![], root.join(".tmp"))),
        Arc::new(Settings::from_value(json!({}))),
        "gemini-2.5-flash",
    );
    let scheduler = Scheduler::new(SchedulerParts {
        registry: Arc::new(registry).into(),
        policy: Arc::new(policy),
        hooks: Arc::new(crate::hooks::NoHooks),
        ctx,
        mode: Arc::new(RwLock::new(ApprovalMode::Default)),
        trusted,
        events: events_tx,
        confirmations: crate::scheduler::shared_confirmations(confirmations),
        checkpointer: None,
        stats: Arc::new(Mutex::new(SessionStats::default())),
    });
    Harness {
        scheduler,
        events,
        answers,
        log,
        _dir: dir,
    }
}

fn call(id: &str, name: &str, x: &str) -> ToolCallRequest {
    ToolCallRequest {
        call_id: id.into(),
        name: name.into(),
        args: json!({"x": x}),
    }
}

fn outputs(done: &[CompletedCall]) -> Vec<Value> {
    done.iter()
        .map(|c| {
            c.parts[0]
                .function_response
                .as_ref()
                .unwrap()
                .response
                .clone()
        })
        .collect()
}

/// Answers every confirmation with `outcome`, in a background task.
fn answer_all(
    h: &mut Harness,
    outcome: ConfirmationOutcome,
) -> tokio::task::JoinHandle<Vec<String>> {
    let mut events = std::mem::replace(&mut h.events, mpsc::channel(1).1);
    let answers = h.answers.clone();
    tokio::spawn(async move {
        let mut asked = Vec::new();
        while let Some(e) = events.recv().await {
            if let AgentEvent::ToolAwaitingApproval { call_id, .. } = e {
                asked.push(call_id.clone());
                answers
                    .send(ConfirmationResponse::new(call_id, outcome))
                    .await
                    .unwrap();
            }
        }
        asked
    })
}

#[tokio::test]
async fn consecutive_reads_run_concurrently_and_results_keep_request_order() {
    let h = harness(false, Some(Arc::new(Barrier::new(2))));
    let calls = vec![
        call("1", "reader", "a"),
        call("2", "nope", ""),
        call("3", "reader", "b"),
    ];
    let done = tokio::time::timeout(
        Duration::from_secs(5),
        h.scheduler.run_batch(calls, &CancellationToken::new()),
    )
    .await
    .expect("the two reads must run at the same time (they wait on a shared barrier)");
    let out = outputs(&done);
    assert_eq!(out[0], json!({"output": "reader ran a"}));
    assert!(
        out[1]["error"]
            .as_str()
            .unwrap()
            .starts_with("Tool \"nope\" not found. Did you mean")
    );
    assert_eq!(out[2], json!({"output": "reader ran b"}));
}

#[tokio::test]
async fn a_read_waiting_for_previous_calls_does_not_run_beside_them() {
    // Both reads wait on a barrier for two: together they pass it; one
    // that waits for the other never meets it.
    let h = harness(false, Some(Arc::new(Barrier::new(2))));
    let mut second = call("2", "reader", "b");
    second.args["wait_for_previous"] = json!(true);
    let calls = vec![call("1", "reader", "a"), second];
    let ran = tokio::time::timeout(
        Duration::from_millis(500),
        h.scheduler.run_batch(calls, &CancellationToken::new()),
    )
    .await;
    assert!(ran.is_err(), "the second read must wait for the first");
}

#[tokio::test]
async fn edits_run_alone_in_order_after_approval() {
    let mut h = harness(true, None);
    let answered = answer_all(&mut h, ConfirmationOutcome::ProceedOnce);
    let calls = vec![
        call("1", "write_file", "a"),
        call("2", "reader", "r"),
        call("3", "write_file", "b"),
    ];
    let done = h
        .scheduler
        .run_batch(calls, &CancellationToken::new())
        .await;
    assert!(done.iter().all(|c| c.status == ToolCallStatus::Success));
    assert_eq!(
        *h.log.lock().unwrap(),
        ["write_file:a", "reader:r", "write_file:b"]
    );
    drop(h.scheduler);
    assert_eq!(answered.await.unwrap(), ["1", "3"]);
}

#[tokio::test]
async fn cancel_denies_this_call_and_cancels_the_rest() {
    let mut h = harness(true, None);
    let _answers = answer_all(&mut h, ConfirmationOutcome::Cancel);
    let calls = vec![
        call("1", "runner", "a"),
        call("2", "reader", "r"),
        call("3", "write_file", "b"),
    ];
    let done = h
        .scheduler
        .run_batch(calls, &CancellationToken::new())
        .await;
    let out = outputs(&done);
    assert_eq!(
        out[0],
        json!({"error": "[Operation Cancelled] Reason: User denied execution."})
    );
    assert_eq!(
        out[1],
        json!({"error": "[Operation Cancelled] Reason: User cancelled operation"})
    );
    assert_eq!(
        out[2],
        json!({"error": "[Operation Cancelled] Reason: User cancelled operation"})
    );
    assert!(h.log.lock().unwrap().is_empty());
    assert!(done.iter().all(|c| c.status == ToolCallStatus::Cancelled));
}

#[tokio::test]
async fn always_on_an_edit_switches_to_auto_edit() {
    let mut h = harness(true, None);
    let asked = answer_all(&mut h, ConfirmationOutcome::ProceedAlways);
    let calls = vec![call("1", "write_file", "a"), call("2", "write_file", "b")];
    h.scheduler
        .run_batch(calls, &CancellationToken::new())
        .await;
    assert_eq!(h.scheduler.mode(), ApprovalMode::AutoEdit);
    drop(h.scheduler);
    // Only the first call asked: in auto_edit the default rules allow write_file.
    assert_eq!(asked.await.unwrap().len(), 1);
}

/// An untrusted folder stays in default mode (docs/folder-trust.md):
/// "always" on an edit allows that tool for the session instead.
#[tokio::test]
async fn always_on_an_edit_in_an_untrusted_folder_keeps_the_mode() {
    let mut h = harness_in(true, None, false);
    let asked = answer_all(&mut h, ConfirmationOutcome::ProceedAlways);
    let calls = vec![call("1", "write_file", "a"), call("2", "write_file", "b")];
    let done = h
        .scheduler
        .run_batch(calls, &CancellationToken::new())
        .await;
    assert_eq!(h.scheduler.mode(), ApprovalMode::Default);
    assert!(done.iter().all(|c| c.status == ToolCallStatus::Success));
    drop(h.scheduler);
    // The second write ran under the rule the first answer added.
    assert_eq!(asked.await.unwrap().len(), 1);
}

#[tokio::test]
async fn headless_refuses_what_would_need_asking() {
    let h = harness(false, None);
    let done = h
        .scheduler
        .run_batch(vec![call("1", "runner", "a")], &CancellationToken::new())
        .await;
    assert_eq!(
        outputs(&done)[0],
        json!({"error": "Tool execution denied by policy."})
    );
}

#[tokio::test]
async fn cancellation_while_waiting_cancels_every_call() {
    let h = harness(true, None);
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        c2.cancel();
    });
    let done = h
        .scheduler
        .run_batch(
            vec![call("1", "runner", "a"), call("2", "reader", "b")],
            &cancel,
        )
        .await;
    assert!(done.iter().all(|c| c.status == ToolCallStatus::Cancelled));
    assert_eq!(done.len(), 2);
}

#[tokio::test]
async fn invalid_args_are_reported_in_ajv_words() {
    let h = harness(false, None);
    let req = ToolCallRequest {
        call_id: "1".into(),
        name: "reader".into(),
        args: json!({"x": 5}),
    };
    let done = h
        .scheduler
        .run_batch(vec![req], &CancellationToken::new())
        .await;
    assert_eq!(
        outputs(&done)[0],
        json!({"error": "params/x must be string"})
    );
}
