//! Markdown to styled terminal lines with pulldown-cmark: headings, lists,
//! block quotes, code blocks (highlighted with syntect), tables, rules,
//! emphasis, inline code and links, wrapped to a width.

use crate::ui::view::highlight;
use crate::ui::view::wrap::{hard_wrap, sanitize, str_width, wrap_prefixed, wrap_spans};
use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Renders `text` to lines of at most `width` columns. `highlight` turns on
/// syntax highlighting of fenced code (off for the live, still-streaming
/// tail).
pub fn render(text: &str, width: usize, highlight: bool) -> Vec<Line<'static>> {
    let mut r = Renderer {
        width: width.max(10),
        highlight,
        ..Renderer::default()
    };
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(text, opts) {
        r.event(event);
    }
    r.flush_inline();
    r.out
}

#[derive(Default)]
struct TableBuf {
    aligns: Vec<Alignment>,
    rows: Vec<Vec<String>>,
    header_rows: usize,
    cell: String,
    in_head: bool,
}

#[derive(Default)]
struct Renderer {
    width: usize,
    highlight: bool,
    out: Vec<Line<'static>>,
    inline: Vec<Span<'static>>,
    styles: Vec<Style>,
    lists: Vec<Option<u64>>,
    item_marker: Option<String>,
    quote: usize,
    code: Option<(String, String)>,
    table: Option<TableBuf>,
    links: Vec<String>,
    need_blank: bool,
}

fn heading_style(level: HeadingLevel) -> Style {
    let base = Style::new().add_modifier(Modifier::BOLD);
    match level {
        HeadingLevel::H1 => base.fg(Color::Magenta).add_modifier(Modifier::UNDERLINED),
        HeadingLevel::H2 => base.fg(Color::Magenta),
        HeadingLevel::H3 => base.fg(Color::Cyan),
        _ => base.add_modifier(Modifier::ITALIC),
    }
}

