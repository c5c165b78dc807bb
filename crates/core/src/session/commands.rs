//! The ops besides the model turns: a prompt's preparation, `/clear`,
//! `/restore`, `/chat save|resume`, `/memory add|refresh` and `!cmd`.

use super::{Engine, custom_commands};
use crate::agent::{
    AgentError, PromptOutcome, ReadResource, at_references, expand_at_paths_with, memory,
};
use crate::events::{AgentEvent, ToolCallFinished, ToolCallStatus};
use crate::policy::{ApprovalMode, Decision};
use crate::recording::saved_chats;
use crate::tools::builtin::{MemoryTool, ShellTool};
use crate::tools::{OutputSink, Tool, ToolDisplay};
use gemini_rs_protocol::{Content, Part, Role};
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

impl Engine {
    async fn info(&self, text: impl Into<String>) {
        self.emit(AgentEvent::Info {
            message: text.into(),
        })
        .await;
    }

    async fn error(&self, text: impl Into<String>) {
        self.emit(AgentEvent::error(text)).await;
    }

    /// A user prompt: the SessionStart hook's context in front of the
    /// first one, `@path` references expanded, then the agent's turns.
    pub(super) async fn prompt(
        &mut self,
        mut parts: Vec<Part>,
        cancel: &CancellationToken,
    ) -> Result<PromptOutcome, AgentError> {
        let commands = self.info.custom_commands();
        if let [only] = parts.as_slice()
            && let Some(text) = only.text.as_deref()
            && let Some((cmd, args)) = custom_commands::invoked(&commands, text)
        {
            let mode = self
                .mode
                .read()
                .map(|m| *m)
                .unwrap_or(ApprovalMode::Default);
            let asker = super::command_asker::CommandAsker::new(&self.agent, &self.events, cancel);
            let env = custom_commands::Expansion {
                ctx: &self.ctx,
                policy: &self.policy,
                mode,
                cancel,
                ask: self
                    .policy
                    .interactive()
                    .then_some(&asker as &dyn custom_commands::AskCommand),
            };
            let invocation = text.trim().to_string();
            let expanded = match (&cmd.source, &self.info.mcp) {
                (custom_commands::CommandSource::File { prompt, .. }, _) => {
                    custom_commands::expand(cmd, prompt, args, &invocation, &env).await
                }
                (custom_commands::CommandSource::McpPrompt { .. }, Some(mcp)) => {
                    custom_commands::prompt_turn(mcp, cmd, args).await
                }
                (custom_commands::CommandSource::McpPrompt { server, .. }, None) => {
                    Err(custom_commands::CommandError::NoServer {
                        server: server.clone(),
                    })
                }
            }
            .map_err(|e| AgentError::Command {
                message: e.to_string(),
            });
            // Cards of allowed commands that never ran end here.
            drop(asker);
            parts = expanded?;
            self.emit(AgentEvent::PromptStarted {
                text: parts.iter().filter_map(|p| p.text.as_deref()).collect(),
                op_id: None,
            })
            .await;
            if let Some(ctx) = self.hook_context.take() {
                parts.insert(
                    0,
                    Part::text(format!("<hook_context>{ctx}</hook_context>\n\n")),
                );
            }
            return self.agent.run_prompt(parts, cancel).await;
        }
        if let Some(ctx) = self.hook_context.take() {
            let prefix = format!("<hook_context>{ctx}</hook_context>\n\n");
            match parts.iter_mut().find_map(|p| p.text.as_mut()) {
                Some(text) => text.insert_str(0, &prefix),
                None => parts.insert(0, Part::text(prefix)),
            }
        }
        let text: String = parts.iter().filter_map(|p| p.text.as_deref()).collect();
        self.emit(AgentEvent::PromptStarted { text, op_id: None })
            .await;
        let mut expanded_parts = Vec::with_capacity(parts.len());
        for part in parts {
            match &part.text {
                Some(text) if part.function_response.is_none() => {
                    let resources = self.read_resources(text).await?;
                    let expanded = expand_at_paths_with(text, &self.info.workspace, &resources);
                    for note in &expanded.notes {
                        tracing::debug!("{note}");
                    }
                    expanded_parts.extend(expanded.parts);
                }
                _ => expanded_parts.push(part),
            }
        }
        self.agent.run_prompt(expanded_parts, cancel).await
    }

