//! How agent events change what the screen shows ([`UiState`]'s half
//! that follows the session).

use crate::ui::state::{RetryWait, UiState, thought_subject};
use crate::ui::view::cards::{CardStatus, NestedCall, ToolCard};
use crate::ui::view::confirm::ConfirmDialog;
use gemini_rs_protocol::events::ToolDisplay;
use gemini_rs_protocol::events::{AgentEvent, HookMessageKind, McpServersInfo, ToolCallStatus};
use std::time::Instant;

impl UiState {
    /// Applies one agent event.
    pub fn on_agent_event(&mut self, event: AgentEvent, now: Instant) {
        match event {
            AgentEvent::Nested {
                parent_call_id,
                event,
            } => self.on_nested(&parent_call_id, *event, now),
            AgentEvent::ElicitationRequested { id, request } => {
                self.commit_stream(true);
                self.elicit = Some(crate::ui::view::elicit::ElicitForm::new(id, request));
            }
            AgentEvent::QuestionsAsked {
                id,
                call_id,
                questions,
            } => {
                self.commit_stream(true);
                let form = crate::ui::view::ask_user::AskUserForm::new(id, call_id, questions);
                self.ask_user = Some(form);
            }
            AgentEvent::ModelRetry {
                attempt,
                max_attempts,
                delay_ms,
                reason,
            } => {
                self.retry = Some(RetryWait {
                    until: now + std::time::Duration::from_millis(delay_ms),
                    next_attempt: attempt + 1,
                    max_attempts,
                    reason,
                });
            }
            AgentEvent::Content { text: t } => {
                self.retry = None;
                self.thought = None;
                self.stream.push_str(&t);
                self.commit_stream(false);
            }
            AgentEvent::Thought { text: t } => self.thought = Some(thought_subject(&t)),
            AgentEvent::ToolCallRequested {
                call_id,
                name,
                args,
            } => {
                self.commit_stream(true);
                self.message_started = false;
                self.cards.push(ToolCard::new(call_id, name, &args));
            }
            AgentEvent::ToolAwaitingApproval {
                call_id,
                name,
                details,
            } => self.on_awaiting_approval(call_id, name, details),
            AgentEvent::ToolRunning { call_id } => {
                if let Some(c) = self.card_mut(&call_id) {
                    c.status = CardStatus::Running(now);
                }
            }
            AgentEvent::ToolOutput { call_id, chunk } => {
                // Each chunk is the latest view of the output (its last
                // lines), not an increment.
                if let Some(c) = self.card_mut(&call_id) {
                    c.live_output = chunk;
                }
            }
            AgentEvent::ToolFinished(f) => self.on_tool_finished(f, now),
            AgentEvent::Usage {
                usage, estimated, ..
            } => {
                if let Some(p) = usage.prompt_token_count {
                    self.context_tokens = p;
                    self.context_estimated = estimated;
                }
            }
            AgentEvent::Warning { message: w } => {
                self.commit_stream(true);
                self.warn(&w);
            }
            AgentEvent::Info { message: i } => {
                self.commit_stream(true);
                self.info(&i);
            }
            AgentEvent::ModelTurnFinished => {
                self.retry = None;
                self.commit_stream(true);
                self.thought = None;
            }
            AgentEvent::Error { message: e, .. } => {
                self.commit_stream(true);
                self.error(&e);
            }
            AgentEvent::HookMessage { kind, text } => {
                self.commit_stream(true);
                match kind {
                    HookMessageKind::Warning => self.warn(&text),
                    HookMessageKind::SystemMessage | HookMessageKind::Info => self.info(&text),
                }
            }
            AgentEvent::Stats(stats) => self.stats = *stats,
            // For telemetry only.
            AgentEvent::HookRan(_) => {}
            AgentEvent::ApprovalModeChanged { mode } => self.mode = mode,
            AgentEvent::McpServersChanged { servers } => self.set_mcp_status(&servers),
            AgentEvent::ModelChanged {
                model,
                context_window,
            } => {
                self.model = model;
                self.context_window = context_window;
            }
            AgentEvent::PromptStarted { text, .. } => self.prompts.started(&text),
            AgentEvent::HistoryReplaced { .. } => self.prompts.replaced(),
            // The banner, the echoed prompt and the busy state are the app's.
            AgentEvent::SessionStarted { .. }
            | AgentEvent::Finished { .. }
            | AgentEvent::Acknowledged { .. }
            | AgentEvent::SessionEnded => {}
        }
    }

