//! An A2A context: one gemini-rs session, started headless (no one can
//! answer a confirmation over A2A, so the approval mode of `serve`'s flags
//! decides what runs), and the turns run in it one at a time.

use gemini_rs_core::{OpSender, Session};
use gemini_rs_protocol::Part;
use gemini_rs_protocol::events::{
    AgentError, AgentEvent, ConfirmationOutcome, ConfirmationResponse, Finished, Op,
};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinHandle;

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEnd {
    /// The model's text of the whole prompt.
    Completed(String),
    /// Cancelled (`CancelTask`).
    Canceled,
    /// Failed: why.
    Failed(String),
}

/// A running session serving one A2A context.
pub struct Context {
    ops: OpSender,
    /// The session's events; held for the length of a turn, so turns of
    /// one context run one after the other.
    events: Mutex<mpsc::Receiver<AgentEvent>>,
    task: std::sync::Mutex<Option<JoinHandle<()>>>,
    /// When its last turn ended (or it started).
    last_used: std::sync::Mutex<Instant>,
    /// Set by [`Context::cancel`] until the turn ends: a model call
    /// cancelled mid-way ends with its own error, which is a cancel then.
    cancelled: AtomicBool,
}

impl Context {
    /// Starts the session of context `id` in `root`; a context whose
    /// session was recorded in `root` (closed when idle, or before a
    /// restart) goes on from its recording.
    pub async fn start(
        shared: &super::super::Shared,
        root: &Path,
        id: &str,
    ) -> Result<Arc<Context>, String> {
        let startup = gemini_rs_core::Startup::load(
            root.to_path_buf(),
            shared.paths.clone(),
            gemini_rs_core::Env::from_process(),
        )
        .map_err(|e| e.to_string())?;
        let mut config = shared.args.session_config(startup, false, id.to_string());
        // Only the whole id: the lookup also takes indexes and prefixes.
        let recorded = gemini_rs_core::session_history(&shared.paths, root, id)
            .is_ok_and(|(info, _)| info.session_id == id);
        config.resume = recorded.then(|| id.to_string());
        let handle = Session::start(config).await.map_err(|e| e.message)?;
        let (ops, events, _info, task) = handle.into_parts();
        Ok(Arc::new(Context {
            ops,
            events: Mutex::new(events),
            task: std::sync::Mutex::new(Some(task)),
            last_used: std::sync::Mutex::new(Instant::now()),
            cancelled: AtomicBool::new(false),
        }))
    }

    /// Whether no turn runs or waits and the last ended `idle` ago.
    pub fn idle_for(&self, idle: Duration) -> bool {
        let since = *self
            .last_used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        since.elapsed() >= idle && self.events.try_lock().is_ok()
    }

    /// Runs one prompt to its end, once the turns before it ended and
    /// `begin` agrees (it says no for a task cancelled while it waited);
    /// `working` hears when each tool call starts (for streaming clients).
    pub async fn turn(
        &self,
        parts: Vec<Part>,
        begin: impl FnOnce() -> bool,
        working: &mpsc::UnboundedSender<String>,
    ) -> TurnEnd {
        let mut events = self.events.lock().await;
        let end = self.run(&mut events, parts, begin, working).await;
        *self
            .last_used
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
        end
    }

    async fn run(
        &self,
        events: &mut mpsc::Receiver<AgentEvent>,
        parts: Vec<Part>,
        begin: impl FnOnce() -> bool,
        working: &mpsc::UnboundedSender<String>,
    ) -> TurnEnd {
        if !begin() {
            return TurnEnd::Canceled;
        }
        self.cancelled.store(false, Ordering::SeqCst);
        if !self.ops.submit(Op::Prompt { parts }) {
            return TurnEnd::Failed("the session has ended".into());
        }
        let mut text = String::new();
        while let Some(event) = events.recv().await {
            match event {
                AgentEvent::Content { text: chunk } => text.push_str(&chunk),
                AgentEvent::ToolCallRequested { name, .. } => {
                    let _ = working.send(name);
                }
                // Nobody can answer over A2A: what needs approval is declined.
                AgentEvent::ToolAwaitingApproval { call_id, .. } => {
                    self.ops.submit(Op::Confirm(ConfirmationResponse {
                        call_id,
                        outcome: ConfirmationOutcome::Cancel,
                        modified_args: None,
                        feedback: None,
                    }));
                }
                AgentEvent::Finished {
                    finished: Finished::Prompt(outcome),
                    ..
                } => {
                    return match outcome {
                        Ok(_) => TurnEnd::Completed(text),
                        Err(AgentError::Cancelled) => TurnEnd::Canceled,
                        Err(_) if self.cancelled.load(Ordering::SeqCst) => TurnEnd::Canceled,
                        Err(e) => TurnEnd::Failed(e.to_string()),
                    };
                }
                AgentEvent::SessionEnded => break,
                _ => {}
            }
        }
        TurnEnd::Failed("the session ended during the turn".into())
    }

    /// Cancels the running turn, if any.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.ops.submit(Op::Cancel);
    }

    /// Ends the session (SessionEnd hooks, MCP servers and processes).
    pub async fn close(&self) {
        self.ops.submit(Op::Cancel);
        self.ops.submit(Op::Shutdown);
        let task = self
            .task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(task) = task {
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), task).await;
        }
    }
}
