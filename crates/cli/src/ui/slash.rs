//! Running slash commands: the informational ones print, the ones that
//! touch the conversation (`/chat`, `/restore`, `/memory`, `/init`) use
//! the agent while no request runs.

use super::app::{App, JobOutput};
use super::chat;
use super::commands::{self, Command};
use super::panels;
use gemini_rs_core::agent::memory;
use gemini_rs_core::config::{GeminiPaths, Settings};
use gemini_rs_core::tools::builtin::MemoryTool;
use gemini_rs_core::tools::{Tool, ToolContext, ToolDisplay};
use gemini_rs_core::workspace::Workspace;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

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

/// Loads the context files now: (file count, formatted text).
fn load_context(
    workspace: &Workspace,
    settings: &Settings,
    paths: &GeminiPaths,
) -> (usize, String) {
    memory::context_from_settings(workspace, settings, &paths.gemini_dir, &paths.home)
}

/// Runs `/memory add` (when `fact`) and reloads the context files.
async fn memory_job(
    fact: Option<String>,
    workspace: Arc<Workspace>,
    settings: Arc<Settings>,
    paths: GeminiPaths,
    model: String,
) -> Result<(Option<String>, usize, String), String> {
    let mut saved = None;
    if let Some(fact) = fact {
        let mut ctx = ToolContext::new(workspace.clone(), settings.clone(), model);
        ctx.gemini_dir = paths.gemini_dir.clone();
        let mut args = serde_json::Map::new();
        args.insert("fact".into(), Value::String(fact.clone()));
        let invocation = MemoryTool.build(&args, &ctx).map_err(|e| e.message)?;
        let result = invocation.execute(&ctx, CancellationToken::new()).await;
        if let Some(e) = result.error {
            return Err(e.message);
        }
        saved = Some(match result.display {
            ToolDisplay::Text(t) if !t.trim().is_empty() => t,
            _ => format!("Okay, I've remembered that: \"{fact}\""),
        });
    }
    let (count, text) = load_context(&workspace, &settings, &paths);
    Ok((saved, count, text))
}

impl App {
    /// Runs a slash command line.
    pub(super) fn command(&mut self, line: &str) {
        let s = &mut self.state;
        match commands::parse(line) {
            Command::Help => s.push_lines(commands::help_lines()),
            Command::Shortcuts => s.push_lines(commands::shortcut_lines()),
            Command::About => {
                let lines =
                    commands::about_lines(&s.model, &self.ctx.session_id, &s.workspace_label);
                s.push_lines(lines);
            }
            Command::ChatList => {
                let dir = self.ctx.workspace.project_temp_dir();
                let lines =
                    chat::list_lines(&chat::list(dir), &chat::recorded_sessions(&dir.join("chats")));
                s.push_lines(lines);
            }
            Command::ChatSave(tag) => self.chat_save(&tag),
            Command::ChatResume(tag) => self.chat_resume(&tag),
            Command::ChatDelete(tag) => {
                match chat::delete(self.ctx.workspace.project_temp_dir(), &tag) {
                    Ok(true) => s.info(&format!("Conversation checkpoint '{tag}' has been deleted.")),
                    Ok(false) => s.error(&format!("Error: No checkpoint found with tag '{tag}'.")),
                    Err(e) => s.error(&format!("Could not delete checkpoint '{tag}': {e}")),
                }
            }
            Command::Clear => {
                self.clear_requested = true;
                self.start_clear();
            }
            Command::Compress => self.start_compress(),
            Command::Copy => {
                if s.last_answer.is_empty() {
                    s.info("No output in history to copy.");
                } else {
                    let b64 = commands::base64(s.last_answer.as_bytes());
                    self.osc = Some(format!("\x1b]52;c;{b64}\x07"));
                    s.info("Last answer copied to the clipboard (OSC 52).");
                }
            }
            Command::DirectoryShow => s.push_lines(panels::directory_lines(self.ctx.workspace.dirs())),
            Command::DirectoryAdd(paths) => s.warn(&format!(
                "Cannot add {paths} now: the workspace directories are fixed when the session starts \
                 (every tool, the sandbox and the MCP servers' roots share them). Start gemini-rs with \
                 --include-directories {paths}, or list it under context.includeDirectories in settings.json."
            )),
            Command::Hooks => {
                let config = self.ctx.hooks.as_ref().map(|h| h.config());
                s.push_lines(panels::hooks_lines(config));
            }
            Command::Init => self.init(),
            Command::Mcp => {
                let (servers, failures) = panels::mcp_view(self.ctx.mcp.as_deref());
                s.push_lines(panels::mcp_lines(&servers, &failures));
            }
            Command::MemoryShow => {
                let settings = &self.ctx.settings;
                let names = settings.context_file_names();
                let max_dirs = settings
                    .context_discovery_max_dirs()
                    .unwrap_or(memory::DEFAULT_MAX_DIRS);
                let lines =
                    commands::memory_lines(&self.ctx.workspace, &self.ctx.paths, &names, max_dirs);
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
                let stats = self
                    .ctx
                    .stats
                    .lock()
                    .map(|st| st.clone())
                    .unwrap_or_default();
                let lines =
                    commands::stats_lines(&stats, self.ctx.started.elapsed(), &self.ctx.session_id);
                s.push_lines(lines);
            }
            Command::Tools => s.push_lines(commands::tools_lines(self.ctx.tools.as_deref())),
            Command::Usage(msg) => s.info(&msg),
            Command::Unknown(name) => s.warn(&format!("Unknown command: /{name}. Type /help.")),
        }
    }

