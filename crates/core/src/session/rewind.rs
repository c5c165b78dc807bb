//! `/rewind`: back to before one of the latest prompts. The conversation
//! is cut before that prompt; the files go back to the checkpoint made
//! before the first edit after it (checkpoints need
//! `general.checkpointing.enabled`; edits by shell commands or by hand are
//! not covered, as in Gemini CLI).

use super::Engine;
use crate::events::AgentEvent;
use gemini_rs_protocol::Content;

/// True for a prompt of the user (not a tool answer).
fn is_prompt(c: &Content) -> bool {
    c.role.as_deref() == Some("user") && c.parts.iter().all(|p| p.function_response.is_none())
}

impl Engine {
    /// Rewinds to before the `back`-th latest prompt (1: the latest).
    pub(super) async fn rewind(&mut self, back: usize, conversation: bool, files: bool) {
        let history = self.agent.history().to_vec();
        let prompts: Vec<usize> = (0..history.len())
            .filter(|&i| is_prompt(&history[i]))
            .collect();
        let at = back
            .checked_sub(1)
            .and_then(|b| prompts.len().checked_sub(b + 1))
            .map(|i| prompts[i]);
        let Some(at) = at else {
            return self.emit(AgentEvent::Error {
                message: format!("There is no prompt {back} back to rewind to."),
            });
        };
        let prompt = history[at].clone();
        if files {
            self.revert_files(at, prompt.clone()).await;
        }
        if conversation {
            self.agent.set_history(history[..at].to_vec());
            self.emit(AgentEvent::HistoryReplaced { len: at });
            let text: String = prompt.text().chars().take(60).collect();
            self.emit(AgentEvent::Info {
                message: format!("Rewound the conversation to before \"{text}\"."),
            });
        }
    }

    async fn revert_files(&mut self, at: usize, prompt: Content) {
        let Some(cp) = self.info.checkpointer.clone() else {
            return self.emit(AgentEvent::Info {
                message: "Checkpointing is off (general.checkpointing.enabled), so there are no file changes to revert.".into(),
            });
        };
        let work = tokio::task::spawn_blocking(move || {
            cp.first_after_prompt(at, &prompt)
                .map(|id| cp.restore(&id))
                .transpose()
        });
        let message = match work.await {
            Ok(Ok(Some(r))) if r.files_restored => {
                let tool = r.tool_call["name"].as_str().unwrap_or("the first edit");
                AgentEvent::Info {
                    message: format!("Reverted the files to before {tool} ran after that prompt."),
                }
            }
            Ok(Ok(_)) => AgentEvent::Info {
                message: "No code changes to revert.".into(),
            },
            Ok(Err(e)) => AgentEvent::Error {
                message: e.to_string(),
            },
            Err(e) => AgentEvent::Error {
                message: format!("Reverting the files failed: {e}"),
            },
        };
        self.emit(message);
    }
}
