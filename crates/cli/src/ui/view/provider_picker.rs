//! The dialogs of the provider and model pickers, drawn straight on the
//! terminal in raw mode below what is already there (before the session
//! starts, or while the UI has stepped aside): a list to choose from and
//! a one-line text field. Each gives its rows back when it closes.

use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use ratatui::crossterm::{cursor, execute, terminal};
use std::io::Write;

/// Options shown at once; the list scrolls past them.
const WINDOW: usize = 12;

/// Raw mode for a dialog's lifetime, restored on every way out.
struct RawGuard;

impl RawGuard {
    fn enter() -> std::io::Result<RawGuard> {
        terminal::enable_raw_mode()?;
        execute!(std::io::stdout(), cursor::Hide)?;
        Ok(RawGuard)
    }
}

impl Drop for RawGuard {
    fn drop(&mut self) {
        let _ = terminal::disable_raw_mode();
        let _ = execute!(std::io::stdout(), cursor::Show);
    }
}

/// Rows drawn by the last frame, cleared before the next one.
struct Frame {
    drawn: u16,
}

impl Frame {
    fn draw(&mut self, rows: &[String]) -> std::io::Result<()> {
        let mut out = std::io::stdout();
        self.clear()?;
        let width = crate::ui::size::terminal_size()
            .map(|(w, _)| usize::from(w))
            .unwrap_or(80)
            .saturating_sub(1)
            .max(10);
        let mut count = 0usize;
        for row in rows {
            // Long rows wrap here, at word boundaries, so the rows to
            // clear are known.
            let span = ratatui::text::Span::raw(row.as_str());
            for piece in super::wrap::wrap_spans(&[span], width) {
                let text: String = piece.iter().map(|s| s.content.as_ref()).collect();
                write!(out, "{text}\r\n")?;
                count += 1;
            }
        }
        out.flush()?;
        self.drawn = u16::try_from(count).unwrap_or(u16::MAX);
        Ok(())
    }

    fn clear(&mut self) -> std::io::Result<()> {
        if self.drawn > 0 {
            execute!(
                std::io::stdout(),
                cursor::MoveToPreviousLine(self.drawn),
                terminal::Clear(terminal::ClearType::FromCursorDown)
            )?;
        }
        self.drawn = 0;
        Ok(())
    }
}

/// What a key did to a dialog.
enum Step {
    Stay,
    Done,
    Cancel,
}

fn cancels(key: &event::KeyEvent) -> bool {
    key.code == KeyCode::Esc
        || (key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL))
}

/// Shows `text` and `options` (`current` marked first); the index chosen
/// with Enter, `None` on Esc or Ctrl-C.
pub fn select(
    text: &[String],
    options: &[String],
    current: usize,
) -> std::io::Result<Option<usize>> {
    if options.is_empty() {
        return Ok(None);
    }
    let _raw = RawGuard::enter()?;
    let mut frame = Frame { drawn: 0 };
    let mut at = current.min(options.len() - 1);
    loop {
        let first = at
            .saturating_sub(WINDOW - 1)
            .min(options.len().saturating_sub(WINDOW));
        let mut rows: Vec<String> = text.to_vec();
        if first > 0 {
            rows.push(format!("    ↑ {first} more"));
        }
        for (i, o) in options.iter().enumerate().skip(first).take(WINDOW) {
            let mark = if i == at { "●" } else { " " };
            rows.push(format!("  {mark} {}. {o}", i + 1));
        }
        let below = options.len().saturating_sub(first + WINDOW);
        if below > 0 {
            rows.push(format!("    ↓ {below} more"));
        }
        rows.push(String::new());
        rows.push("(↑/↓ to move, Enter to choose, Esc to cancel)".to_string());
        frame.draw(&rows)?;
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        let step = match key.code {
            _ if cancels(&key) => Step::Cancel,
            KeyCode::Up | KeyCode::Char('k') => {
                at = at.checked_sub(1).unwrap_or(options.len() - 1);
                Step::Stay
            }
            KeyCode::Down | KeyCode::Char('j') => {
                at = (at + 1) % options.len();
                Step::Stay
            }
            KeyCode::Enter => Step::Done,
            KeyCode::Char(c @ '1'..='9') if options.len() < 10 => {
                let i = (c as usize) - ('1' as usize);
                if i < options.len() {
                    at = i;
                    Step::Done
                } else {
                    Step::Stay
                }
            }
            _ => Step::Stay,
        };
        match step {
            Step::Stay => {}
            Step::Done => {
                frame.clear()?;
                return Ok(Some(at));
            }
            Step::Cancel => {
                frame.clear()?;
                return Ok(None);
            }
        }
    }
}

/// Asks for one line under `text`, starting from `initial`; a `secret`
/// shows stars. `None` on Esc or Ctrl-C; Enter on an empty line is
/// refused.
pub fn ask_text(
    text: &[String],
    label: &str,
    initial: &str,
    secret: bool,
) -> std::io::Result<Option<String>> {
    let _raw = RawGuard::enter()?;
    let mut frame = Frame { drawn: 0 };
    let mut value = initial.to_string();
    loop {
        let shown = if secret {
            "*".repeat(value.chars().count())
        } else {
            value.clone()
        };
        let mut rows: Vec<String> = text.to_vec();
        rows.push(format!("  {label}: {shown}█"));
        rows.push(String::new());
        rows.push("(Enter to confirm, Esc to cancel)".to_string());
        frame.draw(&rows)?;
        let Event::Key(key) = event::read()? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        if cancels(&key) {
            frame.clear()?;
            return Ok(None);
        }
        match key.code {
            KeyCode::Enter if !value.trim().is_empty() => {
                frame.clear()?;
                return Ok(Some(value.trim().to_string()));
            }
            KeyCode::Backspace => {
                value.pop();
            }
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => value.clear(),
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => value.push(c),
            _ => {}
        }
    }
}
