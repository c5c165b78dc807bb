//! `/rewind`: the prompts of this run, newest last; pick one, then what to
//! undo: the conversation from that prompt on, the file edits since (from
//! the checkpoints, when `general.checkpointing.enabled`), or both. The
//! session does the work ([`Op::Rewind`]); the picked prompt comes back
//! into the input line, ready to edit and send again.

use crate::ui::view::wrap::{sanitize, truncate};
use gemini_rs_protocol::events::Op;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// What to undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Both,
    Conversation,
    Files,
    Nothing,
}

impl Choice {
    fn label(self) -> &'static str {
        match self {
            Choice::Both => "Rewind the conversation and revert the file changes",
            Choice::Conversation => "Rewind the conversation",
            Choice::Files => "Revert the file changes",
            Choice::Nothing => "Do nothing (esc)",
        }
    }
}

/// The prompts sent in this run, for `/rewind` to offer.
#[derive(Default)]
pub struct Prompts {
    list: Vec<String>,
    /// Set while a rewind of the conversation to `n` prompts runs: the
    /// history replacement it causes keeps those.
    keep_on_replace: Option<usize>,
}

impl Prompts {
    /// A prompt started.
    pub fn started(&mut self, text: &str) {
        self.list.push(text.to_string());
    }

    /// The conversation was replaced: by our rewind (the earlier prompts
    /// stay), or by `/clear`, `/chat resume`, `/restore` (none is known).
    pub fn replaced(&mut self) {
        match self.keep_on_replace.take() {
            Some(n) => self.list.truncate(n),
            None => self.list.clear(),
        }
    }

    /// True when no prompt was sent.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The open `/rewind` dialog.
pub struct RewindPanel {
    prompts: Vec<String>,
    cursor: usize,
    /// The options, once a prompt is picked.
    choices: Option<(Vec<Choice>, usize)>,
    checkpointing: bool,
}

/// What a key in the dialog led to.
pub enum RewindStep {
    /// Still open.
    Open,
    /// Closed without doing anything.
    Closed,
    /// Send this op; put `text` back in the input line when set.
    Rewind(Op, Option<String>),
}

impl RewindPanel {
    /// The dialog over `prompts` (the latest selected).
    pub fn new(prompts: &Prompts, checkpointing: bool) -> Self {
        RewindPanel {
            prompts: prompts.list.clone(),
            cursor: prompts.list.len().saturating_sub(1),
            choices: None,
            checkpointing,
        }
    }

    /// Handles a key.
    pub fn on_key(&mut self, key: KeyEvent, prompts: &mut Prompts) -> RewindStep {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code == KeyCode::Char('c') && ctrl {
            return RewindStep::Closed;
        }
        let n = self.prompts.len().max(1);
        let Some((choices, at)) = self.choices.as_mut() else {
            match key.code {
                KeyCode::Esc => return RewindStep::Closed,
                KeyCode::Up => self.cursor = (self.cursor + n - 1) % n,
                KeyCode::Down => self.cursor = (self.cursor + 1) % n,
                KeyCode::Enter if !self.prompts.is_empty() => {
                    let list = if self.checkpointing {
                        vec![
                            Choice::Both,
                            Choice::Conversation,
                            Choice::Files,
                            Choice::Nothing,
                        ]
                    } else {
                        vec![Choice::Conversation, Choice::Nothing]
                    };
                    self.choices = Some((list, 0));
                }
                _ => {}
            }
            return RewindStep::Open;
        };
        let m = choices.len();
        match key.code {
            KeyCode::Esc => self.choices = None,
            KeyCode::Up => *at = (*at + m - 1) % m,
            KeyCode::Down => *at = (*at + 1) % m,
            KeyCode::Enter => {
                let choice = choices[*at];
                let (conversation, files) = match choice {
                    Choice::Nothing => return RewindStep::Closed,
                    Choice::Both => (true, true),
                    Choice::Conversation => (true, false),
                    Choice::Files => (false, true),
                };
                let back = self.prompts.len() - self.cursor;
                let text = conversation.then(|| self.prompts[self.cursor].clone());
                if conversation {
                    prompts.keep_on_replace = Some(self.cursor);
                }
                let op = Op::Rewind {
                    back,
                    conversation,
                    files,
                };
                return RewindStep::Rewind(op, text);
            }
            _ => {}
        }
        RewindStep::Open
    }

