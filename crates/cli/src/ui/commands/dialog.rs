//! The full-width dialogs slash commands open over the input line
//! (`/settings`, `/rewind`, `/permissions trust`, `/theme`): which one is open and
//! its lines (its keys are `handlers::dialog`'s).

use crate::ui::commands::permissions::TrustPanel;
use crate::ui::commands::rewind::RewindPanel;
use crate::ui::commands::settings::SettingsPanel;
use crate::ui::commands::theme::ThemePanel;
use ratatui::text::Line;

/// An open dialog.
pub enum Dialog {
    /// `/settings`.
    Settings(SettingsPanel),
    /// `/rewind`.
    Rewind(RewindPanel),
    /// `/permissions trust`.
    Trust(TrustPanel),
    /// `/theme` without a name.
    Theme(ThemePanel),
}

impl Dialog {
    /// Its lines at `width`.
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        match self {
            Dialog::Settings(p) => p.lines(width),
            Dialog::Rewind(p) => p.lines(width),
            Dialog::Trust(p) => p.lines(width),
            Dialog::Theme(p) => p.lines(width),
        }
    }
}
