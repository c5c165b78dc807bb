//! Who answers an MCP server's `elicitation/create`: the front end when a
//! user is there (an [`AgentEvent::ElicitationRequested`] answered with
//! [`Op::AnswerElicitation`]); otherwise the schema's defaults in yolo mode
//! when every required field has one, else a decline.

use crate::events::{AgentEvent, EventSender};
use crate::policy::ApprovalMode;
use crate::tools::mcp::elicitation::{ElicitationReply, ElicitationRequest, Elicitor, defaults};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::oneshot;

/// Requests waiting for the front end's answer, by id.
pub(super) type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<ElicitationReply>>>>;

/// The answer nobody is asked for: defaults in yolo mode, else decline.
pub fn unattended_reply(request: &ElicitationRequest, mode: ApprovalMode) -> ElicitationReply {
    match defaults(&request.schema) {
        Some(values) if mode == ApprovalMode::Yolo => ElicitationReply::Accept(values),
        _ => ElicitationReply::Decline,
    }
}

/// The session's elicitor.
pub(super) fn elicitor(
    interactive: bool,
    mode: Arc<RwLock<ApprovalMode>>,
    events: EventSender,
    pending: Pending,
) -> Elicitor {
    let next = Arc::new(AtomicU64::new(1));
    Arc::new(move |request: ElicitationRequest| {
        let mode = mode.read().map(|m| *m).unwrap_or(ApprovalMode::Default);
        let events = events.clone();
        let pending = pending.clone();
        let id = next.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            if !interactive {
                let reply = unattended_reply(&request, mode);
                if reply == ElicitationReply::Decline {
                    events.emit(AgentEvent::Warning { message: format!(
                        "MCP server '{}' asked for input ({}); declined, since nobody can answer here (defaults are accepted in yolo mode when every required field has one).",
                        request.server, request.message
                    ) }).await;
                }
                return reply;
            }
            let (tx, rx) = oneshot::channel();
            if let Ok(mut p) = pending.lock() {
                p.insert(id, tx);
            }
            events
                .emit(AgentEvent::ElicitationRequested { id, request })
                .await;
            rx.await.unwrap_or(ElicitationReply::Cancel)
        })
    })
}

/// Passes the front end's answer on.
pub(super) fn answer(pending: &Pending, id: u64, reply: ElicitationReply) {
    let waiting = pending.lock().ok().and_then(|mut p| p.remove(&id));
    if let Some(tx) = waiting {
        let _ = tx.send(reply);
    }
}
