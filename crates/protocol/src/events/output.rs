//! What headless runs print: the one JSON object of `-o json`
//! ([`JsonOutput`]) and the lines of `-o stream-json` ([`StreamEvent`]),
//! with Gemini CLI's field names. Their JSON Schemas
//! ([`json_output_schema`], [`stream_json_schema`]) are committed under
//! `docs/schema/`; harnesses may rely on every field documented there.

use super::{PROTOCOL_VERSION, SessionStats};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One line of `-o stream-json`, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// The session is ready; always the first line.
    Init(InitEvent),
    /// A user prompt, or a chunk of the model's answer.
    Message(MessageEvent),
    /// The model asked for a tool call.
    ToolUse(ToolUseEvent),
    /// A tool call ended.
    ToolResult(ToolResultEvent),
    /// A warning or an error; an error line precedes a failed `result`
    /// (turn limit, loop, budget, structured output).
    Error(ErrorEvent),
    /// The run ended; always the last line.
    Result(ResultEvent),
}

/// The `init` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InitEvent {
    /// ISO-8601 UTC time.
    pub timestamp: String,
    /// The session id.
    pub session_id: String,
    /// The model id.
    pub model: String,
    /// The version of this stream's schema ([`PROTOCOL_VERSION`]).
    pub schema_version: u32,
    /// The approval mode the run starts in (`plan` while planning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval_mode: Option<super::ApprovalMode>,
}

impl InitEvent {
    /// An `init` line of the current schema version.
    pub fn new(timestamp: String, session_id: String, model: String) -> Self {
        InitEvent {
            timestamp,
            session_id,
            model,
            schema_version: PROTOCOL_VERSION,
            approval_mode: None,
        }
    }

    /// The same line naming the approval mode.
    pub fn with_mode(mut self, mode: super::ApprovalMode) -> Self {
        self.approval_mode = Some(mode);
        self
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum MessageRole {
    /// The prompt.
    User,
    /// The model.
    Assistant,
}

/// A `message` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MessageEvent {
    /// ISO-8601 UTC time.
    pub timestamp: String,
    /// Who wrote it.
    pub role: MessageRole,
    /// The text (a chunk of it when `delta`).
    pub content: String,
    /// True for a chunk of a streamed answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<bool>,
    /// Set for a sub-agent's message: the call that runs the sub-agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_id: Option<String>,
}

/// A `tool_use` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolUseEvent {
    /// ISO-8601 UTC time.
    pub timestamp: String,
    /// The tool's name as called.
    pub tool_name: String,
    /// The call id.
    pub tool_id: String,
    /// The arguments as sent.
    pub parameters: Value,
    /// Set for a sub-agent's call: the call that runs the sub-agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_id: Option<String>,
}

/// Success or error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// It worked.
    Success,
    /// It failed.
    Error,
}

/// A `tool_result` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolResultEvent {
    /// ISO-8601 UTC time.
    pub timestamp: String,
    /// The call id.
    pub tool_id: String,
    /// How it ended.
    pub status: Status,
    /// What the user sees (the error's text when it failed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// Set for a sub-agent's call: the call that runs the sub-agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_id: Option<String>,
}

/// An error's kind and text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorInfo {
    /// Its kind (`FatalTurnLimitedError`, `invalid_tool_params`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Its text.
    pub message: String,
    /// `resource_limit` when a resource limit ended the session.
    #[serde(
        rename = "stopReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub stop_reason: Option<String>,
    /// Which resource limit: `memory` or `wall_clock`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}

/// How bad an `error` line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// The run goes on.
    Warning,
    /// The run ends; the `result` follows.
    Error,
}

/// An `error` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorEvent {
    /// ISO-8601 UTC time.
    pub timestamp: String,
    /// How bad.
    pub severity: Severity,
    /// The text.
    pub message: String,
}

/// The `result` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ResultEvent {
    /// ISO-8601 UTC time.
    pub timestamp: String,
    /// How the run ended.
    pub status: Status,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorInfo>,
    /// Tokens, calls and cost.
    pub stats: StreamStats,
    /// With `--output-schema` / `--json-schema`: the final answer, valid
    /// against the schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
}

