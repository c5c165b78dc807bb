//! What running the hooks of one event decided: plain values the agent,
//! the scheduler and the session act on. Both the `Hooks` trait and the
//! event runners produce them, so they live apart from either.

use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse};
use serde_json::{Map, Value};

/// What BeforeTool hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeToolOutcome {
    /// Run the tool; `tool_input` (if any) is merged into the arguments.
    Proceed {
        /// Partial arguments to merge (`Object.assign`) before running.
        tool_input: Option<Map<String, Value>>,
        /// `additionalContext` for the model, appended to the result as
        /// `<hook_context>…</hook_context>` (already escaped).
        additional_context: Option<String>,
    },
    /// Do not run it; the model sees `reason` as the error.
    Block {
        /// The reason.
        reason: String,
    },
    /// Do not run it and stop the agent.
    Stop {
        /// The reason.
        reason: String,
    },
}

/// What Claude Code's PreToolUse hooks said about asking the user
/// (`permissionDecision`; a `deny` is a [`BeforeToolOutcome::Block`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPermission {
    /// Run without asking, where policy would ask (a deny rule still refuses).
    Allow,
    /// Ask the user, where policy, the approval mode or a rule would allow.
    Ask,
}

/// What PreToolUse hooks decided, before policy and confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct PreToolUseOutcome {
    /// Run (with rewritten input and context), block or stop.
    pub action: BeforeToolOutcome,
    /// Their permission decision, when one of them gave `allow` or `ask`.
    pub permission: Option<HookPermission>,
    /// The decision's `permissionDecisionReason`, when given.
    pub permission_reason: Option<String>,
}

/// What AfterAgent (Claude: `Stop`) hooks are told about a finished
/// prompt.
#[derive(Debug, Clone, Copy)]
pub struct AgentStop<'a> {
    /// The user's prompt.
    pub prompt: &'a str,
    /// The text of every model turn of it, joined with `\n`.
    pub response: &'a str,
    /// The text of the last model turn.
    pub last_message: &'a str,
    /// True when the agent goes on because a Stop hook blocked before.
    pub stop_hook_active: bool,
}

/// What AfterTool hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterToolOutcome {
    /// Keep the result, optionally with extra context for the model.
    Keep {
        /// Appended as `<hook_context>…</hook_context>` (already escaped).
        additional_context: Option<String>,
    },
    /// Replace the result by an error with `reason`.
    Block {
        /// The reason.
        reason: String,
    },
    /// Replace the result by an error and stop the agent.
    Stop {
        /// The reason.
        reason: String,
    },
}

/// What BeforeAgent / AfterAgent hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentHookOutcome {
    /// Go on. BeforeAgent: append `<hook_context>{additional_context}</hook_context>`
    /// as an extra text part of the user content (already escaped).
    Proceed {
        /// Sanitised `additionalContext`.
        additional_context: Option<String>,
    },
    /// Blocked (`AgentExecutionBlocked`): headless prints
    /// `[WARNING] Agent execution blocked: <message()>`. BeforeAgent: drop
    /// the turn, no model call. AfterAgent: send `reason` as a new prompt.
    Block {
        /// Effective reason (`stopReason || reason || "No reason provided"`).
        reason: String,
        /// The merged `systemMessage`, trimmed.
        system_message: Option<String>,
        /// AfterAgent `clearContext`: reset the chat.
        clear_context: bool,
    },
    /// Stop the agent (`AgentExecutionStopped`): headless prints
    /// `Agent execution stopped: <message()>`, exit 0.
    Stop {
        /// Effective reason.
        reason: String,
        /// The merged `systemMessage`, trimmed.
        system_message: Option<String>,
        /// AfterAgent `clearContext`: reset the chat.
        clear_context: bool,
    },
}

impl AgentHookOutcome {
    /// `systemMessage || reason` for Block/Stop messages; `None` for Proceed.
    pub fn message(&self) -> Option<&str> {
        match self {
            AgentHookOutcome::Proceed { .. } => None,
            AgentHookOutcome::Block {
                reason,
                system_message,
                ..
            }
            | AgentHookOutcome::Stop {
                reason,
                system_message,
                ..
            } => Some(
                system_message
                    .as_deref()
                    .filter(|s| !s.is_empty())
                    .unwrap_or(reason),
            ),
        }
    }
}

/// What BeforeModel hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeModelOutcome {
    /// Call the model, with the rewritten request and model when given.
    Proceed {
        /// The request to send instead (contents and/or generation config changed).
        request: Option<Box<GenerateContentRequest>>,
        /// The model to use instead.
        model: Option<String>,
    },
    /// Blocked with a synthetic `llm_response`: do not call the model, use
    /// this as its (single-chunk) answer.
    Respond {
        /// The synthetic response (`finishReason` defaults to `STOP`).
        response: Box<GenerateContentResponse>,
    },
    /// Blocked: no model call; `[WARNING] Agent execution blocked: <reason>`.
    Block {
        /// Effective reason.
        reason: String,
        /// The merged `systemMessage`.
        system_message: Option<String>,
    },
    /// Stop the agent (`Agent execution stopped: <reason>`).
    Stop {
        /// Effective reason.
        reason: String,
        /// The merged `systemMessage`.
        system_message: Option<String>,
    },
}

/// What AfterModel hooks decided about one streamed chunk.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterModelOutcome {
    /// Yield the chunk, or `response` instead when given.
    Proceed {
        /// Replacement chunk (text parts only).
        response: Option<Box<GenerateContentResponse>>,
    },
    /// Abort the turn (`AgentExecutionBlocked`).
    Block {
        /// Effective reason.
        reason: String,
        /// The merged `systemMessage`.
        system_message: Option<String>,
    },
    /// Stop the agent (`AgentExecutionStopped`).
    Stop {
        /// Effective reason.
        reason: String,
        /// The merged `systemMessage`.
        system_message: Option<String>,
    },
}

/// What SessionStart hooks returned.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionStartOutcome {
    /// The merged `systemMessage`: headless writes it to stderr as is (on
    /// top of the `Hook system message:` line already emitted).
    pub system_message: Option<String>,
    /// Sanitised `additionalContext`: prefix the first prompt with
    /// `<hook_context>{ctx}</hook_context>\n\n`.
    pub additional_context: Option<String>,
}
