//! What acts on a session at once, while an exclusive op runs:
//! confirmations, answers, the approval mode and background commands.

use super::{
    OP_QUEUE_CAPACITY, elicitation, mode_allowed_untrusted, questions, untrusted_mode_refusal,
};
use crate::events::{AgentEvent, ConfirmationResponse, EventSender, Op, Submission};
use crate::policy::ApprovalMode;
use crate::tools::background::BackgroundShells;
use crate::tools::mcp::McpManager;
use std::collections::VecDeque;
use std::sync::{Arc, RwLock};
use tokio::sync::mpsc;

/// What acts at once, while an exclusive op runs.
pub(super) struct Control {
    /// Bounded ([`OP_QUEUE_CAPACITY`]): answers the scheduler has not
    /// read yet; one over the bound is refused, never waited for (the
    /// scheduler may be waiting for the front end to read events).
    pub(super) confirmations: mpsc::Sender<ConfirmationResponse>,
    pub(super) elicitations: elicitation::Pending,
    pub(super) questions: questions::Pending,
    pub(super) mode: Arc<RwLock<ApprovalMode>>,
    pub(super) events: EventSender,
    pub(super) mcp: Option<Arc<McpManager>>,
    pub(super) background: Arc<BackgroundShells>,
    /// False in an untrusted folder: the mode stays `default` or `plan`.
    pub(super) trusted: bool,
}

/// An error answering op `id`.
fn error(id: &str, message: String) -> AgentEvent {
    AgentEvent::Error {
        message,
        op_id: Some(id.to_string()),
    }
}

impl Control {
    /// Applies `op` (of id `id`) when it acts at once and acknowledges it;
    /// hands back an op that waits its turn. `Cancel` is only acknowledged
    /// here: stopping what runs is the task's.
    pub(super) async fn apply(&self, id: &str, op: Op) -> Option<Op> {
        match op {
            Op::Confirm(answer) => {
                if let Err(e) = self.confirmations.try_send(answer) {
                    let message = match e {
                        mpsc::error::TrySendError::Full(_) => format!(
                            "{OP_QUEUE_CAPACITY} confirmations wait unread; this one was refused."
                        ),
                        mpsc::error::TrySendError::Closed(_) => {
                            "Nothing waits for a confirmation.".to_string()
                        }
                    };
                    self.events.emit(error(id, message)).await;
                }
            }
            Op::AnswerElicitation { id: asked, reply } => {
                elicitation::answer(&self.elicitations, asked, reply)
            }
            Op::AnswerQuestions { id: asked, reply } => {
                questions::answer(&self.questions, asked, reply)
            }
            Op::Cancel => {}
            Op::SetApprovalMode { mode } => self.set_mode(id, mode).await,
            Op::StopBackgroundProcess { pid } => self.stop_background(id, pid),
            op => return Some(op),
        }
        self.acknowledge(id).await;
        None
    }

    /// Reports that op `id`, which acts at once, was applied.
    pub(super) async fn acknowledge(&self, id: &str) {
        self.events
            .emit(AgentEvent::Acknowledged {
                op_id: id.to_string(),
            })
            .await;
    }

    /// Puts `submission` behind the ops waiting their turn, or refuses it
    /// with an error naming it when [`OP_QUEUE_CAPACITY`] already wait.
    pub(super) async fn enqueue(&self, queue: &mut VecDeque<Submission>, submission: Submission) {
        if queue.len() < OP_QUEUE_CAPACITY {
            queue.push_back(submission);
            return;
        }
        let message = format!(
            "{OP_QUEUE_CAPACITY} ops already wait their turn; this one was refused (send it again once one has finished)."
        );
        self.events.emit(error(&submission.id, message)).await;
    }

    /// Ends background command `pid` (`/shells`), reporting how it went.
    fn stop_background(&self, id: &str, pid: u32) {
        let shells = self.background.clone();
        let events = self.events.clone();
        let id = id.to_string();
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
                error(
                    &id,
                    format!("No background process with PID {pid} in this session."),
                )
            };
            events.emit(event).await;
        });
    }

    async fn set_mode(&self, id: &str, mode: ApprovalMode) {
        if !self.trusted && !mode_allowed_untrusted(mode) {
            self.events
                .emit(error(id, untrusted_mode_refusal(mode)))
                .await;
            return;
        }
        if let Ok(mut m) = self.mode.write() {
            *m = mode;
        }
        self.events
            .emit(AgentEvent::ApprovalModeChanged { mode })
            .await;
    }
}
