//! Running slash commands: the informational ones print, the ones that
//! touch the conversation (`/chat`, `/restore`, `/memory`, `/init`) use
//! the agent while no request runs.

use super::app::App;
use super::chat;
use super::commands::{self, Command};
use super::panels;
use gemini_rs_core::agent::memory;
use gemini_rs_core::events::Op;

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

impl App {
    /// Runs a slash command line.
    pub(super) fn command(&mut self, line: &str) {
        let s = &mut self.state;
        match commands::parse(line) {
            Command::Help => s.push_lines(commands::help_lines()),
            Command::Shortcuts => s.push_lines(commands::shortcut_lines()),
            Command::About => {
                let lines =
                    commands::about_lines(&s.model, &self.ctx.info.session_id, &s.workspace_label);
                s.push_lines(lines);
            }
            Command::ChatList => {
                let dir = self.ctx.info.workspace.project_temp_dir();
                let lines =
                    chat::list_lines(&chat::list(dir), &chat::recorded_sessions(&dir.join("chats")));
                s.push_lines(lines);
            }
            Command::ChatSave(tag) => self.chat_save(&tag),
            Command::ChatResume(tag) => self.chat_resume(&tag),
            Command::ChatDelete(tag) => {
                match chat::delete(self.ctx.info.workspace.project_temp_dir(), &tag) {
                    Ok(true) => s.info(&format!("Conversation checkpoint '{tag}' has been deleted.")),
                    Ok(false) => s.error(&format!("Error: No checkpoint found with tag '{tag}'.")),
                    Err(e) => s.error(&format!("Could not delete checkpoint '{tag}': {e}")),
                }
            }
            Command::Clear => {
                if !self.agent_busy() {
                    self.clear_requested = true;
                    self.start_op(Op::Clear, "Clearing the conversation");
                }
            }
            Command::Compress => {
                if !self.agent_busy() {
                    self.start_op(Op::Compress, "Compressing the conversation");
                }
            }
            Command::Copy => {
                if s.last_answer.is_empty() {
                    s.info("No output in history to copy.");
                } else {
                    let b64 = commands::base64(s.last_answer.as_bytes());
                    self.osc = Some(format!("\x1b]52;c;{b64}\x07"));
                    s.info("Last answer copied to the clipboard (OSC 52).");
                }
            }
            Command::DirectoryShow => s.push_lines(panels::directory_lines(self.ctx.info.workspace.dirs())),
            Command::DirectoryAdd(paths) => s.warn(&format!(
                "Cannot add {paths} now: the workspace directories are fixed when the session starts \
                 (every tool, the sandbox and the MCP servers' roots share them). Start gemini-rs with \
                 --include-directories {paths}, or list it under context.includeDirectories in settings.json."
            )),
            Command::Hooks => {
                s.push_lines(panels::hooks_lines(self.ctx.info.hooks.as_ref()));
            }
            Command::Init => self.init(),
            Command::Mcp => {
                let (servers, failures) = panels::mcp_view(self.ctx.info.mcp.as_deref());
                s.push_lines(panels::mcp_lines(&servers, &failures));
            }
            Command::MemoryShow => {
                let settings = &self.ctx.info.settings;
                let names = settings.context_file_names();
                let max_dirs = settings
                    .context_discovery_max_dirs()
                    .unwrap_or(memory::DEFAULT_MAX_DIRS);
                let lines =
                    commands::memory_lines(&self.ctx.info.workspace, &self.ctx.paths, &names, max_dirs);
                s.push_lines(lines);
            }
            Command::MemoryAdd(fact) => self.start_memory(Some(fact)),
            Command::MemoryRefresh => self.start_memory(None),
            Command::Model => {
                let m = s.model.clone();
                s.info(&format!("Model: {m}"));
            }
            Command::Restore(id) => self.restore(id.as_deref()),
            Command::Quit => self.quit = true,
            Command::Stats => {
                let lines = commands::stats_lines(
                    &s.stats,
                    self.ctx.started.elapsed(),
                    &self.ctx.info.session_id,
                );
                s.push_lines(lines);
            }
            Command::Tools => s.push_lines(commands::tools_lines(Some(&self.ctx.info.tools))),
            Command::Usage(msg) => s.info(&msg),
            Command::Unknown(name) => s.warn(&format!("Unknown command: /{name}. Type /help.")),
        }
    }

    /// True (after saying so) when a request runs.
    fn agent_busy(&mut self) -> bool {
        if self.busy() {
            self.state.info("Wait for the current request to end.");
            return true;
        }
        false
    }

    fn chat_save(&mut self, tag: &str) {
        if !self.agent_busy() {
            self.start_op(
                Op::SaveChat {
                    tag: tag.to_string(),
                },
                "Saving the conversation",
            );
        }
    }

    fn chat_resume(&mut self, tag: &str) {
        if !self.agent_busy() {
            self.start_op(
                Op::ResumeChat {
                    tag: tag.to_string(),
                },
                "Resuming the conversation",
            );
        }
    }

    fn restore(&mut self, id: Option<&str>) {
        let Some(cp) = self.ctx.info.checkpointer.clone() else {
            self.state.info(
                "Checkpointing is off: set general.checkpointing.enabled to true in settings.json and restart to use /restore.",
            );
            return;
        };
        let Some(id) = id else {
            self.state
                .push_lines(panels::restore_list_lines(&cp.list()));
            return;
        };
        if !self.agent_busy() {
            self.start_op(
                Op::Restore { id: id.to_string() },
                "Restoring the checkpoint",
            );
        }
    }

    fn start_memory(&mut self, fact: Option<String>) {
        if self.agent_busy() {
            return;
        }
        let label = if fact.is_some() {
            "Saving to memory"
        } else {
            "Refreshing memory"
        };
        self.start_op(Op::RefreshMemory { fact }, label);
    }

    fn init(&mut self) {
        if self.agent_busy() {
            return;
        }
        let path = self.ctx.info.workspace.target_dir().join("GEMINI.md");
        if path.exists() {
            self.state
                .info("A GEMINI.md file already exists in this directory. No changes were made.");
            return;
        }
        if let Err(e) = std::fs::write(&path, "") {
            self.state
                .error(&format!("Could not create {}: {e}", path.display()));
            return;
        }
        self.state
            .info("Empty GEMINI.md created. Now analyzing the project to populate it.");
        self.send_prompt(INIT_PROMPT.to_string());
    }
}
