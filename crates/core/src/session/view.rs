//! [`SessionView`]: what a running session is made of, answered as plain
//! protocol snapshots (`/tools`, `/mcp`, `/hooks`, `/memory show`,
//! `/restore`, `/skills`, `/agents`, completion). Read-only: changing
//! anything is an [`crate::events::Op`]. Front ends never hold the engine's
//! live objects, only this view.

use crate::agent::memory::ContextFile;
use crate::checkpoint::Checkpointer;
use crate::config::{GeminiPaths, Settings};
use crate::hooks::HookConfig;
use crate::model::provider::ContextWindows;
use crate::policy::ApprovalMode;
use crate::recording::saved_chats;
use crate::skills::Skill;
use crate::subagents::{AgentDefinition, AgentOrigin, AgentSet};
use crate::tools::LiveRegistry;
use crate::tools::mcp::McpManager;
use crate::workspace::Workspace;
use gemini_rs_protocol::events::{
    AgentInfo, AgentsInfo, BackgroundProcessInfo, CheckpointInfo, CommandArgument, CommandInfo,
    ContextFileInfo, HookInfo, HooksInfo, McpResourceInfo, McpServerInfo, McpServerStatus,
    McpServersInfo, McpToolInfo, SavedChatInfo, SessionSummary, SkillInfo, ToolInfo,
};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::custom_commands::{CommandFolder, CommandFolders, CommandSource, CustomCommand};

/// The parts of a session a front end may look at.
pub struct SessionView {
    pub(super) summary: SessionSummary,
    pub(super) workspace: Arc<Workspace>,
    pub(super) settings: Arc<Settings>,
    /// Whether the folder is trusted (see [`SessionView::trusted`]).
    pub(super) trusted: bool,
    pub(super) paths: GeminiPaths,
    pub(super) env: crate::config::Env,
    pub(super) extensions: Arc<Vec<crate::extensions::Extension>>,
    pub(super) tools: LiveRegistry,
    pub(super) mcp: Option<Arc<McpManager>>,
    pub(super) background: Arc<crate::tools::background::BackgroundShells>,
    pub(super) hooks: Option<HookConfig>,
    pub(super) checkpointer: Option<Checkpointer>,
    pub(super) custom_commands: RwLock<Vec<CustomCommand>>,
    pub(super) command_folders: CommandFolders,
    pub(super) context_windows: ContextWindows,
    pub(super) policy: Arc<crate::policy::PolicyEngine>,
    pub(super) skills: Arc<Vec<Skill>>,
    pub(super) agents: Arc<AgentSet>,
    /// The context files in the system instruction (replaced by
    /// `/memory refresh`).
    pub(super) context_files: RwLock<Vec<ContextFile>>,
}

/// A policy rule as `/policies` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyListing {
    /// The tool name (`*` all, `prefix*` a prefix).
    pub tool_name: String,
    /// `allow`, `deny` or `ask_user`.
    pub decision: &'static str,
    /// Higher wins.
    pub priority: f64,
    /// The modes it applies in (all when empty).
    pub modes: Vec<ApprovalMode>,
    /// Its regex on the arguments, if any.
    pub args_pattern: Option<String>,
    /// Its shell command prefixes, if any.
    pub command_prefixes: Vec<String>,
    /// Where it comes from.
    pub source: String,
}

/// A file of the workspace, offered as a resource (`mcp serve --resources`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceFile {
    /// Its absolute path.
    pub path: PathBuf,
    /// Its `file://` URI.
    pub uri: String,
    /// Its path relative to its workspace folder.
    pub relative: String,
    /// Its MIME type, when the extension says.
    pub mime_type: Option<String>,
}

/// What [`SessionView::read_workspace_file`] read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileContents {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// The MIME type (`application/octet-stream` when unknown).
    pub mime_type: String,
    /// True when the bytes are text.
    pub is_text: bool,
}

/// Why a workspace file could not be read as a resource.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileReadError {
    /// Not a `file://` URI, outside the workspace, ignored or missing.
    #[error("Resource not found: {0}")]
    NotFound(String),
    /// Reading failed.
    #[error("{uri}: {message}")]
    Unreadable {
        /// The URI.
        uri: String,
        /// Why.
        message: String,
    },
}

/// One entry of a folder, for `@path` completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathEntry {
    /// The file name.
    pub name: String,
    /// True for a folder.
    pub is_dir: bool,
}

impl SessionView {
    /// What the session started with.
    pub fn summary(&self) -> &SessionSummary {
        &self.summary
    }

