//! Running slash commands: the informational ones print, the ones that
//! touch the conversation (`/chat`, `/restore`, `/memory`, `/init`,
//! `/clear`, `/compress`) send their op to the session while no request
//! runs.

use crate::ui::commands::dialog::Dialog;
use crate::ui::commands::parse::{Command, parse};
use crate::ui::commands::rewind::RewindPanel;
use crate::ui::commands::settings::SettingsPanel;
use crate::ui::commands::{chat, info, panels};
use crate::ui::control::{App, Picker};
use gemini_rs_protocol::events::Op;

/// The prompt `/init` sends (ours; Gemini CLI's asks the same).
pub const INIT_PROMPT: &str = "You are setting up instructional context for future sessions in this project. \
Analyse the current directory and write a GEMINI.md file at the project root that helps an AI coding agent work here.

1. Explore first: list the top-level files and directories, then read the key files (README, build manifests such as \
package.json, Cargo.toml, pyproject.toml, go.mod or Makefile, the main entry points and configuration). Read at most \
about ten files; do not guess what you have not seen.
2. Decide what kind of project it is (a code project, or documentation, notes, data).
3. Write GEMINI.md with the write_file tool. For a code project include: a project overview (purpose, main \
technologies, architecture), how to build, run and test it (exact commands, marked TODO where you could not find \
them), and the development conventions you observed (style, testing, contribution rules). For any other project \
describe its purpose, layout and how its contents are used.

Keep it concise and factual, in Markdown. GEMINI.md exists and is empty: overwrite it.";

/// Lines of each background command's log `/shells` shows.
const SHELL_LINES: usize = 5;

