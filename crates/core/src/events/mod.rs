//! The session protocol as core uses it: [`Op`] in, [`AgentEvent`] out,
//! and their payloads, all plain serde types of the protocol crate
//! (`gemini_rs_protocol::events`). Layer 3: below hooks, the scheduler,
//! the agent and the session.

pub use gemini_rs_protocol::events::AgentEvent;
pub use gemini_rs_protocol::events::{
    AgentError, ConfirmationOutcome, ConfirmationResponse, Finished, HookMessageKind, Op,
    PromptOutcome, Submission, ToolCallFinished, ToolCallStatus,
};

/// Session metrics (a protocol type) and how calls were approved.
pub mod stats {
    pub use gemini_rs_protocol::events::{Decision, SessionStats};
}

use tokio::sync::mpsc;

/// How many events a session's stream (and a sub-agent's, and the
/// telemetry observer's) holds unread. A front end that reads slower than
/// the session produces makes the producers wait at this bound (the model
/// stream is then read no further): memory stays bounded and nothing is
/// dropped.
pub const EVENT_QUEUE_CAPACITY: usize = 256;

/// The receiving side of the event stream.
pub type EventReceiver = mpsc::Receiver<AgentEvent>;

/// A bounded event stream of [`EVENT_QUEUE_CAPACITY`] events.
pub fn event_channel() -> (EventSender, EventReceiver) {
    let (tx, rx) = mpsc::channel(EVENT_QUEUE_CAPACITY);
    (EventSender(tx), rx)
}

/// The sending side of the event stream (bounded: see
/// [`EVENT_QUEUE_CAPACITY`]); cheap to clone.
#[derive(Clone, Debug)]
pub struct EventSender(mpsc::Sender<AgentEvent>);

impl EventSender {
    /// Sends `event`, waiting while the stream is full; false when its
    /// reader is gone (the event is dropped then: nobody would read it).
    pub async fn emit(&self, event: AgentEvent) -> bool {
        self.0.send(event).await.is_ok()
    }

    /// For callers that cannot wait (a callback of synchronous code): sends
    /// `event` now when there is room, else hands it to a task that waits
    /// for room, so it may come after events sent later. Nothing is
    /// dropped while the reader lives.
    pub fn emit_detached(&self, event: AgentEvent) {
        match self.0.try_send(event) {
            Ok(()) | Err(mpsc::error::TrySendError::Closed(_)) => {}
            Err(mpsc::error::TrySendError::Full(event)) => {
                let tx = self.0.clone();
                tokio::spawn(async move {
                    let _ = tx.send(event).await;
                });
            }
        }
    }

    /// For an event that replaces the one before it (a running call's
    /// live output): sent when there is room, dropped when the stream is
    /// full (the reader is behind and sees a later view, or the call's
    /// end, instead). Never waits and never queues.
    pub fn emit_latest(&self, event: AgentEvent) {
        let _ = self.0.try_send(event);
    }

    /// Resolves once the reader is gone.
    pub async fn closed(&self) {
        self.0.closed().await
    }
}
