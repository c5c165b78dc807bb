//! A finished hook command, reported while telemetry is on so its span
//! hangs under the step that fired it (the tool call, the model call or
//! the turn).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// One hook command that ran ([`super::AgentEvent::HookRan`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookRun {
    /// The event's Gemini CLI name (`BeforeTool`, `BeforeModel`, ...).
    pub event: String,
    /// The hook's name (its command when it has none).
    pub hook_name: String,
    /// The tool call that fired it (tool events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The span id its process was given in `TRACEPARENT` (16 hex digits).
    pub span_id: String,
    /// When it started, in microseconds since the Unix epoch.
    pub started_unix_us: u64,
    /// How long it ran (milliseconds on the wire).
    #[serde(rename = "duration_ms", with = "super::millis")]
    #[schemars(with = "u64")]
    pub duration: Duration,
    /// Its exit code (none on a timeout, a spawn failure or a signal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Why it did not run to its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
