//! Tool-call cards: the call's name and description, its status (with a
//! spinner and the elapsed time while it runs) and what it displayed: text,
//! or a coloured unified diff for file changes.

use crate::ui::view::todos::todo_lines;
use crate::ui::view::wrap::{hard_wrap, sanitize, truncate, wrap_prefixed};
use gemini_rs_protocol::events::{ToolCallStatus, ToolDisplay};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::time::{Duration, Instant};

/// Where a call is.
#[derive(Debug, Clone, PartialEq)]
pub enum CardStatus {
    /// Requested, not started.
    Pending,
    /// Waiting for the user's answer.
    AwaitingApproval,
    /// Executing since the instant.
    Running(Instant),
    /// Succeeded.
    Done(Duration),
    /// Failed.
    Failed(Duration),
    /// Cancelled.
    Cancelled,
}

impl CardStatus {
    /// The state after a call in this state ended: the time shown is how
    /// long it ran (since `ToolRunning`), not the wait for approval before;
    /// `reported` for a call that never ran.
    pub fn ended(&self, status: ToolCallStatus, reported: Duration, now: Instant) -> CardStatus {
        let ran = match self {
            CardStatus::Running(start) => now.saturating_duration_since(*start),
            _ => reported,
        };
        match status {
            ToolCallStatus::Success => CardStatus::Done(ran),
            ToolCallStatus::Error => CardStatus::Failed(ran),
            ToolCallStatus::Cancelled => CardStatus::Cancelled,
        }
    }
}

/// One tool call as shown.
#[derive(Debug, Clone)]
pub struct ToolCard {
    /// Call id.
    pub call_id: String,
    /// Name as called.
    pub name: String,
    /// One-line description of the invocation.
    pub description: String,
    /// Status.
    pub status: CardStatus,
    /// What the tool displayed (after it finished).
    pub display: Option<ToolDisplay>,
    /// Live output while running (the last chunk).
    pub live_output: String,
    /// The error message, when it failed.
    pub error: Option<String>,
    /// The calls of the sub-agent this call runs.
    pub nested: Vec<NestedCall>,
    /// Show every nested call (Ctrl+O), not only the last ones.
    pub show_nested: bool,
}

/// A call a sub-agent made.
#[derive(Debug, Clone)]
pub struct NestedCall {
    /// Call id.
    pub call_id: String,
    /// Name as called.
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Status.
    pub status: CardStatus,
}

/// Nested calls shown while folded.
const FOLDED_NESTED: usize = 3;

/// Spinner frames.
pub const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// `--screen-reader`: no animation anywhere (set once, before the UI
/// draws).
static SCREEN_READER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turns screen reader mode on: spinners become a still `…` and the
/// screen is not redrawn just to animate.
pub fn set_screen_reader(on: bool) {
    SCREEN_READER.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// True in screen reader mode.
pub fn screen_reader() -> bool {
    SCREEN_READER.load(std::sync::atomic::Ordering::Relaxed)
}

/// The spinner frame for now (a still `…` for screen readers).
pub fn spinner_frame(now: Instant, epoch: Instant) -> &'static str {
    if screen_reader() {
        return "…";
    }
    let i = (now.duration_since(epoch).as_millis() / 100) as usize % SPINNER.len();
    SPINNER[i]
}

/// A one-line description of a call from its arguments.
pub fn describe(args: &Value) -> String {
    const KEYS: [&str; 15] = [
        "command",
        "file_path",
        "absolute_path",
        "dir_path",
        "path",
        "pattern",
        "url",
        "query",
        "prompt",
        "paths",
        "objective",
        "question",
        "plan_filename",
        "plan_path",
        "name",
    ];
    let Some(obj) = args.as_object() else {
        return String::new();
    };
    // ask_user: its questions. (A tool's arguments: an open shape.)
    if let Some(qs) = obj.get("questions").and_then(Value::as_array) {
        let asked: Vec<&str> = qs.iter().filter_map(|q| q["question"].as_str()).collect();
        return sanitize(&asked.join(", ").replace('\n', " "));
    }
    for k in KEYS {
        if let Some(v) = obj.get(k) {
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let first = s.lines().next().unwrap_or("").to_string();
            return sanitize(&first);
        }
    }
    // Anything else: `key: value` pairs, never raw JSON.
    let pairs: Vec<String> = obj
        .iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}: {}", s.lines().next().unwrap_or("")),
            Value::Array(a) => format!("{k}: {} items", a.len()),
            Value::Object(_) => format!("{k}: …"),
            other => format!("{k}: {other}"),
        })
        .collect();
    sanitize(&pairs.join(", "))
}

