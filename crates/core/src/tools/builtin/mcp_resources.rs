//! `list_mcp_resources {serverName?}` and `read_mcp_resource {uri}`: the
//! resources the connected MCP servers list, for the model. Offered only
//! when a server lists resources (as Gemini CLI 0.61); a `file:` URI must
//! lie inside the workspace; what a read returns is bounded by
//! `tools.truncateToolOutputThreshold`.

use super::common::parse_params;
use super::{Builtin, Make};
use crate::catalogue::builtins::{
    MCP_RESOURCES_LIST as LIST_SPEC, MCP_RESOURCES_READ as READ_SPEC,
};
use crate::tools::mcp::{McpConnection, McpManager, file_uri_path, resources};
use crate::tools::spec::identity_from_spec;
use crate::tools::{Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult};
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

/// `tools.truncateToolOutputThreshold` default (characters).
const DEFAULT_THRESHOLD: usize = 4_000_000;

/// `list_mcp_resources`: made by the session when a server has resources.
pub(super) const LIST_BUILTIN: Builtin = Builtin {
    make: Make::WithSessionData,
};

/// `read_mcp_resource`: made by the session when a server has resources.
pub(super) const READ_BUILTIN: Builtin = Builtin {
    make: Make::WithSessionData,
};

/// The two tools over the session's MCP servers, when one of them lists a
/// resource; none otherwise.
pub fn resource_tools(mcp: &Arc<McpManager>) -> Vec<Arc<dyn Tool>> {
    let any = mcp
        .connections()
        .iter()
        .any(|c| !c.resources().resources.is_empty());
    if !any {
        return Vec::new();
    }
    vec![
        Arc::new(ReadMcpResource(mcp.clone())),
        Arc::new(ListMcpResources(mcp.clone())),
    ]
}

/// The `list_mcp_resources` tool.
pub struct ListMcpResources(pub(super) Arc<McpManager>);

/// The `read_mcp_resource` tool.
pub struct ReadMcpResource(pub(super) Arc<McpManager>);

fn list_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "type": "object",
            "properties": {
                "serverName": {
                    "type": "string",
                    "description": "Optional. Only list the resources of the MCP server of this name."
                }
            },
            "required": []
        })
    })
}

fn read_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "type": "object",
            "properties": {
                "uri": {
                    "type": "string",
                    "description": "The URI of the resource, as list_mcp_resources shows it."
                }
            },
            "required": ["uri"]
        })
    })
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ListParams {
    server_name: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ReadParams {
    uri: String,
}

impl Tool for ListMcpResources {
    identity_from_spec!(LIST_SPEC);
    fn description(&self) -> &str {
        "Lists the resources the connected MCP servers offer (their URIs, names and descriptions)."
    }
    fn parameter_schema(&self) -> &Value {
        list_schema()
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let p: ListParams = parse_params(args, &[])?;
        Ok(Box::new(ListCall {
            mcp: self.0.clone(),
            server: p.server_name.filter(|s| !s.is_empty()),
        }))
    }
}

struct ListCall {
    mcp: Arc<McpManager>,
    server: Option<String>,
}

impl ToolInvocation for ListCall {
    fn description(&self) -> String {
        match &self.server {
            Some(s) => format!("List MCP resources of server \"{s}\""),
            None => "List MCP resources".to_string(),
        }
    }

    fn execute<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let mut text = String::from("Available MCP Resources:\n");
            let mut count = 0;
            for conn in self.mcp.connections() {
                if self.server.as_deref().is_some_and(|s| s != conn.name()) {
                    continue;
                }
                for (uri, name, description) in conn.resources().resources {
                    text.push_str(&format!("- {}:{uri}", conn.name()));
                    if !name.is_empty() {
                        text.push_str(&format!(" | {name}"));
                    }
                    if let Some(d) = description.filter(|d| !d.is_empty()) {
                        text.push_str(&format!(" | {}", d.replace('\n', " ")));
                    }
                    text.push('\n');
                    count += 1;
                }
            }
            if count == 0 {
                let msg = match &self.server {
                    Some(s) => format!("No resources found for server: {s}"),
                    None => "No MCP resources found.".to_string(),
                };
                return ToolResult::text(msg.clone(), msg);
            }
            ToolResult::text(text, format!("Listed {count} resources."))
        })
    }
}

