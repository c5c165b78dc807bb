//! JavaScript regular expressions as `new RegExp(pattern)` (no flags, Annex B
//! syntax) accepts them, checked with V8's error texts and translated into
//! the syntax of the `regex` crate.
//!
//! Gemini CLI validates `search_file_content`'s pattern with `new
//! RegExp(pattern)` and reports V8's message; we search with ripgrep's
//! engine, so the pattern is rewritten: JS's lenient literals (`a{2`, `]`,
//! `}`), its class syntax and its escapes become their `regex` spellings.
//! Constructs the engine lacks (look-around, back-references) are valid JS
//! but reported as [`Translation::Unsupported`].

use std::fmt::Write as _;

/// What a valid JS pattern becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Translation {
    /// The same language in `regex` crate syntax.
    Rust(String),
    /// Valid JS the `regex` engine cannot run; the text says why.
    Unsupported(String),
}

/// A pattern V8 refuses; Display is V8's message, e.g.
/// `Invalid regular expression: /(/: Unterminated group`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Invalid regular expression: /{pattern}/: {reason}")]
pub(crate) struct InvalidRegex {
    /// The pattern as given.
    pub pattern: String,
    /// V8's reason.
    pub reason: &'static str,
}

/// Checks `pattern` as V8 would.
pub(crate) fn translate(pattern: &str) -> Result<Translation, InvalidRegex> {
    let chars: Vec<char> = pattern.chars().collect();
    let (groups, named) = count_groups(&chars);
    let mut p = Parser {
        chars,
        pos: 0,
        out: String::new(),
        groups,
        has_named: named,
        names: Vec::new(),
        unsupported: None,
    };
    p.disjunction().map_err(|reason| InvalidRegex {
        pattern: pattern.to_string(),
        reason,
    })?;
    Ok(match p.unsupported {
        Some(why) => Translation::Unsupported(why),
        None => Translation::Rust(p.out),
    })
}

