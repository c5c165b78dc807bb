//! The interactive session's loop: keys in, session events out, drawing
//! when something changed. The session (core) owns the conversation; the
//! UI only submits ops and shows events.

use super::editor::KeyGate;
use super::state::UiState;
use super::term::Tui;
use gemini_rs_core::config::GeminiPaths;
use gemini_rs_core::events::{
    AgentError, AgentEvent, ConfirmationOutcome, ConfirmationResponse, Finished, Op,
};
use gemini_rs_core::policy::ApprovalMode;
use gemini_rs_core::session::{OpSender, SessionInfo};
use gemini_rs_core::tools::ConfirmationDetails;
use ratatui::crossterm::event::Event;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Everything the loop works with besides the screen state.
pub struct Ctx {
    /// What the session is made of.
    pub info: Arc<SessionInfo>,
    /// Home paths.
    pub paths: GeminiPaths,
    /// Where ops go.
    pub ops: OpSender,
    /// When the session started.
    pub started: Instant,
    /// Pauses the key reader while an editor runs.
    pub keys: Arc<KeyGate>,
}

/// The running session.
pub struct App {
    /// Screen state.
    pub state: UiState,
    pub(super) ctx: Ctx,
    /// Ops submitted that wait for their `Finished` event.
    pub(super) pending: usize,
    pub(super) last_ctrl_c: Option<Instant>,
    pub(super) quit: bool,
    pub(super) clear_requested: bool,
    pub(super) osc: Option<String>,
    pub(super) editor_request: Option<super::confirm::ConfirmDialog>,
}

impl App {
    /// A new session loop.
    pub fn new(state: UiState, ctx: Ctx) -> Self {
        App {
            state,
            ctx,
            pending: 0,
            last_ctrl_c: None,
            quit: false,
            clear_requested: false,
            osc: None,
            editor_request: None,
        }
    }

