//! The interactive session's loop: keys, agent events, the agent task
//! (moved into a spawned task per prompt and back), shell commands, and
//! drawing when something changed.

use super::cards::{CardStatus, ToolCard};
use super::editor::KeyGate;
use super::shell::{self, ShellResult};
use super::state::UiState;
use super::term::Tui;
use gemini_rs_core::agent::events::{AgentEvent, ConfirmationOutcome, ConfirmationResponse};
use gemini_rs_core::agent::stats::SessionStats;
use gemini_rs_core::agent::{Agent, AgentError, PromptOutcome, expand_at_paths};
use gemini_rs_core::config::{GeminiPaths, Settings};
use gemini_rs_core::hooks::HookSystem;
use gemini_rs_core::policy::ApprovalMode;
use gemini_rs_core::tools::mcp::McpManager;
use gemini_rs_core::tools::{ConfirmationDetails, ToolDisplay, ToolRegistry};
use gemini_rs_core::workspace::Workspace;
use ratatui::crossterm::event::Event;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// What a finished agent job produced.
pub enum JobOutput {
    /// A prompt ran.
    Prompt(Result<PromptOutcome, AgentError>),
    /// `/compress` ran.
    Compress(bool),
    /// `/clear` reset the conversation; the SessionStart hook's message.
    Cleared(Option<String>),
    /// A command finished with a note for the user.
    Info(String),
    /// A command failed.
    Failed(String),
}

type Job = JoinHandle<(Agent, JobOutput)>;

/// Everything the loop works with besides the screen state.
pub struct Ctx {
    /// Session id.
    pub session_id: String,
    /// Metrics.
    pub stats: Arc<Mutex<SessionStats>>,
    /// The workspace.
    pub workspace: Arc<Workspace>,
    /// Home paths.
    pub paths: GeminiPaths,
    /// Where confirmations are answered.
    pub confirmations: mpsc::UnboundedSender<ConfirmationResponse>,
    /// The scheduler's approval mode, when the session shares it.
    pub mode: Option<Arc<RwLock<ApprovalMode>>>,
    /// The tools, when the session shares them.
    pub tools: Option<Arc<ToolRegistry>>,
    /// When the session started.
    pub started: Instant,
    /// Context from the SessionStart hook for the first prompt.
    pub hook_context: Option<String>,
    /// The MCP servers (`/mcp`).
    pub mcp: Option<Arc<McpManager>>,
    /// The hooks (`/hooks`).
    pub hooks: Option<Arc<HookSystem>>,
    /// The merged settings.
    pub settings: Arc<Settings>,
    /// The session's checkpoints, when checkpointing is on (`/restore`).
    pub checkpointer: Option<gemini_rs_core::session::Checkpointer>,
    /// Pauses the key reader while an editor runs.
    pub keys: Arc<KeyGate>,
}

/// The running session.
pub struct App {
    /// Screen state.
    pub state: UiState,
    pub(super) ctx: Ctx,
    pub(super) agent: Option<Agent>,
    pub(super) job: Option<Job>,
    pub(super) shell: Option<JoinHandle<ShellResult>>,
    pub(super) cancel: CancellationToken,
    pub(super) last_ctrl_c: Option<Instant>,
    pub(super) quit: bool,
    pub(super) clear_requested: bool,
    pub(super) osc: Option<String>,
    pub(super) editor_request: Option<super::confirm::ConfirmDialog>,
}

async fn join<T>(h: &mut Option<JoinHandle<T>>) -> Result<T, tokio::task::JoinError> {
    match h {
        Some(h) => h.await,
        None => std::future::pending().await,
    }
}

impl App {
    /// A new session loop.
    pub fn new(state: UiState, ctx: Ctx, agent: Agent) -> Self {
        App {
            state,
            ctx,
            agent: Some(agent),
            job: None,
            shell: None,
            cancel: CancellationToken::new(),
            last_ctrl_c: None,
            quit: false,
            clear_requested: false,
            osc: None,
            editor_request: None,
        }
    }

