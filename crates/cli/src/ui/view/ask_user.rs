//! The form for the model's questions (`ask_user`): one page per question
//! (tabs when there are several, then a review page). Choice questions list
//! their options, "All of the above" for multi-select, "Other" with text
//! typed in place, and "Done" for multi-select; yes/no questions offer Yes
//! and No; text questions take several lines (Ctrl+J or Alt+Enter).
//! Up/Down move, Enter picks (Space toggles in multi-select), digits pick
//! by number, Tab/Shift+Tab switch questions, Esc dismisses the form.

use crate::ui::view::wrap::{sanitize, truncate, wrap_prefixed};
use gemini_rs_protocol::events::{Question, QuestionType, QuestionsReply};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::collections::{BTreeMap, BTreeSet};

/// One row of a choice page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    /// Option `i`.
    Pick(usize),
    /// Every option (multi-select).
    All,
    /// The user's own text.
    Other,
    /// Ends a multi-select answer.
    Done,
}

/// The state of one question's page.
#[derive(Default)]
struct Page {
    cursor: usize,
    picked: BTreeSet<usize>,
    other: String,
    other_picked: bool,
}

/// An open form.
pub struct AskUserForm {
    /// The request's id.
    pub id: u64,
    /// The `ask_user` call waiting for it.
    pub call_id: String,
    questions: Vec<Question>,
    pages: Vec<Page>,
    /// The page shown; `questions.len()` is the review page.
    current: usize,
    answers: BTreeMap<usize, String>,
}

impl AskUserForm {
    /// The form for `questions`.
    pub fn new(id: u64, call_id: String, questions: Vec<Question>) -> Self {
        let pages = questions.iter().map(|_| Page::default()).collect();
        AskUserForm {
            id,
            call_id,
            questions,
            pages,
            current: 0,
            answers: BTreeMap::new(),
        }
    }

    /// The options of question `q` (Yes and No for yes/no questions).
    fn labels(q: &Question) -> Vec<String> {
        match q.kind {
            QuestionType::Yesno => vec!["Yes".into(), "No".into()],
            QuestionType::Text => Vec::new(),
            QuestionType::Choice => q.options.iter().map(|o| o.label.clone()).collect(),
        }
    }

    fn multi(q: &Question) -> bool {
        q.kind == QuestionType::Choice && q.multi_select
    }

    /// The rows of question `q`'s page.
    fn items(q: &Question) -> Vec<Item> {
        let n = Self::labels(q).len();
        let mut items: Vec<Item> = (0..n).map(Item::Pick).collect();
        if Self::multi(q) && n > 1 {
            items.push(Item::All);
        }
        items.push(Item::Other);
        if Self::multi(q) {
            items.push(Item::Done);
        }
        items
    }

    fn on_review(&self) -> bool {
        self.current >= self.questions.len()
    }

    fn submit(&self) -> QuestionsReply {
        QuestionsReply::Submit(
            self.answers
                .iter()
                .map(|(i, a)| (i.to_string(), a.clone()))
                .collect(),
        )
    }

    /// Records the current question's answer (an empty one unanswers it);
    /// with one question that submits the form, else the next page shows.
    fn answer(&mut self, answer: String) -> Option<QuestionsReply> {
        let answer = answer.trim().to_string();
        if answer.is_empty() {
            self.answers.remove(&self.current);
        } else {
            self.answers.insert(self.current, answer);
        }
        if self.questions.len() == 1 {
            return Some(self.submit());
        }
        self.current += 1;
        None
    }

    fn switch(&mut self, forward: bool) {
        if self.questions.len() < 2 {
            return;
        }
        let pages = self.questions.len() + 1;
        self.current = if forward {
            (self.current + 1) % pages
        } else {
            (self.current + pages - 1) % pages
        };
    }

