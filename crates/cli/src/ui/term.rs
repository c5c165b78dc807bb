//! The terminal: raw mode and its restoration (on exit, panic and signals),
//! an inline viewport that grows and shrinks with its content, and lines
//! pushed into the scrollback above it.

use super::size::{terminal_size, usable_size};
use crate::ui::theme::Kind;
use crate::ui::view::wrap::wrap_spans;
use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use ratatui::crossterm::{cursor, execute, terminal};
use ratatui::layout::{Position, Rect, Size};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Terminal, TerminalOptions, Viewport};
use std::io::{self, BufWriter, Stdout, Write};

/// A backend that never asks the terminal where the cursor is (a query
/// would race with the key reader): it remembers where it last put it.
pub struct HintBackend<B> {
    inner: B,
    pos: Position,
}

impl<B: Backend> HintBackend<B> {
    /// Wraps `inner`, the cursor assumed at `pos`.
    pub fn new(inner: B, pos: Position) -> Self {
        HintBackend { inner, pos }
    }
}

impl<B: Backend> Backend for HintBackend<B> {
    type Error = B::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        // Every cell passes here (the live area and the lines pushed into
        // the scrollback): the theme maps its colours on the way out.
        let theme = crate::ui::theme::current();
        if theme.is_identity() {
            return self.inner.draw(content);
        }
        let cells: Vec<(u16, u16, Cell)> = content
            .map(|(x, y, cell)| {
                let mut cell = cell.clone();
                cell.fg = theme.map(cell.fg);
                cell.bg = theme.map(cell.bg);
                (x, y, cell)
            })
            .collect();
        self.inner
            .draw(cells.iter().map(|(x, y, cell)| (*x, *y, cell)))
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        let rows = self.inner.size().map(|s| s.height).unwrap_or(u16::MAX);
        self.pos.y = self.pos.y.saturating_add(n).min(rows.saturating_sub(1));
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        Ok(self.pos)
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        let p = position.into();
        self.pos = p;
        self.inner.set_cursor_position(p)
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> Result<Size, Self::Error> {
        let s = self.inner.size()?;
        let (width, height) = usable_size((s.width, s.height));
        Ok(Size::new(width, height))
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()
    }
}

type Backend_ = HintBackend<CrosstermBackend<BufWriter<Stdout>>>;

fn backend(pos: Position) -> Backend_ {
    HintBackend::new(
        CrosstermBackend::new(BufWriter::with_capacity(1 << 16, io::stdout())),
        pos,
    )
}

/// Puts the terminal back: raw mode off, cursor shown, modes popped.
pub fn restore() {
    let mut out = io::stdout();
    let _ = execute!(
        out,
        PopKeyboardEnhancementFlags,
        DisableBracketedPaste,
        cursor::Show
    );
    let _ = terminal::disable_raw_mode();
    let _ = out.flush();
}

/// The inline terminal.
pub struct Tui {
    terminal: Terminal<Backend_>,
    height: u16,
    size: (u16, u16),
    /// The widths of the live area's lines last drawn and the cursor in
    /// it, to find that area again after the terminal reflowed it.
    drawn: (Vec<usize>, Option<(u16, u16)>),
    /// The background the terminal reported at start, when asked.
    pub background: Option<Kind>,
}

/// Asks the terminal for its background colour (OSC 11), then for its
/// device attributes, which every terminal answers: a terminal that ignores
/// the first costs one round trip, not a timeout. Gives up after 300 ms.
/// Runs in raw mode, before the key reader starts.
fn query_background() -> Option<Kind> {
    use std::os::fd::AsRawFd;
    use std::time::{Duration, Instant};
    let mut out = io::stdout();
    out.write_all(b"\x1b]11;?\x1b\\\x1b[c").ok()?;
    out.flush().ok()?;
    let fd = io::stdin().as_raw_fd();
    let deadline = Instant::now() + Duration::from_millis(300);
    let mut answer: Vec<u8> = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let Ok(ms) = i32::try_from(left.as_millis()) else {
            break;
        };
        if ms == 0 {
            break;
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd for the duration of the call.
        if unsafe { libc::poll(&mut pfd, 1, ms) } <= 0 {
            break;
        }
        let mut chunk = [0u8; 256];
        // SAFETY: reads at most `chunk.len()` bytes into `chunk`.
        let n = unsafe { libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len()) };
        let Ok(n) = usize::try_from(n) else {
            break;
        };
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&chunk[..n]);
        // The device attributes' answer (ESC [ ? ... c) comes last.
        let text = String::from_utf8_lossy(&answer);
        if let Some(i) = text.find("\x1b[?")
            && text[i..].contains('c')
        {
            break;
        }
    }
    let text = String::from_utf8_lossy(&answer);
    crate::ui::theme::kind_of_report(&text).or_else(|| {
        std::env::var("COLORFGBG")
            .ok()
            .and_then(|v| crate::ui::theme::kind_of_colorfgbg(&v))
    })
}

