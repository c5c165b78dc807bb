//! Escapes and character classes of the JavaScript-regex translator.

use super::{PResult, Parser};
use std::fmt::Write as _;

impl Parser {
    /// A character or class escape whose letter `c` was consumed.
    pub(super) fn char_escape(&mut self, c: char, in_class: bool) {
        match c {
            'd' => self.out.push_str(if in_class { "0-9" } else { "[0-9]" }),
            'D' => self.out.push_str("[^0-9]"),
            'w' => self.out.push_str(if in_class {
                "0-9A-Za-z_"
            } else {
                "[0-9A-Za-z_]"
            }),
            'W' => self.out.push_str("[^0-9A-Za-z_]"),
            's' => self.out.push_str("\\s"),
            'S' => self.out.push_str("\\S"),
            't' => self.out.push_str("\\t"),
            'n' => self.out.push_str("\\n"),
            'r' => self.out.push_str("\\r"),
            'v' => self.out.push_str("\\x0B"),
            'f' => self.out.push_str("\\x0C"),
            'b' => self.out.push_str("\\x08"),
            '0' if !self.peek().is_some_and(|d| d.is_ascii_digit()) => self.out.push_str("\\x00"),
            '0'..='7' => {
                self.pos -= 1;
                self.legacy_octal_or_digit();
            }
            'c' => match self.peek() {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.pos += 1;
                    push_code(&mut self.out, (l as u32) % 32);
                }
                Some(l) if in_class && (l.is_ascii_digit() || l == '_') => {
                    self.pos += 1;
                    push_code(&mut self.out, (l as u32) % 32);
                }
                _ => {
                    push_literal(&mut self.out, '\\');
                    push_literal(&mut self.out, 'c');
                }
            },
            'x' => match self.hex(2) {
                Some(v) => push_code(&mut self.out, v),
                None => push_literal(&mut self.out, 'x'),
            },
            'u' => match self.hex(4) {
                Some(hi @ 0xD800..=0xDBFF) => {
                    let save = self.pos;
                    let lo = if self.peek() == Some('\\') && self.peek_at(1) == Some('u') {
                        self.pos += 2;
                        self.hex(4)
                    } else {
                        None
                    };
                    match lo {
                        Some(lo @ 0xDC00..=0xDFFF) => {
                            push_code(
                                &mut self.out,
                                0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00),
                            );
                        }
                        _ => {
                            self.pos = save;
                            self.out.push_str("[^\\s\\S]");
                        }
                    }
                }
                Some(0xDC00..=0xDFFF) => self.out.push_str("[^\\s\\S]"),
                Some(v) => push_code(&mut self.out, v),
                None => push_literal(&mut self.out, 'u'),
            },
            other => push_literal(&mut self.out, other),
        }
    }

    /// `n` hex digits, consumed only when all are there.
    pub(super) fn hex(&mut self, n: usize) -> Option<u32> {
        let mut v = 0;
        for i in 0..n {
            v = v * 16 + self.peek_at(i)?.to_digit(16)?;
        }
        self.pos += n;
        Some(v)
    }

    /// A character class `[...]`.
    pub(super) fn class(&mut self) -> PResult {
        self.pos += 1;
        let negated = self.peek() == Some('^');
        if negated {
            self.pos += 1;
        }
        if self.peek() == Some(']') {
            self.pos += 1;
            self.out
                .push_str(if negated { "(?s:.)" } else { "[^\\s\\S]" });
            return Ok(());
        }
        self.out.push_str(if negated { "[^" } else { "[" });
        loop {
            let Some(c) = self.peek() else {
                return Err("Unterminated character class");
            };
            if c == ']' {
                self.pos += 1;
                self.out.push(']');
                return Ok(());
            }
            let start_out = self.out.len();
            let lo = self.class_atom()?;
            if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
                let dash_pos = self.pos;
                self.pos += 1;
                let mid_out = self.out.len();
                let hi = self.class_atom()?;
                match (lo, hi) {
                    (Some(a), Some(b)) => {
                        if a > b {
                            return Err("Range out of order in character class");
                        }
                        self.out.truncate(start_out);
                        push_class_char(&mut self.out, a);
                        self.out.push('-');
                        push_class_char(&mut self.out, b);
                    }
                    _ => {
                        // Annex B: a class escape makes the `-` literal.
                        let tail = self.out.split_off(mid_out);
                        self.out.push_str("\\-");
                        self.out.push_str(&tail);
                        let _ = dash_pos;
                    }
                }
            }
        }
    }

    /// One class member; `Some(char)` for a single character, `None` for
    /// a class escape such as `\d`.
    pub(super) fn class_atom(&mut self) -> Result<Option<char>, &'static str> {
        let Some(c) = self.peek() else {
            return Err("Unterminated character class");
        };
        self.pos += 1;
        if c != '\\' {
            push_class_char(&mut self.out, c);
            return Ok(Some(c));
        }
        let Some(e) = self.peek() else {
            return Err("\\ at end of pattern");
        };
        self.pos += 1;
        if matches!(e, 'd' | 'D' | 'w' | 'W' | 's' | 'S') {
            self.char_escape(e, true);
            return Ok(None);
        }
        let before = self.out.len();
        match e {
            'b' => self.out.push_str("\\x08"),
            '-' => self.out.push_str("\\-"),
            '8' | '9' => push_class_char(&mut self.out, e),
            _ => self.char_escape(e, true),
        }
        let produced = self.out.split_off(before);
        match decode_single(&produced, e) {
            Some(ch) => {
                push_class_char(&mut self.out, ch);
                Ok(Some(ch))
            }
            None => {
                self.out.push_str(&produced);
                Ok(None)
            }
        }
    }
}

