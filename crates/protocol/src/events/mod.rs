//! The session protocol: [`Op`], what a front end submits to a session, and
//! [`AgentEvent`], the one stream every front end watches, with every
//! payload they carry. Plain serde data (no behaviour beyond constructors
//! and small accessors); the JSON Schema of the stream is generated from
//! these types ([`events_schema`]) into `docs/schema/events.schema.json`.
//!
//! JSON shape: ops and events are objects tagged by `type` (snake_case);
//! [`PROTOCOL_VERSION`] changes whenever a field changes meaning or goes.

mod elicitation;
mod hook_run;
mod info;
mod model_error;
mod op;
mod output;
mod questions;
mod stats;
mod tools;

pub use elicitation::{
    ElicitationReply, ElicitationRequest, FieldError, PropertySchema, RequestedSchema, parse_field,
};
pub use hook_run::HookRun;
pub use info::{
    AgentInfo, AgentsInfo, BackgroundProcessInfo, BackgroundStatus, CheckpointInfo,
    CommandArgument, CommandInfo, ContextFileInfo, HookInfo, HooksInfo, McpResourceInfo,
    McpServerInfo, McpServerStatus, McpServersInfo, McpToolInfo, RecordedSessionInfo,
    SavedChatInfo, SessionSummary, SkillInfo, ToolInfo,
};
pub use model_error::{ApiOrigin, ModelError};
pub use op::{Op, Submission};
pub use output::{
    ErrorEvent, ErrorInfo, InitEvent, JsonError, JsonOutput, MessageEvent, MessageRole,
    ResultEvent, Severity, Status, StreamEvent, StreamModelStats, StreamStats, ToolResultEvent,
    ToolUseEvent, json_output_schema, stream_json_schema,
};
pub use questions::{Question, QuestionOption, QuestionType, QuestionsReply};
pub use stats::{
    ApiMetrics, Decision, Decisions, FileMetrics, ModelMetrics, Request as StatsRequest,
    RoleMetrics, SessionStats, TokenMetrics, TokenTotals, ToolCallMetrics, ToolMetrics,
};
pub use tools::{
    ConfirmationDetails, FileDiff, Modifiable, TodoItem, TodoStatus, ToolDisplay, ToolError,
    ToolErrorKind, ToolKind, ToolResult,
};

use crate::UsageMetadata;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::Duration;

/// The version of this protocol: bumped when a field of an op or event
/// changes meaning or is removed (added fields keep it).
pub const PROTOCOL_VERSION: u32 = 1;

/// The session's approval mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalMode {
    /// Ask before anything that changes something.
    Default,
    /// File edits run without asking.
    AutoEdit,
    /// Everything runs without asking.
    Yolo,
    /// Read-only planning.
    Plan,
}

impl ApprovalMode {
    /// Parses `default`, `auto_edit` (or `autoEdit`), `yolo`, `plan`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "default" => Some(ApprovalMode::Default),
            "auto_edit" | "autoEdit" => Some(ApprovalMode::AutoEdit),
            "yolo" => Some(ApprovalMode::Yolo),
            "plan" => Some(ApprovalMode::Plan),
            _ => None,
        }
    }

    /// The spelling of `--approval-mode`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Default => "default",
            ApprovalMode::AutoEdit => "auto_edit",
            ApprovalMode::Yolo => "yolo",
            ApprovalMode::Plan => "plan",
        }
    }
}

/// Why a prompt could not complete.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AgentError {
    /// `model.maxSessionTurns` was reached.
    #[error(
        "Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json."
    )]
    TurnLimit,
    /// The model call failed.
    #[error("{error}")]
    Model {
        /// What failed.
        error: ModelError,
    },
    /// The user cancelled.
    #[error("Operation cancelled.")]
    Cancelled,
    /// A tool failed in a way that ends the session (disk full).
    #[error("{message}")]
    FatalTool {
        /// The tool's error.
        message: String,
    },
    /// `--max-budget-usd` was crossed: the turn's calls were answered and
    /// nothing more was sent.
    #[error(
        "The session cost ${spent_usd:.4}, over its budget of ${budget_usd:.4} (--max-budget-usd)."
    )]
    BudgetExceeded {
        /// What the session cost, in US dollars.
        spent_usd: f64,
        /// The budget, in US dollars.
        budget_usd: f64,
    },
    /// The final answer was still not valid against `--output-schema` /
    /// `--json-schema` after one retry.
    #[error("The final answer does not match the output schema: {message}")]
    StructuredOutput {
        /// The validation errors.
        message: String,
    },
    /// A custom slash command could not be expanded (a refused `!{...}`,
    /// an unreadable `@{...}`); nothing was sent to the model.
    #[error("{message}")]
    Command {
        /// What went wrong.
        message: String,
    },
    /// A resource limit (`--max-memory-mb`, `--max-wall-seconds`) ended
    /// the session: what ran was ended with its children.
    #[error("{message}")]
    ResourceLimit {
        /// Which limit: `memory` or `wall_clock`.
        limit: String,
        /// What was measured against the limit.
        message: String,
    },
}