    /// Handles a key; the reply once the user submitted or dismissed.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<QuestionsReply> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return Some(QuestionsReply::Dismiss),
            KeyCode::Char('c') if ctrl => return Some(QuestionsReply::Dismiss),
            KeyCode::Tab => {
                self.switch(true);
                return None;
            }
            KeyCode::BackTab => {
                self.switch(false);
                return None;
            }
            _ => {}
        }
        if self.on_review() {
            return match key.code {
                KeyCode::Enter => Some(self.submit()),
                KeyCode::Left => {
                    self.switch(false);
                    None
                }
                _ => None,
            };
        }
        let q = &self.questions[self.current];
        if q.kind == QuestionType::Text {
            return self.text_key(key);
        }
        self.choice_key(key)
    }

    /// A key on a text page: typing, line breaks, Enter answers.
    fn text_key(&mut self, key: KeyEvent) -> Option<QuestionsReply> {
        let page = &mut self.pages[self.current];
        if newline(key) {
            page.other.push('\n');
            return None;
        }
        match key.code {
            KeyCode::Enter => {
                let text = page.other.clone();
                return self.answer(text);
            }
            KeyCode::Backspace => {
                page.other.pop();
            }
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                page.other.clear()
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                page.other.push(c)
            }
            _ => {}
        }
        None
    }

    /// A key on a choice or yes/no page.
    fn choice_key(&mut self, key: KeyEvent) -> Option<QuestionsReply> {
        let q = &self.questions[self.current];
        let items = Self::items(q);
        let labels = Self::labels(q);
        let multi = Self::multi(q);
        let page = &mut self.pages[self.current];
        page.cursor = page.cursor.min(items.len() - 1);
        let item = items[page.cursor];
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if item == Item::Other {
            if newline(key) {
                page.other.push('\n');
                return None;
            }
            // Space on an empty "Other" of a multi-select ticks it.
            let space_ticks = multi && page.other.is_empty();
            match key.code {
                KeyCode::Char(' ') if space_ticks => {}
                KeyCode::Char(c) if !ctrl => {
                    page.other.push(c);
                    if multi {
                        page.other_picked = true;
                    }
                    return None;
                }
                KeyCode::Backspace => {
                    page.other.pop();
                    return None;
                }
                _ => {}
            }
        }
        match key.code {
            KeyCode::Up => page.cursor = (page.cursor + items.len() - 1) % items.len(),
            KeyCode::Down => page.cursor = (page.cursor + 1) % items.len(),
            KeyCode::Left => self.switch(false),
            KeyCode::Right => self.switch(true),
            KeyCode::Char(d @ '1'..='9') => {
                let i = d as usize - '1' as usize;
                if i < items.len() {
                    page.cursor = i;
                    if !multi && let Item::Pick(p) = items[i] {
                        return self.answer(labels[p].clone());
                    }
                    return self.choose(items[i], multi, &labels);
                }
            }
            KeyCode::Enter => return self.choose(item, multi, &labels),
            KeyCode::Char(' ') if multi && item != Item::Done => {
                return self.choose(item, multi, &labels);
            }
            _ => {}
        }
        None
    }

    /// Enter (or Space) on a row.
    fn choose(&mut self, item: Item, multi: bool, labels: &[String]) -> Option<QuestionsReply> {
        let page = &mut self.pages[self.current];
        match (item, multi) {
            (Item::Pick(i), false) => return self.answer(labels[i].clone()),
            (Item::Other, false) => {
                let text = page.other.clone();
                return self.answer(text);
            }
            (Item::Pick(i), true) => {
                if !page.picked.remove(&i) {
                    page.picked.insert(i);
                }
            }
            (Item::All, _) => {
                if page.picked.len() == labels.len() {
                    page.picked.clear();
                } else {
                    page.picked = (0..labels.len()).collect();
                }
            }
            (Item::Other, true) => page.other_picked = !page.other_picked,
            (Item::Done, _) => {
                let mut parts: Vec<String> =
                    page.picked.iter().map(|&i| labels[i].clone()).collect();
                if page.other_picked && !page.other.trim().is_empty() {
                    parts.push(page.other.trim().to_string());
                }
                return self.answer(parts.join(", "));
            }
        }
        None
    }

    /// The form's lines at `width`.
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        if self.questions.len() > 1 {
            out.push(self.tabs(width));
            out.push(Line::default());
        }
        if self.on_review() {
            self.review_lines(width, &mut out);
            return out;
        }
        let q = &self.questions[self.current];
        let bold = Style::new().add_modifier(Modifier::BOLD);
        for l in sanitize(&q.question).lines() {
            out.extend(wrap_prefixed(
                &[Span::styled(l.to_string(), bold)],
                width,
                &[],
                &[],
            ));
        }
        if Self::multi(q) {
            out.push(Line::from(Span::styled(
                "(Select all that apply)",
                dim().add_modifier(Modifier::ITALIC),
            )));
        }
        out.push(Line::default());
        let page = &self.pages[self.current];
        if q.kind == QuestionType::Text {
            let hint = q.placeholder.as_deref().unwrap_or("Enter your response");
            out.extend(text_field("> ", &page.other, hint, true, width));
        } else {
            self.choice_lines(q, page, width, &mut out);
        }
        out.push(Line::default());
        let what = if q.kind == QuestionType::Text {
            "Enter to submit · Ctrl+J new line"
        } else {
            "Enter to select · ↑/↓ to move"
        };
        let tabs = if self.questions.len() > 1 {
            " · Tab/Shift+Tab to switch questions"
        } else {
            ""
        };
        out.push(Line::from(Span::styled(
            truncate(&format!("{what}{tabs} · Esc to dismiss"), width),
            dim(),
        )));
        out
    }

    fn choice_lines(&self, q: &Question, page: &Page, width: usize, out: &mut Vec<Line<'static>>) {
        let labels = Self::labels(q);
        let multi = Self::multi(q);
        let accent = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
        let chosen = self.answers.get(&self.current);
        for (n, item) in Self::items(q).into_iter().enumerate() {
            let here = n == page.cursor;
            let mark = if here { "› " } else { "  " };
            let checked = match item {
                Item::Pick(i) => page.picked.contains(&i),
                Item::All => !labels.is_empty() && page.picked.len() == labels.len(),
                Item::Other => page.other_picked,
                Item::Done => false,
            };
            let mut first = vec![Span::styled(format!("{mark}{}. ", n + 1), accent)];
            if multi && item != Item::Done {
                first.push(Span::raw(if checked { "[x] " } else { "[ ] " }));
            }
            let style = if here { accent } else { Style::new() };
            let (label, description) = match item {
                Item::Pick(i) => (
                    labels[i].clone(),
                    q.options.get(i).map(|o| o.description.clone()),
                ),
                Item::All => ("All of the above".into(), None),
                Item::Done => ("Done".into(), None),
                Item::Other => {
                    let hint = q.placeholder.as_deref().unwrap_or("Enter a custom value");
                    let pad = " ".repeat(first.iter().map(Span::width).sum());
                    let mut lines =
                        text_field("", &page.other, hint, here, width.saturating_sub(pad.len()));
                    for (k, mut l) in lines.drain(..).enumerate() {
                        let lead = if k == 0 {
                            first.clone()
                        } else {
                            vec![Span::raw(pad.clone())]
                        };
                        let mut spans = lead;
                        spans.append(&mut l.spans);
                        out.push(Line::from(spans));
                    }
                    continue;
                }
            };
            let tick = !multi && chosen.is_some_and(|c| *c == label);
            let mut body = vec![Span::styled(sanitize(&label), style)];
            if tick {
                body.push(Span::styled(" ✓", Style::new().fg(Color::Green)));
            }
            let pad: String = " ".repeat(first.iter().map(Span::width).sum());
            out.extend(wrap_prefixed(
                &body,
                width,
                &first,
                &[Span::raw(pad.clone())],
            ));
            if let Some(d) = description.filter(|d| !d.is_empty()) {
                out.extend(wrap_prefixed(
                    &[Span::styled(sanitize(&d), dim())],
                    width,
                    &[Span::raw(pad.clone())],
                    &[Span::raw(pad)],
                ));
            }
        }
    }

    fn tabs(&self, width: usize) -> Line<'static> {
        let mut spans = vec![Span::styled("← ", dim())];
        let n = self.questions.len();
        for i in 0..=n {
            if i > 0 {
                spans.push(Span::styled(" │ ", dim()));
            }
            let (icon, header) = if i == n {
                ("≡", "Review".to_string())
            } else if self.answers.contains_key(&i) {
                ("✓", self.questions[i].header.clone())
            } else {
                ("□", self.questions[i].header.clone())
            };
            spans.push(Span::styled(format!("{icon} "), dim()));
            let style = if i == self.current {
                Style::new()
                    .fg(Color::Green)
                    .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
            } else {
                dim()
            };
            spans.push(Span::styled(truncate(&sanitize(&header), 16), style));
        }
        spans.push(Span::styled(" →", dim()));
        let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
        if crate::ui::view::wrap::str_width(&text) > width {
            return Line::from(truncate(&text, width));
        }
        Line::from(spans)
    }

    fn review_lines(&self, width: usize, out: &mut Vec<Line<'static>>) {
        out.push(Line::from(Span::styled(
            "Review your answers:",
            Style::new().add_modifier(Modifier::BOLD),
        )));
        let missing = self.questions.len() - self.answers.len();
        if missing > 0 {
            let s = if missing > 1 { "s" } else { "" };
            out.push(Line::from(Span::styled(
                format!("⚠ {missing} question{s} not answered"),
                Style::new().fg(Color::Yellow),
            )));
        }
        for (i, q) in self.questions.iter().enumerate() {
            let answer = match self.answers.get(&i) {
                Some(a) => Span::raw(sanitize(a).replace('\n', " ⏎ ")),
                None => Span::styled("(not answered)", Style::new().fg(Color::Yellow)),
            };
            out.extend(wrap_prefixed(
                &[answer],
                width,
                &[Span::styled(format!("{} → ", sanitize(&q.header)), dim())],
                &[Span::raw("    ")],
            ));
        }
        out.push(Line::default());
        out.push(Line::from(Span::styled(
            truncate(
                "Enter to submit · Tab/Shift+Tab to change answers · Esc to dismiss",
                width,
            ),
            dim(),
        )));
    }
}

fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// Ctrl+J, Alt+Enter or Shift+Enter: a line break in a text answer.
fn newline(key: KeyEvent) -> bool {
    let m = key.modifiers;
    match key.code {
        KeyCode::Char('j') => m.contains(KeyModifiers::CONTROL),
        KeyCode::Enter => m.intersects(KeyModifiers::ALT | KeyModifiers::SHIFT),
        _ => false,
    }
}

/// A text field: the typed lines (with a cursor mark when focused), or
/// the hint when empty.
fn text_field(
    prefix: &str,
    text: &str,
    hint: &str,
    focused: bool,
    width: usize,
) -> Vec<Line<'static>> {
    let green = Style::new().fg(Color::Green);
    let first = vec![Span::styled(prefix.to_string(), green)];
    let rest = vec![Span::raw(" ".repeat(prefix.len()))];
    if text.is_empty() {
        let cursor = if focused { "▌" } else { "" };
        return vec![Line::from(vec![
            first[0].clone(),
            Span::raw(cursor),
            Span::styled(hint.to_string(), dim()),
        ])];
    }
    let mut out = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    for (i, l) in lines.iter().enumerate() {
        let mut body = sanitize(l);
        if focused && i + 1 == lines.len() {
            body.push('▌');
        }
        let lead = if i == 0 { &first } else { &rest };
        out.extend(wrap_prefixed(&[Span::raw(body)], width, lead, &rest));
    }
    out
}

#[cfg(test)]
#[path = "ask_user_tests.rs"]
mod tests;