/// `text` with Markdown's `**bold**` shown bold (a tool's display text,
/// which Gemini CLI renders as Markdown: ask_user's `**User answered:**`).
fn bold_spans(text: &str) -> Vec<Span<'static>> {
    let pieces: Vec<&str> = text.split("**").collect();
    if pieces.len() < 3 || pieces.len().is_multiple_of(2) {
        return vec![Span::raw(text.to_string())];
    }
    pieces
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.is_empty())
        .map(|(i, p)| {
            if i % 2 == 1 {
                Span::styled(p.to_string(), Style::new().add_modifier(Modifier::BOLD))
            } else {
                Span::raw(p.to_string())
            }
        })
        .collect()
}

impl ToolCard {
    /// A pending card.
    pub fn new(call_id: String, name: String, args: &Value) -> Self {
        ToolCard {
            call_id,
            name,
            description: describe(args),
            status: CardStatus::Pending,
            display: None,
            live_output: String::new(),
            error: None,
            nested: Vec::new(),
            show_nested: false,
        }
    }

    /// The sub-agent's calls, folded to the last few (with a count of the
    /// others) unless unfolded.
    fn nested_lines(&self, width: usize, now: Instant) -> Vec<Line<'static>> {
        let border = Style::new().fg(Color::DarkGray);
        let shown = if self.show_nested {
            self.nested.len()
        } else {
            FOLDED_NESTED.min(self.nested.len())
        };
        let hidden = self.nested.len() - shown;
        let mut out = Vec::new();
        if hidden > 0 {
            out.push(Line::from(vec![
                Span::raw("   "),
                Span::styled(
                    format!("↳ {hidden} earlier call(s) of the agent (ctrl+o to show)"),
                    border,
                ),
            ]));
        }
        for call in &self.nested[hidden..] {
            let as_card = ToolCard {
                status: call.status.clone(),
                ..ToolCard::new(String::new(), String::new(), &Value::Null)
            };
            let room = width.saturating_sub(call.name.len() + 10);
            out.push(Line::from(vec![
                Span::styled("   ↳ ", border),
                as_card.icon(now),
                Span::raw(" "),
                Span::styled(call.name.clone(), Style::new().add_modifier(Modifier::BOLD)),
                Span::raw(" "),
                Span::styled(truncate(&call.description, room), border),
            ]));
        }
        out
    }

    /// True once the call ended.
    pub fn finished(&self) -> bool {
        match self.status {
            CardStatus::Done(_) | CardStatus::Failed(_) | CardStatus::Cancelled => true,
            CardStatus::Pending | CardStatus::AwaitingApproval | CardStatus::Running(_) => false,
        }
    }

    fn icon(&self, now: Instant) -> Span<'static> {
        match &self.status {
            CardStatus::Pending => Span::styled("o", Style::new().fg(Color::DarkGray)),
            CardStatus::AwaitingApproval => Span::styled(
                "?",
                Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
            ),
            CardStatus::Running(start) => {
                Span::styled(spinner_frame(now, *start), Style::new().fg(Color::Cyan))
            }
            CardStatus::Done(_) => Span::styled("✓", Style::new().fg(Color::Green)),
            CardStatus::Failed(_) => Span::styled("x", Style::new().fg(Color::Red)),
            CardStatus::Cancelled => Span::styled("-", Style::new().fg(Color::Yellow)),
        }
    }

    fn status_text(&self, now: Instant) -> String {
        match &self.status {
            CardStatus::Pending => "pending".to_string(),
            CardStatus::AwaitingApproval => "awaiting approval".to_string(),
            CardStatus::Running(start) => {
                format!(
                    "running {:.0}s",
                    now.duration_since(*start).as_secs_f64().floor()
                )
            }
            CardStatus::Done(d) => format!("done {}", fmt_duration(*d)),
            CardStatus::Failed(d) => format!("failed {}", fmt_duration(*d)),
            CardStatus::Cancelled => "cancelled".to_string(),
        }
    }

    /// The card's lines at `width`; `max_body` limits the body (None: all).
    pub fn lines(&self, width: usize, now: Instant, max_body: Option<usize>) -> Vec<Line<'static>> {
        let width = width.max(20);
        let border = Style::new().fg(Color::DarkGray);
        let status = self.status_text(now);
        let head_room = width.saturating_sub(self.name.len() + status.len() + 8);
        let desc = truncate(&self.description, head_room);
        let mut out = vec![Line::from(vec![
            Span::raw(" "),
            self.icon(now),
            Span::raw(" "),
            Span::styled(self.name.clone(), Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(" "),
            Span::raw(desc),
            Span::styled(format!("  {status}"), border),
        ])];
        out.extend(self.nested_lines(width, now));
        let mut body: Vec<Line<'static>> = Vec::new();
        let first = [Span::styled("   ⎿ ", border)];
        let rest = vec![Span::raw("     ")];
        if let Some(err) = &self.error {
            for l in sanitize(err).lines() {
                body.extend(wrap_prefixed(
                    &[Span::styled(l.to_string(), Style::new().fg(Color::Red))],
                    width,
                    &rest,
                    &rest,
                ));
            }
        } else {
            match &self.display {
                Some(ToolDisplay::FileDiff(d)) => {
                    body.extend(diff_lines(&d.file_diff, width.saturating_sub(5), &rest));
                }
                Some(ToolDisplay::Todos(todos)) => {
                    for line in todo_lines(todos, None) {
                        body.extend(wrap_prefixed(&line, width, &rest, &rest));
                    }
                }
                Some(ToolDisplay::Text(t)) => {
                    for l in sanitize(t).lines() {
                        body.extend(wrap_prefixed(&bold_spans(l), width, &rest, &rest));
                    }
                }
                None => {
                    let live = sanitize(&self.live_output);
                    for l in live
                        .lines()
                        .rev()
                        .take(5)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                    {
                        body.extend(wrap_prefixed(
                            &[Span::styled(l.to_string(), border)],
                            width,
                            &rest,
                            &rest,
                        ));
                    }
                }
            }
        }
        if let Some(max) = max_body
            && body.len() > max
        {
            let hidden = body.len() - max;
            body.truncate(max);
            body.push(Line::from(vec![
                Span::raw("     "),
                Span::styled(format!("… {hidden} more lines"), border),
            ]));
        }
        for (i, mut l) in body.into_iter().enumerate() {
            if i == 0 {
                // Replace the indentation of the first body line by the elbow.
                if let Some(s) = l.spans.first_mut() {
                    *s = first[0].clone();
                }
            }
            out.push(l);
        }
        out
    }
}

/// Formats a duration as Gemini CLI does (`120ms`, `1.2s`, `1m 5s`).
pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms}ms")
    } else if ms < 60_000 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{}m {}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

/// A unified diff, coloured: additions green, removals red, hunks cyan.
/// The `---`/`+++` and `Index:`/`===` headers are left out.
pub fn diff_lines(diff: &str, width: usize, prefix: &[Span<'static>]) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for l in sanitize(diff).lines() {
        if l.starts_with("---")
            || l.starts_with("+++")
            || l.starts_with("Index:")
            || l.starts_with("===")
        {
            continue;
        }
        let style = if l.starts_with('+') {
            Style::new().fg(Color::Green)
        } else if l.starts_with('-') {
            Style::new().fg(Color::Red)
        } else if l.starts_with("@@") {
            Style::new().fg(Color::Cyan)
        } else if l.starts_with('\\') {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new()
        };
        for piece in hard_wrap(&[Span::styled(l.to_string(), style)], width.max(1)) {
            let mut spans = prefix.to_vec();
            spans.extend(piece);
            out.push(Line::from(spans));
        }
    }
    out
}
