//! What the screen shows: the finished lines waiting to go into the
//! scrollback, the streaming answer, the tool cards, the confirmation
//! dialog, the editor and the footer data. Agent events update it.

use crate::ui::input::complete::Completion;
use crate::ui::input::history::History;
use crate::ui::input::line_editor::Editor;
use crate::ui::view::cards::{CardStatus, ToolCard};
use crate::ui::view::confirm::ConfirmDialog;
use crate::ui::view::markdown;
use crate::ui::view::wrap::{sanitize, wrap_prefixed};
use gemini_rs_protocol::events::ApprovalMode;
use gemini_rs_protocol::events::SessionStats;
use gemini_rs_protocol::events::{ConfirmationDetails, TodoItem};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::collections::VecDeque;
use std::time::Instant;

/// Lines of a finished card's body kept in the scrollback.
const CARD_BODY_LINES: usize = 200;

/// The UI's state.
pub struct UiState {
    /// Model id.
    pub model: String,
    /// MCP servers connected and failed, shown in the footer.
    pub mcp_status: Option<(usize, usize, usize)>,
    /// Background shell commands still running, shown in the footer.
    pub background_running: usize,
    /// Workspace path as shown.
    pub workspace_label: String,
    /// The approval mode shown.
    pub mode: ApprovalMode,
    /// The editor.
    pub input: Editor,
    /// Vim editing of the prompt (`/vim`).
    pub vim: crate::ui::input::vim::Vim,
    /// Input history.
    pub history: History,
    /// Cards of calls not finished yet.
    pub cards: Vec<ToolCard>,
    /// Show every call of the sub-agents (Ctrl+O).
    pub show_nested: bool,
    /// Streamed model text not yet committed to the scrollback.
    pub stream: String,
    /// True once the current model message put lines in the scrollback.
    pub message_started: bool,
    /// Subject of the latest thought.
    pub thought: Option<String>,
    /// The open confirmation.
    pub confirm: Option<ConfirmDialog>,
    /// An MCP server's open request for input.
    pub elicit: Option<crate::ui::view::elicit::ElicitForm>,
    /// The open `/settings` or `/rewind` dialog.
    pub dialog: Option<crate::ui::commands::dialog::Dialog>,
    /// The prompts of this run (`/rewind` offers them).
    pub prompts: crate::ui::commands::rewind::Prompts,
    /// The model's open questions (`ask_user`).
    pub ask_user: Option<crate::ui::view::ask_user::AskUserForm>,
    /// Confirmations waiting behind the open one.
    pub confirm_queue: VecDeque<ConfirmDialog>,
    /// Set while a request runs: since when, and what it is.
    pub busy: Option<(Instant, String)>,
    /// A model request waiting to be retried: until when, and why.
    pub retry: Option<RetryWait>,
    /// Lines waiting to be inserted above the live area.
    pub out: Vec<Line<'static>>,
    /// The last answer (for `/copy`).
    pub last_answer: String,
    /// A transient note in the footer.
    pub notice: Option<(String, Instant)>,
    /// Open suggestions.
    pub completion: Option<Completion>,
    /// Prompt tokens of the last request (context-window use).
    pub context_tokens: u64,
    /// True when `context_tokens` is an estimate (the server sent no usage).
    pub context_estimated: bool,
    /// Terminal width.
    pub width: u16,
    /// Terminal height.
    pub height: u16,
    /// Prompts typed while busy, sent in turn.
    pub queued: VecDeque<String>,
    /// The session's metrics, as last reported.
    pub stats: SessionStats,
    /// The model's latest todo list (`write_todos`).
    pub todos: Vec<TodoItem>,
    /// The model's context window in tokens, for the footer.
    pub context_window: u64,
}

impl UiState {
    /// A fresh state.
    pub fn new(
        model: String,
        workspace_label: String,
        mode: ApprovalMode,
        history: History,
    ) -> Self {
        UiState {
            model,
            mcp_status: None,
            background_running: 0,
            workspace_label,
            mode,
            input: Editor::default(),
            vim: Default::default(),
            history,
            cards: Vec::new(),
            show_nested: false,
            elicit: None,
            ask_user: None,
            dialog: None,
            prompts: Default::default(),
            stream: String::new(),
            message_started: false,
            thought: None,
            confirm: None,
            confirm_queue: VecDeque::new(),
            busy: None,
            retry: None,
            out: Vec::new(),
            last_answer: String::new(),
            notice: None,
            completion: None,
            context_tokens: 0,
            context_estimated: false,
            width: 80,
            height: 24,
            queued: VecDeque::new(),
            stats: SessionStats::default(),
            todos: Vec::new(),
            context_window: 1_048_576,
        }
    }

