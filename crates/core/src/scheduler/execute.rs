//! Execution of one approved call: BeforeTool hooks, the tool, AfterTool
//! hooks, and the notes they add for the model.

use super::gate::{HookNotes, stop_result};
use super::hooks::tool_response_json;
use super::{Scheduler, ToolCallRequest};
use crate::catalogue::claude::claude_name;
use crate::catalogue::texts::UNTRUSTED_OUTPUT;
use crate::events::{AgentEvent, ToolCallStatus};
use crate::hooks::{AfterToolOutcome, HookEvent, HookToolCall};
use crate::tools::{BuiltCall, OutputSink, ToolError, ToolErrorKind, ToolResult};
use gemini_rs_protocol::Part;
use gemini_rs_protocol::events::ToolKind;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Whether `call` may run alongside the read-only calls just before it:
/// a read-only call that does not ask (0.61's `wait_for_previous: true`,
/// looked up in the call's arguments, an open shape) to start after them.
pub(super) fn may_join_a_wave(call: &BuiltCall) -> bool {
    let waits = call.args.get("wait_for_previous") == Some(&serde_json::Value::Bool(true));
    call.tool.kind().is_read_only() && !waits
}

impl Scheduler {
    /// Runs the Gemini-format BeforeTool hooks, the tool and the AfterTool
    /// hooks; `notes` are what the PreToolUse hooks left. Returns the
    /// result and its status.
    pub(super) async fn execute(
        &self,
        req: &ToolCallRequest,
        mut built: BuiltCall,
        mut notes: HookNotes,
        cancel: &CancellationToken,
    ) -> (ToolResult, ToolCallStatus) {
        let mcp_context = built.tool.mcp_context();
        let before = self
            .hooks
            .before_tool(HookToolCall {
                name: &req.name,
                args: &built.args,
                mcp_context: mcp_context.as_ref(),
                id: &req.call_id,
            })
            .await;
        if let Err(result) = self.apply_hook_action(req, &mut built, before, &mut notes) {
            return (*result, ToolCallStatus::Error);
        }
        let BuiltCall {
            invocation,
            args,
            tool,
        } = built;
        let note = notes.modified_note();
        let context = notes.context;
        let stop_after = notes.stop_after;
        self.emit(AgentEvent::ToolRunning {
            call_id: req.call_id.clone(),
        })
        .await;
        let token = cancel.child_token();
        let events = self.events.clone();
        let call_id = req.call_id.clone();
        let sink: OutputSink = Arc::new(move |chunk: String| {
            events.emit_latest(AgentEvent::ToolOutput {
                call_id: call_id.clone(),
                chunk,
            });
        });
        // The call's own context knows its id (a sub-agent marks its events
        // with it).
        let call_ctx = crate::tools::ToolContext {
            call_id: Some(req.call_id.clone()),
            ..self.ctx.clone()
        };
        // gemini-rs's own file tools write outside the sandbox, as the
        // user allowed: what they create is theirs, not a sandboxed
        // command's. What appeared before them is caught first.
        let own_write = tool.spec().is_some()
            && matches!(
                tool.kind(),
                ToolKind::Edit | ToolKind::Delete | ToolKind::Move
            );
        if own_write {
            self.refuse_created(None).await;
        }
        let mut result = tokio::select! {
            r = invocation.execute_streaming(&call_ctx, token.clone(), sink) => r,
            _ = cancel.cancelled() => {
                token.cancel();
                return (cancelled_during_execution(), ToolCallStatus::Cancelled);
            }
        };
        if cancel.is_cancelled() {
            return (cancelled_during_execution(), ToolCallStatus::Cancelled);
        }
        if result.error.is_none()
            && tool
                .spec()
                .is_some_and(|s| UNTRUSTED_OUTPUT.contains(&s.name))
        {
            wrap_untrusted_text(&mut result);
        }
        if let Some(note) = note {
            append_text(&mut result, &note);
        }
        // A sandboxed command (the tool's or a workspace hook's) may have
        // created what runs outside the sandbox later.
        if own_write {
            if let Some(sandbox) = &self.ctx.sandbox {
                sandbox.accept_created();
            }
        } else {
            self.refuse_created(Some(&mut result)).await;
        }
        if let Some(ctx) = context {
            append_text(
                &mut result,
                &format!("\n\n<hook_context>{ctx}</hook_context>"),
            );
        }
        if let Err(HookStopped(reason)) = self
            .run_after_tool(req, &args, mcp_context.as_ref(), &mut result)
            .await
        {
            return (stop_result(&reason), ToolCallStatus::Error);
        }
        if let Some(reason) = stop_after {
            return (stop_result(&reason), ToolCallStatus::Error);
        }
        let status = if result.error.is_some() {
            ToolCallStatus::Error
        } else {
            ToolCallStatus::Success
        };
        (result, status)
    }

