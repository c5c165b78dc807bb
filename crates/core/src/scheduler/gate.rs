//! The hooks that decide whether a call may run: Claude-format PreToolUse
//! before policy and confirmation (its `permissionDecision` can skip or
//! force the confirmation, its `updatedInput` rewrites the call the user
//! is asked about), and the shared handling of a hook's rewritten input,
//! block or stop.

use super::{Scheduler, ToolCallRequest};
use crate::hooks::{BeforeToolOutcome, HookPermission, HookToolCall};
use crate::tools::{BuiltCall, ToolErrorKind, ToolResult};
use gemini_rs_protocol::Part;
use serde_json::{Map, Value};

/// What the hooks before a call leave for its result: the parameters
/// they changed and their context for the model.
#[derive(Debug, Default)]
pub(super) struct HookNotes {
    /// Parameters a hook rewrote, in the order first changed.
    pub changed: Vec<String>,
    /// `additionalContext` (already escaped).
    pub context: Option<String>,
    /// A PreToolUse hook's `continue: false`: as in Claude Code, the call
    /// still runs (and its PostToolUse hooks), then the agent stops.
    pub stop_after: Option<String>,
}

impl HookNotes {
    /// The note appended to the result when a hook changed parameters.
    pub fn modified_note(&self) -> Option<String> {
        (!self.changed.is_empty()).then(|| {
            format!(
                "\n\n[System] Tool input parameters ({}) were modified by a hook before execution.",
                self.changed.join(", ")
            )
        })
    }
}

/// A PreToolUse verdict: the hooks' permission decision and notes.
pub(super) struct Gate {
    /// `allow` or `ask`, when a hook gave one.
    pub permission: Option<HookPermission>,
    /// Why, as the hook said (`permissionDecisionReason`).
    pub permission_reason: Option<String>,
    /// What to tell the model with the result.
    pub notes: HookNotes,
}

impl Scheduler {
    /// Runs the Claude-format PreToolUse hooks of `req` before policy;
    /// a rewrite rebuilds `built`. `Err` is the result of a call a hook
    /// blocked or stopped (or rewrote into an invalid one).
    pub(super) async fn pre_tool_use(
        &self,
        req: &ToolCallRequest,
        built: &mut BuiltCall,
    ) -> Result<Gate, Box<ToolResult>> {
        let mcp_context = built.tool.mcp_context();
        let outcome = self
            .hooks
            .pre_tool_use(HookToolCall {
                name: &req.name,
                args: &built.args,
                mcp_context: mcp_context.as_ref(),
                id: &req.call_id,
            })
            .await;
        let mut notes = HookNotes::default();
        let action = match outcome.action {
            BeforeToolOutcome::Stop { reason } => {
                notes.stop_after = Some(reason);
                BeforeToolOutcome::Proceed {
                    tool_input: None,
                    additional_context: None,
                }
            }
            action => action,
        };
        self.apply_hook_action(req, built, action, &mut notes)?;
        Ok(Gate {
            permission: outcome.permission,
            permission_reason: outcome.permission_reason,
            notes,
        })
    }

    /// Acts on what BeforeTool or PreToolUse hooks decided: a block or
    /// stop becomes the call's result, a rewrite rebuilds `built` and is
    /// noted, context is kept for the result.
    pub(super) fn apply_hook_action(
        &self,
        req: &ToolCallRequest,
        built: &mut BuiltCall,
        action: BeforeToolOutcome,
        notes: &mut HookNotes,
    ) -> Result<(), Box<ToolResult>> {
        match action {
            BeforeToolOutcome::Block { reason } => Err(Box::new(blocked_result(&reason))),
            BeforeToolOutcome::Stop { reason } => Err(Box::new(stop_result(&reason))),
            BeforeToolOutcome::Proceed {
                tool_input,
                additional_context,
            } => {
                if let Some(ctx) = additional_context {
                    notes.context = Some(match notes.context.take() {
                        Some(before) => format!("{before}\n{ctx}"),
                        None => ctx,
                    });
                }
                if let Some(partial) = tool_input {
                    for key in self.rebuild_with(req, built, partial)? {
                        if !notes.changed.contains(&key) {
                            notes.changed.push(key);
                        }
                    }
                }
                Ok(())
            }
        }
    }

    /// Merges a hook's partial input into the call and validates it
    /// again; returns the keys that changed.
    fn rebuild_with(
        &self,
        req: &ToolCallRequest,
        built: &mut BuiltCall,
        partial: Map<String, Value>,
    ) -> Result<Vec<String>, Box<ToolResult>> {
        let changed = changed_keys(&built.args, &partial);
        if changed.is_empty() {
            return Ok(changed);
        }
        let mut merged = built.args.clone();
        merged.extend(partial);
        match self
            .registry
            .snapshot()
            .build(&req.name, &Value::Object(merged), &self.ctx)
        {
            Ok(rebuilt) => {
                *built = rebuilt;
                Ok(changed)
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
                Err(Box::new(r))
            }
        }
    }
}

/// The result of a call a hook blocked.
fn blocked_result(reason: &str) -> ToolResult {
    let mut r = ToolResult::error(ToolErrorKind::ExecutionFailed, reason, reason);
    r.llm_content = vec![Part::text(format!("Tool execution blocked: {reason}"))];
    r
}

/// The result of a call whose hook stopped the agent.
pub(super) fn stop_result(reason: &str) -> ToolResult {
    let mut r = ToolResult::error(ToolErrorKind::StopExecution, reason, reason);
    r.llm_content = vec![Part::text(format!(
        "Agent execution stopped by hook: {reason}"
    ))];
    r
}

/// Keys of `partial` whose value differs from `args`, in `partial`'s order.
fn changed_keys(args: &Map<String, Value>, partial: &Map<String, Value>) -> Vec<String> {
    partial
        .iter()
        .filter(|(k, v)| args.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect()
}