    /// Whether the folder is trusted; an untrusted one keeps the
    /// `default` (or `plan`) approval mode.
    pub fn trusted(&self) -> bool {
        self.trusted
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.summary.session_id
    }

    /// The project root.
    pub fn root(&self) -> &Path {
        &self.summary.root
    }

    /// The project's temp folder (`~/.gemini/tmp/<project>`).
    pub fn project_temp_dir(&self) -> &Path {
        &self.summary.project_temp_dir
    }

    /// The workspace folders (the root first).
    pub fn workspace_dirs(&self) -> Vec<PathBuf> {
        self.workspace.dirs()
    }

    /// The tools declared to the model, in registration order.
    pub fn tools(&self) -> Vec<ToolInfo> {
        self.tools
            .snapshot()
            .active_names()
            .iter()
            .filter_map(|name| self.tool(name))
            .collect()
    }

    /// One tool by the name (or alias) the model calls.
    pub fn tool(&self, name: &str) -> Option<ToolInfo> {
        let registry = self.tools.snapshot();
        let tool = &registry.get(name)?.tool;
        Some(ToolInfo {
            name: tool.name().to_string(),
            display_name: tool.display_name().to_string(),
            description: tool.description().to_string(),
            kind: tool.kind(),
            parameters: tool.parameter_schema().clone(),
            server: tool.server_name().map(str::to_string),
        })
    }

    /// The connected MCP servers and those that could not be used.
    pub fn mcp_servers(&self) -> McpServersInfo {
        let Some(mgr) = &self.mcp else {
            return McpServersInfo::default();
        };
        let servers = mgr
            .connections()
            .iter()
            .map(|c| {
                let list = c.resources();
                let plain = list
                    .resources
                    .into_iter()
                    .map(|(uri, name, _)| McpResourceInfo {
                        uri,
                        name,
                        template: false,
                    });
                let templates = list
                    .templates
                    .into_iter()
                    .map(|(uri, name)| McpResourceInfo {
                        uri,
                        name,
                        template: true,
                    });
                McpServerInfo {
                    name: c.name().to_string(),
                    description: c.config.description.clone(),
                    status: if c.is_closed() {
                        McpServerStatus::Disconnected
                    } else {
                        McpServerStatus::Ready
                    },
                    tools: c
                        .tools()
                        .into_iter()
                        .map(|t| McpToolInfo {
                            name: t.name.to_string(),
                            description: t.description.as_deref().unwrap_or("").to_string(),
                        })
                        .collect(),
                    resources: plain.chain(templates).collect(),
                }
            })
            .collect();
        McpServersInfo {
            servers,
            failures: mgr.failures(),
            connecting: mgr.connecting(),
        }
    }

    /// The shell commands moved to the background in this session, oldest
    /// first, each with the last `lines` lines of its log (`/shells`).
    pub fn background_processes(&self, lines: usize) -> Vec<BackgroundProcessInfo> {
        self.background.list(lines)
    }

    /// `@server:uri` references of the servers' resources, with their
    /// names, for completion.
    pub fn mcp_resource_references(&self) -> Vec<(String, String)> {
        self.mcp
            .as_ref()
            .map(|m| m.resource_references())
            .unwrap_or_default()
    }

    /// The configured hooks.
    pub fn hooks(&self) -> HooksInfo {
        self.hooks.as_ref().map(hooks_info).unwrap_or_default()
    }

    /// The checkpoints `/restore` offers (empty when checkpointing is off).
    pub fn checkpoints(&self) -> Vec<CheckpointInfo> {
        self.checkpointer
            .as_ref()
            .map(Checkpointer::list)
            .unwrap_or_default()
    }

    /// Whether checkpointing is on.
    pub fn checkpointing(&self) -> bool {
        self.checkpointer.is_some()
    }

    /// The custom slash commands (files and MCP prompts).
    pub fn commands(&self) -> Vec<CommandInfo> {
        self.custom_commands().iter().map(command_info).collect()
    }

    /// The custom commands now (an MCP server connecting late adds its
    /// prompts).
    pub(super) fn custom_commands(&self) -> Vec<CustomCommand> {
        self.custom_commands
            .read()
            .map(|c| c.clone())
            .unwrap_or_default()
    }

    /// The folders of command files, each with its files (`/commands list`).
    pub fn command_folders(&self) -> Vec<CommandFolder> {
        self.command_folders.listing()
    }