    /// Runs until the user quits or a signal arrives, then shuts the
    /// session down (cancelling what runs) and waits for its end.
    pub async fn run(
        mut self,
        tui: &mut Tui,
        mut events: mpsc::UnboundedReceiver<AgentEvent>,
        mut keys: mpsc::UnboundedReceiver<Event>,
        initial: Option<String>,
    ) -> std::io::Result<()> {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate())?;
        let mut hup = signal(SignalKind::hangup())?;
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        if let Some(p) = initial.filter(|p| !p.trim().is_empty()) {
            self.submit(p);
        }
        let mut ended = false;
        loop {
            if let Some(dialog) = self.editor_request.take() {
                self.run_editor(tui, dialog)?;
            }
            self.frame(tui)?;
            if self.quit {
                break;
            }
            tokio::select! {
                ev = keys.recv() => match ev {
                    Some(ev) => self.on_term_event(ev),
                    None => break,
                },
                ev = events.recv() => {
                    let Some(ev) = ev else {
                        ended = true;
                        break;
                    };
                    // Apply a burst of events before drawing once.
                    ended = self.on_event(ev);
                    while !ended && let Ok(ev) = events.try_recv() {
                        ended = self.on_event(ev);
                    }
                    if ended {
                        break;
                    }
                }
                _ = tick.tick(), if self.state.animating() => {}
                _ = term.recv() => break,
                _ = hup.recv() => break,
            }
        }
        self.ctx.ops.submit(Op::Cancel);
        self.ctx.ops.submit(Op::Shutdown);
        if !ended {
            let drain = async {
                while let Some(ev) = events.recv().await {
                    if matches!(ev, AgentEvent::SessionEnded) {
                        break;
                    }
                }
            };
            let _ = tokio::time::timeout(Duration::from_secs(5), drain).await;
        }
        Ok(())
    }

    /// Applies one session event; true when the session ended.
    fn on_event(&mut self, ev: AgentEvent) -> bool {
        match ev {
            AgentEvent::Finished(finished) => self.finished(finished),
            AgentEvent::SessionEnded => return true,
            ev => self.state.on_agent_event(ev, Instant::now()),
        }
        false
    }

    fn frame(&mut self, tui: &mut Tui) -> std::io::Result<()> {
        tui.begin_sync()?;
        let r = self.frame_inner(tui);
        tui.end_sync()?;
        r
    }

    fn frame_inner(&mut self, tui: &mut Tui) -> std::io::Result<()> {
        if tui.check_resize()? {
            self.state.out.push(ratatui::text::Line::default());
        }
        let (w, h) = tui.size();
        self.state.width = w;
        self.state.height = h;
        if self.clear_requested {
            self.clear_requested = false;
            tui.clear_screen()?;
        }
        if let Some(osc) = self.osc.take() {
            tui.write_raw(&osc)?;
        }
        let out = std::mem::take(&mut self.state.out);
        if !out.is_empty() {
            tui.insert(out)?;
        }
        let (lines, cursor) = super::render::live_lines(&self.state, w, h, Instant::now());
        tui.draw(lines, cursor)
    }

    pub(super) fn busy(&self) -> bool {
        self.pending > 0
    }

    pub(super) fn cancel_running(&mut self) {
        self.ctx.ops.submit(Op::Cancel);
        self.state.queued.clear();
    }

    pub(super) fn answer(&mut self, outcome: ConfirmationOutcome) {
        let Some(dialog) = self.state.confirm.take() else {
            return;
        };
        if outcome == ConfirmationOutcome::ModifyWithEditor {
            self.editor_request = Some(dialog);
            return;
        }
        self.ctx.ops.submit(Op::Confirm(ConfirmationResponse::new(
            dialog.call_id.clone(),
            outcome,
        )));
        if outcome == ConfirmationOutcome::ProceedAlways
            && matches!(dialog.details, ConfirmationDetails::Edit { .. })
        {
            self.state.mode = ApprovalMode::AutoEdit;
        }
        if let Some(card) = self
            .state
            .cards
            .iter_mut()
            .find(|c| c.call_id == dialog.call_id)
            && card.status == super::cards::CardStatus::AwaitingApproval
        {
            card.status = super::cards::CardStatus::Pending;
        }
        self.state.confirm = self.state.confirm_queue.pop_front();
    }

    /// Sends a prompt, runs a command or a shell command.
    pub fn submit(&mut self, text: String) {
        let trimmed = text.trim();
        let waits = self.busy()
            && (!trimmed.starts_with('/') || super::commands::parse(trimmed).needs_agent());
        if waits {
            self.state
                .info("Queued; it will be sent when the current request ends.");
            self.state.queued.push_back(text);
        } else if trimmed.starts_with('/') {
            self.state.echo_prompt(trimmed);
            self.command(trimmed);
        } else if let Some(cmd) = trimmed.strip_prefix('!') {
            self.state.echo_prompt(trimmed);
            self.start_op(
                Op::Shell {
                    command: cmd.trim().to_string(),
                },
                "Running shell command",
            );
        } else {
            self.state.echo_prompt(&text);
            self.send_prompt(text);
        }
    }

    /// Submits an op that has the conversation to itself, with a busy label.
    pub(super) fn start_op(&mut self, op: Op, label: &str) {
        self.pending += 1;
        self.state.start_busy(label, Instant::now());
        self.ctx.ops.submit(op);
    }

    /// Sends a prompt without echoing it (`/init`'s).
    pub(super) fn send_prompt(&mut self, text: String) {
        self.start_op(Op::prompt(text), "Thinking");
    }

    fn finished(&mut self, finished: Finished) {
        self.pending = self.pending.saturating_sub(1);
        if self.pending == 0 {
            self.state.end_busy(Instant::now());
        }
        match finished {
            Finished::Prompt(Ok(outcome)) => {
                if !outcome.last_turn_text.is_empty() {
                    self.state.last_answer = outcome.last_turn_text;
                }
                if let Some(reason) = outcome.stopped {
                    self.state
                        .warn(&format!("Agent execution stopped: {reason}"));
                }
            }
            Finished::Prompt(Err(AgentError::Cancelled)) => self.state.warn("Request cancelled."),
            Finished::Prompt(Err(AgentError::Model(e))) => self
                .state
                .error(&format!("Error when talking to Gemini API: {e}")),
            Finished::Prompt(Err(e @ (AgentError::TurnLimit | AgentError::FatalTool(_)))) => {
                self.state.error(&e.to_string())
            }
            Finished::Compress(false) => self.state.warn("The conversation was not compressed."),
            Finished::Compress(true)
            | Finished::Clear
            | Finished::Command
            | Finished::Tool { .. } => {}
        }
        if !self.busy()
            && let Some(next) = self.state.queued.pop_front()
        {
            self.submit(next);
        }
    }
}