/// The character a single-character escape produced (for range checks).
pub(super) fn decode_single(produced: &str, letter: char) -> Option<char> {
    if let Some(hex) = produced
        .strip_prefix("\\x{")
        .and_then(|s| s.strip_suffix('}'))
    {
        return u32::from_str_radix(hex, 16).ok().and_then(char::from_u32);
    }
    match produced {
        "\\t" => Some('\t'),
        "\\n" => Some('\n'),
        "\\r" => Some('\r'),
        "\\x0B" => Some('\u{0B}'),
        "\\x0C" => Some('\u{0C}'),
        "\\x08" => Some('\u{08}'),
        "\\x00" => Some('\0'),
        "\\-" => Some('-'),
        _ => {
            let mut it = produced.chars();
            match (it.next(), it.next(), it.next()) {
                (Some(c), None, _) => Some(c),
                (Some('\\'), Some(c), None) if c == letter || !c.is_alphanumeric() => Some(c),
                _ => None,
            }
        }
    }
}

pub(super) fn push_code(out: &mut String, v: u32) {
    let _ = write!(out, "\\x{{{v:X}}}");
}

/// A literal outside a class, escaped where `regex` gives it a meaning.
pub(super) fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_punctuation() || c == ' ' {
        if regex_syntax_meta(c) {
            out.push('\\');
        }
        out.push(c);
    } else {
        out.push(c);
    }
}

pub(super) fn regex_syntax_meta(c: char) -> bool {
    matches!(
        c,
        '\\' | '.'
            | '+'
            | '*'
            | '?'
            | '('
            | ')'
            | '|'
            | '['
            | ']'
            | '{'
            | '}'
            | '^'
            | '$'
            | '#'
            | '&'
            | '-'
            | '~'
    )
}

/// A literal inside a class: ASCII punctuation is escaped, so `[`, `&&`,
/// `--` and `~~` keep JS's meaning; but not `<` and `>`, whose escapes are
/// word boundaries to `regex` and refused inside a class.
pub(super) fn push_class_char(out: &mut String, c: char) {
    if c.is_ascii_punctuation() && c != '<' && c != '>' {
        out.push('\\');
    }
    out.push(c);
}

/// `regex` group names allow `[_0-9a-zA-Z.\[\]]` only; other JS names get a
/// positional stand-in (names are never shown).
pub(super) fn rust_group_name(name: &str, index: usize) -> String {
    if name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        name.to_string()
    } else {
        format!("g{index}")
    }
}