    /// Runs the AfterTool (and Claude's PostToolUseFailure) hooks on a
    /// finished call: their context is added to `result`, a block turns it
    /// into an error; `Err` carries the reason a hook stopped the agent.
    async fn run_after_tool(
        &self,
        req: &ToolCallRequest,
        args: &serde_json::Map<String, serde_json::Value>,
        mcp_context: Option<&serde_json::Value>,
        result: &mut ToolResult,
    ) -> Result<(), HookStopped> {
        // A shell command that exits non-zero failed to Claude Code
        // (PostToolUseFailure); Gemini hooks see it as a result.
        let error = result
            .error
            .as_ref()
            .map(|e| e.message.clone())
            .or_else(|| {
                (claude_name(&req.name) == Some("Bash"))
                    .then(|| crate::hooks::claude::shell_failure(&result.llm_text()))
                    .flatten()
            });
        let after = if self.hooks.has(HookEvent::AfterTool)
            || (error.is_some() && self.hooks.has(HookEvent::AfterToolFailure))
        {
            let response = tool_response_json(result);
            let call = HookToolCall {
                name: &req.name,
                args,
                mcp_context,
                id: &req.call_id,
            };
            self.hooks
                .after_tool(call, &response, error.as_deref())
                .await
        } else {
            AfterToolOutcome::Keep {
                additional_context: None,
            }
        };
        match after {
            AfterToolOutcome::Keep {
                additional_context: Some(ctx),
            } => {
                let note = format!("\n\n<hook_context>{ctx}</hook_context>");
                // A failed call answers the model with its error alone.
                match result.error.as_mut() {
                    Some(error) => error.message.push_str(&note),
                    None => append_text(result, &note),
                }
            }
            AfterToolOutcome::Keep {
                additional_context: None,
            } => {}
            AfterToolOutcome::Block { reason } => {
                result.error = Some(ToolError::new(ToolErrorKind::ExecutionFailed, reason));
            }
            AfterToolOutcome::Stop { reason } => return Err(HookStopped(reason)),
        }
        Ok(())
    }
}

/// An AfterTool hook stopped the agent, for this reason.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct HookStopped(String);

impl Scheduler {
    /// Moves aside the protected paths a sandboxed command created (see
    /// [`crate::sandbox::PreparedSandbox::refuse_created`]), warning the
    /// user and, through `result`, the model.
    async fn refuse_created(&self, mut result: Option<&mut ToolResult>) {
        for refused in crate::sandbox::refuse_created(self.ctx.sandbox.as_ref()) {
            let message = refused.to_string();
            if let Some(result) = result.as_deref_mut() {
                append_text(result, &format!("\n\n{message}"));
            }
            self.emit(AgentEvent::Warning { message }).await;
        }
    }
}

fn cancelled_during_execution() -> ToolResult {
    ToolResult::error(
        ToolErrorKind::ExecutionFailed,
        "[Operation Cancelled] User cancelled tool execution.",
        "Command cancelled by user.",
    )
}

/// Appends to the last text part (the model sees text parts joined).
/// The text of a built-in tool's successful result as untrusted context
/// (`<untrusted_context>`), as today's Gemini CLI gives a command's output
/// and a fetched page to the model.
fn wrap_untrusted_text(result: &mut ToolResult) {
    for part in &mut result.llm_content {
        if let Some(text) = part.text.as_mut() {
            *text = gemini_rs_mcp::convert::wrap_untrusted(text);
        }
    }
}

fn append_text(result: &mut ToolResult, text: &str) {
    match result
        .llm_content
        .iter_mut()
        .rev()
        .find(|p| p.text.is_some())
    {
        Some(Part { text: Some(t), .. }) => t.push_str(text),
        _ => result.llm_content.push(Part::text(text)),
    }
}
