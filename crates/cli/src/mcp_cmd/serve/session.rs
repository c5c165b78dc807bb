//! The one place `mcp serve` touches the engine: a model-free tool-server
//! session (`Op::RunTool` in, `Finished::Tool` out) and the mapping of its
//! tools and results to rmcp's types. The rest of `serve` sees only
//! [`ToolSession`], so a reshaped `events`/`session` API changes this file
//! alone.

use super::Env;
use gemini_rs_core::{OpSender, Session, SessionConfig, SessionKind, SessionView};
use gemini_rs_protocol::events::{
    AgentEvent, ApprovalMode, ConfirmationOutcome, ConfirmationResponse, Finished, Op, ToolError,
    ToolErrorKind, ToolResult,
};
use rmcp::model::{
    CallToolResult, ContentBlock, JsonObject, ResourceContents, Tool, ToolAnnotations,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

/// Why a call could not run at all (a protocol error, not a tool result).
pub(super) enum CallError {
    /// No active tool has that name.
    UnknownTool,
    /// The session behind the server has ended.
    Ended,
}

/// A finished call: its result, and whether it was refused because it
/// needed a confirmation nobody can give here.
type CallOutcome = (ToolResult, bool);
type Waiters = Arc<Mutex<HashMap<String, oneshot::Sender<CallOutcome>>>>;

/// A tool-server session and the calls in flight.
pub(super) struct ToolSession {
    ops: OpSender,
    info: Arc<SessionView>,
    mode: ApprovalMode,
    /// Who waits for which call's result.
    waiters: Waiters,
    /// One call at a time goes to the session, so cancelling a call that
    /// still waits its turn never touches another.
    turn: tokio::sync::Mutex<()>,
    next_call: AtomicU64,
}

/// The text of a call that would need confirmation.
fn confirmation_refusal(name: &str, mode: ApprovalMode) -> String {
    format!(
        "Tool \"{name}\" requires confirmation, which \"gemini-rs mcp serve\" does not support in approval mode {}; start it with --approval-mode=auto_edit or yolo.",
        mode.as_str()
    )
}

/// A tool as an MCP tool: its declaration, title and read-only hint.
fn mcp_tool(info: gemini_rs_protocol::events::ToolInfo) -> Tool {
    let schema: JsonObject = match info.parameters {
        Value::Object(schema) => schema,
        _ => {
            let mut empty = JsonObject::new();
            empty.insert("type".into(), Value::from("object"));
            empty.insert("properties".into(), Value::Object(JsonObject::new()));
            empty
        }
    };
    let annotations = ToolAnnotations::new().read_only(info.kind.is_read_only());
    Tool::new(info.name, info.description, schema)
        .with_title(info.display_name)
        .with_annotations(annotations)
}

/// A tool result as MCP content: text parts as text, inline data as image,
/// audio or an embedded blob; an error as `isError` with its message.
fn to_mcp_result(result: &ToolResult) -> CallToolResult {
    if let Some(e) = &result.error {
        return CallToolResult::error(vec![ContentBlock::text(e.message.clone())]);
    }
    let mut content = Vec::new();
    for part in &result.llm_content {
        if let Some(text) = &part.text {
            content.push(ContentBlock::text(text.clone()));
        } else if let Some(blob) = &part.inline_data {
            let (data, mime) = (blob.data.clone(), blob.mime_type.clone());
            content.push(if mime.starts_with("image/") {
                ContentBlock::image(data, mime)
            } else if mime.starts_with("audio/") {
                ContentBlock::audio(data, mime)
            } else {
                ContentBlock::resource(
                    ResourceContents::blob(data, "gemini-rs://inline-data").with_mime_type(mime),
                )
            });
        } else if let Some(fr) = &part.function_response {
            let text = serde_json::to_string(&fr.response).unwrap_or_default();
            content.push(ContentBlock::text(text));
        }
    }
    CallToolResult::success(content)
}

impl ToolSession {
    /// Starts a tool-server session for `cwd` (settings, trust, workspace,
    /// `tools.core`/`tools.exclude`, policy files, hooks and sandbox as a
    /// session has them) and the task that routes its events. `mode` is
    /// `--approval-mode` (`default` when unknown).
    pub(super) async fn start(env: &Env, mode: &str) -> Result<ToolSession, String> {
        let mode = ApprovalMode::parse(mode).unwrap_or(ApprovalMode::Default);
        let startup = super::super::list::startup(env)?;
        let mut config = SessionConfig::new(startup);
        config.kind = SessionKind::ToolServer;
        config.interactive = true;
        config.approval_mode = mode;
        let handle = Session::start(config).await.map_err(|e| e.message)?;
        for note in &handle.notes {
            eprintln!("{}", note.text);
        }
        let (ops, events, info, _task) = handle.into_parts();
        let waiters = Waiters::default();
        tokio::spawn(route_events(events, ops.clone(), waiters.clone()));
        Ok(ToolSession {
            ops,
            info,
            mode,
            waiters,
            turn: tokio::sync::Mutex::new(()),
            next_call: AtomicU64::new(0),
        })
    }

    /// What the session is made of (`--resources` reads its workspace).
    pub(super) fn view(&self) -> &SessionView {
        &self.info
    }

    /// Every active tool, its declaration as an MCP tool.
    pub(super) fn tools(&self) -> Vec<Tool> {
        self.info.tools().into_iter().map(mcp_tool).collect()
    }

    /// The active tool `name` as an MCP tool.
    pub(super) fn tool(&self, name: &str) -> Option<Tool> {
        self.info.tool(name).map(mcp_tool)
    }

    /// Runs tool `name` through the session (validation, policy, hooks,
    /// execution); `cancel` stops it.
    pub(super) async fn call(
        &self,
        name: &str,
        args: JsonObject,
        cancel: CancellationToken,
    ) -> Result<CallToolResult, CallError> {
        if self.info.tool(name).is_none() {
            return Err(CallError::UnknownTool);
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
        let call_id = format!("mcp-{}", self.next_call.fetch_add(1, Ordering::Relaxed) + 1);
        let (tx, mut rx) = oneshot::channel();
        if let Ok(mut w) = self.waiters.lock() {
            w.insert(call_id.clone(), tx);
        }
        let op = Op::RunTool {
            call_id,
            name: name.to_string(),
            args: Value::Object(args),
        };
        if !self.ops.submit(op) {
            return Err(CallError::Ended);
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
                let e = ToolError::new(
                    ToolErrorKind::PolicyViolation,
                    confirmation_refusal(name, self.mode),
                );
                Ok(to_mcp_result(&ToolResult::from_error(e)))
            }
            Ok((result, false)) => Ok(to_mcp_result(&result)),
            Err(_) => Err(CallError::Ended),
        }
    }

    /// Ends the session (SessionEnd hooks, MCP clients).
    pub(super) fn shutdown(&self) {
        self.ops.submit(Op::Cancel);
        self.ops.submit(Op::Shutdown);
    }
}

/// Routes the session's events: results to the waiting calls; a call
/// that asks for a confirmation is refused (nobody can answer here);
/// messages for the user go to stderr (stdout may be the protocol).
async fn route_events(mut events: mpsc::Receiver<AgentEvent>, ops: OpSender, waiters: Waiters) {
    let mut refused = HashSet::new();
    while let Some(event) = events.recv().await {
        match event {
            AgentEvent::ToolAwaitingApproval { call_id, .. } => {
                let answer =
                    ConfirmationResponse::new(call_id.clone(), ConfirmationOutcome::Cancel);
                ops.submit(Op::Confirm(answer));
                refused.insert(call_id);
            }
            AgentEvent::Finished {
                finished: Finished::Tool {
                    call_id, result, ..
                },
                ..
            } => {
                let refused = refused.remove(&call_id);
                let waiter = waiters.lock().ok().and_then(|mut w| w.remove(&call_id));
                if let Some(tx) = waiter {
                    let _ = tx.send((*result, refused));
                }
            }
            AgentEvent::Warning { message } | AgentEvent::Error { message, .. } => {
                eprintln!("{message}")
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
            | AgentEvent::QuestionsAsked { .. }
            | AgentEvent::Usage { .. }
            | AgentEvent::Info { .. }
            | AgentEvent::ModelTurnFinished
            | AgentEvent::ModelRetry { .. }
            | AgentEvent::Stats(_)
            | AgentEvent::HookRan(_)
            | AgentEvent::SessionStarted { .. }
            | AgentEvent::PromptStarted { .. }
            | AgentEvent::ApprovalModeChanged { .. }
            | AgentEvent::ModelChanged { .. }
            | AgentEvent::HistoryReplaced { .. }
            | AgentEvent::McpServersChanged { .. }
            | AgentEvent::Finished { .. }
            | AgentEvent::Acknowledged { .. } => {}
        }
    }
}
