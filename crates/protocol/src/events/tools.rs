//! What a front end sees of tools: their kind, what a call asks the user
//! to approve, what a finished call shows and returns, and how it failed.

use crate::Part;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a tool does, as Gemini CLI classifies it. Read-only kinds may run
/// concurrently with each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolKind {
    /// Reads files.
    Read,
    /// Changes files.
    Edit,
    /// Deletes files.
    Delete,
    /// Moves files.
    Move,
    /// Searches.
    Search,
    /// Runs commands.
    Execute,
    /// Thinks or remembers.
    Think,
    /// Fetches from the network.
    Fetch,
    /// Talks to the user.
    Communicate,
    /// Anything else (discovered and MCP tools).
    Other,
}

impl ToolKind {
    /// The lower-case name Gemini CLI uses.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Delete => "delete",
            ToolKind::Move => "move",
            ToolKind::Search => "search",
            ToolKind::Execute => "execute",
            ToolKind::Think => "think",
            ToolKind::Fetch => "fetch",
            ToolKind::Communicate => "communicate",
            ToolKind::Other => "other",
        }
    }

    /// True for kinds that never change anything, so calls of them may run
    /// concurrently.
    pub fn is_read_only(self) -> bool {
        match self {
            ToolKind::Read | ToolKind::Search | ToolKind::Fetch => true,
            ToolKind::Edit
            | ToolKind::Delete
            | ToolKind::Move
            | ToolKind::Execute
            | ToolKind::Think
            | ToolKind::Communicate
            | ToolKind::Other => false,
        }
    }
}

/// What the user must approve before a call runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ConfirmationDetails {
    /// A file change, shown as a diff.
    Edit {
        /// Dialog title, e.g. `Confirm Write: a.txt`.
        title: String,
        /// File name for display.
        file_name: String,
        /// Absolute path.
        file_path: std::path::PathBuf,
        /// Unified diff (`Current` / `Proposed`).
        file_diff: String,
        /// Content before (None for a new file).
        original_content: Option<String>,
        /// Content after.
        new_content: String,
        /// Which arguments take the user's rewrite of `new_content` ("modify
        /// with editor"); None when the tool offers no modification.
        modifiable: Option<Modifiable>,
    },
    /// A shell command.
    Exec {
        /// Dialog title.
        title: String,
        /// The full command.
        command: String,
        /// Root commands (`git` for `git status && git diff`).
        root_commands: Vec<String>,
    },
    /// An MCP tool call.
    Mcp {
        /// Dialog title.
        title: String,
        /// Server name.
        server_name: String,
        /// Tool name on the server.
        tool_name: String,
        /// Display name.
        tool_display_name: String,
    },
    /// Anything else: a prompt and optional URLs.
    Info {
        /// Dialog title.
        title: String,
        /// What will happen.
        prompt: String,
        /// URLs involved.
        urls: Vec<String>,
    },
    /// A plan to approve before plan mode ends (`exit_plan_mode`): approve
    /// into `auto_edit` (ProceedAlways) or `default` (ProceedOnce), or keep
    /// planning with feedback (Cancel with [`super::ConfirmationResponse`]'s
    /// `feedback`).
    ExitPlanMode {
        /// Dialog title (`Plan Approval`).
        title: String,
        /// The plan file.
        plan_path: std::path::PathBuf,
        /// Its Markdown.
        plan: String,
    },
}

impl ConfirmationDetails {
    /// The dialog title.
    pub fn title(&self) -> &str {
        match self {
            ConfirmationDetails::Edit { title, .. }
            | ConfirmationDetails::Exec { title, .. }
            | ConfirmationDetails::Mcp { title, .. }
            | ConfirmationDetails::Info { title, .. }
            | ConfirmationDetails::ExitPlanMode { title, .. } => title,
        }
    }