impl From<ModelError> for AgentError {
    fn from(error: ModelError) -> Self {
        AgentError::Model { error }
    }
}

/// How a prompt ended.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PromptOutcome {
    /// The text of the last model turn.
    pub last_turn_text: String,
    /// Set when a hook stopped the agent: the reason.
    pub stopped: Option<String>,
    /// True when the user declined a confirmation: the cancelled calls'
    /// responses are in the history and nothing was sent after them.
    pub declined: bool,
    /// True when loop detection stopped the agent.
    #[serde(default)]
    pub loop_detected: bool,
    /// With an output schema: the final answer, valid against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
    /// Set when the run ended with a plan (`exit_plan_mode` where nobody
    /// can approve it): the plan's Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
}

impl PromptOutcome {
    /// The model answered with `text`.
    pub fn answered(text: String) -> Self {
        PromptOutcome {
            last_turn_text: text,
            ..PromptOutcome::default()
        }
    }

    /// A hook stopped the agent after `text`.
    pub fn stopped(text: String, reason: String) -> Self {
        PromptOutcome {
            last_turn_text: text,
            stopped: Some(reason),
            ..PromptOutcome::default()
        }
    }
}

/// What finished, reported once per op that waits its turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Finished {
    /// A prompt ended.
    Prompt(Result<PromptOutcome, AgentError>),
    /// `/compress` ended.
    Compress {
        /// Whether the history was compressed.
        compressed: bool,
    },
    /// `/clear` ended.
    Clear,
    /// A `/rewind` of the conversation ended: the conversation as it now
    /// is, for a front end to show in place of the old one.
    Rewound {
        /// The remaining contents (Gemini API `Content` objects).
        #[schemars(with = "Vec<Value>")]
        history: Vec<crate::Content>,
        /// Warnings of the file revert (a file changed since, or gone), to
        /// show under the redrawn conversation.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// A [`Op::RunTool`] call ended.
    Tool {
        /// The call's id.
        call_id: String,
        /// How it ended.
        status: ToolCallStatus,
        /// The tool's result (or the error that replaced it).
        result: Box<ToolResult>,
    },
    /// Another command ended (its messages came as events before).
    Command,
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// It ran and succeeded.
    Success,
    /// It failed (not found, invalid, denied, or the tool reported an error).
    Error,
    /// It was cancelled.
    Cancelled,
}

/// A finished tool call, as front ends show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
    /// How long execution took (milliseconds on the wire).
    #[serde(rename = "duration_ms", with = "millis")]
    #[schemars(with = "u64")]
    pub duration: Duration,
}

/// Everything a session reports, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A chunk of model text.
    Content {
        /// The text.
        text: String,
    },
    /// A chunk of model thought.
    Thought {
        /// The text.
        text: String,
    },
    /// The model asked for a tool call.
    ToolCallRequested {
        /// Call id.
        call_id: String,
        /// Name as called.
        name: String,
        /// Arguments as sent.
        args: Value,
    },
    /// A call waits for the user's answer ([`Op::Confirm`]).
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
        /// True when the server sent no usage and these counts are
        /// estimated from the request's and the answer's size.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        estimated: bool,
    },
    /// A warning for the user (stderr in headless mode).
    Warning {
        /// The text.
        message: String,
    },
    /// A note for the user (shown in the UI, logged in headless mode).
    Info {
        /// The text.
        message: String,
    },
    /// An error for the user (a command that failed).
    Error {
        /// The text.
        message: String,
        /// The op it answers ([`Submission::id`]), when one caused it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op_id: Option<String>,
    },
    /// A message from running hooks (headless writes it on stderr).
    HookMessage {
        /// How to show it.
        kind: HookMessageKind,
        /// The text, without prefix or trailing newline.
        text: String,
    },
    /// A hook command ran (sent only while telemetry is on).
    HookRan(HookRun),
    /// The session's metrics after an op; sent before each
    /// [`AgentEvent::Finished`] and before [`AgentEvent::SessionEnded`].
    Stats(Box<SessionStats>),
    /// One model turn ended (its stream is complete).
    ModelTurnFinished,
    /// A model request failed in a way worth retrying (rate limit, 5xx,
    /// a dropped connection); the next attempt starts after `delay_ms`.
    ModelRetry {
        /// The attempt that failed (1-based).
        attempt: u32,
        /// Attempts in total, the first one included.
        max_attempts: u32,
        /// The wait before the next attempt, in milliseconds.
        delay_ms: u64,
        /// Why the attempt failed.
        reason: String,
    },
    /// The session is ready; always the first event.
    SessionStarted {
        /// The session id.
        session_id: String,
        /// The model id.
        model: String,
        /// True when it continues a recorded session.
        resumed: bool,
    },
    /// A prompt starts: its text as sent (with the SessionStart hook's
    /// context in front of the first one).
    PromptStarted {
        /// The prompt's text parts, joined.
        text: String,
        /// The prompt op's id ([`Submission::id`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op_id: Option<String>,
    },
    /// The approval mode changed (by an op or an "always allow" answer).
    ApprovalModeChanged {
        /// The new mode.
        mode: ApprovalMode,
    },
    /// The model changed.
    ModelChanged {
        /// The new model id.
        model: String,
        /// Its context window in tokens.
        context_window: u64,
    },
    /// The conversation was replaced (`/clear`, `/chat resume`, `/restore`,
    /// `/rewind`).
    HistoryReplaced {
        /// How many contents it has now.
        len: usize,
    },
    /// An MCP server asks the user for input; answer with
    /// [`Op::AnswerElicitation`].
    ElicitationRequested {
        /// The request's id.
        id: u64,
        /// What is asked.
        request: ElicitationRequest,
    },
    /// The model asks the user questions (`ask_user`, terminal UI only);
    /// answer with [`Op::AnswerQuestions`]. The call `call_id` waits.
    QuestionsAsked {
        /// The request's id.
        id: u64,
        /// The `ask_user` call asking.
        call_id: String,
        /// The questions, in order.
        questions: Vec<Question>,
    },
    /// An MCP server connected or failed after the session started (the
    /// terminal UI does not wait for them): where every server stands now.
    /// Its tools are declared from the next model request on.
    McpServersChanged {
        /// The servers now.
        servers: McpServersInfo,
    },
    /// An event of a sub-agent, run by the call `parent_call_id`.
    Nested {
        /// The id of the call that delegated to the sub-agent.
        parent_call_id: String,
        /// What the sub-agent reported.
        event: Box<AgentEvent>,
    },
    /// An op that acts at once (`Confirm`, `Cancel`, `SetApprovalMode`,
    /// `StopBackgroundProcess`, `AnswerElicitation`, `AnswerQuestions`)
    /// was applied; what it caused follows as its own events.
    Acknowledged {
        /// The op's id ([`Submission::id`]).
        op_id: String,
    },
    /// An op ended; front ends leave their busy state.
    Finished {
        /// The op that ended ([`Submission::id`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        op_id: Option<String>,
        /// What ended, and how.
        #[serde(flatten)]
        finished: Finished,
    },
    /// The session ended; no event follows.
    SessionEnded,
}

