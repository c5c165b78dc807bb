//! Running slash commands: the informational ones print, the ones that
//! touch the conversation (`/chat`, `/restore`, `/memory`, `/init`,
//! `/clear`, `/compress`) send their op to the session while no request
//! runs.

use crate::ui::commands::args::Args;
use crate::ui::commands::dialog::Dialog;
use crate::ui::commands::rewind::RewindPanel;
use crate::ui::commands::{chat, info, panels};
use crate::ui::control::App;
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

/// `/chat list|save|resume|delete|share`; bare `/chat` browses the
/// recorded sessions, as `/resume` does.
pub fn chat(app: &mut App, a: &Args) {
    let tag = a.arg();
    let missing = |verb: &str| format!("Missing tag. Usage: /chat {verb} <tag>");
    match a.sub() {
        Some("list") => {
            let view = &app.ctx.info;
            let sessions = gemini_rs_core::list_sessions(view.paths(), view.root());
            let lines = chat::list_lines(&view.saved_chats(), &sessions);
            app.state.push_lines(lines);
        }
        Some("save") if tag.is_empty() => app.state.info(&missing("save")),
        Some("save") => chat_save(app, &tag),
        Some("resume" | "load") if tag.is_empty() => app.state.info(&missing("resume")),
        Some("resume" | "load") => chat_resume(app, &tag),
        Some("share") => chat_share(app, Some(tag).filter(|f| !f.is_empty())),
        Some("delete") if tag.is_empty() => app.state.info(&missing("delete")),
        Some("delete") => chat_delete(app, &tag),
        None => crate::ui::resume::command(app, None),
        Some(_) => app
            .state
            .info("Usage: /chat list | save <tag> | resume <tag> | delete <tag> | share <file>"),
    }
}

/// Which `/chat` lines work on the conversation.
pub fn chat_waits(a: &Args) -> bool {
    match a.sub() {
        Some("save" | "resume" | "load") => !a.arg().is_empty(),
        Some("share") => true,
        _ => false,
    }
}

fn chat_delete(app: &mut App, tag: &str) {
    let s = &mut app.state;
    match app.ctx.info.delete_saved_chat(tag) {
        Ok(true) => s.info(&format!(
            "Conversation checkpoint '{tag}' has been deleted."
        )),
        Ok(false) => s.error(&format!("Error: No checkpoint found with tag '{tag}'.")),
        Err(e) => s.error(&format!("Could not delete checkpoint '{tag}': {e}")),
    }
}

/// `/resume [number or id]`.
pub fn resume(app: &mut App, a: &Args) {
    crate::ui::resume::command(app, a.rest_opt().as_deref());
}

/// `/clear` (`/new`).
pub fn clear(app: &mut App, _: &Args) {
    if !agent_busy(app) {
        app.clear_requested = true;
        app.start_op(Op::Clear, "Clearing the conversation");
    }
}

/// `/mcp`, `/mcp auth <server>`.
pub fn mcp(app: &mut App, a: &Args) {
    let server = a.arg();
    match a.sub() {
        Some("auth") if server.is_empty() => app.state.info("Usage: /mcp auth <server>"),
        Some("auth") => {
            if !agent_busy(app) {
                let label = format!("Logging in to {server}");
                app.start_op(Op::McpAuth { server }, &label);
            }
        }
        _ => {
            let lines = panels::mcp_lines(&app.ctx.info.mcp_servers());
            app.state.push_lines(lines);
        }
    }
}

/// `/compress` (`/summarize`).
pub fn compress(app: &mut App, _: &Args) {
    if !agent_busy(app) {
        app.start_op(Op::Compress, "Compressing the conversation");
    }
}

/// `/copy`: the last answer through OSC 52.
pub fn copy(app: &mut App, _: &Args) {
    let s = &mut app.state;
    if s.last_answer.is_empty() {
        s.info("No output in history to copy.");
    } else {
        app.osc = Some(crate::ui::term::osc52_copy(&s.last_answer));
        s.info("Last answer copied to the clipboard (OSC 52).");
    }
}

