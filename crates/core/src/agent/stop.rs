//! What happens when a prompt has been answered: the AfterAgent (Claude
//! Code: Stop) hooks, whose block sends the agent on with the reason.

use super::{Agent, AgentError, PromptOutcome};
use crate::events::AgentEvent;
use crate::hooks::{AgentHookOutcome, AgentStop, Hooks};
use gemini_rs_protocol::Part;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// How many times in a row Claude Stop hooks may send the agent on
/// (Claude Code sets no bound; a hook that never checks
/// `stop_hook_active` would otherwise run a session forever).
pub const MAX_STOP_CONTINUATIONS: u32 = 5;

impl Agent {
    /// AfterAgent (Claude: Stop) after a prompt's last turn. A block sends
    /// its reason as a new prompt; with Claude Stop hooks they run again
    /// after it (`stop_hook_active`), at most [`MAX_STOP_CONTINUATIONS`]
    /// times in a row.
    pub(super) async fn stop_hooks(
        &mut self,
        hooks: Arc<dyn Hooks>,
        prompt_text: &str,
        mut responses: Vec<String>,
        mut outcome: PromptOutcome,
        cancel: &CancellationToken,
    ) -> Result<PromptOutcome, AgentError> {
        let mut continuations = 0;
        loop {
            let joined = if responses.is_empty() {
                "[no response text]".to_string()
            } else {
                responses.join("\n")
            };
            let stop = AgentStop {
                prompt: prompt_text,
                response: &joined,
                last_message: responses.last().map_or("", String::as_str),
                stop_hook_active: continuations > 0,
            };
            let (reason, clear) = match hooks.after_agent(stop).await {
                AgentHookOutcome::Proceed { .. } => return Ok(outcome),
                hook @ AgentHookOutcome::Stop { .. } => {
                    if matches!(
                        hook,
                        AgentHookOutcome::Stop {
                            clear_context: true,
                            ..
                        }
                    ) {
                        self.history = self.initial_history.clone();
                    }
                    return Ok(PromptOutcome {
                        stopped: hook.message().map(str::to_string),
                        ..outcome
                    });
                }
                hook @ AgentHookOutcome::Block { .. } => {
                    if continuations >= MAX_STOP_CONTINUATIONS {
                        self.emit(AgentEvent::Warning {
                            message: format!(
                                "Stop hooks blocked {MAX_STOP_CONTINUATIONS} times in a row; the agent stops here: {}",
                                hook.message().unwrap_or("")
                            ),
                        }).await;
                        return Ok(outcome);
                    }
                    self.emit(AgentEvent::Warning {
                        message: format!(
                            "Agent execution blocked: {}",
                            hook.message().unwrap_or("")
                        ),
                    })
                    .await;
                    match hook {
                        AgentHookOutcome::Block {
                            reason,
                            clear_context,
                            ..
                        } => (reason, clear_context),
                        AgentHookOutcome::Proceed { .. } | AgentHookOutcome::Stop { .. } => {
                            (String::new(), false)
                        }
                    }
                }
            };
            if clear {
                self.history = self.initial_history.clone();
            }
            let mut again_responses = Vec::new();
            let again = self
                .run_turns(vec![Part::text(reason)], &mut again_responses, cancel)
                .await?;
            outcome = self.structured_answer(again, cancel).await?;
            if outcome.stopped.is_some() || !hooks.reruns_stop() {
                return Ok(outcome);
            }
            continuations += 1;
            responses = again_responses;
        }
    }
}
