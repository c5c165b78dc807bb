//! `mcp serve`: the built-in tools as a tools-only MCP server. The
//! JSON-RPC handling ([`McpServer::handle`]) is shared by the stdio
//! transport and the streamable HTTP endpoint (`--port`).

mod http;
mod resources;
mod stdio;

use super::{Env, ServeArgs};
use gemini_rs_core::tools::{Tool, ToolErrorKind, ToolResult};
use gemini_rs_core::{OpSender, Session, SessionConfig, SessionInfo, SessionKind};
use gemini_rs_protocol::events::ApprovalMode;
use gemini_rs_protocol::events::{
    AgentEvent, ConfirmationOutcome, ConfirmationResponse, Finished, Op,
};
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Protocol versions we speak, newest first.
pub(crate) const PROTOCOL_VERSIONS: &[&str] =
    &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The server: a tool-server session and the calls in flight.
pub(crate) struct McpServer {
    ops: OpSender,
    info: Arc<SessionInfo>,
    mode: ApprovalMode,
    /// Who waits for which call's result.
    waiters: Arc<Mutex<HashMap<String, oneshot::Sender<CallOutcome>>>>,
    /// One call at a time goes to the session, so cancelling a call that
    /// still waits its turn never touches another.
    turn: tokio::sync::Mutex<()>,
    running: Mutex<HashMap<String, CancellationToken>>,
    next_call: AtomicU64,
    /// Offer the workspace's files as resources (`--resources`).
    resources: bool,
}

/// A finished call: its result, and whether it was refused because it
/// needed a confirmation nobody can give here.
type CallOutcome = (ToolResult, bool);

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
    /// Starts a tool-server session for `cwd` (settings, trust, workspace,
    /// `tools.core`/`tools.exclude`, policy files, hooks and sandbox as a
    /// session has them) and the task that routes its events.
    pub(crate) async fn new(
        env: &Env,
        mode: ApprovalMode,
        resources: bool,
    ) -> Result<McpServer, String> {
        let (settings, trusted) = super::list::load_settings(env)?;
        let mut config = SessionConfig::new(settings, env.paths.clone(), env.cwd.clone());
        config.kind = SessionKind::ToolServer;
        config.trusted = trusted;
        config.interactive = true;
        config.approval_mode = mode;
        let handle = Session::start(config).await.map_err(|e| e.message)?;
        for note in &handle.notes {
            eprintln!("{}", note.text);
        }
        let (ops, events, info, _task) = handle.into_parts();
        let waiters: Arc<Mutex<HashMap<String, oneshot::Sender<CallOutcome>>>> = Arc::default();
        tokio::spawn(route_events(events, ops.clone(), waiters.clone()));
        Ok(McpServer {
            ops,
            info,
            mode,
            waiters,
            turn: tokio::sync::Mutex::new(()),
            running: Mutex::new(HashMap::new()),
            next_call: AtomicU64::new(0),
            resources,
        })
    }

    /// Ends the session (SessionEnd hooks, MCP clients).
    pub(crate) fn shutdown(&self) {
        self.ops.submit(Op::Cancel);
        self.ops.submit(Op::Shutdown);
    }

    /// `tools/list`: every active tool, its declaration as an MCP tool.
    fn tools_list(&self) -> Value {
        let registry = &self.info.tools;
        let tools: Vec<Value> = registry
            .active_names()
            .iter()
            .filter_map(|name| registry.get(name))
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
        if self.info.tools.get(name).is_none() {
            return Err((-32602, format!("Unknown tool: {name}")));
        }
        let cancelled = || {
            to_mcp_result(&ToolResult::error(
                ToolErrorKind::ExecutionFailed,
                "[Operation Cancelled] The client cancelled the request.",
                "Cancelled.",
            ))
        };
        let _turn = tokio::select! {
            guard = self.turn.lock() => guard,
            _ = cancel.cancelled() => return Ok(cancelled()),
        };
        let call_id = format!(
            "mcp-{}",
            self.next_call.fetch_add(1, AtomicOrdering::Relaxed) + 1
        );
        let (tx, mut rx) = oneshot::channel();
        if let Ok(mut w) = self.waiters.lock() {
            w.insert(call_id.clone(), tx);
        }
        let op = Op::RunTool {
            call_id,
            name: name.to_string(),
            args,
        };
        if !self.ops.submit(op) {
            return Err((-32603, "The tool session has ended.".to_string()));
        }
        let outcome = tokio::select! {
            outcome = &mut rx => outcome,
            _ = cancel.cancelled() => {
                self.ops.submit(Op::Cancel);
                rx.await
            }
        };
        match outcome {
            Ok((_, true)) => {
                let e = gemini_rs_protocol::events::ToolError::new(
                    ToolErrorKind::PolicyViolation,
                    confirmation_refusal(name, self.mode),
                );
                Ok(to_mcp_result(&ToolResult::from_error(e)))
            }
            Ok((result, false)) => Ok(to_mcp_result(&result)),
            Err(_) => Err((-32603, "The tool session has ended.".to_string())),
        }
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
            "initialize" => rpc_result(id, initialize_result(&params, self.resources)),
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
            "resources/list" if self.resources => {
                rpc_result(id, resources::list(&self.info.workspace))
            }
            "resources/templates/list" if self.resources => rpc_result(id, resources::templates()),
            "resources/read" if self.resources => {
                match resources::read(&self.info.workspace, &params) {
                    Ok(r) => rpc_result(id, r),
                    Err((code, message)) => rpc_error(id, code, &message),
                }
            }
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
fn initialize_result(params: &Value, resources: bool) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| PROTOCOL_VERSIONS.contains(v))
        .unwrap_or(PROTOCOL_VERSIONS[0]);
    let mut capabilities = json!({"tools": {"listChanged": false}});
    if resources {
        capabilities["resources"] = json!({"subscribe": false, "listChanged": false});
    }
    json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "serverInfo": {"name": "gemini-rs", "title": "gemini-rs built-in tools", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "The built-in tools of gemini-rs (files, search, shell, web fetch, memory), working in the directory the server was started in.",
    })
}

