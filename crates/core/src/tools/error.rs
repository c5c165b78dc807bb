//! Tool errors: a kind (Gemini CLI's `ToolErrorType`) and the message the
//! model sees.

/// Gemini CLI's `ToolErrorType`, with its wire strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
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
