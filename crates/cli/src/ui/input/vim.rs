//! Vim editing of the prompt (`/vim`, kept as `general.vimMode`): an
//! insert mode that types as usual and a normal mode with vim's motions
//! and edits (`h j k l w b e 0 ^ $`, `x X D C dd cc dw cw yy p P u`,
//! `i a I A o O`). Esc leaves insert mode; Enter submits in either mode.

use crate::ui::input::line_editor::Editor;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The vim state of the prompt.
#[derive(Debug, Default, Clone)]
pub struct Vim {
    /// Vim mode is on.
    pub enabled: bool,
    /// In normal mode (else insert mode).
    pub normal: bool,
    /// An operator waiting for its motion (`d`, `c`, `y`).
    pending: Option<char>,
    /// The last text deleted or yanked.
    register: String,
    /// Earlier states, for `u`.
    undo: Vec<Editor>,
}

/// What the key handler does with a key after vim saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Vim handled it.
    Handled,
    /// Handle this key as usual (maybe a translated one: `j` is Down).
    Key(KeyEvent),
}

fn key(code: KeyCode) -> Outcome {
    Outcome::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// The class of a char for word motions: blank, word, punctuation.
fn class(c: char) -> u8 {
    if c.is_whitespace() {
        0
    } else if c.is_alphanumeric() || c == '_' {
        1
    } else {
        2
    }
}

/// The start of the next word after `pos` (vim's `w`).
fn next_word_start(text: &str, pos: usize) -> usize {
    let mut it = text[pos..].char_indices().map(|(i, c)| (pos + i, c));
    let Some((_, first)) = it.next() else {
        return text.len();
    };
    let start_class = class(first);
    let mut seen_blank = start_class == 0;
    for (i, c) in it {
        let k = class(c);
        if k == 0 {
            seen_blank = true;
        } else if seen_blank || k != start_class {
            return i;
        }
    }
    text.len()
}

/// The last char of the word at or after `pos + 1` (vim's `e`).
fn word_end(text: &str, pos: usize) -> usize {
    let chars: Vec<(usize, char)> = text[pos..]
        .char_indices()
        .map(|(i, c)| (pos + i, c))
        .collect();
    let mut i = 1;
    while i < chars.len() && class(chars[i].1) == 0 {
        i += 1;
    }
    if i >= chars.len() {
        return chars.last().map_or(pos, |(p, _)| *p);
    }
    let k = class(chars[i].1);
    while i + 1 < chars.len() && class(chars[i + 1].1) == k {
        i += 1;
    }
    chars[i].0
}

/// The start of the word before `pos` (vim's `b`).
fn prev_word_start(text: &str, pos: usize) -> usize {
    let chars: Vec<(usize, char)> = text[..pos].char_indices().collect();
    let mut i = chars.len();
    while i > 0 && class(chars[i - 1].1) == 0 {
        i -= 1;
    }
    if i == 0 {
        return 0;
    }
    let k = class(chars[i - 1].1);
    while i > 1 && class(chars[i - 2].1) == k {
        i -= 1;
    }
    chars[i - 1].0
}

/// The end offset of the char at `pos`.
fn char_end(text: &str, pos: usize) -> usize {
    text[pos..]
        .chars()
        .next()
        .map_or(text.len(), |c| pos + c.len_utf8())
}

impl Vim {
    /// Vim mode on (in insert mode) or off.
    pub fn set_enabled(&mut self, on: bool) {
        *self = Vim {
            enabled: on,
            ..Vim::default()
        };
    }

    /// The mode's label for the footer (`None` when vim mode is off).
    pub fn label(&self) -> Option<&'static str> {
        match (self.enabled, self.normal) {
            (false, _) => None,
            (true, true) => Some("[NORMAL]"),
            (true, false) => Some("[INSERT]"),
        }
    }

    /// Sees a key (with no Ctrl) before the usual handling; `busy` is true
    /// while a request runs (Esc in normal mode then cancels it).
    pub fn on_key(&mut self, ed: &mut Editor, k: KeyEvent, busy: bool) -> Outcome {
        if !self.enabled {
            return Outcome::Key(k);
        }
        if !self.normal {
            if k.code == KeyCode::Esc && !busy {
                self.normal = true;
                let (start, _) = ed.line_bounds();
                if ed.cursor() > start {
                    ed.left();
                }
                return Outcome::Handled;
            }
            return Outcome::Key(k);
        }
        let KeyCode::Char(c) = k.code else {
            self.pending = None;
            return Outcome::Key(k);
        };
        if let Some(op) = self.pending.take() {
            self.operator(ed, op, c);
            return Outcome::Handled;
        }
        self.normal_key(ed, c)
    }

    /// A normal-mode key with no operator pending.
    fn normal_key(&mut self, ed: &mut Editor, c: char) -> Outcome {
        let text = ed.text().to_string();
        let pos = ed.cursor();
        let (start, end) = ed.line_bounds();
        match c {
            'h' => return key(KeyCode::Left),
            'l' if char_end(&text, pos) < end => ed.right(),
            'j' => return key(KeyCode::Down),
            'k' => return key(KeyCode::Up),
            '0' => ed.set_cursor(start),
            '^' => ed.set_cursor(first_non_blank(&text, start, end)),
            '$' => ed.set_cursor(last_char(&text, start, end)),
            'w' => ed.set_cursor(next_word_start(&text, pos)),
            'b' => ed.set_cursor(prev_word_start(&text, pos)),
            'e' => ed.set_cursor(word_end(&text, pos)),
            'i' => self.normal = false,
            'a' => {
                if pos < end {
                    ed.right();
                }
                self.normal = false;
            }
            'I' => {
                ed.set_cursor(first_non_blank(&text, start, end));
                self.normal = false;
            }
            'A' => {
                ed.set_cursor(end);
                self.normal = false;
            }
            'o' | 'O' => {
                self.save(ed);
                ed.set_cursor(if c == 'o' { end } else { start });
                ed.insert('\n');
                if c == 'O' {
                    ed.left();
                }
                self.normal = false;
            }
            'x' if pos < end => self.delete(ed, pos, char_end(&text, pos)),
            'X' if pos > start => {
                let before = text[..pos].char_indices().next_back().map_or(0, |(i, _)| i);
                self.delete(ed, before, pos);
            }
            'D' | 'C' => {
                self.delete(ed, pos, end);
                self.normal = c == 'D';
                if self.normal {
                    self.clamp(ed);
                }
            }
            'p' | 'P' if !self.register.is_empty() => {
                self.save(ed);
                if c == 'p' && pos < end {
                    ed.right();
                }
                let reg = self.register.clone();
                ed.insert_str(&reg);
                ed.left();
            }
            'u' => {
                if let Some(before) = self.undo.pop() {
                    *ed = before;
                }
            }
            'd' | 'c' | 'y' => self.pending = Some(c),
            _ => {}
        }
        Outcome::Handled
    }

    /// Runs operator `op` (`d`, `c`, `y`) with motion `motion`.
    fn operator(&mut self, ed: &mut Editor, op: char, motion: char) {
        let text = ed.text().to_string();
        let pos = ed.cursor();
        let (start, end) = ed.line_bounds();
        let range = match motion {
            m if m == op => {
                // dd, cc, yy: the whole line (dd takes its newline too).
                let end_nl = if op == 'd' && end < text.len() {
                    end + 1
                } else {
                    end
                };
                let start_nl = if op == 'd' && end == text.len() && start > 0 {
                    start - 1
                } else {
                    start
                };
                (start_nl, end_nl)
            }
            'w' if op == 'c' => (pos, char_end(&text, word_end(&text, pos)).min(end)),
            'w' => (pos, next_word_start(&text, pos).min(end.max(pos))),
            'e' => (pos, char_end(&text, word_end(&text, pos))),
            'b' => (prev_word_start(&text, pos), pos),
            '$' => (pos, end),
            '0' => (start, pos),
            _ => return,
        };
        if op == 'y' {
            self.register = text[range.0..range.1].to_string();
            return;
        }
        self.delete(ed, range.0, range.1);
        if op == 'c' {
            self.normal = false;
        } else {
            self.clamp(ed);
        }
    }

    /// Deletes `start..end` into the register, keeping the state for `u`.
    fn delete(&mut self, ed: &mut Editor, start: usize, end: usize) {
        if start >= end {
            return;
        }
        self.save(ed);
        self.register = ed.cut(start, end);
    }

    /// Keeps a copy of the editor for `u`.
    fn save(&mut self, ed: &Editor) {
        self.undo.push(ed.clone());
        if self.undo.len() > 100 {
            self.undo.remove(0);
        }
    }

    /// In normal mode the cursor sits on a char, not after the line's end.
    fn clamp(&self, ed: &mut Editor) {
        let (start, end) = ed.line_bounds();
        if ed.cursor() >= end && end > start {
            let text = ed.text().to_string();
            ed.set_cursor(last_char(&text, start, end));
        }
    }
}

