//! The full-width dialogs slash commands open over the input line
//! (`/settings`, `/rewind`): which one is open, its keys and its lines.

use crate::ui::commands::rewind::{RewindPanel, RewindStep};
use crate::ui::commands::settings::SettingsPanel;
use crate::ui::control::App;
use ratatui::crossterm::event::KeyEvent;
use ratatui::text::Line;

/// An open dialog.
pub enum Dialog {
    /// `/settings`.
    Settings(SettingsPanel),
    /// `/rewind`.
    Rewind(RewindPanel),
}

impl Dialog {
    /// Its lines at `width`.
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        match self {
            Dialog::Settings(p) => p.lines(width),
            Dialog::Rewind(p) => p.lines(width),
        }
    }
}

/// A key while a dialog is open.
pub fn on_key(app: &mut App, key: KeyEvent) {
    let Some(dialog) = app.state.dialog.as_mut() else {
        return;
    };
    match dialog {
        Dialog::Settings(p) => {
            if !p.on_key(key) {
                app.state.dialog = None;
            }
        }
        Dialog::Rewind(p) => match p.on_key(key, &mut app.state.prompts) {
            RewindStep::Open => {}
            RewindStep::Closed => app.state.dialog = None,
            RewindStep::Rewind(op, text) => {
                app.state.dialog = None;
                if let Some(text) = text {
                    app.state.input.set(&text);
                }
                app.start_op(op, "Rewinding");
            }
        },
    }
}
