//! Drawing the live area (everything below the scrollback): the streaming
//! answer, running tool cards, the confirmation dialog, the status line,
//! the editor, suggestions and the footer.

use crate::ui::state::UiState;
use crate::ui::view::cards::spinner_frame;
use crate::ui::view::todos::todo_panel;
use crate::ui::view::wrap::{str_width, truncate};
use gemini_rs_protocol::events::ApprovalMode;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::time::Instant;

/// Suggestions shown at once.
const SUGGESTIONS: usize = 6;
/// Editor lines shown at most.
const INPUT_LINES: usize = 10;

/// The live area's lines for a terminal `width` wide and at most
/// `max_height` tall, and the cursor position in them (None: hidden).
pub fn live_lines(
    s: &UiState,
    width: u16,
    max_height: u16,
    now: Instant,
) -> (Vec<Line<'static>>, Option<(u16, u16)>) {
    let w = usize::from(width).max(20);
    let max_h = usize::from(max_height).max(4);
    let dim = Style::new().fg(Color::DarkGray);

    // Bottom: status, editor, suggestions, footer.
    let mut bottom: Vec<Line<'static>> = Vec::new();
    let dialog_open =
        s.confirm.is_some() || s.elicit.is_some() || s.ask_user.is_some() || s.dialog.is_some();
    if !dialog_open {
        bottom.extend(busy_line(s, w, now));
    }
    let mut cursor = None;
    if !dialog_open {
        bottom.extend(todo_panel(&s.todos, w));
        let rule = Line::from(Span::styled("─".repeat(w), dim));
        bottom.push(rule.clone());
        // A leading `!` (shell mode) becomes the prompt itself.
        let prompt = "> ";
        let placeholder = if s.busy.is_some() {
            "  Type a message to queue it"
        } else {
            "  Type your message or @path/to/file"
        };
        let (mut lines, (cx, mut cy)) = s.input.render(w, prompt, placeholder);
        if lines.len() > INPUT_LINES {
            let first = usize::from(cy).saturating_sub(INPUT_LINES - 1);
            lines = lines.into_iter().skip(first).take(INPUT_LINES).collect();
            cy -= first as u16;
        }
        let top = bottom.len() as u16;
        bottom.extend(lines);
        cursor = Some((cx, top + cy));
        bottom.push(rule);
        if let Some(c) = &s.completion {
            let first = c.selected.saturating_sub(SUGGESTIONS - 1);
            for (i, item) in c.items.iter().enumerate().skip(first).take(SUGGESTIONS) {
                let sel = i == c.selected;
                let st = if sel {
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
                } else {
                    Style::new()
                };
                bottom.push(Line::from(vec![
                    Span::styled(format!("  {:<24}", item.value), st),
                    Span::styled(truncate(&item.detail, w.saturating_sub(28)), dim),
                ]));
            }
        }
    }
    bottom.push(footer(s, w));

    // Top: dialog first, then running cards, then the streaming tail.
    let mut avail = max_h.saturating_sub(bottom.len());
    let dialog = dialog_lines(s, w, avail);
    avail -= dialog.len();
    let mut cards: Vec<Line<'static>> = Vec::new();
    for c in &s.cards {
        cards.push(Line::default());
        cards.extend(c.lines(w, now, Some(5)));
    }
    if cards.len() > avail {
        cards.drain(..cards.len() - avail);
    }
    avail -= cards.len();
    let mut tail = Vec::new();
    if !s.stream.trim().is_empty() {
        let text = if s.message_started {
            s.stream.as_str()
        } else {
            s.stream.trim_start_matches(['\n', ' '])
        };
        tail.push(Line::default());
        tail.extend(s.message_lines(text, false, !s.message_started));
        if tail.len() > avail {
            tail.drain(..tail.len() - avail);
        }
    }
    let mut lines = tail;
    lines.extend(cards);
    lines.extend(dialog);
    let offset = lines.len() as u16;
    lines.extend(bottom);
    (lines, cursor.map(|(x, y)| (x, y + offset)))
}

