//! The session protocol as core uses it: [`Op`] in, [`AgentEvent`] out,
//! and their payloads, all plain serde types of the protocol crate
//! (`gemini_rs_protocol::events`). Layer 3: below hooks, the scheduler,
//! the agent and the session.

pub use gemini_rs_protocol::events::AgentEvent;
pub use gemini_rs_protocol::events::{
    AgentError, ConfirmationOutcome, ConfirmationResponse, Finished, HookMessageKind, Op,
    PromptOutcome, ToolCallFinished, ToolCallStatus,
};

/// Session metrics (a protocol type) and how calls were approved.
pub mod stats {
    pub use gemini_rs_protocol::events::{Decision, SessionStats};
}

use tokio::sync::mpsc;

/// The sending side of the event stream.
pub type EventSender = mpsc::UnboundedSender<AgentEvent>;
