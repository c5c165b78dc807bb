//! One ACP session: a session engine's handle, and the task that turns its
//! events into `session/update` notifications, confirmations into
//! `session/request_permission` requests, and the end of a prompt into the
//! answer to `session/prompt`.

use super::rpc::{Peer, RpcError, code};
use super::updates;
use gemini_rs_core::events::{
    AgentError, AgentEvent, ConfirmationOutcome, ConfirmationResponse, Finished, Op, ToolCallStatus,
};
use gemini_rs_core::policy::ApprovalMode;
use gemini_rs_core::session::{OpSender, SessionInfo};
use gemini_rs_core::tools::{ConfirmationDetails, ToolDisplay};
use serde_json::{Value, json};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// A running ACP session.
pub struct AcpSession {
    ops: OpSender,
    /// What the session is built of.
    pub info: Arc<SessionInfo>,
    /// The id of the `session/prompt` request being answered.
    prompt: Arc<Mutex<Option<Value>>>,
    /// Set by `session/cancel` until the prompt ends.
    cancelled: Arc<AtomicBool>,
}

impl AcpSession {
    /// Adapts a started session; its events go to `peer` from now on.
    pub fn new(
        peer: Peer,
        ops: OpSender,
        events: mpsc::UnboundedReceiver<AgentEvent>,
        info: Arc<SessionInfo>,
    ) -> AcpSession {
        let session = AcpSession {
            ops,
            info,
            prompt: Arc::default(),
            cancelled: Arc::default(),
        };
        let pump = Pump {
            peer,
            ops: session.ops.clone(),
            info: session.info.clone(),
            prompt: session.prompt.clone(),
            cancelled: session.cancelled.clone(),
        };
        tokio::spawn(pump.run(events));
        session
    }

    /// Starts a prompt; its answer is sent when it ends.
    pub fn prompt(&self, id: Value, params: &Value) -> Result<(), RpcError> {
        let blocks = params
            .get("prompt")
            .and_then(Value::as_array)
            .ok_or_else(|| RpcError::new(code::INVALID_PARAMS, "session/prompt needs `prompt`"))?;
        let parts = updates::prompt_parts(blocks)?;
        let mut pending = self
            .prompt
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if pending.is_some() {
            return Err(RpcError::new(
                code::INVALID_REQUEST,
                "a prompt is already running in this session",
            ));
        }
        *pending = Some(id);
        self.cancelled.store(false, Ordering::SeqCst);
        if !self.ops.submit(Op::Prompt { parts }) {
            *pending = None;
            return Err(RpcError::new(code::INTERNAL_ERROR, "the session has ended"));
        }
        Ok(())
    }

    /// `session/cancel`: the running prompt ends with `cancelled`.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.ops.submit(Op::Cancel);
    }

    /// `session/set_mode`.
    pub fn set_mode(&self, mode: &str) -> Result<(), RpcError> {
        let mode = ApprovalMode::parse(mode).ok_or_else(|| {
            RpcError::new(
                code::INVALID_PARAMS,
                format!("unknown mode `{mode}` (default, auto_edit, yolo)"),
            )
        })?;
        self.ops.submit(Op::SetApprovalMode { mode });
        Ok(())
    }

    /// Ends the session (SessionEnd hooks, MCP servers stopped).
    pub fn shutdown(&self) {
        self.ops.submit(Op::Shutdown);
    }
}

/// The modes a client can pick, and the current one.
pub fn modes(current: ApprovalMode) -> Value {
    json!({"currentModeId": current.as_str(), "availableModes": [
        {"id": "default", "name": "Default", "description": "Ask before edits and commands"},
        {"id": "auto_edit", "name": "Auto edit", "description": "Edit files without asking"},
        {"id": "yolo", "name": "YOLO", "description": "Run every tool without asking"}]})
}

/// Forwards one session's events.
struct Pump {
    peer: Peer,
    ops: OpSender,
    info: Arc<SessionInfo>,
    prompt: Arc<Mutex<Option<Value>>>,
    cancelled: Arc<AtomicBool>,
}

impl Pump {
    fn update(&self, update: Value) {
        self.peer.notify(
            "session/update",
            json!({"sessionId": self.info.session_id, "update": update}),
        );
    }

