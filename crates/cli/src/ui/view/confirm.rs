//! The confirmation dialog: what the call will do (a diff, a command, an
//! MCP tool, URLs) and the choices, "allow once" highlighted first.

use crate::ui::view::cards::diff_lines;
use crate::ui::view::wrap::{sanitize, wrap_prefixed};
use gemini_rs_protocol::events::ConfirmationDetails;
use gemini_rs_protocol::events::ConfirmationOutcome;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

pub mod plan;

/// A pending question.
#[derive(Debug, Clone)]
pub struct ConfirmDialog {
    /// The call answered.
    pub call_id: String,
    /// The tool name.
    pub name: String,
    /// What to show.
    pub details: ConfirmationDetails,
    /// The choices.
    pub options: Vec<(String, ConfirmationOutcome)>,
    /// The highlighted choice.
    pub selected: usize,
    /// True when the full body was printed above the dialog.
    pub printed_above: bool,
    /// The plan dialog's feedback field, while it is open.
    pub feedback: Option<String>,
}

impl ConfirmDialog {
    /// A dialog with "allow once" highlighted.
    pub fn new(call_id: String, name: String, details: ConfirmationDetails) -> Self {
        use ConfirmationOutcome as O;
        let options: Vec<(String, O)> = match &details {
            ConfirmationDetails::Edit { .. } => {
                let mut o: Vec<(String, O)> = vec![
                    ("Yes, allow once".into(), O::ProceedOnce),
                    (
                        "Yes, allow always (auto-accept edits)".into(),
                        O::ProceedAlways,
                    ),
                ];
                if details.modifiable().is_some() {
                    o.push(("Modify with external editor".into(), O::ModifyWithEditor));
                }
                o.push(("No, suggest changes (esc)".into(), O::Cancel));
                o
            }
            ConfirmationDetails::Exec { root_commands, .. } => vec![
                ("Yes, allow once".into(), O::ProceedOnce),
                (
                    format!("Yes, allow always: {}", root_commands.join(", ")),
                    O::ProceedAlways,
                ),
                ("No, suggest changes (esc)".into(), O::Cancel),
            ],
            ConfirmationDetails::Mcp {
                server_name,
                tool_name,
                ..
            } => vec![
                ("Yes, allow once".into(), O::ProceedOnce),
                (
                    format!("Yes, always allow tool \"{tool_name}\""),
                    O::ProceedAlwaysTool,
                ),
                (
                    format!("Yes, always allow all tools from server \"{server_name}\""),
                    O::ProceedAlwaysServer,
                ),
                ("No, suggest changes (esc)".into(), O::Cancel),
            ],
            ConfirmationDetails::Info { .. } => vec![
                ("Yes, allow once".into(), O::ProceedOnce),
                ("Yes, allow always".into(), O::ProceedAlways),
                ("No, suggest changes (esc)".into(), O::Cancel),
            ],
            ConfirmationDetails::ExitPlanMode { .. } => plan::options(),
        };
        ConfirmDialog {
            call_id,
            name,
            details,
            options,
            selected: 0,
            printed_above: false,
            feedback: None,
        }
    }