    /// The Notification hook's `message`: `Tool <title> requires editing`
    /// (execution, MCP, information).
    pub fn notification_message(&self) -> String {
        let what = match self {
            ConfirmationDetails::Edit { .. } => "editing",
            ConfirmationDetails::Exec { .. } => "execution",
            ConfirmationDetails::Mcp { .. } => "MCP",
            ConfirmationDetails::Info { .. } | ConfirmationDetails::ExitPlanMode { .. } => {
                "information"
            }
        };
        format!("Tool {} requires {what}", self.title())
    }

    /// The serialisable details Gemini CLI hands to Notification hooks.
    pub fn to_json(&self) -> Value {
        match self {
            ConfirmationDetails::Edit {
                title,
                file_name,
                file_path,
                file_diff,
                original_content,
                new_content,
                modifiable: _,
            } => serde_json::json!({"type": "edit", "title": title, "fileName": file_name,
                "filePath": file_path, "fileDiff": file_diff, "originalContent": original_content,
                "newContent": new_content, "isModifying": false}),
            ConfirmationDetails::Exec {
                title,
                command,
                root_commands,
            } => serde_json::json!({
                "type": "exec", "title": title, "command": command,
                "rootCommand": root_commands.join(", ")}),
            ConfirmationDetails::Mcp {
                title,
                server_name,
                tool_name,
                tool_display_name,
            } => serde_json::json!({
                "type": "mcp", "title": title, "serverName": server_name, "toolName": tool_name,
                "toolDisplayName": tool_display_name}),
            ConfirmationDetails::Info {
                title,
                prompt,
                urls,
            } => serde_json::json!({
                "type": "info", "title": title, "prompt": prompt, "urls": urls}),
            ConfirmationDetails::ExitPlanMode {
                title, plan_path, ..
            } => serde_json::json!({
                "type": "exit_plan_mode", "title": title, "planPath": plan_path}),
        }
    }
}

/// How the user's rewrite of a proposed file content becomes the call's
/// changed arguments (merged into the call by the scheduler, which then
/// rebuilds the call and asks again).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Modifiable {
    /// The argument that receives the edited text (`content` for
    /// write_file).
    pub edited_argument: String,
    /// Arguments set alongside it, fixed when the proposal was made
    /// (replace's `old_string` becomes the whole current file).
    pub also_set: Map<String, Value>,
}

impl Modifiable {
    /// The edited text goes to `argument`, nothing else changes.
    pub fn new(argument: impl Into<String>) -> Self {
        Modifiable {
            edited_argument: argument.into(),
            also_set: Map::new(),
        }
    }

    /// Also sets `argument` to `value` when the user modifies the proposal.
    pub fn with(mut self, argument: impl Into<String>, value: impl Into<Value>) -> Self {
        self.also_set.insert(argument.into(), value.into());
        self
    }

    /// The changed arguments for the user's `edited` text.
    pub fn arguments(&self, edited: String) -> Map<String, Value> {
        let mut args = self.also_set.clone();
        args.insert(self.edited_argument.clone(), Value::String(edited));
        args
    }
}

impl ConfirmationDetails {
    /// How the proposal can be rewritten in an editor; None when the tool
    /// offers no modification.
    pub fn modifiable(&self) -> Option<&Modifiable> {
        match self {
            ConfirmationDetails::Edit { modifiable, .. } => modifiable.as_ref(),
            ConfirmationDetails::Exec { .. }
            | ConfirmationDetails::Mcp { .. }
            | ConfirmationDetails::Info { .. }
            | ConfirmationDetails::ExitPlanMode { .. } => None,
        }
    }

    /// The arguments that replace the call's after the user rewrote the
    /// proposed content into `edited` (None when it cannot be modified);
    /// send them with `ConfirmationResponse::modified`.
    pub fn modified_args(&self, edited: String) -> Option<Map<String, Value>> {
        self.modifiable().map(|m| m.arguments(edited))
    }
}

/// A file change for display: the diff and both versions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FileDiff {
    /// Unified diff.
    pub file_diff: String,
    /// File name.
    pub file_name: String,
    /// Absolute path.
    pub file_path: String,
    /// Content before (`None` for a new file).
    pub original_content: Option<String>,
    /// Content after.
    pub new_content: String,
}

