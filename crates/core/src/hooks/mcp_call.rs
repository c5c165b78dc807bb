//! The part of an MCP tool call's `mcp_context` that hook matchers read,
//! shared by Gemini CLI's and Claude Code's matchers.

/// An MCP tool call's `mcp_context`, as far as hooks read it: the server
/// and the tool's own name there.
#[derive(Debug, serde::Deserialize)]
pub(crate) struct McpCall<'a> {
    /// The server's name in settings.
    pub server_name: &'a str,
    /// The tool's name on its server.
    pub tool_name: &'a str,
}

impl<'a> McpCall<'a> {
    /// The context read, when there is one of this shape.
    pub(crate) fn of(mcp_context: Option<&'a serde_json::Value>) -> Option<Self> {
        serde::Deserialize::deserialize(mcp_context?).ok()
    }
}
