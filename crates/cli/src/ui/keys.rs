//! Key handling of the session loop: the editor, completion, history,
//! Ctrl-C / Esc, the approval-mode cycle and the confirmation dialog.

use super::app::App;
use super::complete;
use gemini_rs_core::events::Op;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::time::{Duration, Instant};

impl App {
    pub(super) fn on_term_event(&mut self, ev: Event) {
        match ev {
            Event::Key(k) if k.kind != KeyEventKind::Release => self.on_key(k),
            Event::Paste(text) if self.state.confirm.is_none() => {
                self.state.input.insert_str(&text);
                self.refresh_completion();
            }
            _ => {}
        }
    }

    fn on_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if !(ctrl && key.code == KeyCode::Char('c')) {
            self.state.notice = None;
        }
        if let Some(dialog) = self.state.confirm.as_mut() {
            if let Some(outcome) = dialog.on_key(key) {
                self.answer(outcome);
            }
            return;
        }
        let s = &mut self.state;
        match key.code {
            KeyCode::Char('c') if ctrl => self.ctrl_c(),
            KeyCode::Char('d') if ctrl => {
                if s.input.is_empty() {
                    self.quit = true;
                } else {
                    s.input.delete();
                }
            }
            KeyCode::Char('l') if ctrl => self.clear_requested = true,
            KeyCode::Char('j') if ctrl => s.input.insert('\n'),
            KeyCode::Enter if alt || key.modifiers.contains(KeyModifiers::SHIFT) => {
                s.input.insert('\n');
            }
            KeyCode::Enter => {
                self.enter();
                return;
            }
            KeyCode::Esc => {
                if s.completion.is_some() {
                    s.completion = None;
                } else if self.busy() {
                    self.cancel_running();
                }
                return;
            }
            KeyCode::BackTab => {
                let next = s.next_mode();
                s.mode = next;
                self.ctx.ops.submit(Op::SetApprovalMode(next));
                return;
            }
            KeyCode::Tab => {
                self.accept_completion();
                return;
            }
            KeyCode::Up | KeyCode::Char('p') if key.code == KeyCode::Up || ctrl => {
                if let Some(c) = s.completion.as_mut() {
                    c.step(false);
                } else if !s.input.up() {
                    let cur = s.input.text().to_string();
                    if let Some(t) = s.history.prev(&cur) {
                        let t = t.to_string();
                        s.input.set(&t);
                    }
                }
                return;
            }
            KeyCode::Down | KeyCode::Char('n') if key.code == KeyCode::Down || ctrl => {
                if let Some(c) = s.completion.as_mut() {
                    c.step(true);
                } else if !s.input.down()
                    && let Some(t) = s.history.next()
                {
                    let t = t.to_string();
                    s.input.set(&t);
                }
                return;
            }
            KeyCode::Char('a') if ctrl => s.input.home(),
            KeyCode::Char('e') if ctrl => s.input.end(),
            KeyCode::Char('u') if ctrl => s.input.kill_to_start(),
            KeyCode::Char('k') if ctrl => s.input.kill_to_end(),
            KeyCode::Char('w') if ctrl => s.input.delete_word(),
            KeyCode::Char('b') if ctrl => s.input.left(),
            KeyCode::Char('f') if ctrl => s.input.right(),
            KeyCode::Char('b') if alt => s.input.word_left(),
            KeyCode::Char('f') if alt => s.input.word_right(),
            KeyCode::Backspace if alt || ctrl => s.input.delete_word(),
            KeyCode::Char(c) if !ctrl => s.input.insert(c),
            KeyCode::Backspace => s.input.backspace(),
            KeyCode::Delete => s.input.delete(),
            KeyCode::Left if ctrl || alt => s.input.word_left(),
            KeyCode::Right if ctrl || alt => s.input.word_right(),
            KeyCode::Left => s.input.left(),
            KeyCode::Right => s.input.right(),
            KeyCode::Home => s.input.home(),
            KeyCode::End => s.input.end(),
            _ => return,
        }
        self.state.history.reset();
        self.refresh_completion();
    }

    fn refresh_completion(&mut self) {
        let prev = self.state.completion.take();
        let mut next = complete::compute(&self.state.input, Some(&self.ctx.info.workspace));
        if let (Some(p), Some(n)) = (&prev, &mut next)
            && p.token == n.token
        {
            n.selected = p.selected.min(n.items.len().saturating_sub(1));
        }
        self.state.completion = next;
    }

    /// Accepts the highlighted suggestion; true when one was accepted.
    fn accept_completion(&mut self) -> bool {
        let Some(c) = self.state.completion.take() else {
            return false;
        };
        let Some(item) = c.current() else {
            return false;
        };
        let value = if item.value.ends_with('/') {
            item.value.clone()
        } else {
            format!("{} ", item.value)
        };
        self.state.input.replace_before_cursor(c.start, &value);
        if item.value.ends_with('/') {
            self.refresh_completion();
        }
        true
    }

    fn enter(&mut self) {
        let s = &mut self.state;
        if let Some(c) = &s.completion
            && let Some(item) = c.current()
            && item.value != c.token
        {
            let is_command = item.value.starts_with('/');
            self.accept_completion();
            if !is_command {
                return;
            }
        }
        let s = &mut self.state;
        if s.input.text()[..s.input.cursor()].ends_with('\\') {
            s.input.backspace();
            s.input.insert('\n');
            return;
        }
        let text = s.input.take();
        s.completion = None;
        if text.trim().is_empty() {
            return;
        }
        s.history.push(text.trim_end());
        self.submit(text);
    }

    fn ctrl_c(&mut self) {
        let now = Instant::now();
        if self.busy() {
            self.cancel_running();
            return;
        }
        if !self.state.input.is_empty() {
            self.state.input.take();
            self.state.completion = None;
            return;
        }
        if self
            .last_ctrl_c
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(2))
        {
            self.quit = true;
            return;
        }
        self.last_ctrl_c = Some(now);
        self.state.notice = Some(("Press Ctrl-C again to exit.".into(), now));
    }
}
