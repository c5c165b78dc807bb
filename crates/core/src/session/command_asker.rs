//! Asks the user about a custom command's `!{...}` through the scheduler's
//! confirmation, shown as a `run_shell_command` call. The card of an
//! allowed command stays open until the command has run, and its time is
//! the run's, not the wait for the answer.

use super::custom_commands::AskCommand;
use crate::events::{AgentEvent, EventSender, ToolCallFinished, ToolCallStatus};
use crate::tools::builtin::ShellTool;
use crate::tools::{Tool, ToolDisplay};
use serde_json::json;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// A card opened for an allowed command, not finished yet.
struct Open {
    command: String,
    call_id: String,
    started: Option<Instant>,
}

/// The asker of one custom command's expansion.
pub(super) struct CommandAsker<'a> {
    agent: &'a crate::agent::Agent,
    events: &'a EventSender,
    cancel: &'a CancellationToken,
    open: Mutex<Vec<Open>>,
}

impl<'a> CommandAsker<'a> {
    /// An asker over the session's agent (its confirmations) and events.
    pub(super) fn new(
        agent: &'a crate::agent::Agent,
        events: &'a EventSender,
        cancel: &'a CancellationToken,
    ) -> Self {
        CommandAsker {
            agent,
            events,
            cancel,
            open: Mutex::new(Vec::new()),
        }
    }

    fn finish(&self, call_id: String, command: &str, outcome: (ToolCallStatus, &str, Duration)) {
        let (status, text, duration) = outcome;
        self.events
            .emit_detached(AgentEvent::ToolFinished(ToolCallFinished {
                call_id,
                name: ShellTool.name().to_string(),
                args: json!({ "command": command }),
                status,
                display: ToolDisplay::Text(text.to_string()),
                error: None,
                duration,
            }));
    }

    /// Takes the open card of `command` (`running`: one that started).
    fn take(&self, command: &str, running: bool) -> Option<Open> {
        let mut open = self.open.lock().ok()?;
        let at = open
            .iter()
            .position(|o| o.command == command && o.started.is_some() == running)?;
        Some(open.remove(at))
    }
}

impl AskCommand for CommandAsker<'_> {
    fn ask<'a>(&'a self, command: &'a str) -> futures::future::BoxFuture<'a, bool> {
        Box::pin(async move {
            let call_id = format!("command-shell-{}", uuid::Uuid::new_v4().simple());
            self.events
                .emit(AgentEvent::ToolCallRequested {
                    call_id: call_id.clone(),
                    name: ShellTool.name().to_string(),
                    args: json!({ "command": command }),
                })
                .await;
            let allowed = self
                .agent
                .confirm_command(&call_id, command, self.cancel)
                .await;
            if allowed {
                if let Ok(mut open) = self.open.lock() {
                    open.push(Open {
                        command: command.to_string(),
                        call_id,
                        started: None,
                    });
                }
            } else {
                let outcome = (ToolCallStatus::Cancelled, "Not allowed.", Duration::ZERO);
                self.finish(call_id, command, outcome);
            }
            allowed
        })
    }

    fn running(&self, command: &str) {
        let Some(mut card) = self.take(command, false) else {
            return;
        };
        self.events.emit_detached(AgentEvent::ToolRunning {
            call_id: card.call_id.clone(),
        });
        card.started = Some(Instant::now());
        if let Ok(mut open) = self.open.lock() {
            open.push(card);
        }
    }

    fn ran(&self, command: &str, ok: bool) {
        let Some(card) = self.take(command, true) else {
            return;
        };
        let took = card.started.map(|s| s.elapsed()).unwrap_or_default();
        let outcome = if ok {
            (
                ToolCallStatus::Success,
                "Ran: its output goes into the prompt.",
                took,
            )
        } else {
            (
                ToolCallStatus::Error,
                "Ran and failed: its output goes into the prompt.",
                took,
            )
        };
        self.finish(card.call_id, command, outcome);
    }
}

impl Drop for CommandAsker<'_> {
    /// Cards of allowed commands that never ran (a later one was declined
    /// or failed to start) end as cancelled.
    fn drop(&mut self) {
        let open = self.open.get_mut().map(std::mem::take).unwrap_or_default();
        for card in open {
            let outcome = (ToolCallStatus::Cancelled, "Not run.", Duration::ZERO);
            self.finish(card.call_id, &card.command, outcome);
        }
    }
}
