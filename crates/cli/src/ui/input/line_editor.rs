//! The prompt editor: multi-line text with a cursor, word and line editing,
//! and its wrapped rendering with the cursor position.

use crate::ui::view::wrap::char_width;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

/// A multi-line text buffer with a cursor (a byte offset on a char
/// boundary).
#[derive(Debug, Default, Clone)]
pub struct Editor {
    text: String,
    cursor: usize,
}

impl Editor {
    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor's byte offset.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Replaces the text, cursor at the end.
    pub fn set(&mut self, text: &str) {
        self.text = text.to_string();
        self.cursor = self.text.len();
    }

    /// Takes the text out, leaving the editor empty.
    pub fn take(&mut self) -> String {
        self.cursor = 0;
        std::mem::take(&mut self.text)
    }

    /// Inserts text at the cursor (`\r\n` and `\r` become `\n`).
    pub fn insert_str(&mut self, s: &str) {
        let s = s
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\t', "    ");
        self.text.insert_str(self.cursor, &s);
        self.cursor += s.len();
    }

    /// Inserts one character.
    pub fn insert(&mut self, c: char) {
        self.text.insert(self.cursor, c);
        self.cursor += c.len_utf8();
    }

    fn prev_boundary(&self, i: usize) -> usize {
        self.text[..i]
            .char_indices()
            .next_back()
            .map_or(0, |(j, _)| j)
    }

    fn next_boundary(&self, i: usize) -> usize {
        self.text[i..]
            .chars()
            .next()
            .map_or(self.text.len(), |c| i + c.len_utf8())
    }

    /// Deletes the character before the cursor.
    pub fn backspace(&mut self) {
        if self.cursor > 0 {
            let p = self.prev_boundary(self.cursor);
            self.text.replace_range(p..self.cursor, "");
            self.cursor = p;
        }
    }

    /// Deletes the character at the cursor.
    pub fn delete(&mut self) {
        if self.cursor < self.text.len() {
            let n = self.next_boundary(self.cursor);
            self.text.replace_range(self.cursor..n, "");
        }
    }

    /// Moves left.
    pub fn left(&mut self) {
        self.cursor = self.prev_boundary(self.cursor);
    }

