//! `admin.*`: what an administrator's system settings may switch off.

use super::defaults as d;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// `admin.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AdminSettings {
    /// `admin.mcp`.
    pub mcp: AdminMcpSettings,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `admin.mcp.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AdminMcpSettings {
    /// `admin.mcp.enabled`: MCP servers may run.
    #[schemars(extend("default" = d::ADMIN_MCP_ENABLED))]
    pub enabled: Option<bool>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}