    /// Content width for the scrollback.
    pub fn content_width(&self) -> usize {
        usize::from(self.width).max(20)
    }

    /// Queues lines for the scrollback; a line wider than the screen wraps
    /// under its text (after its first span, a label, or its indentation),
    /// not at column 0.
    pub fn push_lines(&mut self, lines: impl IntoIterator<Item = Line<'static>>) {
        let w = self.content_width();
        for line in lines {
            if line.width() <= w {
                self.out.push(line);
                continue;
            }
            let (head, body): (Vec<Span<'static>>, Vec<Span<'static>>) = if line.spans.len() > 1 {
                (line.spans[..1].to_vec(), line.spans[1..].to_vec())
            } else {
                let text = line
                    .spans
                    .first()
                    .map(|s| s.content.to_string())
                    .unwrap_or_default();
                let style = line.spans.first().map(|s| s.style).unwrap_or_default();
                let indent = text.len() - text.trim_start().len();
                (
                    vec![Span::styled(text[..indent].to_string(), style)],
                    vec![Span::styled(text[indent..].to_string(), style)],
                )
            };
            let indent = head.iter().map(Span::width).sum::<usize>().min(w / 2);
            let rest = vec![Span::raw(" ".repeat(indent))];
            self.out.extend(wrap_prefixed(&body, w, &head, &rest));
        }
    }

    fn push_message(&mut self, icon: &str, text: &str, style: Style) {
        let w = self.content_width();
        self.out.push(Line::default());
        let first = vec![Span::styled(format!("{icon} "), style)];
        let rest = vec![Span::raw("  ")];
        for (i, l) in sanitize(text).lines().enumerate() {
            let p = if i == 0 { &first } else { &rest };
            self.out.extend(wrap_prefixed(
                &[Span::styled(l.to_string(), style)],
                w,
                p,
                &rest,
            ));
        }
    }

    /// An informational note.
    pub fn info(&mut self, text: &str) {
        self.push_message("ℹ", text, Style::new().fg(Color::DarkGray));
    }

    /// A warning.
    pub fn warn(&mut self, text: &str) {
        self.push_message("⚠", text, Style::new().fg(Color::Yellow));
    }

    /// An error.
    pub fn error(&mut self, text: &str) {
        self.push_message("✕", text, Style::new().fg(Color::Red));
    }

    /// Echoes the user's prompt.
    pub fn echo_prompt(&mut self, text: &str) {
        let w = self.content_width();
        let style = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
        self.out.push(Line::default());
        let first = vec![Span::styled("> ", style)];
        let rest = vec![Span::raw("  ")];
        for (i, l) in sanitize(text).lines().enumerate() {
            let p = if i == 0 { &first } else { &rest };
            self.out.extend(wrap_prefixed(
                &[Span::styled(l.to_string(), Style::new().fg(Color::Gray))],
                w,
                p,
                &rest,
            ));
        }
    }

