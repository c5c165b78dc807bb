//! What acts on a session at once, while an exclusive op runs:
//! confirmations, answers, the approval mode and background commands.

use super::{elicitation, mode_allowed_untrusted, questions, untrusted_mode_refusal};
use crate::events::{AgentEvent, ConfirmationResponse, EventSender};
use crate::policy::ApprovalMode;
use crate::tools::background::BackgroundShells;
use crate::tools::mcp::McpManager;
use std::sync::{Arc, RwLock};
use tokio::sync::mpsc;

/// What acts at once, while an exclusive op runs.
pub(super) struct Control {
    pub(super) confirmations: mpsc::UnboundedSender<ConfirmationResponse>,
    pub(super) elicitations: elicitation::Pending,
    pub(super) questions: questions::Pending,
    pub(super) mode: Arc<RwLock<ApprovalMode>>,
    pub(super) events: EventSender,
    pub(super) mcp: Option<Arc<McpManager>>,
    pub(super) background: Arc<BackgroundShells>,
    /// False in an untrusted folder: the mode stays `default` or `plan`.
    pub(super) trusted: bool,
}

impl Control {
    /// Ends background command `pid` (`/shells`), reporting how it went.
    pub(super) fn stop_background(&self, pid: u32) {
        let shells = self.background.clone();
        let events = self.events.clone();
        tokio::spawn(async move {
            let event = if shells.stop(pid).await {
                AgentEvent::Info {
                    message: format!("Background process {pid} was stopped."),
                }
            } else if shells.knows(pid) {
                AgentEvent::Info {
                    message: format!("Background process {pid} has already exited."),
                }
            } else {
                AgentEvent::Error {
                    message: format!("No background process with PID {pid} in this session."),
                }
            };
            let _ = events.send(event);
        });
    }

    pub(super) fn set_mode(&self, mode: ApprovalMode) {
        if !self.trusted && !mode_allowed_untrusted(mode) {
            let _ = self.events.send(AgentEvent::Error {
                message: untrusted_mode_refusal(mode),
            });
            return;
        }
        if let Ok(mut m) = self.mode.write() {
            *m = mode;
        }
        let _ = self.events.send(AgentEvent::ApprovalModeChanged { mode });
    }
}
