//! The ops: what a front end asks a session to do.

use super::{
    AgentEvent, ApprovalMode, ConfirmationResponse, ElicitationReply, Finished, QuestionsReply,
};
use crate::Part;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a front end asks a session to do. Confirm, Cancel, SetApprovalMode,
/// AnswerElicitation and AnswerQuestions act at once; every other op waits for the one
/// before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Op {
    /// Send a user prompt (its text parts get `@path` expansion).
    Prompt {
        /// The prompt's parts.
        parts: Vec<Part>,
    },
    /// Answer a confirmation the session asked for.
    Confirm(ConfirmationResponse),
    /// Cancel what runs now (a prompt, a command) and drop queued ops.
    Cancel,
    /// Change the approval mode.
    SetApprovalMode {
        /// The new mode.
        mode: ApprovalMode,
    },
    /// Use another model from the next request on.
    SetModel {
        /// The model id (`provider/model` for other providers).
        model: String,
    },
    /// Summarise the older history now (`/compress`).
    Compress,
    /// Forget the conversation (`/clear`), with SessionEnd/SessionStart hooks.
    Clear,
    /// Restore the files and conversation of a checkpoint (`/restore`).
    Restore {
        /// The checkpoint's id.
        id: String,
    },
    /// Go back to before one of the latest prompts (`/rewind`): cut the
    /// conversation there and/or put back the files the checkpoints of
    /// that prompt's turn saved (`general.checkpointing.enabled`).
    Rewind {
        /// Which prompt: 1 is the latest, 2 the one before, ...
        back: usize,
        /// Cut the conversation before that prompt.
        conversation: bool,
        /// Restore the files as they were before the first checkpointed
        /// edit after that prompt.
        files: bool,
    },
    /// Save the conversation under a tag (`/chat save`).
    SaveChat {
        /// The tag.
        tag: String,
    },
    /// Write the conversation to a Markdown (`.md`) or JSON (`.json`)
    /// file (`/chat share`).
    ShareChat {
        /// The file.
        path: std::path::PathBuf,
    },
    /// Continue a conversation saved under a tag (`/chat resume`).
    ResumeChat {
        /// The tag.
        tag: String,
    },
    /// Add a fact to memory (when given) and reload the context files
    /// (`/memory add`, `/memory refresh`).
    RefreshMemory {
        /// The fact to save first.
        fact: Option<String>,
    },
    /// Run a shell command the user typed (`!cmd`), under the shell tool's
    /// policy and sandbox.
    Shell {
        /// The command line.
        command: String,
    },
    /// Run one tool call outside a conversation (`mcp serve`): lookup,
    /// validation, policy, confirmation, hooks and execution as for a call
    /// of the model, without adding anything to the history.
    RunTool {
        /// The call's id (reported in the events and the result).
        call_id: String,
        /// The tool's name.
        name: String,
        /// Its arguments.
        args: Value,
    },
    /// Add directories to the workspace (`/directory add`); MCP servers
    /// are told their roots changed.
    AddDirectories {
        /// The paths, relative to the project root or absolute.
        paths: Vec<String>,
    },
    /// Log in to an OAuth-protected MCP server (`/mcp auth <name>`); the
    /// URL to open is reported as an info when no browser opens.
    McpAuth {
        /// The server's name.
        server: String,
    },
    /// Trust the project's sub-agents that wait for acknowledgement
    /// (`/agents acknowledge`); they are used from the next session on.
    AcknowledgeAgents,
    /// End a background shell command of this session (`/shells`): TERM,
    /// then KILL. Acts at once.
    StopBackgroundProcess {
        /// Its process id.
        pid: u32,
    },
    /// Answer an MCP server's request for input (acts at once).
    AnswerElicitation {
        /// The request's id.
        id: u64,
        /// The answer.
        reply: ElicitationReply,
    },
    /// Answer the model's questions (`ask_user`; acts at once).
    AnswerQuestions {
        /// The request's id.
        id: u64,
        /// The answers, or the user's dismissal.
        reply: QuestionsReply,
    },
    /// End the session after the ops before it: run SessionEnd, stop.
    Shutdown,
}

/// An op with the id that names it: the events a session sends in answer
/// to it ([`crate::events::AgentEvent::PromptStarted`], `Error`,
/// `Acknowledged`, `Finished`) carry that id as `op_id`, so a front end with
/// several ops in flight can tell which event answers which. The id is the
/// front end's choice (any string; [`Submission::new`] leaves it to the
/// session's sender, which numbers ops `op-1`, `op-2`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Submission {
    /// The op's id, as its answers carry it.
    pub id: String,
    /// What is asked.
    pub op: Op,
}

impl Submission {
    /// `op` under the id `id`.
    pub fn new(id: impl Into<String>, op: Op) -> Self {
        Submission { id: id.into(), op }
    }
}

impl Op {
    /// A prompt of one text part.
    pub fn prompt(text: impl Into<String>) -> Op {
        Op::Prompt {
            parts: vec![Part::text(text)],
        }
    }
}

impl AgentEvent {
    /// An [`AgentEvent::Error`] no op caused (or whose op is stamped on
    /// it later).
    pub fn error(message: impl Into<String>) -> Self {
        AgentEvent::Error {
            message: message.into(),
            op_id: None,
        }
    }

    /// An [`AgentEvent::Finished`] without its op's id.
    pub fn finished(finished: Finished) -> Self {
        AgentEvent::Finished {
            op_id: None,
            finished,
        }
    }

    /// The id of the op this event answers, when it names one.
    pub fn op_id(&self) -> Option<&str> {
        match self {
            AgentEvent::Error { op_id, .. }
            | AgentEvent::PromptStarted { op_id, .. }
            | AgentEvent::Finished { op_id, .. } => op_id.as_deref(),
            AgentEvent::Acknowledged { op_id } => Some(op_id),
            _ => None,
        }
    }

    /// Names `id` as the op this event answers, when it is one that names
    /// its op and names none yet.
    pub fn stamp(&mut self, id: &str) {
        if let AgentEvent::Error { op_id, .. }
        | AgentEvent::PromptStarted { op_id, .. }
        | AgentEvent::Finished { op_id, .. } = self
            && op_id.is_none()
        {
            *op_id = Some(id.to_string());
        }
    }
}