    /// The model's text rendered as Markdown with the message gutter.
    pub fn message_lines(&self, text: &str, highlight: bool, first: bool) -> Vec<Line<'static>> {
        let w = self.content_width().saturating_sub(2);
        markdown::render(text, w, highlight)
            .into_iter()
            .enumerate()
            .map(|(i, mut l)| {
                let gutter = if i == 0 && first {
                    Span::styled("✦ ", Style::new().fg(Color::Magenta))
                } else {
                    Span::raw("  ")
                };
                l.spans.insert(0, gutter);
                l
            })
            .collect()
    }

    /// Moves the finished part of the streamed text (all of it when `all`)
    /// to the scrollback.
    pub fn commit_stream(&mut self, all: bool) {
        if !self.message_started {
            let trimmed = self.stream.trim_start_matches(['\n', ' ']).len();
            let skip = self.stream.len() - trimmed;
            self.stream.drain(..skip);
        }
        let cut = if all {
            self.stream.len()
        } else {
            markdown::stable_prefix_len(&self.stream)
        };
        if cut == 0 {
            return;
        }
        let chunk: String = self.stream.drain(..cut).collect();
        if chunk.trim().is_empty() {
            return;
        }
        let lines = self.message_lines(&chunk, true, !self.message_started);
        self.out.push(Line::default());
        self.out.extend(lines);
        self.message_started = true;
    }

    pub(super) fn card_mut(&mut self, call_id: &str) -> Option<&mut ToolCard> {
        self.cards.iter_mut().find(|c| c.call_id == call_id)
    }

    /// Shows or folds the sub-agents' calls (Ctrl+O).
    pub fn toggle_nested(&mut self) {
        self.show_nested = !self.show_nested;
        let show = self.show_nested;
        for card in &mut self.cards {
            card.show_nested = show;
        }
    }

    pub(super) fn push_card(&mut self, card: &ToolCard, now: Instant) {
        let w = self.content_width();
        self.out.push(Line::default());
        let lines = card.lines(w, now, Some(CARD_BODY_LINES));
        self.out.extend(lines);
    }

    pub(super) fn open_confirm(&mut self, mut dialog: ConfirmDialog) {
        // A diff taller than half the screen is printed in full above.
        let w = self.content_width();
        let heading = match &dialog.details {
            ConfirmationDetails::Edit { file_name, .. } => {
                Some(format!("Proposed change to {file_name}:"))
            }
            ConfirmationDetails::ExitPlanMode { plan_path, .. } => {
                Some(format!("Plan {}:", plan_path.display()))
            }
            _ => None,
        };
        if let Some(heading) = heading
            && dialog.body(w).len() > usize::from(self.height) / 2
        {
            let body = dialog.body(w);
            self.out.push(Line::default());
            self.out.push(Line::from(Span::styled(
                heading,
                Style::new().add_modifier(Modifier::BOLD),
            )));
            self.out.extend(body);
            dialog.printed_above = true;
        }
        if self.confirm.is_some() {
            self.confirm_queue.push_back(dialog);
        } else {
            self.confirm = Some(dialog);
        }
    }

    /// Closes the dialog for `call_id` (answered or finished elsewhere).
    pub fn drop_confirm(&mut self, call_id: &str) {
        self.confirm_queue.retain(|d| d.call_id != call_id);
        if self.confirm.as_ref().is_some_and(|d| d.call_id == call_id) {
            self.confirm = self.confirm_queue.pop_front();
        }
    }

    /// Starts a request.
    pub fn start_busy(&mut self, label: &str, now: Instant) {
        self.busy = Some((now, label.to_string()));
        self.message_started = false;
        self.thought = None;
    }

    /// Ends a request: flushes the stream, ends the cards left over.
    pub fn end_busy(&mut self, now: Instant) {
        self.commit_stream(true);
        self.message_started = false;
        for mut card in std::mem::take(&mut self.cards) {
            if !card.finished() {
                card.status = CardStatus::Cancelled;
            }
            self.push_card(&card, now);
        }
        self.confirm = None;
        self.confirm_queue.clear();
        self.busy = None;
        self.retry = None;
        self.thought = None;
    }

    /// Cycles the approval mode as Gemini CLI 0.61 does (Shift+Tab):
    /// default, auto_edit, plan, default; yolo (Ctrl+Y) goes to auto_edit.
    pub fn next_mode(&self) -> ApprovalMode {
        match self.mode {
            ApprovalMode::Default | ApprovalMode::Yolo => ApprovalMode::AutoEdit,
            ApprovalMode::AutoEdit => ApprovalMode::Plan,
            ApprovalMode::Plan => ApprovalMode::Default,
        }
    }

    /// True while something animates (spinner, elapsed time); never in
    /// screen reader mode.
    pub fn animating(&self) -> bool {
        self.busy.is_some() && !crate::ui::view::cards::screen_reader()
    }
}

/// A model request waiting for its next attempt (shown as a countdown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryWait {
    /// When the next attempt starts.
    pub until: Instant,
    /// Its number (1-based).
    pub next_attempt: u32,
    /// Attempts in total.
    pub max_attempts: u32,
    /// Why the last attempt failed.
    pub reason: String,
}

impl RetryWait {
    /// `Retrying in 3s (attempt 2 of 5): <reason>` at `now`.
    pub fn status(&self, now: Instant) -> String {
        let left = self.until.saturating_duration_since(now);
        let secs = left.as_millis().div_ceil(1000);
        format!(
            "Retrying in {secs}s (attempt {} of {}): {}",
            self.next_attempt, self.max_attempts, self.reason
        )
    }
}

/// The subject of a thought: its first `**bold**` text, else its first line.
pub fn thought_subject(t: &str) -> String {
    if let Some(start) = t.find("**")
        && let Some(len) = t[start + 2..].find("**")
    {
        return sanitize(&t[start + 2..start + 2 + len]);
    }
    sanitize(t.trim().lines().next().unwrap_or(""))
}
