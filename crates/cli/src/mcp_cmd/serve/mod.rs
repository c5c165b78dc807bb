//! `mcp serve`: the built-in tools as a tools-only MCP server. The
//! JSON-RPC handling ([`McpServer::handle`]) is shared by the stdio
//! transport and the streamable HTTP endpoint (`--port`).

mod http;
mod stdio;

use super::{Env, ServeArgs};
use gemini_rs_core::config::Settings;
use gemini_rs_core::policy::{ApprovalMode, Decision, PolicyEngine, load_policy_dir};
use gemini_rs_core::tools::{Tool, ToolContext, ToolErrorKind, ToolRegistry, ToolResult, builtin};
use gemini_rs_core::workspace::Workspace;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Protocol versions we speak, newest first.
pub(crate) const PROTOCOL_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Tools left out: they need a model client, which `serve` has not.
const NEEDS_MODEL: &[&str] = &["google_web_search"];

/// The server: tools, policy and the calls in flight.
pub(crate) struct McpServer {
    registry: ToolRegistry,
    ctx: ToolContext,
    policy: PolicyEngine,
    mode: ApprovalMode,
    running: Mutex<HashMap<String, CancellationToken>>,
}

/// A JSON-RPC error response.
fn rpc_error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

fn rpc_result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// The text of a call that would need confirmation.
fn confirmation_refusal(name: &str, mode: ApprovalMode) -> String {
    format!(
        "Tool \"{name}\" requires confirmation, which \"gemini-rs mcp serve\" does not support in approval mode {}; start it with --approval-mode=auto_edit or yolo.",
        mode.as_str()
    )
}

/// A tool result as MCP content: text parts as text, inline data as image,
/// audio or an embedded blob; an error as `isError` with its message.
pub(crate) fn to_mcp_result(result: &ToolResult) -> Value {
    if let Some(e) = &result.error {
        return json!({"content": [{"type": "text", "text": e.message}], "isError": true});
    }
    let mut content = Vec::new();
    for part in &result.llm_content {
        if let Some(text) = &part.text {
            content.push(json!({"type": "text", "text": text}));
        } else if let Some(blob) = &part.inline_data {
            let kind = if blob.mime_type.starts_with("image/") {
                "image"
            } else if blob.mime_type.starts_with("audio/") {
                "audio"
            } else {
                ""
            };
            if kind.is_empty() {
                content.push(json!({"type": "resource", "resource": {
                    "uri": "gemini-rs://inline-data", "mimeType": blob.mime_type, "blob": blob.data}}));
            } else {
                content.push(json!({"type": kind, "data": blob.data, "mimeType": blob.mime_type}));
            }
        } else if let Some(fr) = &part.function_response {
            let text = serde_json::to_string(&fr.response).unwrap_or_default();
            content.push(json!({"type": "text", "text": text}));
        }
    }
    json!({"content": content, "isError": false})
}

impl McpServer {
    /// Builds the server for `cwd` as a session would: settings, trust,
    /// workspace (with its project temp dir), `tools.core`/`tools.exclude`,
    /// and the policy (defaults, settings rules, user policy files).
    pub(crate) fn new(env: &Env, mode: ApprovalMode) -> Result<McpServer, String> {
        let (settings, _trusted) = super::list::load_settings(env)?;
        let workspace = Workspace::new(
            env.cwd.clone(),
            settings
                .include_directories()
                .into_iter()
                .map(std::path::PathBuf::from)
                .collect(),
            env.paths.project_temp_dir(&env.cwd),
        )
        .with_filter_options(builtin::filter_options_from_settings(&settings));
        let model = settings
            .model_name()
            .unwrap_or_else(|| "gemini-2.5-pro".to_string());
        let mut registry = ToolRegistry::new();
        let core = settings.tools_core();
        for tool in builtin::builtin_tools() {
            let keep = core.as_ref().is_none_or(|core| {
                core.iter()
                    .any(|c| c == tool.name() || c.starts_with(&format!("{}(", tool.name())))
            });
            if keep && !NEEDS_MODEL.contains(&tool.name()) {
                registry.register(tool);
            }
        }
        registry.exclude(settings.tools_exclude());
        let policy = PolicyEngine::new(true);
        policy.add_settings_rules(&settings.tools_allowed(), &settings.tools_exclude());
        match load_policy_dir(&env.paths.gemini_dir.join("policies"), 2) {
            Ok(rules) => policy.add_rules(rules),
            Err(e) => eprintln!("Warning: {e}"),
        }
        let settings: Arc<Settings> = Arc::new(settings);
        let mut ctx = ToolContext::new(Arc::new(workspace), settings, model);
        ctx.gemini_dir = env.paths.gemini_dir.clone();
        Ok(McpServer {
            registry,
            ctx,
            policy,
            mode,
            running: Mutex::new(HashMap::new()),
        })
    }