    /// Runs until the user quits or a signal arrives.
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
                Some(ev) = events.recv() => {
                    // Apply a burst of events before drawing once.
                    let now = Instant::now();
                    self.state.on_agent_event(ev, now);
                    while let Ok(ev) = events.try_recv() {
                        self.state.on_agent_event(ev, now);
                    }
                }
                res = join(&mut self.job) => {
                    self.job = None;
                    while let Ok(ev) = events.try_recv() {
                        self.state.on_agent_event(ev, Instant::now());
                    }
                    self.job_done(res);
                }
                res = join(&mut self.shell) => {
                    self.shell = None;
                    self.shell_done(res);
                }
                _ = tick.tick(), if self.state.animating() => {}
                _ = term.recv() => break,
                _ = hup.recv() => break,
            }
        }
        self.cancel.cancel();
        if let Some(job) = self.job.take() {
            let _ = tokio::time::timeout(Duration::from_secs(2), job).await;
        }
        Ok(())
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
        if let Some(m) = &self.ctx.mode
            && let Ok(m) = m.read()
        {
            self.state.mode = *m;
        }
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
        self.job.is_some() || self.shell.is_some()
    }

    pub(super) fn cancel_running(&mut self) {
        self.cancel.cancel();
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
        let _ = self
            .ctx
            .confirmations
            .send(ConfirmationResponse::new(dialog.call_id.clone(), outcome));
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
            && card.status == CardStatus::AwaitingApproval
        {
            card.status = CardStatus::Pending;
        }
        self.state.confirm = self.state.confirm_queue.pop_front();
    }

    /// Sends a prompt, runs a command or a shell command.
    pub fn submit(&mut self, text: String) {
        let trimmed = text.trim();
        let waits = self.busy()
            && (!trimmed.starts_with('/') || super::commands::parse(trimmed).needs_agent())
            && !trimmed.starts_with('!');
        if waits {
            self.state
                .info("Queued; it will be sent when the current request ends.");
            self.state.queued.push_back(text);
        } else if trimmed.starts_with('/') {
            self.state.echo_prompt(trimmed);
            self.command(trimmed);
        } else if let Some(cmd) = trimmed.strip_prefix('!') {
            self.state.echo_prompt(trimmed);
            self.start_shell(cmd.trim().to_string());
        } else {
            self.start_prompt(text);
        }
    }

    fn start_prompt(&mut self, text: String) {
        self.state.echo_prompt(&text);
        self.send_prompt(text);
    }

    /// Sends a prompt without echoing it (`/init`'s).
    pub(super) fn send_prompt(&mut self, text: String) {
        let Some(mut agent) = self.agent.take() else {
            self.state.error("The agent is not available.");
            return;
        };
        let text = match self.ctx.hook_context.take() {
            Some(ctx) => format!("<hook_context>{ctx}</hook_context>\n\n{text}"),
            None => text,
        };
        let expanded = expand_at_paths(&text, &self.ctx.workspace);
        for note in &expanded.notes {
            tracing::debug!("{note}");
        }
        let parts = expanded.parts;
        self.cancel = CancellationToken::new();
        let cancel = self.cancel.clone();
        self.state.start_busy("Thinking", Instant::now());
        self.job = Some(tokio::spawn(async move {
            let r = agent.run_prompt(parts, &cancel).await;
            (agent, JobOutput::Prompt(r))
        }));
    }

    pub(super) fn start_compress(&mut self) {
        if self.busy() {
            self.state.info("Wait for the current request to end.");
            return;
        }
        let Some(mut agent) = self.agent.take() else {
            self.state.error("The agent is not available.");
            return;
        };
        self.cancel = CancellationToken::new();
        let cancel = self.cancel.clone();
        self.state
            .start_busy("Compressing the conversation", Instant::now());
        self.job = Some(tokio::spawn(async move {
            let ok = agent.compress_now(&cancel).await;
            (agent, JobOutput::Compress(ok))
        }));
    }

    /// Forgets the conversation and runs the SessionEnd / SessionStart
    /// hooks with reason and source `clear`, as Gemini CLI's `/clear` does.
    pub(super) fn start_clear(&mut self) {
        if self.busy() {
            self.state.info("Wait for the current request to end.");
            return;
        }
        let Some(mut agent) = self.agent.take() else {
            return;
        };
        self.job = Some(tokio::spawn(async move {
            agent.clear_history();
            let mut message = None;
            if let Some(hooks) = agent.hooks().cloned() {
                hooks.session_end("clear").await;
                message = hooks.session_start("clear").await.system_message;
            }
            (agent, JobOutput::Cleared(message))
        }));
    }

    fn start_shell(&mut self, cmd: String) {
        if cmd.is_empty() {
            self.state.info("Type a command after !, e.g. !ls");
            return;
        }
        if self.busy() {
            self.state.info("Wait for the current request to end.");
            return;
        }
        self.cancel = CancellationToken::new();
        self.state
            .start_busy("Running shell command", Instant::now());
        let mut card = ToolCard::new(
            "shell".into(),
            "Shell".into(),
            &serde_json::json!({"command": cmd}),
        );
        card.status = CardStatus::Running(Instant::now());
        self.state.cards.push(card);
        let dir = self.ctx.workspace.target_dir().to_path_buf();
        self.shell = Some(tokio::spawn(shell::run(cmd, dir, self.cancel.clone())));
    }

    fn shell_done(&mut self, res: Result<ShellResult, tokio::task::JoinError>) {
        let now = Instant::now();
        let idx = self.state.cards.iter().position(|c| c.call_id == "shell");
        let mut card = match idx {
            Some(i) => self.state.cards.remove(i),
            None => ToolCard::new("shell".into(), "Shell".into(), &serde_json::Value::Null),
        };
        match res {
            Ok(r) => {
                card.status = if r.cancelled {
                    CardStatus::Cancelled
                } else if r.code == Some(0) {
                    CardStatus::Done(r.duration)
                } else {
                    CardStatus::Failed(r.duration)
                };
                let mut text = r.output.trim_end().to_string();
                if let Some(c) = r.code
                    && c != 0
                {
                    text.push_str(&format!("\n(exit code {c})"));
                }
                if text.is_empty() {
                    text = "(no output)".into();
                }
                card.display = Some(ToolDisplay::Text(text));
            }
            Err(e) => {
                card.status = CardStatus::Failed(Duration::ZERO);
                card.error = Some(e.to_string());
            }
        }
        self.state.cards.push(card);
        self.state.end_busy(now);
        self.next_queued();
    }

    fn job_done(&mut self, res: Result<(Agent, JobOutput), tokio::task::JoinError>) {
        let now = Instant::now();
        self.state.end_busy(now);
        match res {
            Err(e) => self
                .state
                .error(&format!("The agent stopped unexpectedly: {e}")),
            Ok((agent, out)) => {
                self.agent = Some(agent);
                match out {
                    JobOutput::Prompt(Ok(outcome)) => {
                        if !outcome.last_turn_text.is_empty() {
                            self.state.last_answer = outcome.last_turn_text;
                        }
                        if let Some(reason) = outcome.stopped {
                            self.state
                                .warn(&format!("Agent execution stopped: {reason}"));
                        }
                    }
                    JobOutput::Prompt(Err(AgentError::Cancelled)) => {
                        self.state.warn("Request cancelled.");
                    }
                    JobOutput::Prompt(Err(AgentError::Model(e))) => {
                        self.state
                            .error(&format!("Error when talking to Gemini API: {e}"));
                    }
                    JobOutput::Prompt(Err(e)) => self.state.error(&e.to_string()),
                    JobOutput::Compress(ok) => {
                        if !ok {
                            self.state.warn("The conversation was not compressed.");
                        }
                    }
                    JobOutput::Cleared(message) => {
                        if let Some(m) = message {
                            self.state.info(&m);
                        }
                    }
                    JobOutput::Info(m) => self.state.info(&m),
                    JobOutput::Failed(m) => self.state.error(&m),
                }
            }
        }
        self.next_queued();
    }

    fn next_queued(&mut self) {
        if !self.busy()
            && let Some(next) = self.state.queued.pop_front()
        {
            self.submit(next);
        }
    }
}