    /// Handles a key; returns the answer when the dialog is done.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<ConfirmationOutcome> {
        if let ConfirmationDetails::ExitPlanMode { .. } = self.details {
            return self.plan_key(key);
        }
        self.choose(key)
    }

    /// Moves the highlight or picks an answer.
    pub(super) fn choose(&mut self, key: KeyEvent) -> Option<ConfirmationOutcome> {
        let n = self.options.len();
        match key.code {
            KeyCode::Esc => Some(ConfirmationOutcome::Cancel),
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                Some(ConfirmationOutcome::Cancel)
            }
            KeyCode::Enter => self.options.get(self.selected).map(|o| o.1),
            KeyCode::Up | KeyCode::Char('k') | KeyCode::BackTab => {
                self.selected = (self.selected + n - 1) % n.max(1);
                None
            }
            KeyCode::Down | KeyCode::Char('j') | KeyCode::Tab => {
                self.selected = (self.selected + 1) % n.max(1);
                None
            }
            KeyCode::Char(c) if c.is_ascii_digit() => {
                let i = (c as usize).wrapping_sub('1' as usize);
                self.options.get(i).map(|o| o.1)
            }
            _ => None,
        }
    }

    /// The title.
    pub fn title(&self) -> &str {
        match &self.details {
            ConfirmationDetails::Edit { title, .. }
            | ConfirmationDetails::Exec { title, .. }
            | ConfirmationDetails::Mcp { title, .. }
            | ConfirmationDetails::Info { title, .. }
            | ConfirmationDetails::ExitPlanMode { title, .. } => title,
        }
    }

    /// The body (what will happen), before the question.
    pub fn body(&self, width: usize) -> Vec<Line<'static>> {
        let pad = vec![Span::raw("  ")];
        let mut out = Vec::new();
        match &self.details {
            ConfirmationDetails::Edit { file_diff, .. } => {
                out.extend(diff_lines(file_diff, width.saturating_sub(2), &pad));
            }
            ConfirmationDetails::Exec {
                command,
                root_commands,
                ..
            } => {
                for l in sanitize(command).lines() {
                    out.extend(wrap_prefixed(
                        &[Span::styled(l.to_string(), Style::new().fg(Color::Yellow))],
                        width,
                        &pad,
                        &pad,
                    ));
                }
                if !root_commands.is_empty() {
                    out.push(Line::from(vec![
                        Span::raw("  "),
                        Span::styled(
                            format!("root commands: {}", root_commands.join(", ")),
                            Style::new().fg(Color::DarkGray),
                        ),
                    ]));
                }
            }
            ConfirmationDetails::Mcp {
                server_name,
                tool_name,
                tool_display_name,
                ..
            } => {
                out.push(Line::from(format!("  MCP server: {server_name}")));
                out.push(Line::from(format!(
                    "  Tool: {tool_name} ({tool_display_name})"
                )));
            }
            ConfirmationDetails::Info { prompt, urls, .. } => {
                for l in sanitize(prompt).lines() {
                    out.extend(wrap_prefixed(
                        &[Span::raw(l.to_string())],
                        width,
                        &pad,
                        &pad,
                    ));
                }
                if !urls.is_empty() {
                    out.push(Line::from("  URLs to fetch:"));
                    for u in urls {
                        out.push(Line::from(Span::styled(
                            format!("   - {}", sanitize(u)),
                            Style::new().fg(Color::Blue),
                        )));
                    }
                }
            }
            ConfirmationDetails::ExitPlanMode { plan, .. } => out.extend(plan::body(plan, width)),
        }
        out
    }

    /// The question.
    pub fn question(&self) -> &'static str {
        match &self.details {
            ConfirmationDetails::Edit { .. } => "Apply this change?",
            ConfirmationDetails::Exec { .. } => "Allow execution of this command?",
            ConfirmationDetails::Mcp { .. } => "Allow execution of this MCP tool?",
            ConfirmationDetails::Info { .. } => "Do you want to proceed?",
            ConfirmationDetails::ExitPlanMode { .. } => {
                "Start implementing this plan? (Ctrl+G edits it)"
            }
        }
    }

    /// The whole dialog at `width`, the body cut to `max_body` lines (a note
    /// says how many were left out).
    pub fn lines(&self, width: usize, max_body: usize) -> Vec<Line<'static>> {
        let accent = Style::new().fg(Color::Yellow);
        let mut out = vec![Line::from(vec![
            Span::styled("? ", accent.add_modifier(Modifier::BOLD)),
            Span::styled(
                sanitize(self.title()),
                Style::new().add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!("  ({})", self.name),
                Style::new().fg(Color::DarkGray),
            ),
        ])];
        let mut body = self.body(width);
        if body.len() > max_body {
            let hidden = body.len() - max_body.saturating_sub(1);
            body.truncate(max_body.saturating_sub(1));
            let note = if self.printed_above {
                " (shown in full above)"
            } else {
                ""
            };
            body.push(Line::from(Span::styled(
                format!("  … {hidden} more lines{note}"),
                Style::new().fg(Color::DarkGray),
            )));
        }
        out.extend(body);
        out.push(Line::from(Span::raw(self.question())));
        for (i, (label, _)) in self.options.iter().enumerate() {
            let sel = i == self.selected;
            let style = if sel {
                Style::new().fg(Color::Green).add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            out.push(Line::from(vec![
                Span::styled(if sel { "● " } else { "  " }, style),
                Span::styled(format!("{}. {label}", i + 1), style),
            ]));
        }
        out.extend(self.feedback_lines());
        out
    }

    /// Lines of the dialog besides the body.
    pub fn chrome_height(&self) -> usize {
        2 + self.options.len() + self.feedback_lines().len()
    }
}