/// `/export-session <file>`, relative to the project.
pub fn export_session(app: &mut App, a: &Args) {
    let file = a.rest();
    let s = &mut app.state;
    if file.is_empty() {
        s.info("Usage: /export-session <file>, for example /export-session ./session.json");
        return;
    }
    let view = &app.ctx.info;
    let dest = view.root().join(&file);
    match gemini_rs_core::export_session(view.paths(), view.root(), view.session_id(), &dest) {
        Ok(path) => s.info(&format!("Session exported to {}.", path.display())),
        Err(e) => s.error(&format!("Could not export the session: {e}")),
    }
}

/// `/directory show|add <path>[,<path>...]` (`/dir`).
pub fn directory(app: &mut App, a: &Args) {
    let paths = a.arg();
    match a.sub() {
        Some("show") | None => {
            let lines = panels::directory_lines(&app.ctx.info.workspace_dirs());
            app.state.push_lines(lines);
        }
        Some("add") if paths.is_empty() => {
            app.state.info("Please provide at least one path to add.");
        }
        Some("add") => {
            if !agent_busy(app) {
                let paths = paths.split(',').map(str::to_string).collect();
                app.start_op(Op::AddDirectories { paths }, "Adding directories");
            }
        }
        Some(_) => app
            .state
            .info("Usage: /directory show | add <path>[,<path>...]"),
    }
}

/// `/memory show|add <fact>|refresh`.
pub fn memory(app: &mut App, a: &Args) {
    let fact = a.arg();
    match a.sub() {
        Some("show") | None => {
            let lines = info::memory_lines(&app.ctx.info.context_files());
            app.state.push_lines(lines);
        }
        Some("add") if fact.is_empty() => app.state.info("Usage: /memory add <text to remember>"),
        Some("add") => start_memory(app, Some(fact)),
        Some("refresh") => start_memory(app, None),
        Some(_) => app.state.info("Usage: /memory show | add <fact> | refresh"),
    }
}

/// `/shells [list]`, `/shells stop|kill <pid>` (`/bashes`, `/tasks`).
pub fn shells(app: &mut App, a: &Args) {
    match a.sub() {
        None | Some("list") => {
            let lines = panels::shells_lines(&app.ctx.info.background_processes(SHELL_LINES));
            app.state.push_lines(lines);
        }
        Some("stop" | "kill") => match a.arg().parse() {
            // Acts at once, also while a request runs; the session reports
            // how it went.
            Ok(pid) => {
                if !app.ctx.ops.submit(Op::StopBackgroundProcess { pid }) {
                    app.state.error("The session has ended.");
                }
            }
            Err(_) => app.state.info("Usage: /shells stop <pid>"),
        },
        Some(_) => app.state.info("Usage: /shells | /shells stop <pid>"),
    }
}

/// `/rewind`: the panel of earlier prompts.
pub fn rewind(app: &mut App, _: &Args) {
    if app.state.prompts.is_empty() {
        app.state.info("Nothing to rewind to.");
    } else if !agent_busy(app) {
        let panel = RewindPanel::new(&app.state.prompts);
        app.state.dialog = Some(Dialog::Rewind(panel));
    }
}

/// `/agents [list]`, `/agents acknowledge`.
pub fn agents(app: &mut App, a: &Args) {
    match a.sub() {
        None | Some("list") => {
            let lines = info::agents_lines(&app.ctx.info.agents());
            app.state.push_lines(lines);
        }
        Some("acknowledge") => {
            if app.ctx.info.agents().unacknowledged.is_empty() {
                app.state
                    .info("No project agents wait for acknowledgement.");
            } else if !agent_busy(app) {
                app.start_op(Op::AcknowledgeAgents, "Acknowledging the project agents");
            }
        }
        Some(_) => app.state.info("Usage: /agents list | acknowledge"),
    }
}

/// `/commands reload`: the files read again; unusable ones are named.
pub(super) fn reload_commands(app: &mut App) {
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

/// `/restore [id]`: the checkpoints, or one restored.
pub fn restore(app: &mut App, a: &Args) {
    let id = a.sub();
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

/// `/init`: an empty GEMINI.md, then the prompt that fills it.
pub fn init(app: &mut App, _: &Args) {
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
pub(super) fn switch_skill(
    path: &std::path::Path,
    name: &str,
    enable: bool,
) -> Result<String, String> {
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
