//! `/rewind`: the prompts of this run, newest last, each with the files
//! its calls edited; pick one, then what to undo: the conversation from
//! that prompt on, the file edits since (from the session's record of each
//! edit, as Gemini CLI 0.61 offers them), or both. The session does the
//! work ([`Op::Rewind`]); the picked prompt comes back into the input line,
//! ready to edit and send again.

use crate::ui::view::wrap::{sanitize, truncate};
use gemini_rs_protocol::events::{FileDiff, Op};
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
            Choice::Both => "Rewind conversation and revert code changes",
            Choice::Conversation => "Rewind conversation",
            Choice::Files => "Revert code changes",
            Choice::Nothing => "Do nothing (esc)",
        }
    }
}

/// One file edit of a prompt: the file's name and the lines the edit
/// added and removed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edit {
    file: String,
    added: usize,
    removed: usize,
}

impl Edit {
    /// The edit a finished call's diff shows.
    fn of(diff: &FileDiff) -> Self {
        let changed = |sign: char, header: &str| {
            diff.file_diff
                .lines()
                .filter(|l| l.starts_with(sign) && !l.starts_with(header))
                .count()
        };
        Edit {
            file: diff.file_name.clone(),
            added: changed('+', "+++"),
            removed: changed('-', "---"),
        }
    }
}

/// What edits add up to: the files and the lines added and removed.
#[derive(Debug, Default, PartialEq, Eq)]
struct Impact {
    files: Vec<String>,
    added: usize,
    removed: usize,
}

impl Impact {
    fn of<'a>(edits: impl IntoIterator<Item = &'a Edit>) -> Self {
        let mut out = Impact::default();
        for e in edits {
            if !out.files.contains(&e.file) {
                out.files.push(e.file.clone());
            }
            out.added += e.added;
            out.removed += e.removed;
        }
        out
    }
}

/// The prompts sent in this run, for `/rewind` to offer.
#[derive(Default)]
pub struct Prompts {
    list: Vec<String>,
    /// The file edits of each prompt's calls.
    edits: Vec<Vec<Edit>>,
    /// Set while a rewind of the conversation to `n` prompts runs: the
    /// history replacement it causes keeps those.
    keep_on_replace: Option<usize>,
}

impl Prompts {
    /// A prompt started.
    pub fn started(&mut self, text: &str) {
        self.list.push(text.to_string());
        self.edits.push(Vec::new());
    }

    /// A call of the latest prompt edited a file.
    pub fn edited(&mut self, diff: &FileDiff) {
        if let Some(last) = self.edits.last_mut() {
            last.push(Edit::of(diff));
        }
    }

    /// The conversation was replaced: by our rewind (the earlier prompts
    /// stay), or by `/clear`, `/chat resume`, `/restore` (none is known).
    pub fn replaced(&mut self) {
        let keep = self.keep_on_replace.take().unwrap_or(0);
        self.list.truncate(keep);
        self.edits.truncate(keep);
    }

    /// True when no prompt was sent.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// The open `/rewind` dialog.
pub struct RewindPanel {
    prompts: Vec<String>,
    edits: Vec<Vec<Edit>>,
    cursor: usize,
    /// The options, once a prompt is picked.
    choices: Option<(Vec<Choice>, usize)>,
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
    pub fn new(prompts: &Prompts) -> Self {
        RewindPanel {
            prompts: prompts.list.clone(),
            edits: prompts.edits.clone(),
            cursor: prompts.list.len().saturating_sub(1),
            choices: None,
        }
    }

