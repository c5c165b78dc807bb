//! Keys while a slash command's dialog (`/settings`, `/rewind`,
//! `/permissions trust`, `/theme`) is open, and what its choice does.

use crate::ui::commands::dialog::Dialog;
use crate::ui::commands::permissions::TrustStep;
use crate::ui::commands::rewind::RewindStep;
use crate::ui::commands::theme::ThemeStep;
use crate::ui::control::App;
use gemini_rs_core::TrustLevel;
use ratatui::crossterm::event::KeyEvent;

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
        Dialog::Theme(p) => match p.on_key(key) {
            ThemeStep::Open => {}
            ThemeStep::Cancelled => app.state.dialog = None,
            ThemeStep::Kept(kept) => {
                app.state.dialog = None;
                match kept {
                    Ok(note) => app.state.info(&note),
                    Err(e) => app.state.error(&e),
                }
            }
        },
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
        Dialog::Trust(p) => match p.on_key(key) {
            TrustStep::Open => {}
            TrustStep::Closed => app.state.dialog = None,
            TrustStep::Chosen(dir, level) => {
                app.state.dialog = None;
                let paths = app.ctx.info.paths().clone();
                match gemini_rs_core::save_folder_trust(&paths, &dir, level) {
                    Ok(()) => {
                        app.state
                            .info(&format!("Saved the trust level of {}.", dir.display()));
                        // The rule covers the folder (its parent for
                        // TRUST_PARENT) and everything below it.
                        let scope = match level {
                            TrustLevel::Parent => dir.parent().unwrap_or(&dir),
                            _ => &dir,
                        };
                        if app.ctx.info.root().starts_with(scope) {
                            app.state.warn(
                                "Restart gemini-rs to apply the trust change to this session.",
                            );
                        }
                    }
                    Err(e) => app
                        .state
                        .error(&format!("Could not save the trust level: {e}")),
                }
            }
        },
    }
}
