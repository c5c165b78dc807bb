//! The one interface the agent and the scheduler call hooks through.
//! [`super::HookSystem`] implements it by running the configured commands;
//! [`NoHooks`] runs nothing and lets everything proceed.

use super::outcomes::{
    AfterModelOutcome, AfterToolOutcome, AgentHookOutcome, AgentStop, BeforeModelOutcome,
    BeforeToolOutcome, PreToolUseOutcome, SessionStartOutcome,
};
use super::{HookEvent, HookSystem};
use futures::future::BoxFuture;
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse, ToolConfig};
use serde_json::{Map, Value};

/// A call as hooks see it.
#[derive(Debug, Clone, Copy)]
pub struct HookToolCall<'a> {
    /// The name the model called.
    pub name: &'a str,
    /// The validated arguments.
    pub args: &'a Map<String, Value>,
    /// MCP context (`mcp_context`) for MCP tools.
    pub mcp_context: Option<&'a Value>,
    /// The call's id (Claude hooks' `tool_use_id`).
    pub id: &'a str,
}

/// Hooks around every step of a session. Futures borrow their arguments.
pub trait Hooks: Send + Sync {
    /// True when `event` has a hook to run (lets callers skip building inputs).
    fn has(&self, event: HookEvent) -> bool;
    /// SessionStart (`startup|resume|clear`).
    fn session_start<'a>(&'a self, source: &'a str) -> BoxFuture<'a, SessionStartOutcome>;
    /// SessionEnd (`exit|clear|...`).
    fn session_end<'a>(&'a self, reason: &'a str) -> BoxFuture<'a, ()>;
    /// PreCompress (`auto|manual`).
    fn pre_compress<'a>(&'a self, trigger: &'a str) -> BoxFuture<'a, ()>;
    /// StopFailure (Claude hooks only), when a prompt ends on a model
    /// error of kind `error`, shown as `message`. Advisory.
    fn stop_failure<'a>(&'a self, error: &'a str, message: &'a str) -> BoxFuture<'a, ()>;
    /// The PreCompress before each model call (Gemini-format hooks only).
    fn turn_pre_compress(&self) -> BoxFuture<'_, ()>;
    /// BeforeAgent, once per prompt.
    fn before_agent<'a>(&'a self, prompt: &'a str) -> BoxFuture<'a, AgentHookOutcome>;
    /// AfterAgent (Claude: `Stop`), when a prompt's last turn ends.
    fn after_agent<'a>(&'a self, stop: AgentStop<'a>) -> BoxFuture<'a, AgentHookOutcome>;
    /// True when a block of AfterAgent should be followed by AfterAgent
    /// again once the agent went on (`stop_hook_active`), as Claude Code's
    /// Stop hooks expect.
    fn reruns_stop(&self) -> bool;
    /// SubagentStart (Claude hooks only), when the sub-agent `agent_type`
    /// (run `agent_id`) starts. Advisory.
    fn subagent_start<'a>(&'a self, agent_type: &'a str, agent_id: &'a str) -> BoxFuture<'a, ()>;
    /// PostCompact (Claude hooks only), after compression (`trigger`) into
    /// `summary`. Advisory.
    fn post_compact<'a>(&'a self, trigger: &'a str, summary: &'a str) -> BoxFuture<'a, ()>;
    /// SubagentStop, when the sub-agent `agent_type` hands back `result`;
    /// a block sends the reason back to it.
    fn subagent_stop<'a>(
        &'a self,
        agent_type: &'a str,
        agent_id: &'a str,
        result: &'a str,
        stop_hook_active: bool,
    ) -> BoxFuture<'a, AgentHookOutcome>;
    /// BeforeModel, before each model call.
    fn before_model<'a>(
        &'a self,
        request: &'a GenerateContentRequest,
        model: &'a str,
    ) -> BoxFuture<'a, BeforeModelOutcome>;
    /// AfterModel, for each streamed chunk.
    fn after_model<'a>(
        &'a self,
        request: &'a GenerateContentRequest,
        model: &'a str,
        chunk: &'a GenerateContentResponse,
    ) -> BoxFuture<'a, AfterModelOutcome>;
    /// BeforeToolSelection: `Some` replaces the request's `toolConfig`.
    fn before_tool_selection<'a>(
        &'a self,
        request: &'a GenerateContentRequest,
        model: &'a str,
    ) -> BoxFuture<'a, Option<ToolConfig>>;
    /// Claude-format PreToolUse, before policy and confirmation.
    fn pre_tool_use<'a>(&'a self, call: HookToolCall<'a>) -> BoxFuture<'a, PreToolUseOutcome>;
    /// Gemini-format BeforeTool, right before a call executes.
    fn before_tool<'a>(&'a self, call: HookToolCall<'a>) -> BoxFuture<'a, BeforeToolOutcome>;
    /// AfterTool; `response` is the result as hook JSON
    /// (`{llmContent, returnDisplay, error?}`), `error` the failure's
    /// message when the call failed (Claude: `PostToolUseFailure`).
    fn after_tool<'a>(
        &'a self,
        call: HookToolCall<'a>,
        response: &'a Value,
        error: Option<&'a str>,
    ) -> BoxFuture<'a, AfterToolOutcome>;
    /// Notification (a call waits for the user's approval).
    fn notification<'a>(&'a self, message: &'a str, details: &'a Value) -> BoxFuture<'a, ()>;
}

