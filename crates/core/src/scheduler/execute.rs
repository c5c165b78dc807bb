//! Execution of one approved call: BeforeTool hooks, the tool, AfterTool
//! hooks, and the notes they add for the model.

use super::hooks::tool_response_json;
use super::{Scheduler, ToolCallRequest};
use crate::events::{AgentEvent, ToolCallStatus};
use crate::hooks::{AfterToolOutcome, BeforeToolOutcome, HookEvent, HookToolCall};
use crate::tools::{BuiltCall, OutputSink, ToolError, ToolErrorKind, ToolResult};
use gemini_rs_protocol::Part;
use gemini_rs_protocol::events::ToolKind;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

impl Scheduler {
    /// Runs the hooks and the tool; returns the result and its status.
    pub(super) async fn execute(
        &self,
        req: &ToolCallRequest,
        built: BuiltCall,
        cancel: &CancellationToken,
    ) -> (ToolResult, ToolCallStatus) {
        let BuiltCall {
            mut invocation,
            mut args,
            tool,
        } = built;
        let mcp_context = tool.mcp_context();
        let mut note = None;
        let before = self
            .hooks
            .before_tool(HookToolCall {
                name: &req.name,
                args: &args,
                mcp_context: mcp_context.as_ref(),
                id: &req.call_id,
            })
            .await;
        let context;
        match before {
            BeforeToolOutcome::Block { reason } => {
                let mut r = ToolResult::error(
                    ToolErrorKind::ExecutionFailed,
                    reason.clone(),
                    reason.clone(),
                );
                r.llm_content = vec![Part::text(format!("Tool execution blocked: {reason}"))];
                return (r, ToolCallStatus::Error);
            }
            BeforeToolOutcome::Stop { reason } => {
                return (stop_result(&reason), ToolCallStatus::Error);
            }
            BeforeToolOutcome::Proceed {
                tool_input: Some(partial),
                additional_context,
            } => {
                context = additional_context;
                let changed = changed_keys(&args, &partial);
                if !changed.is_empty() {
                    let mut merged = args.clone();
                    merged.extend(partial);
                    match self.registry.snapshot().build(
                        &req.name,
                        &Value::Object(merged),
                        &self.ctx,
                    ) {
                        Ok(rebuilt) => {
                            invocation = rebuilt.invocation;
                            args = rebuilt.args;
                            note = Some(format!(
                                "\n\n[System] Tool input parameters ({}) were modified by a hook before execution.",
                                changed.join(", ")
                            ));
                        }
                        Err(e) => {
                            let mut r = ToolResult::error(
                                ToolErrorKind::InvalidToolParams,
                                format!("Error: {}", e.message),
                                format!("Error: {}", e.message),
                            );
                            r.llm_content = vec![Part::text(format!(
                                "Tool parameter modification by hook failed validation: {}",
                                e.message
                            ))];
                            return (r, ToolCallStatus::Error);
                        }
                    }
                }
            }
            BeforeToolOutcome::Proceed {
                tool_input: None,
                additional_context,
            } => context = additional_context,
        }
        self.emit(AgentEvent::ToolRunning {
            call_id: req.call_id.clone(),
        });
        let token = cancel.child_token();
        let events = self.events.clone();
        let call_id = req.call_id.clone();
        let sink: OutputSink = Arc::new(move |chunk: String| {
            let _ = events.send(AgentEvent::ToolOutput {
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
            self.refuse_created(None);
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
            self.refuse_created(Some(&mut result));
        }
        if let Some(ctx) = context {
            append_text(
                &mut result,
                &format!("\n\n<hook_context>{ctx}</hook_context>"),
            );
        }
        let after = if self.hooks.has(HookEvent::AfterTool)
            || (result.error.is_some() && self.hooks.has(HookEvent::AfterToolFailure))
        {
            let response = tool_response_json(&result);
            let call = HookToolCall {
                name: &req.name,
                args: &args,
                mcp_context: mcp_context.as_ref(),
                id: &req.call_id,
            };
            let error = result.error.as_ref().map(|e| e.message.clone());
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
                    None => append_text(&mut result, &note),
                }
            }
            AfterToolOutcome::Keep {
                additional_context: None,
            } => {}
            AfterToolOutcome::Block { reason } => {
                result.error = Some(ToolError::new(ToolErrorKind::ExecutionFailed, reason));
            }
            AfterToolOutcome::Stop { reason } => {
                return (stop_result(&reason), ToolCallStatus::Error);
            }
        }
        let status = if result.error.is_some() {
            ToolCallStatus::Error
        } else {
            ToolCallStatus::Success
        };
        (result, status)
    }
}

impl Scheduler {
    /// Moves aside the protected paths a sandboxed command created (see
    /// [`crate::sandbox::PreparedSandbox::refuse_created`]), warning the
    /// user and, through `result`, the model.
    fn refuse_created(&self, mut result: Option<&mut ToolResult>) {
        for refused in crate::sandbox::refuse_created(self.ctx.sandbox.as_ref()) {
            let message = refused.to_string();
            if let Some(result) = result.as_deref_mut() {
                append_text(result, &format!("\n\n{message}"));
            }
            self.emit(AgentEvent::Warning { message });
        }
    }
}

fn stop_result(reason: &str) -> ToolResult {
    let mut r = ToolResult::error(ToolErrorKind::StopExecution, reason, reason);
    r.llm_content = vec![Part::text(format!(
        "Agent execution stopped by hook: {reason}"
    ))];
    r
}

fn cancelled_during_execution() -> ToolResult {
    ToolResult::error(
        ToolErrorKind::ExecutionFailed,
        "[Operation Cancelled] User cancelled tool execution.",
        "Command cancelled by user.",
    )
}

/// Keys of `partial` whose value differs from `args`, in `partial`'s order.
fn changed_keys(args: &Map<String, Value>, partial: &Map<String, Value>) -> Vec<String> {
    partial
        .iter()
        .filter(|(k, v)| args.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect()
}

/// Appends to the last text part (the model sees text parts joined).
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