    fn chunk(&self, kind: &str, text: String) {
        self.update(json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}}));
    }

    /// A sub-agent's event: its tool calls are listed as the content of
    /// the delegating call; its permission requests are asked as any.
    fn nested(&self, activity: &mut updates::NestedActivity, parent: String, event: AgentEvent) {
        // Events that trail a delegating call that already ended (it was
        // cancelled) are dropped.
        if activity.ended(&parent) {
            return;
        }
        match event {
            AgentEvent::ToolCallRequested { call_id, name, .. } => {
                activity.started(&parent, call_id, name)
            }
            AgentEvent::ToolRunning { call_id } => {
                activity.set(&parent, &call_id, updates::NestedState::Running)
            }
            AgentEvent::ToolFinished(done) => {
                let state = match done.status {
                    ToolCallStatus::Success => updates::NestedState::Done,
                    ToolCallStatus::Error | ToolCallStatus::Cancelled => {
                        updates::NestedState::Failed
                    }
                };
                activity.set(&parent, &done.call_id, state)
            }
            AgentEvent::ToolAwaitingApproval {
                call_id,
                name,
                details,
            } => return self.ask(call_id, name, details),
            AgentEvent::Nested {
                parent_call_id,
                event,
            } => return self.nested(activity, parent_call_id, *event),
            _ => return,
        }
        let text = activity.text(&parent);
        self.update(
            json!({"sessionUpdate": "tool_call_update", "toolCallId": parent,
            "content": [updates::text_content(&text)]}),
        );
    }

    async fn run(self, mut events: mpsc::UnboundedReceiver<AgentEvent>) {
        let mut activity = updates::NestedActivity::default();
        let mut mode = self.info.approval_mode;
        while let Some(event) = events.recv().await {
            if let AgentEvent::ApprovalModeChanged { mode: m } = &event {
                mode = *m;
            }
            match event {
                // ACP has no way to ask: the unattended rule answers.
                AgentEvent::ElicitationRequested { id, request } => {
                    let reply = gemini_rs_core::session::unattended_reply(&request, mode);
                    self.ops.submit(Op::AnswerElicitation { id, reply });
                }
                AgentEvent::Nested {
                    parent_call_id,
                    event,
                } => self.nested(&mut activity, parent_call_id, *event),
                AgentEvent::Content { text: t } => self.chunk("agent_message_chunk", t),
                AgentEvent::Thought { text: t } => self.chunk("agent_thought_chunk", t),
                AgentEvent::ToolCallRequested {
                    call_id,
                    name,
                    args,
                } => self.update(updates::tool_call(
                    &self.info.tools,
                    self.info.workspace.target_dir(),
                    &call_id,
                    &name,
                    &args,
                )),
                AgentEvent::ToolAwaitingApproval {
                    call_id,
                    name,
                    details,
                } => self.ask(call_id, name, details),
                AgentEvent::ToolRunning { call_id } => self.update(json!({
                    "sessionUpdate": "tool_call_update", "toolCallId": call_id,
                    "status": "in_progress"})),
                AgentEvent::ToolOutput { call_id, chunk } => self.update(json!({
                    "sessionUpdate": "tool_call_update", "toolCallId": call_id,
                    "content": [updates::text_content(&chunk)]})),
                AgentEvent::ToolFinished(done) => {
                    activity.forget(&done.call_id);
                    let status = match done.status {
                        ToolCallStatus::Success => "completed",
                        ToolCallStatus::Error | ToolCallStatus::Cancelled => "failed",
                    };
                    let error = done.error.as_ref().map(|e| e.message.as_str());
                    let content = updates::result_content(&done.display, error);
                    self.update(json!({"sessionUpdate": "tool_call_update",
                        "toolCallId": done.call_id, "status": status, "content": content}));
                    if let ToolDisplay::Todos(todos) = &done.display {
                        self.update(updates::plan(todos));
                    }
                }
                AgentEvent::ApprovalModeChanged { mode } => self.update(json!({
                    "sessionUpdate": "current_mode_update", "currentModeId": mode.as_str()})),
                AgentEvent::Warning { message: text } | AgentEvent::Error { message: text } => {
                    tracing::warn!(session = %self.info.session_id, "{text}");
                }
                AgentEvent::Finished(Finished::Prompt(result)) => self.finish(result),
                AgentEvent::SessionEnded => break,
                AgentEvent::Usage { .. }
                | AgentEvent::Info { .. }
                | AgentEvent::HookMessage { .. }
                | AgentEvent::Stats(_)
                | AgentEvent::ModelTurnFinished
                | AgentEvent::SessionStarted { .. }
                | AgentEvent::PromptStarted { .. }
                | AgentEvent::ModelChanged { .. }
                | AgentEvent::HistoryReplaced { .. }
                | AgentEvent::Finished(_) => {}
            }
        }
        // A prompt still open when the session ends is answered.
        if let Some(id) = self.take_prompt() {
            self.peer
                .respond(id, Ok(json!({"stopReason": "cancelled"})));
        }
    }

    fn take_prompt(&self) -> Option<Value> {
        self.prompt
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// Answers the running `session/prompt`.
    fn finish(&self, result: Result<gemini_rs_core::events::PromptOutcome, AgentError>) {
        let Some(id) = self.take_prompt() else { return };
        let cancelled = self.cancelled.swap(false, Ordering::SeqCst);
        let answer = match result {
            _ if cancelled => Ok(json!({"stopReason": "cancelled"})),
            Ok(_) => Ok(json!({"stopReason": "end_turn"})),
            Err(AgentError::Cancelled) => Ok(json!({"stopReason": "cancelled"})),
            Err(AgentError::TurnLimit) => Ok(json!({"stopReason": "max_turn_requests"})),
            Err(e) => Err(RpcError::new(code::INTERNAL_ERROR, e.to_string())),
        };
        self.peer.respond(id, answer);
    }

    /// Shows the proposal and asks the client; its answer (or none, when
    /// the prompt is cancelled) goes back to the session.
    fn ask(&self, call_id: String, name: String, details: ConfirmationDetails) {
        let content = updates::confirmation_content(&details);
        let root = self.info.workspace.target_dir();
        let mut tool_call =
            updates::tool_call(&self.info.tools, root, &call_id, &name, &Value::Null);
        tool_call["content"] = Value::Array(content);
        tool_call["title"] = json!(details.title());
        if let Some(obj) = tool_call.as_object_mut() {
            obj.remove("sessionUpdate");
            obj.remove("rawInput");
            obj.remove("status");
        }
        let options = options(&details);
        let params = json!({"sessionId": self.info.session_id, "toolCall": tool_call,
            "options": options});
        let peer = self.peer.clone();
        let ops = self.ops.clone();
        tokio::spawn(async move {
            let answer = peer.request("session/request_permission", params).await;
            let chosen = answer
                .ok()
                .filter(|a| {
                    a.pointer("/outcome/outcome").and_then(Value::as_str) == Some("selected")
                })
                .and_then(|a| {
                    a.pointer("/outcome/optionId")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                });
            let outcome = match chosen.as_deref() {
                Some("proceed_once") => ConfirmationOutcome::ProceedOnce,
                Some("proceed_always") => ConfirmationOutcome::ProceedAlways,
                Some("proceed_always_server") => ConfirmationOutcome::ProceedAlwaysServer,
                Some("proceed_always_tool") => ConfirmationOutcome::ProceedAlwaysTool,
                _ => ConfirmationOutcome::Cancel,
            };
            ops.submit(Op::Confirm(ConfirmationResponse {
                call_id,
                outcome,
                modified_args: None,
            }));
        });
    }
}

/// The answers a client can give, as the terminal offers them.
fn options(details: &ConfirmationDetails) -> Value {
    let option =
        |id: &str, name: String, kind: &str| json!({"optionId": id, "name": name, "kind": kind});
    let mut list = vec![option("proceed_once", "Allow once".into(), "allow_once")];
    match details {
        ConfirmationDetails::Mcp {
            server_name,
            tool_display_name,
            ..
        } => {
            list.push(option(
                "proceed_always_tool",
                format!("Always allow {tool_display_name}"),
                "allow_always",
            ));
            list.push(option(
                "proceed_always_server",
                format!("Always allow all tools of {server_name}"),
                "allow_always",
            ));
        }
        ConfirmationDetails::Exec { root_commands, .. } => list.push(option(
            "proceed_always",
            format!("Always allow {}", root_commands.join(", ")),
            "allow_always",
        )),
        ConfirmationDetails::Edit { .. } | ConfirmationDetails::Info { .. } => {
            list.push(option(
                "proceed_always",
                "Always allow".into(),
                "allow_always",
            ));
        }
    }
    list.push(option("cancel", "Reject".into(), "reject_once"));
    Value::Array(list)
}