impl Hooks for HookSystem {
    fn has(&self, event: HookEvent) -> bool {
        self.has_hooks(event)
    }
    fn session_start<'a>(&'a self, source: &'a str) -> BoxFuture<'a, SessionStartOutcome> {
        Box::pin(HookSystem::session_start(self, source))
    }
    fn session_end<'a>(&'a self, reason: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(HookSystem::session_end(self, reason))
    }
    fn pre_compress<'a>(&'a self, trigger: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(HookSystem::pre_compress(self, trigger))
    }
    fn stop_failure<'a>(&'a self, error: &'a str, message: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(HookSystem::stop_failure(self, error, message))
    }
    fn turn_pre_compress(&self) -> BoxFuture<'_, ()> {
        Box::pin(HookSystem::turn_pre_compress(self))
    }
    fn before_agent<'a>(&'a self, prompt: &'a str) -> BoxFuture<'a, AgentHookOutcome> {
        Box::pin(HookSystem::before_agent(self, prompt))
    }
    fn after_agent<'a>(&'a self, stop: AgentStop<'a>) -> BoxFuture<'a, AgentHookOutcome> {
        Box::pin(HookSystem::agent_stop(self, stop))
    }
    fn reruns_stop(&self) -> bool {
        self.has_claude_hooks(HookEvent::AfterAgent)
    }
    fn subagent_start<'a>(&'a self, agent_type: &'a str, agent_id: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(HookSystem::subagent_start(self, agent_type, agent_id))
    }
    fn post_compact<'a>(&'a self, trigger: &'a str, summary: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(HookSystem::post_compact(self, trigger, summary))
    }
    fn subagent_stop<'a>(
        &'a self,
        agent_type: &'a str,
        agent_id: &'a str,
        result: &'a str,
        stop_hook_active: bool,
    ) -> BoxFuture<'a, AgentHookOutcome> {
        Box::pin(HookSystem::subagent_stop(
            self,
            agent_type,
            agent_id,
            result,
            stop_hook_active,
        ))
    }
    fn before_model<'a>(
        &'a self,
        request: &'a GenerateContentRequest,
        model: &'a str,
    ) -> BoxFuture<'a, BeforeModelOutcome> {
        Box::pin(HookSystem::before_model(self, request, model))
    }
    fn after_model<'a>(
        &'a self,
        request: &'a GenerateContentRequest,
        model: &'a str,
        chunk: &'a GenerateContentResponse,
    ) -> BoxFuture<'a, AfterModelOutcome> {
        Box::pin(HookSystem::after_model(self, request, model, chunk))
    }
    fn before_tool_selection<'a>(
        &'a self,
        request: &'a GenerateContentRequest,
        model: &'a str,
    ) -> BoxFuture<'a, Option<ToolConfig>> {
        Box::pin(HookSystem::before_tool_selection(self, request, model))
    }
    fn pre_tool_use<'a>(&'a self, call: HookToolCall<'a>) -> BoxFuture<'a, PreToolUseOutcome> {
        Box::pin(HookSystem::pre_tool_use(self, call))
    }
    fn before_tool<'a>(&'a self, call: HookToolCall<'a>) -> BoxFuture<'a, BeforeToolOutcome> {
        Box::pin(HookSystem::before_tool_call(self, call))
    }
    fn after_tool<'a>(
        &'a self,
        call: HookToolCall<'a>,
        response: &'a Value,
        error: Option<&'a str>,
    ) -> BoxFuture<'a, AfterToolOutcome> {
        Box::pin(HookSystem::after_tool_call(self, call, response, error))
    }
    fn notification<'a>(&'a self, message: &'a str, details: &'a Value) -> BoxFuture<'a, ()> {
        Box::pin(HookSystem::notification(self, message, details))
    }
}