    /// The dialog's lines at `width`.
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let accent = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
        let dim = Style::new().fg(Color::DarkGray);
        let mut out = Vec::new();
        if let Some((choices, at)) = &self.choices {
            out.push(Line::from(Span::styled("Confirm Rewind", bold)));
            let picked = one_line(&self.prompts[self.cursor]);
            out.push(Line::from(Span::styled(
                truncate(&format!("To before: {picked}"), width),
                dim,
            )));
            if self.checkpointing {
                out.push(Line::from(Span::styled(
                    truncate(
                        "Note: files changed by hand or by shell commands are not reverted.",
                        width,
                    ),
                    Style::new().fg(Color::Yellow),
                )));
            } else {
                out.push(Line::from(Span::styled(
                    truncate(
                        "No code changes to revert (general.checkpointing.enabled is off).",
                        width,
                    ),
                    dim,
                )));
            }
            out.push(Line::default());
            for (i, c) in choices.iter().enumerate() {
                let here = i == *at;
                let mark = if here { "› " } else { "  " };
                let style = if here { accent } else { Style::new() };
                out.push(Line::from(vec![
                    Span::styled(format!("{mark}{}. ", i + 1), accent),
                    Span::styled(c.label(), style),
                ]));
            }
            out.push(Line::default());
            out.push(Line::from(Span::styled(
                "Enter to confirm · ↑/↓ to move · Esc to go back",
                dim,
            )));
            return out;
        }
        out.push(Line::from(Span::styled("Rewind", bold)));
        out.push(Line::from(Span::styled(
            "Go back to before one of your prompts:",
            dim,
        )));
        out.push(Line::default());
        for (i, p) in self.prompts.iter().enumerate() {
            let here = i == self.cursor;
            let mark = if here { "› " } else { "  " };
            let style = if here { accent } else { Style::new() };
            out.push(Line::from(vec![
                Span::styled(mark, accent),
                Span::styled(truncate(&one_line(p), width.saturating_sub(2)), style),
            ]));
        }
        out.push(Line::default());
        out.push(Line::from(Span::styled(
            "Enter to choose · ↑/↓ to move · Esc to close",
            dim,
        )));
        out
    }
}

/// A prompt on one line.
fn one_line(text: &str) -> String {
    sanitize(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_picked_prompt_counts_from_the_latest() {
        let mut prompts = Prompts::default();
        for p in ["one", "two", "three"] {
            prompts.started(p);
        }
        let mut panel = RewindPanel::new(&prompts, true);
        panel.on_key(key(KeyCode::Up), &mut prompts);
        panel.on_key(key(KeyCode::Enter), &mut prompts);
        match panel.on_key(key(KeyCode::Enter), &mut prompts) {
            RewindStep::Rewind(op, text) => {
                assert_eq!(
                    op,
                    Op::Rewind {
                        back: 2,
                        conversation: true,
                        files: true
                    }
                );
                assert_eq!(text.as_deref(), Some("two"));
            }
            _ => panic!("no rewind"),
        }
        prompts.replaced();
        assert_eq!(prompts.list, vec!["one".to_string()]);
        prompts.replaced();
        assert!(prompts.is_empty());
    }

    #[test]
    fn without_checkpoints_only_the_conversation_is_offered() {
        let mut prompts = Prompts::default();
        prompts.started("only");
        let mut panel = RewindPanel::new(&prompts, false);
        panel.on_key(key(KeyCode::Enter), &mut prompts);
        let shown: Vec<String> = panel.lines(80).iter().map(ToString::to_string).collect();
        assert!(
            !shown.iter().any(|l| l.contains("Revert the file")),
            "{shown:?}"
        );
        panel.on_key(key(KeyCode::Down), &mut prompts);
        assert!(matches!(
            panel.on_key(key(KeyCode::Enter), &mut prompts),
            RewindStep::Closed
        ));
    }
}