    /// Reads the command files again, keeping the MCP servers' prompts
    /// (`/commands reload`); the warnings name the files that cannot be used.
    pub fn reload_commands(&self) -> Vec<String> {
        let (files, warnings) = self.command_folders.load();
        if let Ok(mut commands) = self.custom_commands.write() {
            *commands = super::custom_commands::reloaded(&commands, files);
        }
        warnings
    }

    /// Adds the commands whose names are not taken yet (file commands and
    /// earlier prompts win, as at start-up).
    pub(super) fn add_commands(&self, new: Vec<CustomCommand>) {
        if let Ok(mut commands) = self.custom_commands.write() {
            super::custom_commands::add_unnamed(&mut commands, new);
        }
    }

    /// The enabled agent skills.
    pub fn skills(&self) -> Vec<SkillInfo> {
        self.skills
            .iter()
            .map(|s| SkillInfo {
                name: s.name.clone(),
                description: s.description.clone(),
                dir: s.dir.clone(),
            })
            .collect()
    }

    /// The sub-agents in use and those waiting for acknowledgement.
    pub fn agents(&self) -> AgentsInfo {
        AgentsInfo {
            agents: self.agents.agents.iter().map(agent_info).collect(),
            unacknowledged: self.agents.unacknowledged.iter().map(agent_info).collect(),
            errors: self.agents.errors.clone(),
        }
    }