/// The spinner line while the session works: the retry being waited for,
/// the model's thought subject, or what it does.
fn busy_line(s: &UiState, w: usize, now: Instant) -> Option<Line<'static>> {
    let (since, label) = s.busy.as_ref()?;
    let secs = now.duration_since(*since).as_secs();
    let what = match (&s.retry, &s.thought) {
        (Some(wait), _) => wait.status(now),
        (None, Some(t)) if !t.is_empty() => t.clone(),
        _ => format!("{label}…"),
    };
    Some(Line::from(vec![
        Span::styled(
            format!("{} ", spinner_frame(now, *since)),
            Style::new().fg(Color::Magenta),
        ),
        Span::styled(
            truncate(&what, w.saturating_sub(30)),
            Style::new().fg(Color::Magenta),
        ),
        Span::styled(
            format!(" (esc to cancel, {secs}s)"),
            Style::new().fg(Color::DarkGray),
        ),
    ]))
}

/// The open dialog (a question form, a panel dialog, an elicitation form
/// or a confirmation, in that precedence) after a blank line, its top cut
/// to fit `avail` lines.
fn dialog_lines(s: &UiState, w: usize, avail: usize) -> Vec<Line<'static>> {
    let mut dialog = if let Some(form) = &s.ask_user {
        form.lines(w)
    } else if let Some(open) = &s.dialog {
        open.lines(w)
    } else if let Some(form) = &s.elicit {
        form.lines(w)
    } else if let Some(d) = &s.confirm {
        let max_body = avail.saturating_sub(d.chrome_height() + 1).max(3);
        d.lines(w, max_body)
    } else {
        return Vec::new();
    };
    dialog.insert(0, Line::default());
    if dialog.len() > avail {
        dialog.drain(..dialog.len() - avail);
    }
    dialog
}

/// The footer: workspace, approval mode, model and context use.
pub fn footer(s: &UiState, w: usize) -> Line<'static> {
    let dim = Style::new().fg(Color::DarkGray);
    let (mode_text, mode_style) = match s.mode {
        ApprovalMode::Default => ("default", Style::new().fg(Color::Gray)),
        ApprovalMode::AutoEdit => ("auto_edit", Style::new().fg(Color::Yellow)),
        ApprovalMode::Yolo => (
            "YOLO",
            Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        ),
        ApprovalMode::Plan => ("plan", Style::new().fg(Color::Blue)),
    };
    let window = s.context_window.max(1);
    let left_pct = 100u64.saturating_sub(s.context_tokens * 100 / window);
    let mcp = match s.mcp_status {
        Some((ready, connecting, failed)) => {
            let mut text = format!(" · MCP {ready} ready");
            if connecting > 0 {
                text.push_str(&format!(", {connecting} connecting"));
            }
            if failed > 0 {
                text.push_str(&format!(", {failed} failed"));
            }
            text
        }
        None => String::new(),
    };
    let shells = match s.background_running {
        0 => String::new(),
        1 => " · 1 background process".to_string(),
        n => format!(" · {n} background processes"),
    };
    let mcp = format!("{mcp}{shells}");
    let cost = s
        .stats
        .total_cost_usd()
        .filter(|usd| *usd > 0.0)
        .map(|usd| format!(" · {}", super::commands::info::format_usd(usd)))
        .unwrap_or_default();
    let vim = s.vim.label().map(|l| format!("{l} ")).unwrap_or_default();
    let (mode, right) = if w >= 80 {
        (
            format!("{vim}mode: {mode_text} (shift+tab)"),
            if s.context_estimated {
                format!(
                    "{} (~{left_pct}% context left, estimated){cost}{mcp}",
                    s.model
                )
            } else {
                format!("{} ({left_pct}% context left){cost}{mcp}", s.model)
            },
        )
    } else {
        (format!("{vim}mode: {mode_text}"), s.model.clone())
    };
    if let Some((n, _)) = &s.notice {
        let room = w.saturating_sub(str_width(&right) + 2);
        let n = truncate(n, room);
        let gap = w.saturating_sub(str_width(&n) + str_width(&right));
        return Line::from(vec![
            Span::styled(n, Style::new().fg(Color::Yellow)),
            Span::raw(" ".repeat(gap.max(1))),
            Span::styled(right, dim),
        ]);
    }
    let left_room = w.saturating_sub(str_width(&mode) + str_width(&right) + 4);
    let left = truncate(&s.workspace_label, left_room);
    let left_style = Style::new().fg(Color::Cyan);
    let used = str_width(&left) + str_width(&mode) + str_width(&right);
    let gap = w.saturating_sub(used + 1);
    let g1 = gap / 2;
    let g2 = gap - g1;
    Line::from(vec![
        Span::styled(left, left_style),
        Span::raw(" ".repeat(g1.max(1))),
        Span::styled(mode, mode_style),
        Span::raw(" ".repeat(g2)),
        Span::styled(right, dim),
    ])
}