    /// The edits since the picked prompt.
    fn impact(&self) -> Impact {
        Impact::of(self.edits.iter().skip(self.cursor).flatten())
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
                    let list = if !self.impact().files.is_empty() {
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
        match &self.choices {
            Some((choices, at)) => self.confirm_lines(choices, *at, width),
            None => self.list_lines(width),
        }
    }

    /// The confirmation: what the edits since the picked prompt add up to
    /// (as Gemini CLI 0.61 shows it), and the choices.
    fn confirm_lines(&self, choices: &[Choice], at: usize, width: usize) -> Vec<Line<'static>> {
        let (bold, accent, dim) = styles();
        let mut out = vec![Line::from(Span::styled("Confirm Rewind", bold))];
        let picked = one_line(&self.prompts[self.cursor]);
        out.push(Line::from(Span::styled(
            truncate(&format!("To before: {picked}"), width),
            dim,
        )));
        out.push(Line::default());
        let impact = self.impact();
        match impact.files.as_slice() {
            [] => out.push(Line::from(Span::styled("No code changes to revert.", dim))),
            files => {
                let what = match files {
                    [one] => format!("File: {one}"),
                    many => format!("{} files affected", many.len()),
                };
                out.push(Line::from(truncate(&what, width)));
                out.push(Line::from(vec![
                    Span::styled(
                        format!("Lines added: {} ", impact.added),
                        Style::new().fg(Color::Green),
                    ),
                    Span::styled(
                        format!("Lines removed: {}", impact.removed),
                        Style::new().fg(Color::Red),
                    ),
                ]));
                out.push(Line::from(Span::styled(
                    truncate(
                        "ℹ Rewinding does not affect files edited manually or by the shell tool.",
                        width,
                    ),
                    Style::new().fg(Color::Yellow),
                )));
            }
        }
        out.push(Line::default());
        for (i, c) in choices.iter().enumerate() {
            let here = i == at;
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
        out
    }

    /// The prompts, each with the files its calls changed.
    fn list_lines(&self, width: usize) -> Vec<Line<'static>> {
        let (bold, accent, dim) = styles();
        let mut out = vec![
            Line::from(Span::styled("Rewind", bold)),
            Line::from(Span::styled("Go back to before one of your prompts:", dim)),
            Line::default(),
        ];
        for (i, p) in self.prompts.iter().enumerate() {
            let here = i == self.cursor;
            let mark = if here { "› " } else { "  " };
            let style = if here { accent } else { Style::new() };
            out.push(Line::from(vec![
                Span::styled(mark, accent),
                Span::styled(truncate(&one_line(p), width.saturating_sub(2)), style),
            ]));
            let own = Impact::of(self.edits.get(i).into_iter().flatten());
            let stats = match own.files.len() {
                0 => "No files have been changed".to_string(),
                n => {
                    let files = if n == 1 { "file" } else { "files" };
                    format!("{n} {files} changed +{} -{}", own.added, own.removed)
                }
            };
            out.push(Line::from(Span::styled(format!("  {stats}"), dim)));
        }
        out.push(Line::default());
        out.push(Line::from(Span::styled(
            "Enter to choose · ↑/↓ to move · Esc to close",
            dim,
        )));
        out
    }
}

/// Bold, accent and dim.
fn styles() -> (Style, Style, Style) {
    (
        Style::new().add_modifier(Modifier::BOLD),
        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
        Style::new().fg(Color::DarkGray),
    )
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
        prompts.edited(&FileDiff {
            file_diff: "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n-old\n+new\n+more\n".into(),
            file_name: "f".into(),
            file_path: "/p/f".into(),
            original_content: Some("old\n".into()),
            new_content: "new\nmore\n".into(),
        });
        let mut panel = RewindPanel::new(&prompts);
        let list: Vec<String> = panel.lines(80).iter().map(ToString::to_string).collect();
        assert!(
            list.contains(&"  1 file changed +2 -1".to_string()),
            "{list:?}"
        );
        panel.on_key(key(KeyCode::Up), &mut prompts);
        panel.on_key(key(KeyCode::Enter), &mut prompts);
        let shown: Vec<String> = panel.lines(80).iter().map(ToString::to_string).collect();
        assert!(shown.contains(&"File: f".to_string()), "{shown:?}");
        assert!(
            shown.contains(&"Lines added: 2 Lines removed: 1".to_string()),
            "{shown:?}"
        );
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
    fn without_edits_only_the_conversation_is_offered() {
        let mut prompts = Prompts::default();
        prompts.started("only");
        let mut panel = RewindPanel::new(&prompts);
        panel.on_key(key(KeyCode::Enter), &mut prompts);
        let shown: Vec<String> = panel.lines(80).iter().map(ToString::to_string).collect();
        assert!(
            !shown.iter().any(|l| l.contains("Revert code changes"))
                && shown.iter().any(|l| l == "No code changes to revert."),
            "{shown:?}"
        );
        panel.on_key(key(KeyCode::Down), &mut prompts);
        assert!(matches!(
            panel.on_key(key(KeyCode::Enter), &mut prompts),
            RewindStep::Closed
        ));
    }
}
