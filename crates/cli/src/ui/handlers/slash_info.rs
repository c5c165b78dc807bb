//! The slash commands that show the session's parts or open a picker or
//! dialog: they act at once, also while a request runs.

use super::slash::{reload_commands, switch_skill};
use crate::ui::commands::args::Args;
use crate::ui::commands::dialog::Dialog;
use crate::ui::commands::settings::SettingsPanel;
use crate::ui::commands::{info, panels};
use crate::ui::control::{App, Picker};

/// `/about`.
pub fn about(app: &mut App, _: &Args) {
    let s = &mut app.state;
    let lines = info::about_lines(&s.model, app.ctx.info.session_id(), &s.workspace_label);
    s.push_lines(lines);
}

/// `/shortcuts`.
pub fn shortcuts(app: &mut App, _: &Args) {
    app.state.push_lines(info::shortcut_lines());
}

/// `/commands list|reload`.
pub fn commands(app: &mut App, a: &Args) {
    match a.sub() {
        Some("list") => {
            let folders = app.ctx.info.command_folders();
            app.state
                .push_lines(crate::ui::commands::custom::list_lines(&folders));
        }
        Some("reload") => reload_commands(app),
        _ => app.state.info(crate::ui::commands::custom::USAGE),
    }
}

/// `/hooks`.
pub fn hooks(app: &mut App, _: &Args) {
    let lines = panels::hooks_lines(&app.ctx.info.hooks());
    app.state.push_lines(lines);
}

/// `/model [name]`: switch to `name`, or pick from a list.
pub fn model(app: &mut App, a: &Args) {
    match a.rest_opt() {
        Some(name) => super::model::switch(app, &name),
        None => app.picker_request = Some(Picker::Model),
    }
}

/// `/auth`: the provider picker.
pub fn auth(app: &mut App, _: &Args) {
    app.picker_request = Some(Picker::Auth);
}

/// `/permissions trust [dir]`: the trust dialog for a folder.
pub fn permissions(app: &mut App, a: &Args) {
    use crate::ui::commands::permissions::{TrustPanel, USAGE, folder};
    if a.sub() != Some("trust") {
        app.state.info(USAGE);
        return;
    }
    let arg = Some(a.arg()).filter(|d| !d.is_empty());
    let view = &app.ctx.info;
    match folder(arg.as_deref(), view.root(), &view.paths().home) {
        Ok(dir) => app.state.dialog = Some(Dialog::Trust(TrustPanel::new(dir, view.paths()))),
        Err(e) => app.state.error(&e),
    }
}

/// `/settings`: the settings editor.
pub fn settings(app: &mut App, _: &Args) {
    let view = &app.ctx.info;
    let user = view.paths().user_settings();
    let workspace = view.paths().workspace_settings(view.root());
    match SettingsPanel::open(user, workspace) {
        Ok(panel) => app.state.dialog = Some(Dialog::Settings(panel)),
        Err(e) => app.state.error(&e),
    }
}

/// `/quit` (`/exit`).
pub fn quit(app: &mut App, _: &Args) {
    app.quit = true;
}

/// `/skills [list]`, `/skills enable|disable <name>`.
pub fn skills(app: &mut App, a: &Args) {
    let name = a.arg();
    match a.sub() {
        None | Some("list") => {
            let lines = info::skills_lines(&app.ctx.info.skills());
            app.state.push_lines(lines);
        }
        Some(which @ ("enable" | "disable")) if !name.is_empty() => {
            let path = app.ctx.info.paths().user_settings();
            match switch_skill(&path, &name, which == "enable") {
                Ok(note) => app.state.info(&note),
                Err(e) => app.state.error(&e),
            }
        }
        Some(_) => app
            .state
            .info("Usage: /skills list | enable <name> | disable <name>"),
    }
}

/// `/stats`.
pub fn stats(app: &mut App, _: &Args) {
    let s = &mut app.state;
    let lines = info::stats_lines(
        &s.stats,
        app.ctx.started.elapsed(),
        app.ctx.info.session_id(),
    );
    s.push_lines(lines);
}

/// `/tools`.
pub fn tools(app: &mut App, _: &Args) {
    let lines = info::tools_lines(&app.ctx.info.tools());
    app.state.push_lines(lines);
}

/// `/theme [name]`: the picker, or one chosen (kept in the user settings).
pub fn theme(app: &mut App, a: &Args) {
    let Some(name) = a.rest_opt() else {
        let view = &app.ctx.info;
        let user = view.paths().user_settings();
        let workspace = view.paths().workspace_settings(view.root());
        let panel = crate::ui::commands::theme::ThemePanel::new(user, workspace);
        app.state.dialog = Some(Dialog::Theme(panel));
        return;
    };
    let s = &mut app.state;
    let path = app.ctx.info.paths().user_settings();
    match crate::ui::commands::theme::switch(&path, &name) {
        Ok(note) => {
            s.info(&note);
            let width = s.content_width();
            s.push_lines(crate::ui::commands::theme::preview_lines(width));
        }
        Err(e) => s.error(&e),
    }
}