/// Number of capturing groups and whether any is named (a pre-scan, as V8
/// does, to tell back-references from legacy octal escapes).
fn count_groups(chars: &[char]) -> (usize, bool) {
    let (mut n, mut named, mut i, mut in_class) = (0, false, 0, false);
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' => in_class = true,
            ']' => in_class = false,
            '(' if !in_class => {
                if chars.get(i + 1) != Some(&'?') {
                    n += 1;
                } else if chars.get(i + 2) == Some(&'<')
                    && !matches!(chars.get(i + 3), Some('=') | Some('!'))
                {
                    n += 1;
                    named = true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    (n, named)
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    out: String,
    groups: usize,
    has_named: bool,
    names: Vec<String>,
    unsupported: Option<String>,
}

type PResult = Result<(), &'static str>;

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, off: usize) -> Option<char> {
        self.chars.get(self.pos + off).copied()
    }

    fn unsupported(&mut self, why: &str) {
        if self.unsupported.is_none() {
            self.unsupported = Some(why.to_string());
        }
    }

    /// The whole pattern: alternatives until the end; a stray `)` fails.
    fn disjunction(&mut self) -> PResult {
        self.alternatives()?;
        if self.peek() == Some(')') {
            return Err("Unmatched ')'");
        }
        Ok(())
    }

    /// Alternatives up to a `)` or the end (the `)` is not consumed).
    fn alternatives(&mut self) -> PResult {
        loop {
            self.alternative()?;
            match self.peek() {
                Some('|') => {
                    self.pos += 1;
                    self.out.push('|');
                }
                _ => return Ok(()),
            }
        }
    }

    fn alternative(&mut self) -> PResult {
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                return Ok(());
            }
            self.term()?;
        }
        Ok(())
    }

    fn term(&mut self) -> PResult {
        let Some(c) = self.peek() else { return Ok(()) };
        // Whether a quantifier may follow what this term produces.
        let quantifiable = match c {
            '^' | '$' => {
                self.pos += 1;
                self.out.push(c);
                false
            }
            '\\' if matches!(self.peek_at(1), Some('b') | Some('B')) => {
                self.out.push('\\');
                self.out.push(self.peek_at(1).unwrap_or('b'));
                self.pos += 2;
                false
            }
            '(' => self.group()?,
            '*' | '+' | '?' => return Err("Nothing to repeat"),
            '{' => {
                if self.braced_quantifier_at(self.pos).is_some() {
                    return Err("Nothing to repeat");
                }
                self.pos += 1;
                self.out.push_str("\\{");
                true
            }
            '[' => {
                self.class()?;
                true
            }
            '\\' => {
                self.atom_escape()?;
                true
            }
            '.' => {
                self.pos += 1;
                self.out.push('.');
                true
            }
            _ => {
                self.pos += 1;
                push_literal(&mut self.out, c);
                true
            }
        };
        self.quantifier(quantifiable)
    }

    /// An optional quantifier after an atom (or an assertion, which must
    /// not have one).
    fn quantifier(&mut self, quantifiable: bool) -> PResult {
        let q = match self.peek() {
            Some(c @ ('*' | '+' | '?')) => {
                self.pos += 1;
                c.to_string()
            }
            Some('{') => match self.braced_quantifier_at(self.pos) {
                Some((min, max, len)) => {
                    if let Some(max) = max
                        && max < min
                    {
                        return Err("numbers out of order in {} quantifier");
                    }
                    self.pos += len;
                    match max {
                        Some(m) if m == min => format!("{{{min}}}"),
                        Some(m) => format!("{{{min},{m}}}"),
                        None => format!("{{{min},}}"),
                    }
                }
                None => return Ok(()),
            },
            _ => return Ok(()),
        };
        if !quantifiable {
            return Err("Nothing to repeat");
        }
        self.out.push_str(&q);
        if self.peek() == Some('?') {
            self.pos += 1;
            self.out.push('?');
        }
        Ok(())
    }

    /// `{n}`, `{n,}` or `{n,m}` at `at`: (min, max, length in chars).
    fn braced_quantifier_at(&self, at: usize) -> Option<(u64, Option<u64>, usize)> {
        let mut i = at + 1;
        let digits = |i: &mut usize| -> Option<u64> {
            let start = *i;
            let mut v: u64 = 0;
            while let Some(d) = self.chars.get(*i).and_then(|c| c.to_digit(10)) {
                v = v.saturating_mul(10).saturating_add(u64::from(d));
                *i += 1;
            }
            (*i > start).then_some(v)
        };
        let min = digits(&mut i)?;
        let max = match self.chars.get(i) {
            Some('}') => Some(min),
            Some(',') => {
                i += 1;
                if self.chars.get(i) == Some(&'}') {
                    None
                } else {
                    let m = digits(&mut i)?;
                    if self.chars.get(i) != Some(&'}') {
                        return None;
                    }
                    Some(m)
                }
            }
            _ => return None,
        };
        Some((min, max, i + 1 - at))
    }

    /// A group; returns whether a quantifier may follow it.
    fn group(&mut self) -> Result<bool, &'static str> {
        self.pos += 1;
        let mut quantifiable = true;
        if self.peek() == Some('?') {
            match self.peek_at(1) {
                Some(':') => {
                    self.pos += 2;
                    self.out.push_str("(?:");
                }
                Some('=') | Some('!') => {
                    self.pos += 2;
                    self.unsupported("look-ahead assertions are not supported");
                    self.out.push_str("(?:");
                }
                Some('<') if matches!(self.peek_at(2), Some('=') | Some('!')) => {
                    self.pos += 3;
                    self.unsupported("look-behind assertions are not supported");
                    self.out.push_str("(?:");
                    quantifiable = false;
                }
                Some('<') => {
                    self.pos += 2;
                    let name = self.group_name()?;
                    if self.names.contains(&name) {
                        return Err("Duplicate capture group name");
                    }
                    let _ = write!(
                        self.out,
                        "(?P<{}>",
                        rust_group_name(&name, self.names.len())
                    );
                    self.names.push(name);
                }
                _ => return Err("Invalid group"),
            }
        } else {
            self.out.push('(');
        }
        self.alternatives()?;
        if self.peek() != Some(')') {
            return Err("Unterminated group");
        }
        self.pos += 1;
        self.out.push(')');
        Ok(quantifiable)
    }

    /// A group name up to `>` (the `<` already consumed).
    fn group_name(&mut self) -> Result<String, &'static str> {
        let mut name = String::new();
        loop {
            match self.peek() {
                Some('>') => {
                    self.pos += 1;
                    break;
                }
                Some(c) if c == '$' || c == '_' || c.is_alphanumeric() => {
                    if name.is_empty() && c.is_numeric() {
                        return Err("Invalid capture group name");
                    }
                    name.push(c);
                    self.pos += 1;
                }
                _ => return Err("Invalid capture group name"),
            }
        }
        if name.is_empty() {
            return Err("Invalid capture group name");
        }
        Ok(name)
    }

    /// An escape outside a class (the `\` not yet consumed).
    fn atom_escape(&mut self) -> PResult {
        self.pos += 1;
        let Some(c) = self.peek() else {
            return Err("\\ at end of pattern");
        };
        self.pos += 1;
        match c {
            '1'..='9' => {
                let start = self.pos - 1;
                let mut n: usize = 0;
                let mut i = start;
                while let Some(d) = self.chars.get(i).and_then(|c| c.to_digit(10)) {
                    n = n.saturating_mul(10).saturating_add(d as usize);
                    i += 1;
                }
                if n <= self.groups {
                    self.pos = i;
                    self.unsupported("back-references are not supported");
                    self.out.push_str("(?:)");
                } else {
                    self.pos = start;
                    self.legacy_octal_or_digit();
                }
            }
            'k' if self.has_named => {
                if self.peek() != Some('<') {
                    return Err("Invalid named reference");
                }
                self.pos += 1;
                self.group_name().map_err(|_| "Invalid named reference")?;
                self.unsupported("back-references are not supported");
                self.out.push_str("(?:)");
            }
            _ => self.char_escape(c, false),
        }
        Ok(())
    }

    /// `\0`-`\7` octal (up to 3 digits, max 0o377) or a literal `8`/`9`.
    fn legacy_octal_or_digit(&mut self) {
        let Some(first) = self.peek() else { return };
        self.pos += 1;
        if first == '8' || first == '9' {
            push_literal(&mut self.out, first);
            return;
        }
        let mut v = first.to_digit(8).unwrap_or(0);
        for _ in 0..2 {
            match self.peek().and_then(|c| c.to_digit(8)) {
                Some(d) if v * 8 + d <= 0o377 => {
                    v = v * 8 + d;
                    self.pos += 1;
                }
                _ => break,
            }
        }
        push_code(&mut self.out, v);
    }
}

mod escape;

use escape::{push_code, push_literal, rust_group_name};

#[cfg(test)]
#[path = "jsregex_tests.rs"]
mod tests;