/// The first non-blank char of `start..end` (or `end`).
fn first_non_blank(text: &str, start: usize, end: usize) -> usize {
    text[start..end]
        .char_indices()
        .find(|(_, c)| !c.is_whitespace())
        .map_or(end, |(i, _)| start + i)
}

/// The last char of `start..end` (or `start` when empty).
fn last_char(text: &str, start: usize, end: usize) -> usize {
    text[start..end]
        .char_indices()
        .next_back()
        .map_or(start, |(i, _)| start + i)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn run(text: &str, cursor: usize, keys: &str) -> (String, usize, bool) {
        let mut ed = Editor::default();
        ed.insert_str(text);
        ed.set_cursor(cursor);
        let mut vim = Vim::default();
        vim.set_enabled(true);
        vim.normal = true;
        for c in keys.chars() {
            let code = if c == '\u{1b}' {
                KeyCode::Esc
            } else {
                KeyCode::Char(c)
            };
            match vim.on_key(&mut ed, KeyEvent::new(code, KeyModifiers::NONE), false) {
                Outcome::Handled => {}
                Outcome::Key(k) => match k.code {
                    KeyCode::Char(ch) => ed.insert(ch),
                    KeyCode::Left => ed.left(),
                    _ => {}
                },
            }
        }
        (ed.text().to_string(), ed.cursor(), vim.normal)
    }

    #[test]
    fn motions() {
        assert_eq!(run("foo bar.baz", 0, "w").1, 4);
        assert_eq!(run("foo bar.baz", 0, "ww").1, 7);
        assert_eq!(run("foo bar.baz", 0, "e").1, 2);
        assert_eq!(run("foo bar", 6, "b").1, 4);
        assert_eq!(run("foo bar", 6, "bb").1, 0);
        assert_eq!(run("  foo bar", 8, "^").1, 2);
        assert_eq!(run("foo bar", 0, "$").1, 6);
        assert_eq!(run("foo bar", 5, "0").1, 0);
    }

    #[test]
    fn edits_undo_and_insert() {
        assert_eq!(run("foo bar", 0, "dw").0, "bar");
        assert_eq!(run("foo bar", 0, "cwbaz\u{1b}").0, "baz bar");
        assert_eq!(run("foo bar", 0, "x").0, "oo bar");
        assert_eq!(run("foo bar", 4, "D").0, "foo ");
        assert_eq!(run("one\ntwo", 5, "dd").0, "one");
        assert_eq!(run("one\ntwo", 1, "dd").0, "two");
        assert_eq!(run("foo bar", 0, "dwu").0, "foo bar");
        assert_eq!(run("foo", 0, "yyP").0, "foofoo");
        assert_eq!(run("foo", 0, "Ax\u{1b}").0, "foox");
        assert_eq!(run("foo", 0, "ix").0, "xfoo");
        let (text, _, normal) = run("foo", 0, "obar");
        assert_eq!((text.as_str(), normal), ("foo\nbar", false));
        // Unknown keys type nothing in normal mode.
        assert_eq!(run("foo", 0, "zq").0, "foo");
    }
}
