//! The session task: ops in order, the immediate ones at once (even while
//! an exclusive op runs), then the end: servers and commands stopped,
//! SessionEnd run, the end reported.

use super::Engine;
use super::control::Control;
use crate::events::{AgentEvent, EventSender, Finished, Op, Submission};
use std::collections::VecDeque;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The session task: ops in order, the immediate ones at once. `late` is
/// told when the session has started and stopped at its end: the MCP
/// servers connecting after the start.
pub(super) async fn run(
    mut engine: Engine,
    control: Control,
    mut ops: mpsc::Receiver<Submission>,
    late: (
        tokio::sync::watch::Sender<bool>,
        Option<tokio::task::JoinHandle<()>>,
    ),
) {
    engine.started().await;
    let _ = late.0.send(true);
    let mut queue = Queue::default();
    loop {
        let Submission { id, op } = match queue.ops.pop_front() {
            Some(submission) => submission,
            None if queue.closed => break,
            None => match next_op(&mut ops, &control.events).await {
                Some(submission) => submission,
                None => break,
            },
        };
        if matches!(op, Op::Shutdown) {
            break;
        }
        let Some(op) = control.apply(&id, op).await else {
            continue;
        };
        engine.op_id = Some(id.clone());
        let finished = exclusive(&mut engine, op, &control, &mut ops, &mut queue).await;
        let finished = match (finished, engine.meter.hit()) {
            (Finished::Prompt(_), Some(hit)) => {
                Finished::Prompt(Err(gemini_rs_protocol::events::AgentError::ResourceLimit {
                    limit: hit.limit.to_string(),
                    message: hit.message,
                }))
            }
            (finished, _) => finished,
        };
        engine.emit_stats().await;
        engine.emit(AgentEvent::finished(finished)).await;
        engine.op_id = None;
    }
    end(engine, control, late.1).await;
}

/// The ops waiting for the one that runs.
#[derive(Default)]
struct Queue {
    ops: VecDeque<Submission>,
    /// Set when nobody sends ops or reads events any more.
    closed: bool,
}

impl Queue {
    /// Nobody waits for the rest: what runs is cancelled, nothing more runs.
    fn close(&mut self, cancel: &CancellationToken) {
        cancel.cancel();
        self.ops.clear();
        self.closed = true;
    }
}

/// The next op, or `None` once every sender or the event reader is gone.
async fn next_op(ops: &mut mpsc::Receiver<Submission>, events: &EventSender) -> Option<Submission> {
    tokio::select! {
        submission = ops.recv() => submission,
        () = events.closed() => None,
    }
}

/// Runs an exclusive op while applying the immediate ones that arrive;
/// the others wait in `queue` (at most [`super::OP_QUEUE_CAPACITY`]).
async fn exclusive(
    engine: &mut Engine,
    op: Op,
    control: &Control,
    ops: &mut mpsc::Receiver<Submission>,
    queue: &mut Queue,
) -> Finished {
    let cancel = CancellationToken::new();
    let work = engine.execute(op, cancel.clone());
    tokio::pin!(work);
    loop {
        tokio::select! {
            finished = &mut work => return finished,
            submission = next_op(ops, &control.events), if !queue.closed => match submission {
                None => queue.close(&cancel),
                Some(Submission { id, op: Op::Cancel }) => {
                    cancel.cancel();
                    queue.ops.retain(|s| matches!(s.op, Op::Shutdown));
                    control.acknowledge(&id).await;
                }
                Some(Submission { id, op }) => {
                    if let Some(op) = control.apply(&id, op).await {
                        control.enqueue(&mut queue.ops, Submission { id, op }).await;
                    }
                }
            },
        }
    }
}

/// Stops the session's servers and commands, runs SessionEnd and reports
/// the end.
async fn end(mut engine: Engine, control: Control, connecting: Option<JoinHandle<()>>) {
    // The MCP servers stop while the SessionEnd hooks run: the end is
    // reported once the hooks are done, never after the servers' ending;
    // the task itself ends when both are.
    // Background commands end the same way, beside them.
    control.background.set_notifier(None);
    if let Some(connecting) = connecting {
        // A server still connecting is dropped when its connection ends
        // (its process group with it).
        connecting.abort();
    }
    let mcp = control.mcp.clone();
    let background = control.background.clone();
    let stopping = tokio::spawn(async move {
        let servers = async {
            if let Some(mcp) = mcp {
                mcp.shutdown().await;
            }
        };
        futures::join!(servers, background.stop_all());
    });
    engine.meter.stop();
    engine.ended().await;
    // The SessionEnd hooks read the transcript; after them it is whole.
    engine.recorder.close();
    // Workspace hooks (SessionEnd's too) ran sandboxed: what they created
    // of the protected paths is moved aside before the end is reported.
    for refused in crate::sandbox::refuse_created(engine.ctx.sandbox.as_ref()) {
        engine
            .emit(AgentEvent::Warning {
                message: refused.to_string(),
            })
            .await;
    }
    engine.emit_stats().await;
    engine.emit(AgentEvent::SessionEnded).await;
    let _ = stopping.await;
    // And what the workspace's MCP servers created before they stopped.
    for refused in crate::sandbox::refuse_created(engine.ctx.sandbox.as_ref()) {
        tracing::warn!("{refused}");
    }
}