impl Renderer {
    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, f: impl FnOnce(Style) -> Style) {
        let s = f(self.style());
        self.styles.push(s);
    }

    fn quote_prefix(&self) -> String {
        "│ ".repeat(self.quote)
    }

    fn indent(&self) -> String {
        "  ".repeat(self.lists.len().saturating_sub(1))
    }

    fn block_start(&mut self) {
        if self.need_blank && self.lists.is_empty() {
            let q = self.quote_prefix();
            self.out.push(Line::from(Span::styled(
                q,
                Style::new().fg(Color::DarkGray),
            )));
        }
        self.need_blank = false;
    }

    fn block_end(&mut self) {
        if self.lists.is_empty() {
            self.need_blank = true;
        }
    }

    fn prefixes(&mut self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let dim = Style::new().fg(Color::DarkGray);
        let q = self.quote_prefix();
        let ind = self.indent();
        let (first_marker, rest_marker) = match self.item_marker.take() {
            Some(m) => {
                let pad = " ".repeat(str_width(&m));
                (m, pad)
            }
            None if !self.lists.is_empty() => ("  ".to_string(), "  ".to_string()),
            None => (String::new(), String::new()),
        };
        let first = vec![
            Span::styled(q.clone(), dim),
            Span::raw(format!("{ind}{first_marker}")),
        ];
        let rest = vec![
            Span::styled(q, dim),
            Span::raw(format!("{ind}{rest_marker}")),
        ];
        (first, rest)
    }

    fn flush_inline(&mut self) {
        if self.inline.is_empty() && self.item_marker.is_none() {
            return;
        }
        let spans = std::mem::take(&mut self.inline);
        let (first, rest) = self.prefixes();
        let lines = wrap_prefixed(&spans, self.width, &first, &rest);
        self.out.extend(lines);
    }

    fn text(&mut self, t: &str) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(t);
            return;
        }
        if let Some(table) = &mut self.table {
            table.cell.push_str(t);
            return;
        }
        let t = sanitize(t).replace('\n', " ");
        self.inline.push(Span::styled(t, self.style()));
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) => {
                if let Some(table) = &mut self.table {
                    table.cell.push_str(&t);
                } else {
                    let st = self.style().fg(Color::Yellow);
                    self.inline.push(Span::styled(sanitize(&t), st));
                }
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => {
                if self.table.is_none() {
                    let spans = std::mem::take(&mut self.inline);
                    let (first, rest) = self.prefixes();
                    self.out
                        .extend(wrap_prefixed(&spans, self.width, &first, &rest));
                    // Continuation lines keep the item's indentation.
                    if !self.lists.is_empty() {
                        self.item_marker = Some("  ".to_string());
                    }
                }
            }
            Event::Rule => {
                self.flush_inline();
                self.block_start();
                let w = self.width.min(80);
                self.out.push(Line::from(Span::styled(
                    "─".repeat(w),
                    Style::new().fg(Color::DarkGray),
                )));
                self.block_end();
            }
            Event::TaskListMarker(done) => {
                self.inline
                    .push(Span::raw(if done { "[x] " } else { "[ ] " }.to_string()));
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                let st = Style::new().fg(Color::DarkGray);
                let t = sanitize(&t);
                let t = t.trim_end_matches('\n');
                if !t.is_empty() {
                    self.inline.push(Span::styled(t.to_string(), st));
                }
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => self.text(&t),
            Event::FootnoteReference(t) => self.text(&format!("[{t}]")),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => {
                self.block_start();
            }
            Tag::Heading { level, .. } => {
                self.flush_inline();
                self.block_start();
                self.styles.push(heading_style(level));
            }
            Tag::BlockQuote(_) => {
                self.flush_inline();
                self.block_start();
                self.quote += 1;
            }
            Tag::CodeBlock(kind) => {
                self.flush_inline();
                self.block_start();
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => l.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                self.flush_inline();
                if self.lists.is_empty() {
                    self.block_start();
                }
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush_inline();
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    _ => "• ".to_string(),
                };
                self.item_marker = Some(marker);
            }
            Tag::Table(aligns) => {
                self.flush_inline();
                self.block_start();
                self.table = Some(TableBuf {
                    aligns,
                    ..TableBuf::default()
                });
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = true;
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableRow => {
                if let Some(t) = &mut self.table {
                    t.rows.push(Vec::new());
                }
            }
            Tag::TableCell => {
                if let Some(t) = &mut self.table {
                    t.cell.clear();
                }
            }
            Tag::Emphasis => self.push_style(|s| s.add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(|s| s.add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(|s| s.add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(|s| s.fg(Color::Blue).add_modifier(Modifier::UNDERLINED));
            }
            Tag::Image { dest_url, .. } => {
                self.links.push(dest_url.to_string());
                self.push_style(|s| s.fg(Color::Blue));
                self.text("[image: ");
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush_inline();
                self.block_end();
            }
            TagEnd::Heading(_) => {
                self.flush_inline();
                self.styles.pop();
                self.block_end();
            }
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.quote = self.quote.saturating_sub(1);
                self.block_end();
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    self.code_block(&lang, &code);
                }
                self.block_end();
            }
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                self.block_end();
            }
            TagEnd::Item => self.flush_inline(),
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = false;
                    t.header_rows = t.rows.len();
                }
            }
            TagEnd::TableCell => {
                if let Some(t) = &mut self.table {
                    let cell = std::mem::take(&mut t.cell);
                    if let Some(row) = t.rows.last_mut() {
                        row.push(sanitize(cell.trim()));
                    }
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.table_lines(&t);
                }
                self.block_end();
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link => {
                self.styles.pop();
                if let Some(url) = self.links.pop() {
                    let shown: String = self
                        .inline
                        .last()
                        .map(|s| s.content.to_string())
                        .unwrap_or_default();
                    if !url.is_empty() && shown != url {
                        self.inline.push(Span::styled(
                            format!(" ({url})"),
                            Style::new().fg(Color::DarkGray),
                        ));
                    }
                }
            }
            TagEnd::Image => {
                self.text("]");
                self.styles.pop();
                self.links.pop();
            }
            _ => {}
        }
    }

    fn code_block(&mut self, lang: &str, code: &str) {
        let code = sanitize(code);
        let code = code.trim_end_matches('\n');
        let lines = if self.highlight {
            highlight::highlight(code, lang)
        } else {
            code.lines()
                .map(|l| vec![Span::styled(l.to_string(), highlight::plain_style())])
                .collect()
        };
        let (first, rest) = self.prefixes();
        let pw = first
            .iter()
            .map(ratatui::prelude::Span::width)
            .sum::<usize>();
        let avail = self.width.saturating_sub(pw).max(1);
        let mut is_first = true;
        for spans in lines {
            for piece in hard_wrap(&spans, avail) {
                let mut l = if is_first {
                    first.clone()
                } else {
                    rest.clone()
                };
                is_first = false;
                l.extend(piece);
                self.out.push(Line::from(l));
            }
        }
    }

    fn table_lines(&mut self, t: &TableBuf) {
        let cols = t.rows.iter().map(Vec::len).max().unwrap_or(0);
        if cols == 0 {
            return;
        }
        let mut widths: Vec<usize> = (0..cols)
            .map(|c| {
                t.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|s| str_width(s))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let q = self.quote_prefix();
        let avail = self.width.saturating_sub(str_width(&q) + 3 * cols + 1);
        while widths.iter().sum::<usize>() > avail {
            let Some((i, w)) = widths
                .iter()
                .enumerate()
                .max_by_key(|(_, w)| **w)
                .map(|(i, w)| (i, *w))
            else {
                break;
            };
            if w <= 3 {
                break;
            }
            widths[i] = w - 1;
        }
        let border = Style::new().fg(Color::DarkGray);
        let rule = |l: &str, m: &str, r: &str| {
            let mut s = String::from(l);
            for (i, w) in widths.iter().enumerate() {
                s.push_str(&"─".repeat(w + 2));
                s.push_str(if i + 1 == cols { r } else { m });
            }
            Line::from(vec![
                Span::styled(q.clone(), border),
                Span::styled(s, border),
            ])
        };
        self.out.push(rule("┌", "┬", "┐"));
        for (ri, row) in t.rows.iter().enumerate() {
            let header = ri < t.header_rows;
            let style = if header {
                Style::new().add_modifier(Modifier::BOLD).fg(Color::Cyan)
            } else {
                Style::new()
            };
            let cells: Vec<Vec<String>> = (0..cols)
                .map(|c| {
                    let text = row.get(c).map(String::as_str).unwrap_or("");
                    wrap_spans(&[Span::raw(text)], widths[c])
                        .into_iter()
                        .map(|l| l.iter().map(|s| s.content.as_ref()).collect::<String>())
                        .collect()
                })
                .collect();
            let height = cells.iter().map(Vec::len).max().unwrap_or(1);
            for li in 0..height {
                let mut spans = vec![Span::styled(q.clone(), border), Span::styled("│", border)];
                for (c, cell) in cells.iter().enumerate() {
                    let text = cell.get(li).map(String::as_str).unwrap_or("");
                    let pad = widths[c].saturating_sub(str_width(text));
                    let (left, right) = match t.aligns.get(c) {
                        Some(Alignment::Right) => (pad, 0),
                        Some(Alignment::Center) => (pad / 2, pad - pad / 2),
                        _ => (0, pad),
                    };
                    spans.push(Span::raw(format!(" {}", " ".repeat(left))));
                    spans.push(Span::styled(text.to_string(), style));
                    spans.push(Span::raw(format!("{} ", " ".repeat(right))));
                    spans.push(Span::styled("│", border));
                }
                self.out.push(Line::from(spans));
            }
            if header && ri + 1 == t.header_rows && t.rows.len() > t.header_rows {
                self.out.push(rule("├", "┼", "┤"));
            }
        }
        self.out.push(rule("└", "┴", "┘"));
    }
}

/// Where already-streamed Markdown can be cut so the part before it renders
/// the same whatever follows: the end of the last blank line outside a code
/// fence. Returns the byte offset (0 when there is none).
pub fn stable_prefix_len(text: &str) -> usize {
    let mut in_fence = false;
    let mut offset = 0;
    let mut cut = 0;
    let mut prev_blank = false;
    for line in text.split_inclusive('\n') {
        let complete = line.ends_with('\n');
        let trimmed = line.trim();
        if !complete {
            break;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            offset += line.len();
            if !in_fence {
                // A closed fence is a complete block.
                cut = offset;
            }
            prev_blank = false;
            continue;
        }
        offset += line.len();
        let blank = trimmed.is_empty();
        if blank && !in_fence && !prev_blank {
            cut = offset;
        }
        prev_blank = blank;
    }
    cut
}