impl Tui {
    /// Enters raw mode and opens a one-line viewport at the cursor; with
    /// `detect`, first asks the terminal for its background colour.
    pub fn start(detect: bool) -> io::Result<Tui> {
        let (cols, rows) = terminal_size()?;
        terminal::enable_raw_mode()?;
        let background = if detect { query_background() } else { None };
        let mut out = io::stdout();
        execute!(
            out,
            EnableBracketedPaste,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
        // The one cursor query, before the key reader starts.
        let pos = match cursor::position() {
            Ok((0, y)) => Position::new(0, y),
            Ok((_, y)) => {
                write!(out, "\r\n")?;
                out.flush()?;
                Position::new(0, (y + 1).min(rows.saturating_sub(1)))
            }
            Err(_) => {
                write!(out, "\r\n")?;
                Position::new(0, rows.saturating_sub(1))
            }
        };
        let terminal = Terminal::with_options(
            backend(pos),
            TerminalOptions {
                viewport: Viewport::Inline(1),
            },
        )?;
        Ok(Tui {
            terminal,
            height: 1,
            size: (cols, rows),
            drawn: (Vec::new(), None),
            background,
        })
    }

    /// The terminal size (columns, rows).
    pub fn size(&self) -> (u16, u16) {
        self.size
    }

    fn viewport(&mut self) -> Rect {
        self.terminal.get_frame().area()
    }

    /// Reopens the viewport `height` lines tall at the top of the current
    /// one (or at `top`).
    fn reopen(&mut self, height: u16, top: Option<u16>) -> io::Result<()> {
        let area = self.viewport();
        let y = top.unwrap_or(area.y);
        let b = self.terminal.backend_mut();
        b.set_cursor_position(Position::new(0, y))?;
        b.clear_region(ClearType::AfterCursor)?;
        Backend::flush(b)?;
        self.terminal = Terminal::with_options(
            backend(Position::new(0, y)),
            TerminalOptions {
                viewport: Viewport::Inline(height),
            },
        )?;
        self.height = height;
        Ok(())
    }

    /// Follows a terminal resize; returns true when the size changed.
    pub fn check_resize(&mut self) -> io::Result<bool> {
        let now = terminal_size()?;
        if now == self.size {
            return Ok(false);
        }
        let area = self.viewport();
        let narrower = now.0 < self.size.0;
        self.size = now;
        // Terminals rewrap (and rejoin) lines on a resize, moving the old
        // live area up or down: it is found from where the cursor went.
        let reflowed = self.reflowed_top(now.0);
        let top = if let Some(top) = reflowed {
            // The old input box, rewrapped by the terminal, is erased
            // where it now is (line by line from its top, since erasing
            // from the corner makes tmux keep the screen in its history).
            execute!(
                io::stdout(),
                cursor::MoveTo(0, top.saturating_add(1)),
                terminal::Clear(terminal::ClearType::FromCursorDown),
                cursor::MoveTo(0, top),
                terminal::Clear(terminal::ClearType::CurrentLine)
            )?;
            top
        } else if narrower {
            // Reflowed lines moved everything: start over at the top.
            execute!(
                io::stdout(),
                terminal::Clear(terminal::ClearType::All),
                cursor::MoveTo(0, 0)
            )?;
            0
        } else {
            area.y.min(now.1.saturating_sub(1))
        };
        self.reopen(self.height.min(now.1), Some(top))?;
        Ok(true)
    }

    /// Where the top of the live area last drawn is after the terminal
    /// rewrapped it to `width` columns: found from where the cursor is now
    /// (asked of the terminal) and the lines above it, each now taking
    /// its width over `width` rows. `None` without a cursor to go by.
    fn reflowed_top(&self, width: u16) -> Option<u16> {
        let (widths, Some((cx, cy))) = &self.drawn else {
            return None;
        };
        let (_, row) = cursor::position().ok()?;
        let w = usize::from(width.max(1));
        let above: usize = widths
            .iter()
            .take(usize::from(*cy))
            .map(|lw| lw.div_ceil(w).max(1))
            .sum::<usize>()
            + usize::from(*cx) / w;
        Some(row.saturating_sub(u16::try_from(above).unwrap_or(u16::MAX)))
    }

    /// Pushes lines into the scrollback above the viewport.
    pub fn insert(&mut self, lines: Vec<Line<'static>>) -> io::Result<()> {
        let width = usize::from(self.size.0.max(1));
        let mut wrapped = Vec::with_capacity(lines.len());
        for line in lines {
            if line.width() <= width {
                wrapped.push(line);
            } else {
                let style = line.style;
                wrapped.extend(
                    wrap_spans(&line.spans, width)
                        .into_iter()
                        .map(|spans| Line::from(spans).style(style)),
                );
            }
        }
        let lines = wrapped;
        for chunk in lines.chunks(256) {
            let h = chunk.len() as u16;
            let chunk = chunk.to_vec();
            self.terminal.insert_before(h, move |buf| {
                Paragraph::new(chunk).render(buf.area, buf);
            })?;
        }
        Ok(())
    }

    /// Draws the live area: `lines` with the cursor at `cursor`.
    pub fn draw(
        &mut self,
        lines: Vec<Line<'static>>,
        cursor: Option<(u16, u16)>,
    ) -> io::Result<()> {
        self.drawn = (lines.iter().map(Line::width).collect(), cursor);
        let want = (lines.len() as u16).clamp(1, self.size.1.max(1));
        if want != self.height {
            self.reopen(want, None)?;
        }
        self.terminal.draw(|f| {
            let area = f.area();
            Paragraph::new(lines).render(area, f.buffer_mut());
            if let Some((x, y)) = cursor
                && y < area.height
            {
                f.set_cursor_position(Position::new(
                    area.x + x.min(area.width.saturating_sub(1)),
                    area.y + y,
                ));
            }
        })?;
        Backend::flush(self.terminal.backend_mut())?;
        Ok(())
    }

    /// Clears the screen and the scrollback; the viewport restarts at the top.
    pub fn clear_screen(&mut self) -> io::Result<()> {
        execute!(
            io::stdout(),
            terminal::Clear(terminal::ClearType::All),
            terminal::Clear(terminal::ClearType::Purge),
            cursor::MoveTo(0, 0)
        )?;
        self.reopen(self.height, Some(0))
    }

    /// Starts a synchronized update (the terminal shows the frame at once).
    pub fn begin_sync(&mut self) -> io::Result<()> {
        execute!(io::stdout(), terminal::BeginSynchronizedUpdate)
    }

    /// Ends a synchronized update.
    pub fn end_sync(&mut self) -> io::Result<()> {
        execute!(io::stdout(), terminal::EndSynchronizedUpdate)
    }

    /// Writes raw bytes (an OSC sequence) to the terminal.
    pub fn write_raw(&mut self, s: &str) -> io::Result<()> {
        let mut out = io::stdout();
        out.write_all(s.as_bytes())?;
        out.flush()
    }

    /// Clears the live area and restores the terminal.
    pub fn finish(&mut self) {
        let area = self.viewport();
        let b = self.terminal.backend_mut();
        let _ = b.set_cursor_position(Position::new(0, area.y));
        let _ = b.clear_region(ClearType::AfterCursor);
        let _ = Backend::flush(b);
        restore();
    }
}

/// Whether the terminal on stdin has gone away (hangup, error or a closed
/// descriptor): a poll that returns at once with nothing to read would
/// otherwise spin.
pub fn input_closed() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd that lives for the call; no waiting.
    let n = unsafe { libc::poll(&mut fd, 1, 0) };
    n > 0 && fd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
}

/// The OSC 52 sequence that puts `text` on the terminal's clipboard.
pub fn osc52_copy(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// Base64 (standard alphabet, padded), for OSC 52.
fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((v >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod osc52_tests {
    use super::*;

    #[test]
    fn base64_matches() {
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"hi!"), "aGkh");
        assert_eq!(base64(b"a"), "YQ==");
    }
}