    /// A call waits for the user's approval: its card (made now if its
    /// request was not seen) and the confirmation dialog.
    fn on_awaiting_approval(
        &mut self,
        call_id: String,
        name: String,
        details: gemini_rs_protocol::events::ConfirmationDetails,
    ) {
        self.commit_stream(true);
        match self.card_mut(&call_id) {
            Some(c) => c.status = CardStatus::AwaitingApproval,
            None => {
                let mut c = ToolCard::new(call_id.clone(), name.clone(), &serde_json::Value::Null);
                c.status = CardStatus::AwaitingApproval;
                self.cards.push(c);
            }
        }
        self.open_confirm(ConfirmDialog::new(call_id, name, details));
    }

    /// A call ended: its card moves into the transcript with its result
    /// (a todo list also replaces the one shown), and its dialog or
    /// question form closes.
    fn on_tool_finished(&mut self, f: gemini_rs_protocol::events::ToolCallFinished, now: Instant) {
        if self
            .ask_user
            .as_ref()
            .is_some_and(|q| q.call_id == f.call_id)
        {
            // Cancelled while the form was open.
            self.ask_user = None;
        }
        let idx = match self.cards.iter().position(|c| c.call_id == f.call_id) {
            Some(i) => i,
            None => {
                self.cards
                    .push(ToolCard::new(f.call_id.clone(), f.name.clone(), &f.args));
                self.cards.len() - 1
            }
        };
        let mut card = self.cards.remove(idx);
        card.status = card.status.ended(f.status, f.duration, now);
        if let (ToolDisplay::FileDiff(diff), ToolCallStatus::Success) = (&f.display, f.status) {
            self.prompts.edited(diff);
        }
        if let ToolDisplay::Todos(todos) = &f.display {
            self.todos = todos.clone();
        }
        card.display = Some(f.display);
        if f.status == ToolCallStatus::Error {
            card.error = f.error.map(|e| e.message);
        }
        self.drop_confirm(&f.call_id);
        self.push_card(&card, now);
    }

    /// The status bar's MCP counts: ready, still connecting, failed.
    pub fn set_mcp_status(&mut self, servers: &McpServersInfo) {
        let counts = (
            servers.servers.len(),
            servers.connecting.len(),
            servers.failures.len(),
        );
        self.mcp_status = (counts != (0, 0, 0)).then_some(counts);
    }

    /// A sub-agent's event: its calls go under the delegating call's card;
    /// its confirmations are asked as any other.
    fn on_nested(&mut self, parent: &str, event: AgentEvent, now: Instant) {
        // What trails a delegating call that already ended is dropped.
        if self.card_mut(parent).is_none() {
            return;
        }
        let show = self.show_nested;
        let set_status = |s: &mut Self, id: &str, status: CardStatus| {
            if let Some(c) = s
                .card_mut(parent)
                .and_then(|c| c.nested.iter_mut().find(|n| n.call_id == id))
            {
                c.status = status;
            }
        };
        match event {
            AgentEvent::ToolCallRequested {
                call_id,
                name,
                args,
            } => {
                if let Some(card) = self.card_mut(parent) {
                    card.show_nested = show;
                    card.nested.push(NestedCall {
                        call_id,
                        name,
                        description: crate::ui::view::cards::describe(&args),
                        status: CardStatus::Pending,
                    });
                }
            }
            AgentEvent::ToolAwaitingApproval {
                call_id,
                name,
                details,
            } => {
                set_status(self, &call_id, CardStatus::AwaitingApproval);
                self.commit_stream(true);
                self.open_confirm(ConfirmDialog::new(call_id, name, details));
            }
            AgentEvent::ToolRunning { call_id } => {
                set_status(self, &call_id, CardStatus::Running(now))
            }
            AgentEvent::ToolFinished(f) => {
                let before = self
                    .card_mut(parent)
                    .and_then(|c| c.nested.iter().find(|n| n.call_id == f.call_id))
                    .map_or(CardStatus::Pending, |n| n.status.clone());
                set_status(self, &f.call_id, before.ended(f.status, f.duration, now));
                self.drop_confirm(&f.call_id);
            }
            AgentEvent::Warning { message: w } | AgentEvent::Error { message: w, .. } => {
                self.warn(&w)
            }
            AgentEvent::Nested { event, .. } => self.on_nested(parent, *event, now),
            _ => {}
        }
    }
}
