//! The slash commands about the user's setup rather than the conversation:
//! `/editor`, `/vim`, `/terminal-setup`, `/extensions`, `/policies`,
//! `/bug`, `/docs` and `/privacy`. They act at once, also while a request
//! runs.

use crate::settings_file::{FileScope, set_key};
use crate::ui::commands::args::Args;
use crate::ui::commands::{editor, extensions, policies, report, terminal_setup};
use crate::ui::control::App;
use serde_json::Value;

/// `/editor [name|none]`: the editors, or one chosen.
pub fn editor(app: &mut App, a: &Args) {
    let Some(name) = a.rest_opt() else {
        let path_var = editor::process_path();
        let lines = editor::list_lines(app.preferred_editor.as_deref(), &path_var);
        app.state.push_lines(lines);
        return;
    };
    let user_settings = app.ctx.info.paths().user_settings();
    match editor::choose(&user_settings, &name, &editor::process_path()) {
        Ok(note) => {
            app.preferred_editor = (name != "none").then_some(name);
            app.state.info(&note);
        }
        Err(e) => app.state.error(&e),
    }
}

/// `/vim`: vim editing of the prompt on or off, kept in the user settings.
pub fn vim(app: &mut App, _: &Args) {
    let user_settings = app.ctx.info.paths().user_settings();
    let s = &mut app.state;
    let on = !s.vim.enabled;
    s.vim.set_enabled(on);
    let note = if on {
        "Vim mode on: Esc for normal mode, i to insert. /vim again to leave it."
    } else {
        "Vim mode off."
    };
    s.info(note);
    let saved = set_key(
        &user_settings,
        FileScope::User,
        "general.vimMode",
        Some(Value::Bool(on)),
    );
    match saved {
        Ok(Some(lost)) => s.warn(&lost),
        Ok(None) => {}
        Err(e) => s.error(&format!("Vim mode is not kept for the next session: {e}")),
    }
}

/// `/terminal-setup`: Shift+Enter keybindings in VS Code-like editors.
pub fn terminal_setup(app: &mut App, _: &Args) {
    let var = |k: &str| std::env::var(k).ok();
    let parent = terminal_setup::parent_name();
    let home = app.ctx.info.paths().home.clone();
    let s = &mut app.state;
    match terminal_setup::detect(&var, parent.as_deref()) {
        Some(terminal) => match terminal_setup::configure(&home, terminal) {
            Ok(note) => s.info(&note),
            Err(e) => s.error(&e),
        },
        None => s.info(terminal_setup::UNDETECTED),
    }
}

/// `/extensions [list]`, `/extensions enable|disable <name> [--scope s]`.
pub fn extensions(app: &mut App, a: &Args) {
    let view = app.ctx.info.clone();
    let s = &mut app.state;
    match a.sub() {
        None | Some("list") => {
            let list = gemini_rs_core::list_extensions(view.paths(), view.root());
            s.push_lines(extensions::list_lines(&list));
        }
        Some(which @ ("enable" | "disable")) => {
            let Some((name, scope)) = extension_switch(&a.arg()) else {
                s.info(EXTENSIONS_USAGE);
                return;
            };
            let on = which == "enable";
            let list = gemini_rs_core::list_extensions(view.paths(), view.root());
            match extensions::switch(view.paths(), view.root(), &list, &name, on, &scope) {
                Ok(note) => s.info(&note),
                Err(e) => s.error(&e),
            }
        }
        Some(_) => s.info(EXTENSIONS_USAGE),
    }
}

const EXTENSIONS_USAGE: &str = "Usage: /extensions list | enable <name> [--scope user|workspace] | disable <name> [--scope user|workspace]";

/// `<name> [--scope user|workspace]` (`--scope=...` too): the name and
/// the scope, `None` when the words do not fit.
fn extension_switch(args: &str) -> Option<(String, String)> {
    let mut words = args.split_whitespace();
    let (mut name, mut scope) = (None, "user".to_string());
    while let Some(w) = words.next() {
        if let Some(s) = w.strip_prefix("--scope=") {
            scope = s.to_string();
        } else if w == "--scope" {
            scope = words.next()?.to_string();
        } else if name.is_none() {
            name = Some(w.to_string());
        } else {
            return None;
        }
    }
    Some((name?, scope))
}

/// `/policies [list]`.
pub fn policies(app: &mut App, a: &Args) {
    match a.sub() {
        None | Some("list") => {
            let lines = policies::lines(&app.ctx.info.policies());
            app.state.push_lines(lines);
        }
        Some(_) => app.state.info("Usage: /policies list"),
    }
}

/// `/bug [description]`: a report to paste, without secrets.
pub fn bug(app: &mut App, a: &Args) {
    let view = app.ctx.info.clone();
    let s = &mut app.state;
    let description = a.rest();
    let settings = view.settings();
    let facts = report::BugFacts {
        description: &description,
        session_id: view.session_id(),
        model: &s.model,
        provider: view.model_provider(&s.model),
        auth_type: view.gemini_auth_type(),
        settings: settings.as_value(),
        url_template: settings
            .typed()
            .advanced
            .bug_command
            .as_ref()
            .and_then(|b| b.url_template.as_deref()),
        terminal: std::env::var("TERM_PROGRAM")
            .or_else(|_| std::env::var("TERM"))
            .ok(),
        theme: crate::ui::theme::current().name,
    };
    let text = report::bug_report(&facts);
    s.info(&text);
}

/// `/docs`.
pub fn docs(app: &mut App, _: &Args) {
    app.state.info(report::DOCS);
}

/// `/privacy`: where prompts go for the model in use.
pub fn privacy(app: &mut App, _: &Args) {
    let view = &app.ctx.info;
    let provider = view.model_provider(&app.state.model);
    let auth = view.gemini_auth_type();
    let notice = report::privacy_notice(provider.as_ref(), auth.as_deref());
    app.state.info(&notice);
}

#[cfg(test)]
mod tests {
    use super::extension_switch;

    #[test]
    fn extension_switches_read_name_and_scope() {
        let pair = |n: &str, s: &str| Some((n.to_string(), s.to_string()));
        assert_eq!(
            extension_switch("ext1 --scope workspace"),
            pair("ext1", "workspace")
        );
        assert_eq!(extension_switch("ext1"), pair("ext1", "user"));
        assert_eq!(
            extension_switch("ext1 --scope=workspace"),
            pair("ext1", "workspace")
        );
        assert_eq!(extension_switch(""), None);
        assert_eq!(extension_switch("a b"), None);
        assert_eq!(extension_switch("a --scope"), None);
    }
}