/// Where one item of the model's todo list stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on (at most one at a time).
    InProgress,
    /// Done.
    Completed,
    /// No longer needed.
    Cancelled,
    /// Waiting on something outside the model's reach (today's Gemini CLI).
    Blocked,
}

impl TodoStatus {
    /// The wire name (`pending`, `in_progress`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            TodoStatus::Pending => "pending",
            TodoStatus::InProgress => "in_progress",
            TodoStatus::Completed => "completed",
            TodoStatus::Cancelled => "cancelled",
            TodoStatus::Blocked => "blocked",
        }
    }

    /// The status of a wire name.
    pub fn parse(name: &str) -> Option<TodoStatus> {
        match name {
            "pending" => Some(TodoStatus::Pending),
            "in_progress" => Some(TodoStatus::InProgress),
            "completed" => Some(TodoStatus::Completed),
            "cancelled" => Some(TodoStatus::Cancelled),
            "blocked" => Some(TodoStatus::Blocked),
            _ => None,
        }
    }
}

/// One item of the model's todo list (`write_todos`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TodoItem {
    /// What the subtask is.
    pub description: String,
    /// Where it stands.
    pub status: TodoStatus,
}

/// What the user sees of a result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolDisplay {
    /// Markdown or plain text.
    Text(String),
    /// A file change.
    FileDiff(FileDiff),
    /// The model's whole todo list after a `write_todos` call.
    Todos(Vec<TodoItem>),
}

impl ToolDisplay {
    /// The text form, if this is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ToolDisplay::Text(t) => Some(t),
            ToolDisplay::FileDiff(_) | ToolDisplay::Todos(_) => None,
        }
    }

    /// The JSON form hooks and chat recordings see as `returnDisplay`:
    /// a string, `{fileDiff, fileName, ...}` or `{todos: [...]}`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            ToolDisplay::Text(t) => serde_json::Value::String(t.clone()),
            ToolDisplay::FileDiff(d) => serde_json::json!({
                "fileDiff": d.file_diff, "fileName": d.file_name, "filePath": d.file_path,
                "originalContent": d.original_content, "newContent": d.new_content,
            }),
            ToolDisplay::Todos(todos) => serde_json::json!({ "todos": todos }),
        }
    }
}

/// The outcome of one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolResult {
    /// Content for the model (text and inline-data parts).
    pub llm_content: Vec<Part>,
    /// Content for the user.
    pub display: ToolDisplay,
    /// Set when the call failed; the model then sees only its message.
    pub error: Option<ToolError>,
}

impl ToolResult {
    /// A successful text result.
    pub fn text(llm: impl Into<String>, display: impl Into<String>) -> Self {
        ToolResult {
            llm_content: vec![Part::text(llm)],
            display: ToolDisplay::Text(display.into()),
            error: None,
        }
    }

    /// A successful result with parts.
    pub fn parts(llm_content: Vec<Part>, display: ToolDisplay) -> Self {
        ToolResult {
            llm_content,
            display,
            error: None,
        }
    }

    /// A failed result; `display` is what the user sees.
    pub fn error(
        kind: ToolErrorKind,
        message: impl Into<String>,
        display: impl Into<String>,
    ) -> Self {
        let message = message.into();
        ToolResult {
            llm_content: vec![Part::text(message.clone())],
            display: ToolDisplay::Text(display.into()),
            error: Some(ToolError::new(kind, message)),
        }
    }

    /// A failed result from a [`ToolError`], displayed as its message.
    pub fn from_error(error: ToolError) -> Self {
        ToolResult {
            llm_content: vec![Part::text(error.message.clone())],
            display: ToolDisplay::Text(error.message.clone()),
            error: Some(error),
        }
    }

    /// The text parts joined with `\n`, as the model sees them.
    pub fn llm_text(&self) -> String {
        let texts: Vec<&str> = self
            .llm_content
            .iter()
            .filter_map(|p| p.text.as_deref())
            .collect();
        texts.join("\n")
    }
}