    /// The context files in the system instruction now.
    pub fn context_files(&self) -> Vec<ContextFileInfo> {
        self.context_files
            .read()
            .map(|files| {
                files
                    .iter()
                    .map(|f| ContextFileInfo {
                        path: f.path.clone(),
                        content: f.content.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The context window of `model` in tokens.
    pub fn context_window(&self, model: &str) -> u64 {
        self.context_windows.get(model)
    }

    /// The conversations saved with `/chat save`.
    pub fn saved_chats(&self) -> Vec<SavedChatInfo> {
        saved_chats::list(self.project_temp_dir())
            .into_iter()
            .map(|c| SavedChatInfo {
                tag: c.tag,
                modified: c.modified,
            })
            .collect()
    }

    /// The conversation saved under `tag` (`/chat resume` draws it).
    pub fn saved_chat(&self, tag: &str) -> Option<Vec<gemini_rs_protocol::Content>> {
        saved_chats::load(self.project_temp_dir(), tag)
            .ok()
            .flatten()
    }

    /// Deletes the conversation saved under `tag`; false when there is none.
    pub fn delete_saved_chat(&self, tag: &str) -> std::io::Result<bool> {
        saved_chats::delete(self.project_temp_dir(), tag)
    }

    /// The entries of the workspace folder `dir` (relative to the root, or
    /// absolute inside the workspace) whose names start with `prefix`
    /// (case-insensitively), ignored files left out, sorted, at most `max`.
    pub fn path_entries(&self, dir: &str, prefix: &str, max: usize) -> Vec<PathEntry> {
        let ws = &self.workspace;
        let abs_dir = if dir.is_empty() {
            ws.target_dir().to_path_buf()
        } else {
            ws.resolve(dir)
        };
        let Ok(entries) = std::fs::read_dir(&abs_dir) else {
            return Vec::new();
        };
        let lower = prefix.to_lowercase();
        let mut out: Vec<PathEntry> = entries
            .flatten()
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') && !prefix.starts_with('.') {
                    return None;
                }
                if !name.to_lowercase().starts_with(&lower) {
                    return None;
                }
                if ws.is_ignored(&e.path(), ws.filter_options()) {
                    return None;
                }
                let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
                Some(PathEntry { name, is_dir })
            })
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out.truncate(max);
        out
    }

    /// Up to `limit` files of the workspace folders (ignore rules applied).
    pub fn workspace_files(&self, limit: usize) -> Vec<WorkspaceFile> {
        let ws = &self.workspace;
        ws.dirs()
            .iter()
            .flat_map(|d| ws.files_below(d, limit))
            .take(limit)
            .map(|path| WorkspaceFile {
                uri: crate::tools::mcp::file_uri(&path),
                relative: ws.relative(&path),
                mime_type: crate::workspace::mime_type(&path),
                path,
            })
            .collect()
    }

    /// Reads the workspace file named by the `file://` URI `uri` (within
    /// the workspace boundary and the file-size cap, not ignored).
    pub fn read_workspace_file(&self, uri: &str) -> Result<FileContents, FileReadError> {
        use std::io::Read;
        let ws = &self.workspace;
        let not_found = || FileReadError::NotFound(uri.to_string());
        let path = crate::tools::mcp::file_uri_path(uri).ok_or_else(not_found)?;
        ws.check_access(&path).map_err(|_| not_found())?;
        if ws.is_ignored(&path, ws.filter_options()) {
            return Err(FileReadError::NotFound(format!("{uri} (ignored)")));
        }
        let (mut file, _) = ws
            .open_regular(&path, Some(crate::workspace::MAX_FILE_BYTES))
            .map_err(|_| not_found())?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| FileReadError::Unreadable {
                uri: uri.to_string(),
                message: e.to_string(),
            })?;
        let is_text = matches!(
            crate::workspace::detect_kind(&path, &bytes),
            crate::workspace::FileKind::Text
        ) && std::str::from_utf8(&bytes).is_ok();
        Ok(FileContents {
            mime_type: crate::workspace::mime_type(&path)
                .unwrap_or_else(|| "application/octet-stream".to_string()),
            bytes,
            is_text,
        })
    }

    /// `~/.gemini` and the other home paths.
    pub fn paths(&self) -> &GeminiPaths {
        &self.paths
    }

    /// The approval mode at start.
    pub fn approval_mode(&self) -> ApprovalMode {
        self.summary.approval_mode
    }

    /// The provider `model` goes to: its id and its API root when that is
    /// not Gemini's default (`None` for a name no provider answers to).
    pub fn model_provider(&self, model: &str) -> Option<(String, Option<String>)> {
        self.context_windows.provider(model)
    }

    /// How Gemini models authenticate: the selected type in the settings,
    /// else the one the environment chooses (`vertex-ai`,
    /// `gemini-api-key`), as the session's start chose it.
    pub fn gemini_auth_type(&self) -> Option<String> {
        let selected = self.settings.typed().security.auth.selected_type.clone();
        let truthy = |k: &str| {
            self.env
                .var(k)
                .is_some_and(|v| v.eq_ignore_ascii_case("true"))
        };
        selected.filter(|s| !s.is_empty()).or_else(|| {
            if truthy("GOOGLE_GENAI_USE_VERTEXAI") {
                Some("vertex-ai".to_string())
            } else if self.env.var("GEMINI_API_KEY").is_some() {
                Some("gemini-api-key".to_string())
            } else {
                None
            }
        })
    }

    /// The policy rules in force, strongest first.
    pub fn policies(&self) -> Vec<PolicyListing> {
        use crate::policy::Decision;
        self.policy
            .rules()
            .into_iter()
            .map(|r| PolicyListing {
                decision: match r.decision {
                    Decision::Allow => "allow",
                    Decision::Deny => "deny",
                    Decision::AskUser => "ask_user",
                },
                priority: r.priority,
                modes: r.modes,
                args_pattern: r.args.args_pattern.map(|p| p.as_str().to_string()),
                command_prefixes: r.args.command_prefixes,
                source: r.source,
                tool_name: r.tool_name,
            })
            .collect()
    }

    /// The merged settings (read-only).
    pub fn settings(&self) -> &Settings {
        &self.settings
    }
}

/// A hook configuration as front ends list it.
pub(crate) fn hooks_info(config: &HookConfig) -> HooksInfo {
    HooksInfo {
        enabled: config.enabled,
        hooks: config
            .list()
            .into_iter()
            .map(|(event, def, hook, enabled)| HookInfo {
                event: event.as_str().to_string(),
                matcher: def.matcher.clone(),
                display_name: hook.display_name().to_string(),
                command: hook.command.clone(),
                named: hook.name.is_some(),
                description: hook.description.clone(),
                enabled,
            })
            .collect(),
    }
}

fn command_info(c: &CustomCommand) -> CommandInfo {
    let arguments = match &c.source {
        CommandSource::File { .. } => Vec::new(),
        CommandSource::McpPrompt { arguments, .. } => arguments
            .iter()
            .map(|a| CommandArgument {
                name: a.name.clone(),
                description: None,
                required: a.required,
            })
            .collect(),
    };
    CommandInfo {
        name: c.name.clone(),
        description: c.description.clone(),
        arguments,
    }
}

fn agent_info(a: &AgentDefinition) -> AgentInfo {
    AgentInfo {
        name: a.name.clone(),
        description: a.description.clone(),
        file: match &a.origin {
            AgentOrigin::BuiltIn => None,
            AgentOrigin::User(p) | AgentOrigin::Project { path: p, .. } => Some(p.clone()),
        },
    }
}