    /// Reads the MCP resources `text` names (`@server:uri` of a listed
    /// resource); a failed read ends the prompt, as in Gemini CLI.
    async fn read_resources(&self, text: &str) -> Result<Vec<ReadResource>, AgentError> {
        let Some(mcp) = self.info.mcp.clone() else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for reference in at_references(text) {
            let Some((conn, uri)) = mcp.find_resource(&reference) else {
                continue;
            };
            match conn.read_resource(&uri).await {
                Ok(parts) => out.push(ReadResource {
                    reference,
                    uri,
                    parts,
                }),
                Err(e) => {
                    return Err(AgentError::Command {
                        message: format!(
                            "Exiting due to an error processing the @ command: Error reading resource {uri}: {e}"
                        ),
                    });
                }
            }
        }
        Ok(out)
    }

    /// `/directory add`: the directories join the workspace (every tool
    /// sees them) and the MCP servers' roots. Not while the sandbox runs:
    /// its writable directories are fixed at start.
    pub(super) async fn add_directories(&mut self, paths: &[String]) {
        if self.ctx.sandbox.is_some() {
            self.emit(AgentEvent::error("The /directory add command is not supported while the sandbox is on. Please use --include-directories when starting the session instead.".to_string())).await;
            return;
        }
        let mut added = Vec::new();
        for path in paths.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
            match self.info.workspace.add_dir(path, &self.info.paths.home) {
                Ok(dir) => added.push(dir.display().to_string()),
                Err(e) => {
                    self.emit(AgentEvent::error(format!("Error adding '{path}': {e}")))
                        .await
                }
            }
        }
        if added.is_empty() {
            return;
        }
        if let Some(mcp) = self.info.mcp.clone() {
            mcp.set_roots(&self.info.workspace.dirs()).await;
        }
        self.emit(AgentEvent::Info {
            message: format!("Successfully added directories:\n- {}", added.join("\n- ")),
        })
        .await;
    }

    /// `/mcp auth <server>`: logs in, then reconnects the server when it
    /// is connected (a server that failed at start joins the next session).
    pub(super) async fn mcp_auth(&mut self, server: &str, cancel: &CancellationToken) {
        let Some(mcp) = self.info.mcp.clone() else {
            self.emit(AgentEvent::error(format!(
                "No MCP server named '{server}' is configured."
            )))
            .await;
            return;
        };
        let Some(config) = mcp.config(server) else {
            self.emit(AgentEvent::error(format!(
                "No MCP server named '{server}' is configured."
            )))
            .await;
            return;
        };
        let events = self.events.clone();
        let name = server.to_string();
        let show = move |url: &str| {
            events.emit_detached(AgentEvent::Info {
                message: format!("Open this URL in a browser to authorize '{name}':\n{url}"),
            });
        };
        let host = crate::tools::mcp::host(&self.info.paths, &self.info.env);
        let login = crate::tools::mcp::client::login(&host, &config, "", Some(&show));
        let result = tokio::select! {
            r = login => r,
            _ = cancel.cancelled() => return,
        };
        if let Err(e) = result {
            self.emit(AgentEvent::error(format!("MCP server '{server}' {e}")))
                .await;
            return;
        }
        let live = mcp
            .connections()
            .iter()
            .find(|c| c.name() == server)
            .cloned();
        let note = match live {
            Some(conn) => match conn.reconnect().await {
                Ok(()) => format!("Authenticated with MCP server '{server}'."),
                Err(e) => format!(
                    "Authenticated with MCP server '{server}', but reconnecting failed: {e}"
                ),
            },
            None => format!(
                "Authenticated with MCP server '{server}'. Its tools are available from the next session."
            ),
        };
        self.emit(AgentEvent::Info { message: note }).await;
    }

    /// Forgets the conversation and runs SessionEnd / SessionStart with
    /// reason and source `clear`, as Gemini CLI's `/clear` does.
    pub(super) async fn clear(&mut self) {
        self.agent.clear_history();
        self.emit(AgentEvent::HistoryReplaced {
            len: self.agent.history().len(),
        })
        .await;
        if let Some(hooks) = self.hooks.clone() {
            hooks.session_end("clear").await;
            self.session_start("clear").await;
        }
    }

    /// Restores a checkpoint's files and conversation.
    pub(super) async fn restore(&mut self, id: &str) {
        let Some(cp) = self.info.checkpointer.clone() else {
            self.info(
                "Checkpointing is off: set general.checkpointing.enabled to true in settings.json and restart to use /restore.",
            ).await;
            return;
        };
        let id = id.to_string();
        let restored = tokio::task::spawn_blocking(move || cp.restore(&id)).await;
        let r = match restored {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => return self.error(e.to_string()).await,
            Err(e) => {
                return self
                    .error(format!("Restoring the checkpoint failed: {e}"))
                    .await;
            }
        };
        if !r.history.is_empty() {
            self.agent.set_history(r.history);
            self.emit(AgentEvent::HistoryReplaced {
                len: self.agent.history().len(),
            })
            .await;
        }
        if r.files_restored {
            self.info("Restored project to the state before the tool call.")
                .await;
        }
        let name = Some(r.tool_call.name.as_str())
            .filter(|n| !n.is_empty())
            .unwrap_or("the tool");
        let args = &r.tool_call.args;
        self.info(format!(
            "The conversation is back to before {name} ran with {args}; ask again to redo it."
        ))
        .await;
    }

    /// `/chat save <tag>`.
    pub(super) async fn save_chat(&mut self, tag: &str) {
        let history = self.agent.history();
        if history.len() <= 1 {
            return self.info("No conversation found to save.").await;
        }
        match saved_chats::save(self.info.workspace.project_temp_dir(), tag, history) {
            Ok(false) => {
                self.info(format!("Conversation checkpoint saved with tag: {tag}."))
                    .await
            }
            Ok(true) => {
                self.info(format!(
                    "Conversation checkpoint saved with tag: {tag} (it replaced the previous one)."
                ))
                .await
            }
            Err(e) => {
                self.error(format!("Could not save the conversation: {e}"))
                    .await
            }
        }
    }

    /// `/chat share <file>`, with Gemini CLI 0.61's messages.
    pub(super) async fn share_chat(&mut self, path: &std::path::Path) {
        let history = self.agent.history();
        if history.len() <= 1 {
            return self.info("No conversation found to share.").await;
        }
        match crate::recording::share::share(path, history) {
            Ok(()) => {
                self.info(format!("Conversation shared to {}", path.display()))
                    .await
            }
            Err(e) => self.error(e.to_string()).await,
        }
    }

    /// `/chat resume <tag>`.
    pub(super) async fn resume_chat(&mut self, tag: &str) {
        match saved_chats::load(self.info.workspace.project_temp_dir(), tag) {
            Ok(Some(history)) if !history.is_empty() => {
                let n = history.len();
                self.agent.set_history(history);
                self.emit(AgentEvent::HistoryReplaced { len: n }).await;
                self.info(format!(
                    "Resumed the conversation saved as {tag} ({n} messages)."
                ))
                .await;
            }
            Ok(_) => {
                self.info(format!("No saved checkpoint found with tag: {tag}."))
                    .await
            }
            Err(e) => {
                self.error(format!("Could not read checkpoint {tag}: {e}"))
                    .await
            }
        }
    }

    /// `/memory add` (when `fact`) and `/memory refresh`: saves the fact
    /// with the save_memory tool, then reloads the context files into the
    /// system instruction.
    /// `/agents acknowledge`: remembers the waiting project agents.
    pub(super) async fn acknowledge_agents(&mut self) {
        let pending = &self.info.agents.unacknowledged;
        if pending.is_empty() {
            return self
                .info("No project agents wait for acknowledgement.")
                .await;
        }
        let mut acks = crate::subagents::Acknowledgements::load(&self.info.paths.gemini_dir);
        match acks.acknowledge(self.info.root(), pending) {
            Ok(()) => {
                let names: Vec<&str> = pending.iter().map(|a| a.name.as_str()).collect();
                self.info(format!(
                    "Acknowledged {}; they are available from the next session.",
                    names.join(", ")
                ))
                .await;
            }
            Err(e) => {
                self.error(format!("Could not save the acknowledgement: {e}"))
                    .await
            }
        }
    }

    pub(super) async fn refresh_memory(&mut self, fact: Option<String>) {
        let mut note = String::new();
        if let Some(fact) = fact {
            let mut args = Map::new();
            args.insert("fact".into(), Value::String(fact.clone()));
            let invocation = match MemoryTool.build(&args, &self.ctx) {
                Ok(i) => i,
                Err(e) => {
                    return self
                        .error(format!("Failed to save memory: {}", e.message))
                        .await;
                }
            };
            let result = invocation
                .execute(&self.ctx, CancellationToken::new())
                .await;
            if let Some(e) = result.error {
                return self
                    .error(format!("Failed to save memory: {}", e.message))
                    .await;
            }
            note = match result.display {
                ToolDisplay::Text(t) if !t.trim().is_empty() => t,
                ToolDisplay::Text(_) | ToolDisplay::FileDiff(_) | ToolDisplay::Todos(_) => {
                    format!("Okay, I've remembered that: \"{fact}\"")
                }
            };
            note.push('\n');
        }
        let paths = &self.info.paths;
        let extension_files = super::build::extension_context_files(&self.info.extensions);
        let context = memory::context_from_settings(
            &self.info.workspace,
            &self.info.settings,
            &extension_files,
            (&paths.gemini_dir, &paths.home),
            self.info.trusted,
        );
        let (count, text) = (context.file_count, context.text);
        if let Ok(mut files) = self.info.context_files.write() {
            *files = context.files;
        }
        for warning in &context.warnings {
            note.push_str(&format!("Warning: {warning}\n"));
        }
        self.agent.set_context(&text);
        note.push_str(&if count == 0 {
            "Memory refreshed successfully. No memory content found.".to_string()
        } else {
            format!(
                "Memory refreshed successfully. Loaded {} characters from {count} file(s).",
                text.chars().count()
            )
        });
        self.info(note).await;
    }

    /// `!cmd`: the user's own command, run by the shell tool (so under its
    /// sandbox) after the policy, reported as a tool call `shell-<n>`, and
    /// added to the conversation so the model knows what ran.
    pub(super) async fn shell(&mut self, command: String, cancel: &CancellationToken) {
        let command = command.trim().to_string();
        if command.is_empty() {
            return self.info("Type a command after !, e.g. !ls").await;
        }
        self.shell_calls += 1;
        let call_id = format!("shell-{}", self.shell_calls);
        let args = json!({ "command": command });
        self.emit(AgentEvent::ToolCallRequested {
            call_id: call_id.clone(),
            name: ShellTool.name().to_string(),
            args: args.clone(),
        })
        .await;
        let started = Instant::now();
        let finish = |status, display, error| {
            AgentEvent::ToolFinished(ToolCallFinished {
                call_id: call_id.clone(),
                name: ShellTool.name().to_string(),
                args: args.clone(),
                status,
                display,
                error,
                duration: started.elapsed(),
            })
        };
        let mode = self
            .mode
            .read()
            .map(|m| *m)
            .unwrap_or(ApprovalMode::Default);
        // The user typed it: asking them again makes no sense, but a rule
        // that denies the command still holds.
        if self.policy.check(ShellTool.name(), &args, mode) == Decision::Deny {
            let error = crate::tools::ToolError::new(
                crate::tools::ToolErrorKind::PolicyViolation,
                format!("Shell command denied by policy: {command}"),
            );
            let display = ToolDisplay::Text(error.message.clone());
            return self
                .emit(finish(ToolCallStatus::Error, display, Some(error)))
                .await;
        }
        let Some(map) = args.as_object() else {
            return;
        };
        let invocation = match ShellTool.build(map, &self.ctx) {
            Ok(i) => i,
            Err(e) => {
                let display = ToolDisplay::Text(e.message.clone());
                return self
                    .emit(finish(ToolCallStatus::Error, display, Some(e)))
                    .await;
            }
        };
        self.emit(AgentEvent::ToolRunning {
            call_id: call_id.clone(),
        })
        .await;
        let events = self.events.clone();
        let live_id = call_id.clone();
        let sink: OutputSink = Arc::new(move |chunk: String| {
            events.emit_latest(AgentEvent::ToolOutput {
                call_id: live_id.clone(),
                chunk,
            });
        });
        let result = invocation
            .execute_streaming(&self.ctx, cancel.child_token(), sink)
            .await;
        let status = if cancel.is_cancelled() {
            ToolCallStatus::Cancelled
        } else if result.error.is_some() {
            ToolCallStatus::Error
        } else {
            ToolCallStatus::Success
        };
        let output: String = result
            .llm_content
            .iter()
            .filter_map(|p| p.text.as_deref())
            .collect();
        self.agent.push_history(Content::new(
            Role::User,
            vec![Part::text(format!(
                "I ran the following shell command:\n```sh\n{command}\n```\n\nThis produced the following result:\n```\n{output}\n```"
            ))],
        ));
        self.emit(finish(status, result.display, result.error))
            .await;
        for refused in crate::sandbox::refuse_created(self.ctx.sandbox.as_ref()) {
            self.emit(AgentEvent::Warning {
                message: refused.to_string(),
            })
            .await;
        }
    }
}
