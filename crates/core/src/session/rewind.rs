//! `/rewind`: back to before one of the latest prompts. The conversation
//! is cut before that prompt; the files go back as they were before the
//! edits made since, from the session's record of each edit (its content
//! before and after), as Gemini CLI 0.61 reverts them, with or without
//! checkpointing. Edits by shell commands or by hand are not covered.

use super::Engine;
use crate::agent::edits;
use crate::events::AgentEvent;
use gemini_rs_protocol::Content;
use gemini_rs_protocol::events::Finished;

/// True for a prompt of the user (not a tool answer).
fn is_prompt(c: &Content) -> bool {
    c.role.as_deref() == Some("user") && c.parts.iter().all(|p| p.function_response.is_none())
}

impl Engine {
    /// Rewinds to before the `back`-th latest prompt (1: the latest).
    pub(super) async fn rewind(
        &mut self,
        back: usize,
        conversation: bool,
        files: bool,
    ) -> Finished {
        let history = self.agent.history();
        let prompts: Vec<usize> = (0..history.len())
            .filter(|&i| is_prompt(&history[i]))
            .collect();
        let at = back
            .checked_sub(1)
            .and_then(|b| prompts.len().checked_sub(b + 1))
            .map(|i| prompts[i]);
        let Some(at) = at else {
            self.emit(AgentEvent::error(format!(
                "There is no prompt {back} back to rewind to."
            )))
            .await;
            return Finished::Command;
        };
        let warnings = match files {
            true => self.revert_files(back).await,
            false => Vec::new(),
        };
        if !conversation {
            for message in warnings {
                self.emit(AgentEvent::Warning { message }).await;
            }
            if files {
                self.emit(AgentEvent::Info {
                    message: "File changes reverted.".into(),
                })
                .await;
            }
            return Finished::Command;
        }
        self.agent.rewind_history(at, back);
        self.emit(AgentEvent::HistoryReplaced { len: at }).await;
        // The front end redraws the conversation, then shows the warnings
        // (Gemini CLI says nothing more after a rewind).
        Finished::Rewound {
            history: self.agent.history().to_vec(),
            warnings,
        }
    }

    /// Reverts the edits made since the `back`-th latest prompt; the
    /// warnings of the files it could not revert.
    async fn revert_files(&mut self, back: usize) -> Vec<String> {
        let edits = self.agent.take_edits_since(back);
        if edits.is_empty() {
            return Vec::new();
        }
        match tokio::task::spawn_blocking(move || edits::revert(&edits)).await {
            Ok(notes) => notes.iter().map(edits::RevertNote::message).collect(),
            Err(e) => vec![format!("Reverting the files failed: {e}")],
        }
    }
}
