//! Word wrapping of styled lines to a column width, and small text helpers
//! shared by the renderers.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Display width of one character (0 for control characters).
pub fn char_width(c: char) -> usize {
    if c.is_control() {
        return 0;
    }
    let mut buf = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut buf)).width()
}

/// Display width of a string.
pub fn str_width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

/// Removes terminal control sequences and control characters (tabs become
/// four spaces, newlines stay).
pub fn sanitize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\x1b' => {
                // Skip CSI (`ESC [ ... final`) and OSC (`ESC ] ... BEL/ST`).
                match chars.peek() {
                    Some('[') => {
                        chars.next();
                        for n in chars.by_ref() {
                            if ('@'..='~').contains(&n) {
                                break;
                            }
                        }
                    }
                    Some(']') => {
                        chars.next();
                        while let Some(n) = chars.next() {
                            if n == '\x07' {
                                break;
                            }
                            if n == '\x1b' {
                                chars.next();
                                break;
                            }
                        }
                    }
                    _ => {
                        chars.next();
                    }
                }
            }
            '\t' => out.push_str("    "),
            '\n' => out.push('\n'),
            '\r' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Truncates `s` to at most `width` columns, adding `…` when cut.
pub fn truncate(s: &str, width: usize) -> String {
    if str_width(s) <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = char_width(c);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

/// Word-wraps styled spans to `width` columns. Words longer than a line are
/// split. Always returns at least one (possibly empty) line.
pub fn wrap_spans(spans: &[Span<'_>], width: usize) -> Vec<Vec<Span<'static>>> {
    let width = width.max(1);
    let chars: Vec<(char, Style)> = spans
        .iter()
        .flat_map(|s| s.content.chars().map(move |c| (c, s.style)))
        .filter(|(c, _)| *c != '\n')
        .collect();
    let mut lines: Vec<Vec<(char, Style)>> = Vec::new();
    let mut line: Vec<(char, Style)> = Vec::new();
    let mut line_w = 0usize;
    let mut i = 0;
    while i < chars.len() {
        // One word: non-space run, then its trailing spaces.
        let start = i;
        while i < chars.len() && chars[i].0 != ' ' {
            i += 1;
        }
        let word_end = i;
        while i < chars.len() && chars[i].0 == ' ' {
            i += 1;
        }
        let word = &chars[start..word_end];
        let spaces = &chars[word_end..i];
        let word_w: usize = word.iter().map(|(c, _)| char_width(*c)).sum();
        if line_w + word_w > width && line_w > 0 {
            trim_trailing_spaces(&mut line);
            lines.push(std::mem::take(&mut line));
            line_w = 0;
        }
        if word_w > width {
            for &(c, st) in word {
                let cw = char_width(c);
                if line_w + cw > width && line_w > 0 {
                    lines.push(std::mem::take(&mut line));
                    line_w = 0;
                }
                line.push((c, st));
                line_w += cw;
            }
        } else {
            line.extend_from_slice(word);
            line_w += word_w;
        }
        for &(c, st) in spaces {
            if line_w < width {
                line.push((c, st));
                line_w += 1;
            }
        }
    }
    trim_trailing_spaces(&mut line);
    lines.push(line);
    lines.into_iter().map(|l| merge(&l)).collect()
}

/// Splits spans into lines of exactly `width` columns (no word breaking),
/// for code and diffs.
pub fn hard_wrap(spans: &[Span<'_>], width: usize) -> Vec<Vec<Span<'static>>> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line: Vec<(char, Style)> = Vec::new();
    let mut w = 0;
    for s in spans {
        for c in s.content.chars() {
            let cw = char_width(c);
            if w + cw > width && w > 0 {
                lines.push(merge(&line));
                line.clear();
                w = 0;
            }
            line.push((c, s.style));
            w += cw;
        }
    }
    lines.push(merge(&line));
    lines
}

fn trim_trailing_spaces(line: &mut Vec<(char, Style)>) {
    while line.last().is_some_and(|(c, _)| *c == ' ') {
        line.pop();
    }
}

fn merge(chars: &[(char, Style)]) -> Vec<Span<'static>> {
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut cur = String::new();
    let mut style = None;
    for &(c, st) in chars {
        if style != Some(st) {
            if let Some(prev) = style
                && !cur.is_empty()
            {
                out.push(Span::styled(std::mem::take(&mut cur), prev));
            }
            style = Some(st);
        }
        cur.push(c);
    }
    if let Some(st) = style
        && !cur.is_empty()
    {
        out.push(Span::styled(cur, st));
    }
    out
}

/// Wraps a line with a first-line prefix and a continuation prefix.
pub fn wrap_prefixed(
    spans: &[Span<'_>],
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
) -> Vec<Line<'static>> {
    let pw = first
        .iter()
        .map(ratatui::prelude::Span::width)
        .max()
        .unwrap_or(0)
        .max(rest.iter().map(ratatui::prelude::Span::width).sum());
    let body = wrap_spans(spans, width.saturating_sub(pw).max(1));
    body.into_iter()
        .enumerate()
        .map(|(i, mut l)| {
            let mut spans: Vec<Span<'static>> = if i == 0 {
                first.to_vec()
            } else {
                rest.to_vec()
            };
            spans.append(&mut l);
            Line::from(spans)
        })
        .collect()
}

/// Plain text of a line.
#[cfg(test)]
pub fn line_text(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(v: Vec<Vec<Span<'static>>>) -> Vec<String> {
        v.into_iter()
            .map(|l| l.iter().map(|s| s.content.to_string()).collect())
            .collect()
    }

    #[test]
    fn wraps_words() {
        let got = texts(wrap_spans(&[Span::raw("hello brave new world")], 11));
        assert_eq!(got, vec!["hello brave", "new world"]);
    }

    #[test]
    fn splits_long_words() {
        let got = texts(wrap_spans(&[Span::raw("abcdefghij")], 4));
        assert_eq!(got, vec!["abcd", "efgh", "ij"]);
    }

    #[test]
    fn sanitizes_escapes() {
        assert_eq!(sanitize("a\x1b[31mred\x1b[0m\tb"), "ared    b");
    }
}