/// No hooks: nothing runs and everything proceeds unchanged.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn has(&self, _event: HookEvent) -> bool {
        false
    }
    fn session_start<'a>(&'a self, _source: &'a str) -> BoxFuture<'a, SessionStartOutcome> {
        Box::pin(async { SessionStartOutcome::default() })
    }
    fn session_end<'a>(&'a self, _reason: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    fn pre_compress<'a>(&'a self, _trigger: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    fn stop_failure<'a>(&'a self, _error: &'a str, _message: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    fn turn_pre_compress(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
    }
    fn before_agent<'a>(&'a self, _prompt: &'a str) -> BoxFuture<'a, AgentHookOutcome> {
        Box::pin(async {
            AgentHookOutcome::Proceed {
                additional_context: None,
            }
        })
    }
    fn after_agent<'a>(&'a self, _stop: AgentStop<'a>) -> BoxFuture<'a, AgentHookOutcome> {
        Box::pin(async {
            AgentHookOutcome::Proceed {
                additional_context: None,
            }
        })
    }
    fn reruns_stop(&self) -> bool {
        false
    }
    fn subagent_start<'a>(&'a self, _agent_type: &'a str, _agent_id: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    fn post_compact<'a>(&'a self, _trigger: &'a str, _summary: &'a str) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
    fn subagent_stop<'a>(
        &'a self,
        _agent_type: &'a str,
        _agent_id: &'a str,
        _result: &'a str,
        _stop_hook_active: bool,
    ) -> BoxFuture<'a, AgentHookOutcome> {
        Box::pin(async {
            AgentHookOutcome::Proceed {
                additional_context: None,
            }
        })
    }
    fn before_model<'a>(
        &'a self,
        _request: &'a GenerateContentRequest,
        _model: &'a str,
    ) -> BoxFuture<'a, BeforeModelOutcome> {
        Box::pin(async {
            BeforeModelOutcome::Proceed {
                request: None,
                model: None,
            }
        })
    }
    fn after_model<'a>(
        &'a self,
        _request: &'a GenerateContentRequest,
        _model: &'a str,
        _chunk: &'a GenerateContentResponse,
    ) -> BoxFuture<'a, AfterModelOutcome> {
        Box::pin(async { AfterModelOutcome::Proceed { response: None } })
    }
    fn before_tool_selection<'a>(
        &'a self,
        _request: &'a GenerateContentRequest,
        _model: &'a str,
    ) -> BoxFuture<'a, Option<ToolConfig>> {
        Box::pin(async { None })
    }
    fn pre_tool_use<'a>(&'a self, _call: HookToolCall<'a>) -> BoxFuture<'a, PreToolUseOutcome> {
        Box::pin(async {
            PreToolUseOutcome {
                action: BeforeToolOutcome::Proceed {
                    tool_input: None,
                    additional_context: None,
                },
                permission: None,
                permission_reason: None,
            }
        })
    }
    fn before_tool<'a>(&'a self, _call: HookToolCall<'a>) -> BoxFuture<'a, BeforeToolOutcome> {
        Box::pin(async {
            BeforeToolOutcome::Proceed {
                tool_input: None,
                additional_context: None,
            }
        })
    }
    fn after_tool<'a>(
        &'a self,
        _call: HookToolCall<'a>,
        _response: &'a Value,
        _error: Option<&'a str>,
    ) -> BoxFuture<'a, AfterToolOutcome> {
        Box::pin(async {
            AfterToolOutcome::Keep {
                additional_context: None,
            }
        })
    }
    fn notification<'a>(&'a self, _message: &'a str, _details: &'a Value) -> BoxFuture<'a, ()> {
        Box::pin(async {})
    }
}