/// Gemini CLI's `ToolErrorType`, with its wire strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum ToolErrorKind {
    PolicyViolation,
    InvalidToolParams,
    Unknown,
    UnhandledException,
    ToolNotRegistered,
    ExecutionFailed,
    FileNotFound,
    FileWriteFailure,
    ReadContentFailure,
    AttemptToCreateExistingFile,
    FileTooLarge,
    PermissionDenied,
    NoSpaceLeft,
    TargetIsDirectory,
    PathNotInWorkspace,
    SearchPathNotFound,
    SearchPathNotADirectory,
    EditPreparationFailure,
    EditNoOccurrenceFound,
    EditExpectedOccurrenceMismatch,
    EditNoChange,
    GlobExecutionError,
    GrepExecutionError,
    LsExecutionError,
    PathIsNotADirectory,
    McpToolError,
    McpResourceNotFound,
    MemoryToolExecutionError,
    ReadManyFilesSearchError,
    ShellExecuteError,
    DiscoveredToolExecutionError,
    WebFetchNoUrlInPrompt,
    WebFetchFallbackFailed,
    WebFetchProcessingError,
    WebSearchFailed,
    StopExecution,
}

impl ToolErrorKind {
    /// The snake_case string of the wire format.
    pub fn as_str(self) -> &'static str {
        use ToolErrorKind::*;
        match self {
            PolicyViolation => "policy_violation",
            InvalidToolParams => "invalid_tool_params",
            Unknown => "unknown",
            UnhandledException => "unhandled_exception",
            ToolNotRegistered => "tool_not_registered",
            ExecutionFailed => "execution_failed",
            FileNotFound => "file_not_found",
            FileWriteFailure => "file_write_failure",
            ReadContentFailure => "read_content_failure",
            AttemptToCreateExistingFile => "attempt_to_create_existing_file",
            FileTooLarge => "file_too_large",
            PermissionDenied => "permission_denied",
            NoSpaceLeft => "no_space_left",
            TargetIsDirectory => "target_is_directory",
            PathNotInWorkspace => "path_not_in_workspace",
            SearchPathNotFound => "search_path_not_found",
            SearchPathNotADirectory => "search_path_not_a_directory",
            EditPreparationFailure => "edit_preparation_failure",
            EditNoOccurrenceFound => "edit_no_occurrence_found",
            EditExpectedOccurrenceMismatch => "edit_expected_occurrence_mismatch",
            EditNoChange => "edit_no_change",
            GlobExecutionError => "glob_execution_error",
            GrepExecutionError => "grep_execution_error",
            LsExecutionError => "ls_execution_error",
            PathIsNotADirectory => "path_is_not_a_directory",
            McpToolError => "mcp_tool_error",
            McpResourceNotFound => "mcp_resource_not_found",
            MemoryToolExecutionError => "memory_tool_execution_error",
            ReadManyFilesSearchError => "read_many_files_search_error",
            ShellExecuteError => "shell_execute_error",
            DiscoveredToolExecutionError => "discovered_tool_execution_error",
            WebFetchNoUrlInPrompt => "web_fetch_no_url_in_prompt",
            WebFetchFallbackFailed => "web_fetch_fallback_failed",
            WebFetchProcessingError => "web_fetch_processing_error",
            WebSearchFailed => "web_search_failed",
            StopExecution => "stop_execution",
        }
    }

    /// Only a full disk ends a headless run (exit 54).
    pub fn is_fatal(self) -> bool {
        self == ToolErrorKind::NoSpaceLeft
    }
}

/// A failed call: what kind of failure, and the text the model sees.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize, JsonSchema)]
#[error("{message}")]
pub struct ToolError {
    /// The kind.
    pub kind: ToolErrorKind,
    /// The message the model sees as `response.error`.
    pub message: String,
}

impl ToolError {
    /// A new error.
    pub fn new(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        ToolError {
            kind,
            message: message.into(),
        }
    }

    /// An `invalid_tool_params` error.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        ToolError::new(ToolErrorKind::InvalidToolParams, message)
    }
}
