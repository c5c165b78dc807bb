//! What a session is made of, as front ends show it (`/tools`, `/mcp`,
//! `/hooks`, `/memory show`, `/skills`, `/agents`, `/restore`, `/chat`,
//! `--list-sessions`): plain snapshots a session or a session-less query
//! answers. Changing anything is an [`super::Op`].

use super::{ApprovalMode, ToolKind};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// A tool declared to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolInfo {
    /// The name the model calls.
    pub name: String,
    /// The human name (`ReadFile`).
    pub display_name: String,
    /// The description sent to the model.
    pub description: String,
    /// Its kind.
    pub kind: ToolKind,
    /// The JSON Schema of its parameters.
    pub parameters: Value,
    /// The MCP server it comes from, for MCP tools.
    pub server: Option<String>,
}

/// Where an MCP server stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum McpServerStatus {
    /// Connected; its tools are declared.
    Ready,
    /// Was connected, the connection is gone.
    Disconnected,
}

/// A connected MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpServerInfo {
    /// The name under `mcpServers`.
    pub name: String,
    /// Its configured description.
    pub description: Option<String>,
    /// Where it stands.
    pub status: McpServerStatus,
    /// Its tools.
    pub tools: Vec<McpToolInfo>,
    /// Its resources and resource templates.
    pub resources: Vec<McpResourceInfo>,
}

/// One tool of an MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpToolInfo {
    /// Its name on the server.
    pub name: String,
    /// Its description.
    pub description: String,
}

/// One resource (or resource template) of an MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct McpResourceInfo {
    /// Its URI, or the URI template of a template.
    pub uri: String,
    /// Its name.
    pub name: String,
    /// True for a resource template.
    pub template: bool,
}

/// The MCP servers of a session and the ones that could not be used.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct McpServersInfo {
    /// The servers that connected, in configuration order.
    pub servers: Vec<McpServerInfo>,
    /// One line per server that failed to connect or needs authentication.
    pub failures: Vec<String>,
    /// The servers still connecting (the terminal UI does not wait for
    /// them), in configuration order.
    #[serde(default)]
    pub connecting: Vec<String>,
}

/// One configured hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HookInfo {
    /// The event it runs on (`BeforeTool`, ...).
    pub event: String,
    /// Its matcher, when it has one.
    pub matcher: Option<String>,
    /// Its name, or its command when it has none.
    pub display_name: String,
    /// The command it runs.
    pub command: String,
    /// True when it has a name (then the command is shown too).
    pub named: bool,
    /// Its description.
    pub description: Option<String>,
    /// False when `hooksConfig.disabled` names it.
    pub enabled: bool,
}

/// The hooks of a session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HooksInfo {
    /// False when `hooksConfig.enabled` is false (nothing runs).
    pub enabled: bool,
    /// Every hook, grouped by event.
    pub hooks: Vec<HookInfo>,
}

/// A checkpoint `/restore` can go back to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CheckpointInfo {
    /// The id `/restore <id>` takes.
    pub id: String,
    /// The tool that was about to run.
    pub tool_name: String,
    /// The file it was about to change, when known.
    pub file_path: Option<String>,
}

/// A custom slash command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommandInfo {
    /// The name typed after `/` (`git:commit`).
    pub name: String,
    /// What `/help` and completion show.
    pub description: String,
    /// The arguments of an MCP prompt (empty for a file's command).
    pub arguments: Vec<CommandArgument>,
}

/// One argument of an MCP prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CommandArgument {
    /// Its name.
    pub name: String,
    /// Its description.
    pub description: Option<String>,
    /// Whether it must be given.
    pub required: bool,
}

/// An agent skill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkillInfo {
    /// Its name.
    pub name: String,
    /// When to use it.
    pub description: String,
    /// Its folder; `None` for a built-in skill.
    pub dir: Option<PathBuf>,
}

/// A sub-agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentInfo {
    /// The name the model delegates to.
    pub name: String,
    /// What it is for.
    pub description: String,
    /// Its definition file; `None` for a built-in agent.
    pub file: Option<PathBuf>,
}

/// The sub-agents of a session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentsInfo {
    /// The agents in use.
    pub agents: Vec<AgentInfo>,
    /// Project agents waiting for `/agents acknowledge`.
    pub unacknowledged: Vec<AgentInfo>,
    /// One line per definition that could not be used.
    pub errors: Vec<String>,
}

/// A context file (`GEMINI.md`) the session put in its system instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ContextFileInfo {
    /// The file.
    pub path: PathBuf,
    /// What was read from it.
    pub content: String,
}

/// A recorded session on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedSessionInfo {
    /// Its id.
    pub session_id: String,
    /// The file it is recorded in.
    pub file: PathBuf,
    /// When it started (ISO 8601).
    pub start_time: String,
    /// When it was last written (ISO 8601).
    pub last_updated: String,
    /// The text of its first prompt.
    pub first_prompt: String,
    /// The summary Gemini CLI 0.61 saves in a session file, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

impl RecordedSessionInfo {
    /// What listings call the session: its summary, else its first prompt
    /// (as Gemini CLI 0.61 names sessions).
    pub fn title(&self) -> &str {
        self.summary
            .as_deref()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or(&self.first_prompt)
    }
}

/// A conversation saved with `/chat save`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SavedChatInfo {
    /// Its tag.
    pub tag: String,
    /// When it was saved (for display).
    pub modified: String,
}

/// What a session started with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionSummary {
    /// The session id (a resumed session keeps its own).
    pub session_id: String,
    /// The model at start.
    pub model: String,
    /// True when it continues a recorded session.
    pub resumed: bool,
    /// The approval mode at start.
    pub approval_mode: ApprovalMode,
    /// The project root.
    pub root: PathBuf,
    /// The project's temp folder (`~/.gemini/tmp/<project>`).
    pub project_temp_dir: PathBuf,
}

/// Whether a background command still runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BackgroundStatus {
    /// It is running.
    Running,
    /// It exited or was stopped.
    Exited,
}

/// A command `run_shell_command` moved to the background (`/shells`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct BackgroundProcessInfo {
    /// Its process id (also its process group id).
    pub pid: u32,
    /// The command line.
    pub command: String,
    /// Whether it still runs.
    pub status: BackgroundStatus,
    /// Its exit code, once it exited by itself.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// The last lines of its log.
    pub last_lines: Vec<String>,
}
