//! The hooks interface the scheduler calls around every tool execution.
//! The `hooks` module implements it; with no hooks configured, [`NoHooks`]
//! runs nothing.

use crate::tools::ToolResult;
use futures::future::BoxFuture;
use serde_json::{Map, Value};

/// What BeforeTool hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub enum BeforeToolOutcome {
    /// Run the tool; `tool_input` (if any) is merged into the arguments.
    Proceed {
        /// Partial arguments to merge (`Object.assign`) before running.
        tool_input: Option<Map<String, Value>>,
    },
    /// Do not run it; the model sees `reason` as the error.
    Block {
        /// The reason.
        reason: String,
    },
    /// Do not run it and stop the agent.
    Stop {
        /// The reason.
        reason: String,
    },
}

/// What AfterTool hooks decided.
#[derive(Debug, Clone, PartialEq)]
pub enum AfterToolOutcome {
    /// Keep the result, optionally with extra context for the model.
    Keep {
        /// Appended as `<hook_context>…</hook_context>` (already escaped).
        additional_context: Option<String>,
    },
    /// Replace the result by an error with `reason`.
    Block {
        /// The reason.
        reason: String,
    },
    /// Replace the result by an error and stop the agent.
    Stop {
        /// The reason.
        reason: String,
    },
}

/// A call as hooks see it.
#[derive(Debug, Clone, Copy)]
pub struct HookToolCall<'a> {
    /// The name the model called.
    pub name: &'a str,
    /// The validated arguments.
    pub args: &'a Map<String, Value>,
    /// MCP context (`mcp_context`) for MCP tools.
    pub mcp_context: Option<&'a Value>,
}

/// Hooks around tool execution.
pub trait ToolHooks: Send + Sync {
    /// Runs the BeforeTool hooks.
    fn before_tool<'a>(&'a self, call: HookToolCall<'a>) -> BoxFuture<'a, BeforeToolOutcome>;
    /// Runs the AfterTool hooks.
    fn after_tool<'a>(
        &'a self,
        call: HookToolCall<'a>,
        result: &'a ToolResult,
    ) -> BoxFuture<'a, AfterToolOutcome>;
    /// Runs the Notification hooks (a call waits for the user's approval).
    fn notification<'a>(&'a self, _message: &'a str, _details: &'a Value) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}

/// No hooks: every call proceeds unchanged.
pub struct NoHooks;

impl ToolHooks for NoHooks {
    fn before_tool<'a>(&'a self, _call: HookToolCall<'a>) -> BoxFuture<'a, BeforeToolOutcome> {
        Box::pin(async { BeforeToolOutcome::Proceed { tool_input: None } })
    }

    fn after_tool<'a>(
        &'a self,
        _call: HookToolCall<'a>,
        _result: &'a ToolResult,
    ) -> BoxFuture<'a, AfterToolOutcome> {
        Box::pin(async {
            AfterToolOutcome::Keep {
                additional_context: None,
            }
        })
    }
}
