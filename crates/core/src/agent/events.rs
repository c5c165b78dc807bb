//! `AgentEvent`, the one stream every front end watches, and the
//! confirmation channel through which front ends answer.

use crate::tools::{ConfirmationDetails, ToolDisplay, ToolError};
use gemini_rs_protocol::UsageMetadata;
use serde_json::{Map, Value};
use std::time::Duration;
use tokio::sync::mpsc;

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolCallStatus {
    /// It ran and succeeded.
    Success,
    /// It failed (not found, invalid, denied, or the tool reported an error).
    Error,
    /// It was cancelled.
    Cancelled,
}

/// A finished tool call, as front ends show it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallFinished {
    /// The call id (sent back to the model).
    pub call_id: String,
    /// The name the model called.
    pub name: String,
    /// Arguments as the model sent them.
    pub args: Value,
    /// How it ended.
    pub status: ToolCallStatus,
    /// What the user sees.
    pub display: ToolDisplay,
    /// The error, when it failed.
    pub error: Option<ToolError>,
    /// How long execution took.
    pub duration: Duration,
}

/// Everything the core reports while a prompt runs.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A chunk of model text.
    Content(String),
    /// A chunk of model thought.
    Thought(String),
    /// The model asked for a tool call.
    ToolCallRequested {
        /// Call id.
        call_id: String,
        /// Name as called.
        name: String,
        /// Arguments as sent.
        args: Value,
    },
    /// A call waits for the user's answer on the confirmation channel.
    ToolAwaitingApproval {
        /// Call id.
        call_id: String,
        /// Name as called.
        name: String,
        /// What to show.
        details: ConfirmationDetails,
    },
    /// A call started executing.
    ToolRunning {
        /// Call id.
        call_id: String,
    },
    /// Live output of a running call.
    ToolOutput {
        /// Call id.
        call_id: String,
        /// The latest view of the output (for the shell: its last lines
        /// as rendered so far); it replaces the previous one.
        chunk: String,
    },
    /// A call finished.
    ToolFinished(ToolCallFinished),
    /// Token usage of one model request.
    Usage {
        /// Model id.
        model: String,
        /// Usage of that request.
        usage: UsageMetadata,
    },
    /// A warning for the user (stderr in headless mode).
    Warning(String),
    /// A note for the user (shown in the UI, logged in headless mode).
    Info(String),
    /// One model turn ended (its stream is complete).
    ModelTurnFinished,
}

/// The sending side of the event stream.
pub type EventSender = mpsc::UnboundedSender<AgentEvent>;

/// The user's answer to a confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmationOutcome {
    /// Run it this once.
    ProceedOnce,
    /// Run it and stop asking for this kind of call this session.
    ProceedAlways,
    /// As `ProceedAlways`, and remember it in the user's policy file.
    ProceedAlwaysAndSave,
    /// Allow every tool of this MCP server.
    ProceedAlwaysServer,
    /// Allow this MCP tool.
    ProceedAlwaysTool,
    /// The user edited the proposal.
    ModifyWithEditor,
    /// Do not run it (and cancel the rest of the batch).
    Cancel,
}

/// An answer on the confirmation channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfirmationResponse {
    /// The call answered.
    pub call_id: String,
    /// The answer.
    pub outcome: ConfirmationOutcome,
    /// With [`ConfirmationOutcome::ModifyWithEditor`]: the arguments the
    /// user changed (`content` for write_file; `old_string` and
    /// `new_string` for replace; `modified_content` for save_memory). The
    /// scheduler merges them into the call, marks it `modified_by_user`
    /// and asks again with the new proposal. `None` asks again unchanged.
    pub modified_args: Option<Map<String, Value>>,
}

impl ConfirmationResponse {
    /// A plain answer (no modified arguments).
    pub fn new(call_id: impl Into<String>, outcome: ConfirmationOutcome) -> Self {
        ConfirmationResponse {
            call_id: call_id.into(),
            outcome,
            modified_args: None,
        }
    }

    /// A [`ConfirmationOutcome::ModifyWithEditor`] answer carrying the
    /// user's changed arguments.
    pub fn modified(call_id: impl Into<String>, args: Map<String, Value>) -> Self {
        ConfirmationResponse {
            call_id: call_id.into(),
            outcome: ConfirmationOutcome::ModifyWithEditor,
            modified_args: Some(args),
        }
    }
}