    /// Moves right.
    pub fn right(&mut self) {
        self.cursor = self.next_boundary(self.cursor);
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i)
    }

    /// Moves to the start of the line.
    pub fn home(&mut self) {
        self.cursor = self.line_start();
    }

    /// Moves to the end of the line.
    pub fn end(&mut self) {
        self.cursor = self.line_end();
    }

    /// Deletes from the line start to the cursor.
    pub fn kill_to_start(&mut self) {
        let s = self.line_start();
        self.text.replace_range(s..self.cursor, "");
        self.cursor = s;
    }

    /// Deletes from the cursor to the line end.
    pub fn kill_to_end(&mut self) {
        let e = self.line_end();
        if e == self.cursor && e < self.text.len() {
            self.delete();
        } else {
            self.text.replace_range(self.cursor..e, "");
        }
    }

    /// Start of the word before the cursor.
    fn word_left_pos(&self) -> usize {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(|c: char| c.is_whitespace());
        trimmed
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8())
    }

    /// Deletes the word before the cursor.
    pub fn delete_word(&mut self) {
        let s = self.word_left_pos();
        self.text.replace_range(s..self.cursor, "");
        self.cursor = s;
    }

    /// Moves one word left.
    pub fn word_left(&mut self) {
        self.cursor = self.word_left_pos();
    }

    /// Moves one word right.
    pub fn word_right(&mut self) {
        let after = &self.text[self.cursor..];
        let skip_ws = after.len() - after.trim_start().len();
        let rest = &after[skip_ws..];
        let word = rest.find(char::is_whitespace).unwrap_or(rest.len());
        self.cursor += skip_ws + word;
    }

    /// Moves up a line; false when already on the first line.
    pub fn up(&mut self) -> bool {
        let start = self.line_start();
        if start == 0 {
            return false;
        }
        let col = self.text[start..self.cursor].chars().count();
        let prev_start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        self.cursor = advance(&self.text, prev_start, col, start - 1);
        true
    }

    /// Moves down a line; false when already on the last line.
    pub fn down(&mut self) -> bool {
        let end = self.line_end();
        if end == self.text.len() {
            return false;
        }
        let col = self.text[self.line_start()..self.cursor].chars().count();
        let next_start = end + 1;
        let next_end = self.text[next_start..]
            .find('\n')
            .map_or(self.text.len(), |i| next_start + i);
        self.cursor = advance(&self.text, next_start, col, next_end);
        true
    }

    /// Moves the cursor to byte offset `at` (clamped, on a char boundary).
    pub fn set_cursor(&mut self, at: usize) {
        let mut at = at.min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        self.cursor = at;
    }

    /// The current line's start and end offsets (the end before its `\n`).
    pub fn line_bounds(&self) -> (usize, usize) {
        (self.line_start(), self.line_end())
    }

    /// Removes `start..end` (clamped) and returns it; the cursor goes to
    /// `start`.
    pub fn cut(&mut self, start: usize, end: usize) -> String {
        let end = end.min(self.text.len());
        let start = start.min(end);
        let taken = self.text[start..end].to_string();
        self.text.replace_range(start..end, "");
        self.cursor = start;
        taken
    }

    /// The current token (from the last whitespace to the cursor) and its
    /// start offset.
    pub fn token_at_cursor(&self) -> (usize, &str) {
        let before = &self.text[..self.cursor];
        let start = before
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        (start, &self.text[start..self.cursor])
    }

    /// Replaces `start..cursor` with `with`.
    pub fn replace_before_cursor(&mut self, start: usize, with: &str) {
        self.text.replace_range(start..self.cursor, with);
        self.cursor = start + with.len();
    }

    /// The rendered lines at `width` (prompt included) and the cursor's
    /// (column, row) in them. A text starting with `!` (shell mode) shows
    /// that `!` as its prompt instead.
    pub fn render(
        &self,
        width: usize,
        prompt: &str,
        placeholder: &str,
    ) -> (Vec<Line<'static>>, (u16, u16)) {
        let accent = Style::new().fg(Color::Cyan);
        let shell_mode = self.text.starts_with('!');
        let (prompt, accent) = if shell_mode {
            ("! ", Style::new().fg(Color::Magenta))
        } else {
            (prompt, accent)
        };
        let pw = prompt.chars().count();
        let avail = width.saturating_sub(pw + 1).max(1);
        let mut lines: Vec<Line<'static>> = Vec::new();
        let mut cur = (pw as u16, 0u16);
        if self.text.is_empty() {
            lines.push(Line::from(vec![
                Span::styled(prompt.to_string(), accent),
                Span::styled(placeholder.to_string(), Style::new().fg(Color::DarkGray)),
            ]));
            return (lines, cur);
        }
        let mut offset = 0usize;
        for (li, logical) in self.text.split('\n').enumerate() {
            let mut row = String::new();
            let mut w = 0usize;
            let mut row_start = offset;
            let lead = |first: bool| {
                if li == 0 && first {
                    prompt.to_string()
                } else {
                    " ".repeat(pw)
                }
            };
            let mut first_row = true;
            for (ci, c) in logical.char_indices() {
                // Shell mode: the prompt shows the leading `!`.
                if shell_mode && li == 0 && ci == 0 {
                    continue;
                }
                let cw = char_width(c);
                if w + cw > avail {
                    lines.push(Line::from(vec![
                        Span::styled(lead(first_row), accent),
                        Span::raw(std::mem::take(&mut row)),
                    ]));
                    first_row = false;
                    w = 0;
                    row_start = offset + ci;
                }
                if offset + ci == self.cursor {
                    cur = ((pw + w) as u16, lines.len() as u16);
                }
                row.push(c);
                w += cw;
            }
            let _ = row_start;
            if offset + logical.len() == self.cursor {
                cur = ((pw + w) as u16, lines.len() as u16);
            }
            lines.push(Line::from(vec![
                Span::styled(lead(first_row), accent),
                Span::raw(row),
            ]));
            offset += logical.len() + 1;
        }
        (lines, cur)
    }
}

/// The offset `col` characters after `start`, not past `limit`.
fn advance(text: &str, start: usize, col: usize, limit: usize) -> usize {
    let mut pos = start;
    for (n, c) in text[start..limit].chars().enumerate() {
        if n == col {
            break;
        }
        pos += c.len_utf8();
    }
    pos.min(limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_and_moves() {
        let mut e = Editor::default();
        e.insert_str("hello world");
        e.delete_word();
        assert_eq!(e.text(), "hello ");
        e.insert_str("a\nbc");
        assert!(e.up());
        assert_eq!(e.cursor(), 2);
        assert!(e.down());
        assert!(!e.down());
        e.home();
        e.kill_to_end();
        assert_eq!(e.text(), "hello a\n");
    }

    #[test]
    fn cursor_position_wraps() {
        let mut e = Editor::default();
        e.insert_str("abcdef");
        let (lines, cur) = e.render(6, "> ", "");
        assert_eq!(lines.len(), 2);
        assert_eq!(cur, (5, 1));
    }
}
