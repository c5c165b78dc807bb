//! The settings' side of the MCP servers (§6.1): which servers may run,
//! the `mcpServers` entries and `admin.mcp.enabled`. The entry types are
//! the MCP client's ([`gemini_rs_mcp::config`]).

pub use gemini_rs_mcp::config::{McpServerConfig, TransportSpec};

use crate::config::Settings;

/// Which servers may run: `--allowed-mcp-server-names` replaces
/// `mcp.allowed` and clears `mcp.excluded`, as in Gemini CLI.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerFilter {
    /// When non-empty, only these servers.
    pub allowed: Vec<String>,
    /// Never these servers.
    pub excluded: Vec<String>,
    /// Switched off by `mcp disable` (normalized names).
    pub disabled: Vec<String>,
}

impl ServerFilter {
    /// The filter from the settings and the command line.
    pub fn new(settings: &Settings, allowed_server_names: &[String]) -> Self {
        if allowed_server_names.is_empty() {
            ServerFilter {
                allowed: settings.typed().mcp.allowed.clone(),
                excluded: settings.typed().mcp.excluded.clone(),
                disabled: Vec::new(),
            }
        } else {
            ServerFilter {
                allowed: allowed_server_names.to_vec(),
                excluded: Vec::new(),
                disabled: Vec::new(),
            }
        }
    }

    /// The filter with the servers `mcp disable` switched off (Gemini CLI's
    /// enablement file under `gemini_dir`).
    pub fn with_enablement(mut self, gemini_dir: &std::path::Path) -> Self {
        self.disabled = super::server_enablement::disabled(gemini_dir);
        self
    }

    /// Whether a server of this name may be connected.
    pub fn permits(&self, name: &str) -> bool {
        (self.allowed.is_empty() || self.allowed.iter().any(|a| a == name))
            && !self.excluded.iter().any(|e| e == name)
            && !self
                .disabled
                .contains(&super::server_enablement::normalize(name))
    }
}

/// All `mcpServers` entries, in settings order (no filtering).
pub fn configured_servers(settings: &Settings) -> Vec<McpServerConfig> {
    settings
        .typed()
        .mcp_servers
        .iter()
        .filter(|(_, v)| v.is_object())
        .map(|(k, v)| McpServerConfig::from_value(k, v))
        .collect()
}

/// `admin.mcp.enabled` (default true).
pub fn mcp_enabled(settings: &Settings) -> bool {
    settings
        .typed()
        .admin
        .mcp
        .enabled
        .unwrap_or(crate::config::defaults::ADMIN_MCP_ENABLED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn filter() {
        let s = Settings::from_value(json!({"mcp": {"allowed": ["a", "b"], "excluded": ["b"]}}));
        let f = ServerFilter::new(&s, &[]);
        assert!(f.permits("a") && !f.permits("b") && !f.permits("c"));
        let f = ServerFilter::new(&s, &["b".to_string()]);
        assert!(f.permits("b") && !f.permits("a"));
    }
}
