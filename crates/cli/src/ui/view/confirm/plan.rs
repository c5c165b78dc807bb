//! The plan approval dialog (`exit_plan_mode`): the plan as Markdown and
//! three answers, as Gemini CLI 0.61 offers them: approve and let edits
//! run (auto_edit), approve and confirm each edit (default), or keep
//! planning with typed feedback; Ctrl+G edits the plan file in the
//! external editor. Esc cancels the call.

use super::ConfirmDialog;
use crate::ui::view::markdown;
use gemini_rs_protocol::events::ConfirmationOutcome;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

/// The label of the answer that opens the feedback field.
const KEEP_PLANNING: &str = "No, keep planning (type feedback)";

/// The dialog's answers.
pub fn options() -> Vec<(String, ConfirmationOutcome)> {
    vec![
        (
            "Yes, automatically accept edits".into(),
            ConfirmationOutcome::ProceedAlways,
        ),
        (
            "Yes, manually accept edits".into(),
            ConfirmationOutcome::ProceedOnce,
        ),
        (KEEP_PLANNING.into(), ConfirmationOutcome::Cancel),
    ]
}

/// The plan, rendered as Markdown and indented.
pub fn body(plan: &str, width: usize) -> Vec<Line<'static>> {
    markdown::render(plan, width.saturating_sub(2).max(10), true)
        .into_iter()
        .map(|line| {
            let mut spans = vec![Span::raw("  ")];
            spans.extend(line.spans);
            Line::from(spans)
        })
        .collect()
}

impl ConfirmDialog {
    /// A key while the plan dialog is open: choosing "keep planning"
    /// opens the feedback field; Enter there sends the feedback (as
    /// `Cancel` with [`ConfirmDialog::feedback`] set).
    pub fn plan_key(&mut self, key: KeyEvent) -> Option<ConfirmationOutcome> {
        if let Some(text) = self.feedback.as_mut() {
            match key.code {
                KeyCode::Esc => self.feedback = None,
                KeyCode::Enter if !text.trim().is_empty() => {
                    return Some(ConfirmationOutcome::Cancel);
                }
                KeyCode::Backspace => {
                    text.pop();
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => text.push(c),
                _ => {}
            }
            return None;
        }
        if key.code == KeyCode::Char('g') && key.modifiers.contains(KeyModifiers::CONTROL) {
            // Ctrl+G: edit the plan file in the external editor.
            return Some(ConfirmationOutcome::ModifyWithEditor);
        }
        let chosen = match key.code {
            KeyCode::Enter => self.options.get(self.selected).map(|o| o.0.clone()),
            KeyCode::Char(c) if c.is_ascii_digit() => {
                let i = (c as usize).wrapping_sub('1' as usize);
                self.options.get(i).map(|o| o.0.clone())
            }
            _ => None,
        };
        if chosen.as_deref() == Some(KEEP_PLANNING) {
            self.feedback = Some(String::new());
            return None;
        }
        self.choose(key)
    }

    /// The feedback field, while it is open.
    pub fn feedback_lines(&self) -> Vec<Line<'static>> {
        let Some(text) = &self.feedback else {
            return Vec::new();
        };
        vec![
            Line::from(vec![
                Span::styled("  Feedback: ", Style::new().fg(Color::Yellow)),
                Span::raw(format!("{text}▏")),
            ]),
            Line::from(Span::styled(
                "  Enter to send it to the model, Esc to choose again",
                Style::new().fg(Color::DarkGray),
            )),
        ]
    }
}
