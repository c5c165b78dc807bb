//! The terminal's size, with a usable default when it reports none.

use ratatui::crossterm::terminal;
use std::io;

/// The size used when a terminal reports none (0 columns or 0 rows, as a
/// pty opened without a window size does).
pub const DEFAULT_SIZE: (u16, u16) = (80, 24);

/// `size`, or [`DEFAULT_SIZE`] when it is unknown (0x0).
pub fn usable_size(size: (u16, u16)) -> (u16, u16) {
    if size.0 == 0 || size.1 == 0 {
        DEFAULT_SIZE
    } else {
        size
    }
}

/// The terminal's size, [`DEFAULT_SIZE`] when it reports none.
pub fn terminal_size() -> io::Result<(u16, u16)> {
    terminal::size().map(usable_size)
}