/// How a front end shows a hook message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HookMessageKind {
    /// A feedback warning: headless prints `[WARNING] <text>` on stderr.
    Warning,
    /// `Hook system message: <msg>`: printed as is on stderr.
    SystemMessage,
    /// A debug-logger line Gemini CLI prints as is on stderr (`Hook requested
    /// to stop execution: …`, `Hook execution for …`, the raw failure line).
    Info,
}

/// The user's answer to a confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
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

/// An answer to a confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    /// With [`ConfirmationOutcome::Cancel`] on a plan approval: keep
    /// planning, and tell the model this (the call still runs and answers
    /// with the feedback; the batch goes on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
}

impl ConfirmationResponse {
    /// A plain answer (no modified arguments).
    pub fn new(call_id: impl Into<String>, outcome: ConfirmationOutcome) -> Self {
        ConfirmationResponse {
            call_id: call_id.into(),
            outcome,
            modified_args: None,
            feedback: None,
        }
    }

    /// A plan rejected with the user's feedback (keep planning).
    pub fn plan_feedback(call_id: impl Into<String>, feedback: impl Into<String>) -> Self {
        ConfirmationResponse {
            feedback: Some(feedback.into()),
            ..ConfirmationResponse::new(call_id, ConfirmationOutcome::Cancel)
        }
    }

    /// A [`ConfirmationOutcome::ModifyWithEditor`] answer carrying the
    /// user's changed arguments.
    pub fn modified(call_id: impl Into<String>, args: Map<String, Value>) -> Self {
        ConfirmationResponse {
            call_id: call_id.into(),
            outcome: ConfirmationOutcome::ModifyWithEditor,
            modified_args: Some(args),
            feedback: None,
        }
    }
}

/// Everything that crosses the session's edge, as one JSON Schema: `Op`
/// and `AgentEvent` under `properties`, every payload under `$defs`.
#[derive(JsonSchema)]
#[schemars(title = "gemini-rs session protocol")]
// A type that exists only to generate the schema: its fields are never read.
#[allow(dead_code)]
struct SessionProtocol {
    /// What a front end submits.
    op: Op,
    /// An op with its id.
    submission: Submission,
    /// What a session reports.
    event: AgentEvent,
}

/// The JSON Schema of the session protocol (ops and events), as committed
/// in `docs/schema/events.schema.json`.
pub fn events_schema() -> Value {
    let mut schema =
        serde_json::to_value(schemars::schema_for!(SessionProtocol)).unwrap_or_default();
    if let Some(map) = schema.as_object_mut() {
        map.insert("x-protocol-version".into(), Value::from(PROTOCOL_VERSION));
    }
    schema
}

/// `Duration` as whole milliseconds.
mod millis {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}