/// Runs a slash command line.
pub fn command(app: &mut App, line: &str) {
    let s = &mut app.state;
    match parse(line) {
        cmd @ (Command::Help
        | Command::Shortcuts
        | Command::About
        | Command::ChatList
        | Command::DirectoryShow
        | Command::Hooks
        | Command::Shells
        | Command::CommandsList
        | Command::Mcp
        | Command::MemoryShow
        | Command::Stats
        | Command::Tools
        | Command::Skills
        | Command::Agents) => listing(app, cmd),
        cmd @ (Command::ChatDelete(_)
        | Command::Clear
        | Command::McpAuth(_)
        | Command::Compress
        | Command::Copy
        | Command::ExportSession(_)
        | Command::DirectoryAdd(_)
        | Command::ShellStop(_)
        | Command::Rewind
        | Command::AgentsAcknowledge) => session_op(app, cmd),
        Command::ChatSave(tag) => chat_save(app, &tag),
        Command::ChatResume(tag) => chat_resume(app, &tag),
        Command::ChatShare(file) => chat_share(app, file),
        Command::Resume(which) => crate::ui::resume::command(app, which.as_deref()),
        Command::Init => init(app),
        Command::Plan(goal) => crate::ui::handlers::plan::run(app, goal),
        Command::PlanCopy => crate::ui::handlers::plan::copy(app),
        Command::CommandsReload => reload_commands(app),
        Command::PermissionsTrust(arg) => {
            use crate::ui::commands::permissions::{TrustPanel, folder};
            let view = &app.ctx.info;
            match folder(arg.as_deref(), view.root(), &view.paths().home) {
                Ok(dir) => s.dialog = Some(Dialog::Trust(TrustPanel::new(dir, view.paths()))),
                Err(e) => s.error(&e),
            }
        }
        Command::MemoryAdd(fact) => start_memory(app, Some(fact)),
        Command::MemoryRefresh => start_memory(app, None),
        Command::Model(Some(name)) => crate::ui::handlers::model::switch(app, &name),
        Command::Model(None) => app.picker_request = Some(Picker::Model),
        Command::Auth => app.picker_request = Some(Picker::Auth),
        Command::Restore(id) => restore(app, id.as_deref()),
        Command::Theme(None) => {
            let view = &app.ctx.info;
            let user = view.paths().user_settings();
            let workspace = view.paths().workspace_settings(view.root());
            let panel = crate::ui::commands::theme::ThemePanel::new(user, workspace);
            s.dialog = Some(Dialog::Theme(panel));
        }
        Command::Settings => {
            let view = &app.ctx.info;
            let user = view.paths().user_settings();
            let workspace = view.paths().workspace_settings(view.root());
            match SettingsPanel::open(user, workspace) {
                Ok(panel) => s.dialog = Some(Dialog::Settings(panel)),
                Err(e) => s.error(&e),
            }
        }
        Command::Quit => app.quit = true,
        Command::SkillSwitch(enable, name) => {
            let path = app.ctx.info.paths().user_settings();
            match switch_skill(&path, &name, enable) {
                Ok(note) => s.info(&note),
                Err(e) => s.error(&e),
            }
        }
        Command::Theme(Some(name)) => {
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
        cmd @ (Command::Bug(_)
        | Command::Docs
        | Command::Editor(_)
        | Command::Extensions
        | Command::ExtensionSwitch(..)
        | Command::Policies
        | Command::Privacy
        | Command::TerminalSetup
        | Command::Vim) => crate::ui::handlers::preferences::command(app, cmd),
        Command::Usage(msg) => s.info(&msg),
        Command::Unknown(name) => {
            // A custom command: the session expands it.
            if app.ctx.info.commands().iter().any(|c| c.name == name) {
                app.send_prompt(line.to_string());
            } else {
                s.warn(&format!("Unknown command: /{name}. Type /help."));
            }
        }
    }
}

/// The commands that show a listing or a panel of the session's parts.
fn listing(app: &mut App, cmd: Command) {
    let s = &mut app.state;
    match cmd {
        Command::Help => s.push_lines(info::help_lines(&app.ctx.info.commands())),
        Command::Shortcuts => s.push_lines(info::shortcut_lines()),
        Command::About => {
            let lines = info::about_lines(&s.model, app.ctx.info.session_id(), &s.workspace_label);
            s.push_lines(lines);
        }
        Command::ChatList => {
            let view = &app.ctx.info;
            let sessions = gemini_rs_core::list_sessions(view.paths(), view.root());
            let lines = chat::list_lines(&view.saved_chats(), &sessions);
            s.push_lines(lines);
        }
        Command::DirectoryShow => {
            s.push_lines(panels::directory_lines(&app.ctx.info.workspace_dirs()))
        }
        Command::Hooks => {
            s.push_lines(panels::hooks_lines(&app.ctx.info.hooks()));
        }
        Command::Shells => {
            s.push_lines(panels::shells_lines(
                &app.ctx.info.background_processes(SHELL_LINES),
            ));
        }
        Command::CommandsList => {
            let folders = app.ctx.info.command_folders();
            s.push_lines(crate::ui::commands::custom::list_lines(&folders));
        }
        Command::Mcp => {
            s.push_lines(panels::mcp_lines(&app.ctx.info.mcp_servers()));
        }
        Command::MemoryShow => s.push_lines(info::memory_lines(&app.ctx.info.context_files())),
        Command::Stats => {
            let lines = info::stats_lines(
                &s.stats,
                app.ctx.started.elapsed(),
                app.ctx.info.session_id(),
            );
            s.push_lines(lines);
        }
        Command::Tools => s.push_lines(info::tools_lines(&app.ctx.info.tools())),
        Command::Skills => s.push_lines(info::skills_lines(&app.ctx.info.skills())),
        Command::Agents => s.push_lines(info::agents_lines(&app.ctx.info.agents())),
        // The caller sends only the commands above.
        other => tracing::debug!("not a listing: {other:?}"),
    }
}

/// The commands that act on the session (most wait for a running request
/// to end; `/copy` and `/shells stop` act at once).
fn session_op(app: &mut App, cmd: Command) {
    let s = &mut app.state;
    match cmd {
        Command::ChatDelete(tag) => match app.ctx.info.delete_saved_chat(&tag) {
            Ok(true) => s.info(&format!(
                "Conversation checkpoint '{tag}' has been deleted."
            )),
            Ok(false) => s.error(&format!("Error: No checkpoint found with tag '{tag}'.")),
            Err(e) => s.error(&format!("Could not delete checkpoint '{tag}': {e}")),
        },
        Command::Clear => {
            if !agent_busy(app) {
                app.clear_requested = true;
                app.start_op(Op::Clear, "Clearing the conversation");
            }
        }
        Command::McpAuth(server) => {
            if !agent_busy(app) {
                let label = format!("Logging in to {server}");
                app.start_op(Op::McpAuth { server }, &label);
            }
        }
        Command::Compress => {
            if !agent_busy(app) {
                app.start_op(Op::Compress, "Compressing the conversation");
            }
        }
        Command::Copy => {
            if s.last_answer.is_empty() {
                s.info("No output in history to copy.");
            } else {
                app.osc = Some(crate::ui::term::osc52_copy(&s.last_answer));
                s.info("Last answer copied to the clipboard (OSC 52).");
            }
        }
        Command::ExportSession(file) => {
            let view = &app.ctx.info;
            let dest = view.root().join(&file);
            match gemini_rs_core::export_session(
                view.paths(),
                view.root(),
                view.session_id(),
                &dest,
            ) {
                Ok(path) => s.info(&format!("Session exported to {}.", path.display())),
                Err(e) => s.error(&format!("Could not export the session: {e}")),
            }
        }
        Command::DirectoryAdd(paths) => {
            if !agent_busy(app) {
                let paths = paths.split(',').map(str::to_string).collect();
                app.start_op(Op::AddDirectories { paths }, "Adding directories");
            }
        }
        Command::ShellStop(pid) => {
            // Acts at once, also while a request runs; the session reports
            // how it went.
            if !app.ctx.ops.submit(Op::StopBackgroundProcess { pid }) {
                s.error("The session has ended.");
            }
        }
        Command::Rewind => {
            if s.prompts.is_empty() {
                s.info("Nothing to rewind to.");
            } else if !agent_busy(app) {
                let panel = RewindPanel::new(&app.state.prompts);
                app.state.dialog = Some(Dialog::Rewind(panel));
            }
        }
        Command::AgentsAcknowledge => {
            if app.ctx.info.agents().unacknowledged.is_empty() {
                s.info("No project agents wait for acknowledgement.");
            } else if !agent_busy(app) {
                app.start_op(Op::AcknowledgeAgents, "Acknowledging the project agents");
            }
        }
        // The caller sends only the commands above.
        other => tracing::debug!("not a session command: {other:?}"),
    }
}

/// `/commands reload`: the files read again; unusable ones are named.
fn reload_commands(app: &mut App) {
    let warnings = app.ctx.info.reload_commands();
    for w in &warnings {
        app.state.warn(w);
    }
    let count = app.ctx.info.commands().len();
    app.state
        .info(&format!("Custom commands reloaded ({count} available)."));
}

/// True (after saying so) when a request runs.
fn agent_busy(app: &mut App) -> bool {
    if app.busy() {
        app.state.info("Wait for the current request to end.");
        return true;
    }
    false
}

fn chat_save(app: &mut App, tag: &str) {
    if !agent_busy(app) {
        app.start_op(
            Op::SaveChat {
                tag: tag.to_string(),
            },
            "Saving the conversation",
        );
    }
}

/// `/chat share`: the file relative to the project root; without one,
/// `gemini-conversation-<ms>.json` as Gemini CLI 0.61 names it.
fn chat_share(app: &mut App, file: Option<String>) {
    let file = file.unwrap_or_else(|| {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        format!("gemini-conversation-{ms}.json")
    });
    let path = app.ctx.info.root().join(file);
    if !agent_busy(app) {
        app.start_op(Op::ShareChat { path }, "Sharing the conversation");
    }
}

fn chat_resume(app: &mut App, tag: &str) {
    if !agent_busy(app) {
        if let Some(history) = app.ctx.info.saved_chat(tag) {
            crate::ui::resume::push_history(&mut app.state, &history);
        }
        app.start_op(
            Op::ResumeChat {
                tag: tag.to_string(),
            },
            "Resuming the conversation",
        );
    }
}

fn restore(app: &mut App, id: Option<&str>) {
    if !app.ctx.info.checkpointing() {
        app.state.info(
            "Checkpointing is off: set general.checkpointing.enabled to true in settings.json and restart to use /restore.",
        );
        return;
    }
    let Some(id) = id else {
        let list = app.ctx.info.checkpoints();
        app.state.push_lines(panels::restore_list_lines(&list));
        return;
    };
    if !agent_busy(app) {
        app.start_op(
            Op::Restore { id: id.to_string() },
            "Restoring the checkpoint",
        );
    }
}

fn start_memory(app: &mut App, fact: Option<String>) {
    if agent_busy(app) {
        return;
    }
    let label = if fact.is_some() {
        "Saving to memory"
    } else {
        "Refreshing memory"
    };
    app.start_op(Op::RefreshMemory { fact }, label);
}

fn init(app: &mut App) {
    if agent_busy(app) {
        return;
    }
    let path = app.ctx.info.root().join("GEMINI.md");
    if path.exists() {
        app.state
            .info("A GEMINI.md file already exists in this directory. No changes were made.");
        return;
    }
    if let Err(e) = std::fs::write(&path, "") {
        app.state
            .error(&format!("Could not create {}: {e}", path.display()));
        return;
    }
    app.state
        .info("Empty GEMINI.md created. Now analyzing the project to populate it.");
    app.send_prompt(INIT_PROMPT.to_string());
}

/// Adds `name` to (or removes it from) `skills.disabled` in the user
/// settings file; the message to show. Skills are read when a session
/// starts, so the change applies to the next one.
fn switch_skill(path: &std::path::Path, name: &str, enable: bool) -> Result<String, String> {
    use crate::settings_file::{FileScope, comments_note, read, write};
    use serde_json::Value;
    let mut file = read(path, FileScope::User)?;
    let skills = file
        .value
        .entry("skills")
        .or_insert_with(|| Value::Object(Default::default()));
    let Some(skills) = skills.as_object_mut() else {
        return Err(format!("skills in {} is not an object.", path.display()));
    };
    let disabled = skills
        .entry("disabled")
        .or_insert_with(|| Value::Array(Vec::new()));
    let Some(list) = disabled.as_array_mut() else {
        return Err(format!(
            "skills.disabled in {} is not a list.",
            path.display()
        ));
    };
    list.retain(|v| v.as_str().is_none_or(|s| !s.eq_ignore_ascii_case(name)));
    if !enable {
        list.push(Value::String(name.to_string()));
    }
    write(&file)?;
    let what = if enable { "enabled" } else { "disabled" };
    let mut note = format!(
        "Skill \"{name}\" {what} in {}; new sessions use it.",
        path.display()
    );
    if let Some(extra) = comments_note(&file) {
        note.push('\n');
        note.push_str(&extra);
    }
    Ok(note)
}

#[cfg(test)]
mod skill_tests {
    use super::switch_skill;

    #[test]
    fn skills_are_switched_in_the_user_settings() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join(".gemini/settings.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r#"{"model": {"name": "gemini-2.5-flash"}}"#).unwrap();
        let note = switch_skill(&path, "pdf", false).unwrap();
        assert!(note.contains("disabled"), "{note}");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["skills"]["disabled"], serde_json::json!(["pdf"]));
        assert_eq!(v["model"]["name"], "gemini-2.5-flash");
        switch_skill(&path, "PDF", true).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["skills"]["disabled"], serde_json::json!([]));
    }
}