    /// True (after saying so) when a request runs and the agent is away.
    fn agent_busy(&mut self) -> bool {
        if self.busy() || self.agent.is_none() {
            self.state.info("Wait for the current request to end.");
            return true;
        }
        false
    }

    fn chat_save(&mut self, tag: &str) {
        if self.agent_busy() {
            return;
        }
        let Some(agent) = self.agent.as_ref() else {
            return;
        };
        let history = agent.history();
        if history.len() <= 1 {
            self.state.info("No conversation found to save.");
            return;
        }
        match chat::save(self.ctx.workspace.project_temp_dir(), tag, history) {
            Ok(false) => self
                .state
                .info(&format!("Conversation checkpoint saved with tag: {tag}.")),
            Ok(true) => self.state.info(&format!(
                "Conversation checkpoint saved with tag: {tag} (it replaced the previous one)."
            )),
            Err(e) => self
                .state
                .error(&format!("Could not save the conversation: {e}")),
        }
    }

    fn chat_resume(&mut self, tag: &str) {
        if self.agent_busy() {
            return;
        }
        match chat::load(self.ctx.workspace.project_temp_dir(), tag) {
            Ok(Some(history)) if !history.is_empty() => {
                let n = history.len();
                if let Some(agent) = self.agent.as_mut() {
                    agent.set_history(history);
                }
                self.state.info(&format!(
                    "Resumed the conversation saved as {tag} ({n} messages)."
                ));
            }
            Ok(_) => self
                .state
                .info(&format!("No saved checkpoint found with tag: {tag}.")),
            Err(e) => self
                .state
                .error(&format!("Could not read checkpoint {tag}: {e}")),
        }
    }

    fn restore(&mut self, id: Option<&str>) {
        let Some(cp) = self.ctx.checkpointer.clone() else {
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
        if self.agent_busy() {
            return;
        }
        match cp.restore(id) {
            Ok(r) => {
                if !r.history.is_empty()
                    && let Some(agent) = self.agent.as_mut()
                {
                    agent.set_history(r.history);
                }
                if r.files_restored {
                    self.state
                        .info("Restored project to the state before the tool call.");
                }
                let name = r.tool_call["name"].as_str().unwrap_or("the tool");
                let args = r.tool_call.get("args").cloned().unwrap_or(Value::Null);
                self.state.info(&format!(
                    "The conversation is back to before {name} ran with {args}; ask again to redo it."
                ));
            }
            Err(e) => self.state.error(&e.to_string()),
        }
    }

    fn start_memory(&mut self, fact: Option<String>) {
        if self.agent_busy() {
            return;
        }
        let Some(mut agent) = self.agent.take() else {
            return;
        };
        let label = if fact.is_some() {
            "Saving to memory"
        } else {
            "Refreshing memory"
        };
        self.state.start_busy(label, Instant::now());
        let job = memory_job(
            fact,
            self.ctx.workspace.clone(),
            self.ctx.settings.clone(),
            self.ctx.paths.clone(),
            self.state.model.clone(),
        );
        self.job = Some(tokio::spawn(async move {
            let out = match job.await {
                Ok((saved, count, text)) => {
                    agent.set_context(&text);
                    let mut note = saved.map(|s| format!("{s}\n")).unwrap_or_default();
                    note.push_str(&if count == 0 {
                        "Memory refreshed successfully. No memory content found.".to_string()
                    } else {
                        format!(
                            "Memory refreshed successfully. Loaded {} characters from {count} file(s).",
                            text.chars().count()
                        )
                    });
                    JobOutput::Info(note)
                }
                Err(e) => JobOutput::Failed(format!("Failed to save memory: {e}")),
            };
            (agent, out)
        }));
    }

    fn init(&mut self) {
        if self.agent_busy() {
            return;
        }
        let path = self.ctx.workspace.target_dir().join("GEMINI.md");
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
