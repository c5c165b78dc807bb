//! The slash commands about the user's setup rather than the conversation:
//! `/editor`, `/vim`, `/terminal-setup`, `/extensions`, `/policies`,
//! `/bug`, `/docs` and `/privacy`. They act at once, also while a request
//! runs.

use crate::settings_file::{FileScope, set_key};
use crate::ui::commands::parse::Command;
use crate::ui::commands::{editor, extensions, policies, report, terminal_setup};
use crate::ui::control::App;
use serde_json::Value;

/// Runs one of this module's commands (others are ignored).
pub fn command(app: &mut App, cmd: Command) {
    let view = app.ctx.info.clone();
    let user_settings = view.paths().user_settings();
    let s = &mut app.state;
    match cmd {
        Command::Editor(None) => {
            let path_var = editor::process_path();
            s.push_lines(editor::list_lines(
                app.preferred_editor.as_deref(),
                &path_var,
            ));
        }
        Command::Editor(Some(name)) => {
            match editor::choose(&user_settings, &name, &editor::process_path()) {
                Ok(note) => {
                    app.preferred_editor = (name != "none").then_some(name);
                    s.info(&note);
                }
                Err(e) => s.error(&e),
            }
        }
        Command::Vim => {
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
        Command::TerminalSetup => {
            let var = |k: &str| std::env::var(k).ok();
            let parent = terminal_setup::parent_name();
            match terminal_setup::detect(&var, parent.as_deref()) {
                Some(terminal) => match terminal_setup::configure(&view.paths().home, terminal) {
                    Ok(note) => s.info(&note),
                    Err(e) => s.error(&e),
                },
                None => s.info(terminal_setup::UNDETECTED),
            }
        }
        Command::Extensions => {
            let list = gemini_rs_core::list_extensions(view.paths(), view.root());
            s.push_lines(extensions::list_lines(&list));
        }
        Command::ExtensionSwitch(on, name, scope) => {
            let list = gemini_rs_core::list_extensions(view.paths(), view.root());
            match extensions::switch(view.paths(), view.root(), &list, &name, on, &scope) {
                Ok(note) => s.info(&note),
                Err(e) => s.error(&e),
            }
        }
        Command::Policies => s.push_lines(policies::lines(&view.policies())),
        Command::Bug(description) => {
            let settings = view.settings();
            let facts = report::BugFacts {
                description: &description,
                session_id: view.session_id(),
                model: &s.model,
                provider: view.model_provider(&s.model),
                auth_type: view.gemini_auth_type(),
                settings: settings.as_value(),
                url_template: settings
                    .get("advanced.bugCommand.urlTemplate")
                    .and_then(Value::as_str),
                terminal: std::env::var("TERM_PROGRAM")
                    .or_else(|_| std::env::var("TERM"))
                    .ok(),
                theme: crate::ui::theme::current().name,
            };
            let text = report::bug_report(&facts);
            s.info(&text);
        }
        Command::Docs => s.info(report::DOCS),
        Command::Privacy => {
            let provider = view.model_provider(&s.model);
            let auth = view.gemini_auth_type();
            s.info(&report::privacy_notice(provider.as_ref(), auth.as_deref()));
        }
        _ => {}
    }
}
