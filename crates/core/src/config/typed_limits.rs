//! `limits.*`: per-session resource limits (gemini-rs's own keys; the
//! flags `--max-memory-mb` and `--max-wall-seconds` win over them).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// `limits.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct LimitsSettings {
    /// `limits.memoryMb`: the most memory a session may use, in MiB (its
    /// own share and its commands'); over it the session ends with stop
    /// reason `resource_limit` (exit 59 headless).
    #[schemars(range(min = 1))]
    pub memory_mb: Option<u64>,
    /// `limits.wallSeconds`: the longest a session may run, in seconds;
    /// past it the session ends with stop reason `resource_limit`.
    #[schemars(range(min = 1))]
    pub wall_seconds: Option<u64>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