/// The `stats` of a `result` line: totals over every model, then per model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StreamStats {
    /// All tokens.
    pub total_tokens: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Answer tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the cache.
    pub cached: u64,
    /// Prompt tokens not served from the cache.
    pub input: u64,
    /// Wall time of the run in milliseconds.
    pub duration_ms: u64,
    /// Tool calls made.
    pub tool_calls: u64,
    /// The same token counts per model id (Gemini CLI 0.61's; the `0.27`
    /// dialect leaves it out, as 0.27.4 did).
    #[serde(default)]
    pub models: IndexMap<String, StreamModelStats>,
    /// Cost in US dollars, when every model used has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// True when some token counts are estimates (a server sent no usage).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
    /// Peak memory in MiB (see `SessionStats::peak_memory_mb`).
    #[serde(
        rename = "peakMemoryMb",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub peak_memory_mb: Option<u64>,
    /// CPU time in milliseconds (see `SessionStats::cpu_ms`).
    #[serde(rename = "cpuMs", default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<u64>,
}

/// One model's tokens in [`StreamStats`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StreamModelStats {
    /// All tokens.
    pub total_tokens: u64,
    /// Prompt tokens.
    pub input_tokens: u64,
    /// Answer tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the cache.
    pub cached: u64,
    /// Prompt tokens not served from the cache.
    pub input: u64,
    /// Cost in US dollars, when the model has a price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// True when this model's token counts are estimates.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl StreamStats {
    /// The stream form of a session's metrics.
    pub fn of(stats: &SessionStats, duration_ms: u64) -> Self {
        let mut out = StreamStats {
            duration_ms,
            tool_calls: stats.tool_calls(),
            cost_usd: stats.total_cost_usd(),
            estimated: stats.tokens_estimated(),
            peak_memory_mb: stats.peak_memory_mb,
            cpu_ms: stats.cpu_ms,
            ..StreamStats::default()
        };
        for (name, m) in &stats.models {
            let t = &m.tokens;
            out.total_tokens += t.total;
            out.input_tokens += t.prompt;
            out.output_tokens += t.candidates;
            out.cached += t.cached;
            out.input += t.input;
            out.models.insert(
                name.clone(),
                StreamModelStats {
                    total_tokens: t.total,
                    input_tokens: t.prompt,
                    output_tokens: t.candidates,
                    cached: t.cached,
                    input: t.input,
                    cost_usd: m.cost_usd,
                    estimated: t.estimated,
                },
            );
        }
        out
    }
}

/// The one object `-o json` prints (on stdout; on stderr when the run
/// failed, with `error` instead of `response`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JsonOutput {
    /// The session id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The text of the last model turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// The session's metrics, as `/stats` counts them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<SessionStats>,
    /// Why the run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JsonError>,
    /// With `--output-schema` / `--json-schema`: the final answer, valid
    /// against the schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<Value>,
}

/// The `error` of [`JsonOutput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JsonError {
    /// Its kind (`FatalTurnLimitedError`, ...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Its text.
    pub message: String,
    /// The process's exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// `resource_limit` when a resource limit ended the session.
    #[serde(
        rename = "stopReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub stop_reason: Option<String>,
    /// Which resource limit: `memory` or `wall_clock`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<String>,
}

fn versioned(schema: schemars::Schema) -> Value {
    let mut value = serde_json::to_value(schema).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.insert("x-protocol-version".into(), Value::from(PROTOCOL_VERSION));
    }
    value
}

/// The JSON Schema of one `-o stream-json` line, as committed in
/// `docs/schema/stream-json.schema.json`.
pub fn stream_json_schema() -> Value {
    versioned(schemars::schema_for!(StreamEvent))
}

/// The JSON Schema of `-o json`'s object, as committed in
/// `docs/schema/json-output.schema.json`.
pub fn json_output_schema() -> Value {
    versioned(schemars::schema_for!(JsonOutput))
}