/// Routes the session's events: results to the waiting calls; a call
/// that asks for a confirmation is refused (nobody can answer here);
/// messages for the user go to stderr (stdout may be the protocol).
async fn route_events(
    mut events: mpsc::UnboundedReceiver<AgentEvent>,
    ops: OpSender,
    waiters: Arc<Mutex<HashMap<String, oneshot::Sender<CallOutcome>>>>,
) {
    let mut refused = HashSet::new();
    while let Some(event) = events.recv().await {
        match event {
            AgentEvent::ToolAwaitingApproval { call_id, .. } => {
                let answer =
                    ConfirmationResponse::new(call_id.clone(), ConfirmationOutcome::Cancel);
                ops.submit(Op::Confirm(answer));
                refused.insert(call_id);
            }
            AgentEvent::Finished(Finished::Tool {
                call_id, result, ..
            }) => {
                let refused = refused.remove(&call_id);
                let waiter = waiters.lock().ok().and_then(|mut w| w.remove(&call_id));
                if let Some(tx) = waiter {
                    let _ = tx.send((*result, refused));
                }
            }
            AgentEvent::Warning { message: text } | AgentEvent::Error { message: text } => {
                eprintln!("{text}")
            }
            AgentEvent::HookMessage { text, .. } => eprintln!("{text}"),
            AgentEvent::SessionEnded => break,
            AgentEvent::Content { .. }
            | AgentEvent::Thought { .. }
            | AgentEvent::ToolCallRequested { .. }
            | AgentEvent::ToolRunning { .. }
            | AgentEvent::ToolOutput { .. }
            | AgentEvent::ToolFinished(_)
            | AgentEvent::Nested { .. }
            | AgentEvent::ElicitationRequested { .. }
            | AgentEvent::Usage { .. }
            | AgentEvent::Info { .. }
            | AgentEvent::ModelTurnFinished
            | AgentEvent::Stats(_)
            | AgentEvent::SessionStarted { .. }
            | AgentEvent::PromptStarted { .. }
            | AgentEvent::ApprovalModeChanged { .. }
            | AgentEvent::ModelChanged { .. }
            | AgentEvent::HistoryReplaced { .. }
            | AgentEvent::Finished(_) => {}
        }
    }
}

/// `mcp serve`.
pub(super) async fn run(env: &Env, args: &ServeArgs) -> i32 {
    let mode = ApprovalMode::parse(&args.approval_mode).unwrap_or(ApprovalMode::Default);
    let server = match McpServer::new(env, mode, args.resources).await {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    let outcome = match args.port {
        Some(port) => http::serve(server.clone(), port).await,
        None => stdio::serve(server.clone()).await,
    };
    server.shutdown();
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}