    /// `tools/list`: every active tool, its declaration as an MCP tool.
    fn tools_list(&self) -> Value {
        let tools: Vec<Value> = self
            .registry
            .active_names()
            .iter()
            .filter_map(|name| self.registry.get(name))
            .map(|entry| {
                let tool: &Arc<dyn Tool> = &entry.tool;
                let decl = tool.declaration();
                let schema = decl
                    .parameters_json_schema
                    .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
                json!({
                    "name": decl.name,
                    "title": tool.display_name(),
                    "description": decl.description.unwrap_or_default(),
                    "inputSchema": schema,
                    "annotations": {"readOnlyHint": tool.kind().is_read_only()},
                })
            })
            .collect();
        json!({"tools": tools})
    }

    /// `tools/call`: build (lookup and validation), policy, execute.
    async fn tools_call(
        &self,
        params: &Value,
        cancel: CancellationToken,
    ) -> Result<Value, (i64, String)> {
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err((-32602, "Invalid params: missing tool name".to_string()));
        };
        let args = params
            .get("arguments")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new()));
        if self.registry.get(name).is_none() {
            return Err((-32602, format!("Unknown tool: {name}")));
        }
        let built = match self.registry.build(name, &args, &self.ctx) {
            Ok(b) => b,
            Err(e) => return Ok(to_mcp_result(&ToolResult::from_error(e))),
        };
        let args_value = Value::Object(built.args.clone());
        let refuse = |message: String| {
            let e = gemini_rs_core::tools::ToolError::new(ToolErrorKind::PolicyViolation, message);
            Ok(to_mcp_result(&ToolResult::from_error(e)))
        };
        match self
            .policy
            .check(&built.tool.policy_name(), &args_value, self.mode)
        {
            Decision::Allow => {}
            Decision::Deny => return refuse("Tool execution denied by policy.".to_string()),
            Decision::AskUser => {
                if built.invocation.confirmation(&self.ctx).await.is_some() {
                    return refuse(confirmation_refusal(name, self.mode));
                }
            }
        }
        let result = built.invocation.execute(&self.ctx, cancel).await;
        Ok(to_mcp_result(&result))
    }

    /// Handles one JSON-RPC message; `scope` keeps request ids of different
    /// HTTP sessions apart. Returns the response for a request, `None` for
    /// a notification or a response.
    pub(crate) async fn handle(&self, msg: &Value, scope: &str) -> Option<Value> {
        let Some(obj) = msg.as_object() else {
            return Some(rpc_error(Value::Null, -32600, "Invalid Request"));
        };
        let id = obj.get("id").cloned();
        let Some(method) = obj.get("method").and_then(Value::as_str) else {
            // A response to a request of ours (we send none), or garbage.
            return match (id, obj.contains_key("result") || obj.contains_key("error")) {
                (_, true) => None,
                (id, false) => Some(rpc_error(
                    id.unwrap_or(Value::Null),
                    -32600,
                    "Invalid Request",
                )),
            };
        };
        let params = obj.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else {
            self.notification(method, &params, scope);
            return None;
        };
        let response = match method {
            "initialize" => rpc_result(id, initialize_result(&params)),
            "ping" => rpc_result(id, json!({})),
            "tools/list" => rpc_result(id, self.tools_list()),
            "tools/call" => {
                let key = format!("{scope}:{id}");
                let cancel = CancellationToken::new();
                if let Ok(mut running) = self.running.lock() {
                    running.insert(key.clone(), cancel.clone());
                }
                let outcome = self.tools_call(&params, cancel).await;
                if let Ok(mut running) = self.running.lock() {
                    running.remove(&key);
                }
                match outcome {
                    Ok(result) => rpc_result(id, result),
                    Err((code, message)) => rpc_error(id, code, &message),
                }
            }
            "logging/setLevel" => rpc_result(id, json!({})),
            _ => rpc_error(id, -32601, &format!("Method not found: {method}")),
        };
        Some(response)
    }

    fn notification(&self, method: &str, params: &Value, scope: &str) {
        if method == "notifications/cancelled" {
            let Some(request) = params.get("requestId") else {
                return;
            };
            let key = format!("{scope}:{request}");
            if let Some(token) = self.running.lock().ok().and_then(|r| r.get(&key).cloned()) {
                token.cancel();
            }
        }
    }

    /// Cancels the calls in flight of one scope (an HTTP session that was
    /// deleted).
    pub(crate) fn cancel_scope(&self, scope: &str) {
        let prefix = format!("{scope}:");
        if let Ok(running) = self.running.lock() {
            running
                .iter()
                .filter(|(k, _)| k.starts_with(&prefix))
                .for_each(|(_, t)| t.cancel());
        }
    }
}

/// The `initialize` result: the client's version when we speak it, else
/// our newest.
fn initialize_result(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "gemini-rs", "title": "gemini-rs built-in tools", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "The built-in tools of gemini-rs (files, search, shell, web fetch, memory), working in the directory the server was started in.",
    })
}

/// `mcp serve`.
pub(super) async fn run(env: &Env, args: &ServeArgs) -> i32 {
    let mode = ApprovalMode::parse(&args.approval_mode).unwrap_or(ApprovalMode::Default);
    let server = match McpServer::new(env, mode) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    let outcome = match args.port {
        Some(port) => http::serve(server, port).await,
        None => stdio::serve(server).await,
    };
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}
