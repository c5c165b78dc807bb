//! Front-end controls of an agent besides prompts: the history
//! (`/chat`, `/restore`, `/clear`), the hooks, and the system
//! instruction's context-file part (`/memory refresh`).

use super::Agent;
use super::routing::{AutoRouting, is_persistent_quota_error};
use crate::events::AgentEvent;

use gemini_rs_protocol::Content;

/// Where the context files start in the system instruction: setup appends
/// them to the base prompt after a rule, each framed by
/// `--- Context from: <path> ---` (see [`super::memory::format_context`]).
const CONTEXT_SEAM: &str = "\n\n---\n\n--- Context from: ";

impl Agent {
    /// The conversation so far.
    pub fn history(&self) -> &[Content] {
        &self.history
    }

    /// Replaces the conversation (`/restore`, `/chat resume`).
    pub fn set_history(&mut self, history: Vec<Content>) {
        self.history = history;
        self.last_prompt_tokens = None;
        self.edits.clear();
    }

    /// Cuts the conversation to its first `len` contents, back to before
    /// the `back`-th latest prompt (`/rewind`); the edits of the earlier
    /// prompts stay revertible.
    pub fn rewind_history(&mut self, len: usize, back: usize) {
        self.history.truncate(len);
        self.last_prompt_tokens = None;
        self.edits.cut(back);
    }

    /// Takes out the file edits made since the `back`-th latest prompt of
    /// this run (1: the latest), newest first.
    pub fn take_edits_since(&mut self, back: usize) -> Vec<gemini_rs_protocol::events::FileDiff> {
        self.edits.take_since(back)
    }

    /// Appends a content to the conversation (a `!cmd` and its output).
    pub fn push_history(&mut self, content: Content) {
        self.history.push(content);
    }

    /// Forgets the conversation (`/clear`): only the environment-context
    /// turn stays.
    pub fn clear_history(&mut self) {
        self.history.truncate(0);
        self.history
            .extend(self.initial_history.iter().take(1).cloned());
        self.last_prompt_tokens = None;
        self.edits.clear();
        if let Some(rec) = &self.recorder {
            rec.record_note("info", "Conversation cleared.");
        }
    }

    /// Replaces the context-file part of the system instruction with
    /// `context` (the output of [`super::memory::format_context`]; empty
    /// removes it), keeping the base prompt.
    pub fn set_context(&mut self, context: &str) {
        self.config.system_instruction = with_context(&self.config.system_instruction, context);
    }

    /// The model id.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// Talks to `model` from the next request on, with its default
    /// generation settings; `auto` names route each prompt (starting with
    /// their pro model).
    pub fn set_model(&mut self, model: String) {
        self.routing = AutoRouting::for_model(&model, self.config.auto_classify);
        let concrete = self.routing.as_ref().map_or(model, |r| r.pro.clone());
        self.config.generation_config = crate::model::default_generation_config(&concrete);
        self.config.model = concrete;
        self.last_prompt_tokens = None;
    }

    /// Uses `model`, chosen by `auto` routing, and tells the front end.
    pub(super) async fn use_routed_model(&mut self, model: String) {
        if model == self.config.model {
            return;
        }
        self.config.generation_config = crate::model::default_generation_config(&model);
        self.config.model = model.clone();
        self.last_prompt_tokens = None;
        let context_window = self.config.context_windows.get(&model);
        self.emit(AgentEvent::ModelChanged {
            model,
            context_window,
        })
        .await;
    }

    /// Whether a failed request should move `auto` to its flash model.
    pub(super) fn should_fall_back(&self, error: &crate::model::ModelError) -> bool {
        self.routing
            .as_ref()
            .is_some_and(|r| r.flash != self.config.model)
            && is_persistent_quota_error(error)
    }

    /// Runs one call through the scheduler without touching the history
    /// (`mcp serve`).
    pub async fn run_tool(
        &self,
        request: crate::scheduler::ToolCallRequest,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Option<crate::scheduler::CompletedCall> {
        self.scheduler
            .run_batch(vec![request], cancel)
            .await
            .into_iter()
            .next()
    }

    /// Asks the user about a shell command a prompt runs (see
    /// [`crate::scheduler::Scheduler::confirm_command`]).
    pub async fn confirm_command(
        &self,
        call_id: &str,
        command: &str,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> bool {
        self.scheduler
            .confirm_command(call_id, command, cancel)
            .await
    }
}

/// `instruction` with its context-file part replaced by `context`.
fn with_context(instruction: &str, context: &str) -> String {
    let base = match instruction.find(CONTEXT_SEAM) {
        Some(i) => &instruction[..i],
        None => instruction,
    };
    if context.trim().is_empty() {
        base.to_string()
    } else {
        format!("{base}\n\n---\n\n{context}")
    }
}

#[cfg(test)]
mod tests {
    use super::with_context;

    #[test]
    fn replaces_only_the_context_part() {
        let ctx1 = "--- Context from: GEMINI.md ---\nold\n--- End of Context from: GEMINI.md ---";
        let ctx2 = "--- Context from: GEMINI.md ---\nnew\n--- End of Context from: GEMINI.md ---";
        let base = "You are an agent.\n\n---\n\nA rule inside the prompt.";
        let first = with_context(base, ctx1);
        assert_eq!(first, format!("{base}\n\n---\n\n{ctx1}"));
        assert_eq!(
            with_context(&first, ctx2),
            format!("{base}\n\n---\n\n{ctx2}")
        );
        assert_eq!(with_context(&first, ""), base);
    }
}
