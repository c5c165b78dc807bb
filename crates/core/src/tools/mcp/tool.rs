//! `McpTool`: one tool of one MCP server, as the registry sees it.

use super::client::{CallOutcome, McpConnection};
use super::convert;
use super::naming::{mcp_prefixed_name, qualified_name};
use crate::tools::{
    ConfirmationDetails, Tool, ToolContext, ToolDisplay, ToolError, ToolErrorKind, ToolInvocation,
    ToolKind, ToolResult,
};
use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// The text of an aborted call.
pub const ABORTED_MESSAGE: &str = "Tool call aborted";

/// One MCP tool.
pub struct McpTool {
    name: String,
    server_tool_name: String,
    display_name: String,
    description: String,
    schema: Value,
    trusted: bool,
    connection: Arc<McpConnection>,
    annotations: Map<String, Value>,
}

impl McpTool {
    /// A tool of `connection` called `server_tool_name` on the server,
    /// registered as `registry_name`.
    pub fn new(
        connection: Arc<McpConnection>,
        registry_name: String,
        server_tool_name: &str,
        description: Option<&str>,
        input_schema: Option<&Map<String, Value>>,
        trusted: bool,
    ) -> Self {
        let schema = match input_schema {
            Some(s) if !s.is_empty() => Value::Object(s.clone()),
            _ => json!({"type": "object", "properties": {}}),
        };
        McpTool {
            display_name: format!("{server_tool_name} ({} MCP Server)", connection.name()),
            name: registry_name,
            server_tool_name: server_tool_name.to_string(),
            description: description.unwrap_or("").to_string(),
            schema,
            trusted,
            connection,
            annotations: Map::new(),
        }
    }

    /// The same tool with the server's annotations (`readOnlyHint`, ...).
    pub fn with_annotations(mut self, annotations: Map<String, Value>) -> Self {
        self.annotations = annotations;
        self
    }

    /// The server's annotations of the tool (`readOnlyHint`, ...).
    pub fn annotations(&self) -> &Map<String, Value> {
        &self.annotations
    }

    /// The server's name.
    pub fn server_name(&self) -> &str {
        self.connection.name()
    }

    /// `<server>__<validName>`: the name `getTool`'s fallback accepts.
    pub fn qualified_name(&self) -> String {
        qualified_name(self.server_name(), &self.server_tool_name)
    }

    /// `mcp_<server>_<tool>`: the later Gemini CLI form, a lookup alias.
    pub fn mcp_prefixed_name(&self) -> String {
        mcp_prefixed_name(self.server_name(), &self.server_tool_name)
    }

    /// The name policy rules match: `<server>__<original tool name>`.
    pub fn policy_name(&self) -> String {
        format!("{}__{}", self.server_name(), self.server_tool_name)
    }
}

impl Tool for McpTool {
    fn server_name(&self) -> Option<&str> {
        Some(self.connection.name())
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn policy_name(&self) -> String {
        McpTool::policy_name(self)
    }

    fn mcp_context(&self) -> Option<Value> {
        use super::config::TransportSpec;
        let config = &self.connection.config;
        let (command, args, cwd, url) = match &config.transport {
            TransportSpec::Stdio {
                command, args, cwd, ..
            } => (
                Some(command.clone()),
                Some(args.clone()),
                cwd.as_ref().map(|c| c.display().to_string()),
                None,
            ),
            TransportSpec::Http(u) | TransportSpec::Sse(u) | TransportSpec::HttpThenSse(u) => {
                (None, None, None, Some(u.clone()))
            }
            TransportSpec::Invalid => (None, None, None, None),
        };
        let mut ctx = serde_json::Map::new();
        ctx.insert(
            "server_name".into(),
            Value::String(self.server_name().to_string()),
        );
        ctx.insert(
            "tool_name".into(),
            Value::String(self.server_tool_name.clone()),
        );
        if let Some(c) = command {
            ctx.insert("command".into(), Value::String(c));
        }
        if let Some(a) = args {
            ctx.insert("args".into(), json!(a));
        }
        if let Some(c) = cwd {
            ctx.insert("cwd".into(), Value::String(c));
        }
        if let Some(u) = url {
            ctx.insert("url".into(), Value::String(u));
        }
        Some(Value::Object(ctx))
    }

    fn display_name(&self) -> &str {
        &self.display_name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }

    fn parameter_schema(&self) -> &Value {
        &self.schema
    }

    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        Ok(Box::new(McpInvocation {
            server_tool_name: self.server_tool_name.clone(),
            display_name: self.display_name.clone(),
            trusted: self.trusted,
            args: args.clone(),
            connection: self.connection.clone(),
        }))
    }
}

/// One call of an MCP tool.
struct McpInvocation {
    server_tool_name: String,
    display_name: String,
    trusted: bool,
    args: Map<String, Value>,
    connection: Arc<McpConnection>,
}

impl ToolInvocation for McpInvocation {
    fn description(&self) -> String {
        serde_json::to_string(&self.args).unwrap_or_default()
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            if self.trusted {
                return None;
            }
            Some(ConfirmationDetails::Mcp {
                title: "Confirm MCP Tool Execution".to_string(),
                server_name: self.connection.name().to_string(),
                tool_name: self.server_tool_name.clone(),
                tool_display_name: self.display_name.clone(),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        self.run(cancel, None)
    }

    /// A call the server runs as a task shows its status messages as live
    /// output.
    fn execute_streaming<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        cancel: CancellationToken,
        output: crate::tools::OutputSink,
    ) -> BoxFuture<'a, ToolResult> {
        self.run(cancel, Some(output))
    }
}

impl McpInvocation {
    fn run(
        &self,
        cancel: CancellationToken,
        progress: Option<crate::tools::OutputSink>,
    ) -> BoxFuture<'_, ToolResult> {
        Box::pin(async move {
            let tool = &self.server_tool_name;
            let call = self
                .connection
                .call_tool_with_progress(tool, &self.args, &cancel, progress);
            match call.await {
                CallOutcome::Aborted => ToolResult::error(
                    ToolErrorKind::McpToolError,
                    ABORTED_MESSAGE,
                    ABORTED_MESSAGE,
                ),
                CallOutcome::Response(resp) => result_from_response(tool, &self.args, &resp),
            }
        })
    }
}

/// The `ToolResult` for a raw `tools/call` response (§6.5).
pub fn result_from_response(tool: &str, args: &Map<String, Value>, response: &Value) -> ToolResult {
    if convert::is_error(response) {
        let message = convert::error_message(tool, args, response);
        return ToolResult::error(
            ToolErrorKind::McpToolError,
            message,
            convert::error_display(tool),
        );
    }
    ToolResult::parts(
        convert::to_parts(tool, response),
        ToolDisplay::Text(convert::to_display(tool, response)),
    )
}