impl Tool for ReadMcpResource {
    identity_from_spec!(READ_SPEC);
    fn description(&self) -> &str {
        "Reads the contents of a resource of a connected MCP server, by its URI."
    }
    fn parameter_schema(&self) -> &Value {
        read_schema()
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let p: ReadParams = parse_params(args, &[])?;
        let uri = p.uri.trim().to_string();
        if uri.is_empty() {
            return Err(ToolError::invalid_params(
                "The 'uri' parameter must not be empty.",
            ));
        }
        if let Some(path) = file_uri_path(&uri) {
            let abs = ctx.workspace.resolve(&path.to_string_lossy());
            ctx.workspace
                .check_access(&abs)
                .map_err(ToolError::invalid_params)?;
        }
        let found = find(&self.0, &uri);
        Ok(Box::new(ReadCall { uri, found }))
    }
}

/// The server listing `uri` (as a resource, else by a template) and the
/// resource's name.
fn find(mcp: &McpManager, uri: &str) -> Option<(Arc<McpConnection>, Option<String>)> {
    let conns = mcp.connections();
    let listed = conns.iter().find_map(|c| {
        c.resources()
            .resources
            .into_iter()
            .find(|(u, _, _)| u == uri)
            .map(|(_, name, _)| (c.clone(), Some(name)))
    });
    listed.or_else(|| {
        conns
            .iter()
            .find(|c| {
                c.resources()
                    .templates
                    .iter()
                    .any(|(t, _)| resources::template_matches(t, uri))
            })
            .map(|c| (c.clone(), None))
    })
}

struct ReadCall {
    uri: String,
    found: Option<(Arc<McpConnection>, Option<String>)>,
}

impl ToolInvocation for ReadCall {
    fn description(&self) -> String {
        match &self.found {
            Some((conn, Some(name))) => format!(
                "Read MCP resource \"{name}\" from server \"{}\"",
                conn.name()
            ),
            _ => format!("Read MCP resource: {}", self.uri),
        }
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let Some((conn, _)) = &self.found else {
                let msg = format!("Resource not found for URI: {}", self.uri);
                return ToolResult::error(
                    ToolErrorKind::McpResourceNotFound,
                    format!("Error: {msg}"),
                    format!("Error: {msg}"),
                );
            };
            let read = tokio::select! {
                r = conn.read_resource(&self.uri) => r,
                () = cancel.cancelled() => {
                    let msg = "Reading the MCP resource was cancelled.";
                    return ToolResult::text(msg, msg);
                }
            };
            let parts = match read {
                Ok(parts) => parts,
                Err(e) => {
                    let msg = format!("Error: Failed to read resource: {e}");
                    return ToolResult::error(ToolErrorKind::McpToolError, msg.clone(), msg);
                }
            };
            let mut text = String::new();
            for p in parts.iter().filter_map(|p| p.text.as_deref()) {
                text.push_str(p);
                text.push('\n');
            }
            if text.is_empty() {
                text = "No content returned from resource.".to_string();
            }
            let text = bounded(text, threshold(ctx));
            let display = match &self.found {
                Some((conn, Some(name))) => format!(
                    "Successfully read resource \"{name}\" from server \"{}\"",
                    conn.name()
                ),
                _ => format!("Successfully read resource: {}", self.uri),
            };
            ToolResult::text(text, display)
        })
    }
}

/// `tools.truncateToolOutputThreshold` when truncation is on.
fn threshold(ctx: &ToolContext) -> Option<usize> {
    let tools = &ctx.settings;
    if !tools.truncation.unwrap_or(true) {
        return None;
    }
    match tools.truncate_threshold {
        Some(t) if t.is_finite() && t > 0.0 => Some(t as usize),
        Some(_) => None,
        None => Some(DEFAULT_THRESHOLD),
    }
}

/// `text` cut to `max` characters with a note saying so.
fn bounded(text: String, max: Option<usize>) -> String {
    let Some(max) = max else {
        return text;
    };
    match text.char_indices().nth(max) {
        Some((cut, _)) => {
            let total = text.chars().count();
            format!(
                "{}\n\n[Resource content truncated: showing the first {max} of {total} characters.]",
                &text[..cut]
            )
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::bounded;

    #[test]
    fn long_contents_are_cut_with_a_note() {
        assert_eq!(bounded("abc".into(), Some(5)), "abc");
        assert_eq!(bounded("abcdef".into(), None), "abcdef");
        assert_eq!(
            bounded("abcdef".into(), Some(4)),
            "abcd\n\n[Resource content truncated: showing the first 4 of 6 characters.]"
        );
    }
}
