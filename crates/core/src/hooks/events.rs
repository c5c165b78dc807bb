//! One typed function per hook event (§9.7) and their outcomes.

use super::matcher::MatchTarget;
use super::outcomes::{
    AfterModelOutcome, AfterToolOutcome, AgentHookOutcome, AgentStop, BeforeModelOutcome,
    BeforeToolOutcome, HookPermission, PreToolUseOutcome,
};
use super::{HookDialect, HookEvent, HookOutput, HookSystem, HookToolCall};
use gemini_rs_protocol::hook_api::{
    from_hook_llm_request, from_hook_llm_response, from_hook_tool_config, to_hook_llm_request,
    to_hook_llm_response,
};
use gemini_rs_protocol::{
    GenerateContentRequest, GenerateContentResponse, HookToolConfig, LLMRequest, LLMResponse,
    ToolConfig,
};
use serde_json::Value;

/// A Stable Model API value as hook input JSON.
fn to_json(v: impl serde::Serialize) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

fn trimmed(s: &Option<String>) -> Option<String> {
    s.as_ref()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// `tool_name`, `tool_input` and `mcp_context` of a call.
fn tool_fields(call: HookToolCall<'_>) -> Vec<(&'static str, Value)> {
    let mut f = vec![
        ("tool_name", Value::String(call.name.into())),
        ("tool_input", Value::Object(call.args.clone())),
    ];
    if let Some(m) = call.mcp_context {
        f.push(("mcp_context", m.clone()));
    }
    f
}

/// Stop / block / proceed for the agent events.
fn agent_outcome(out: Option<HookOutput>, with_context: bool) -> AgentHookOutcome {
    let Some(out) = out else {
        return AgentHookOutcome::Proceed {
            additional_context: None,
        };
    };
    let (reason, system_message, clear_context) = (
        out.effective_reason(),
        trimmed(&out.system_message),
        out.clear_context(),
    );
    if out.should_stop() {
        AgentHookOutcome::Stop {
            reason,
            system_message,
            clear_context,
        }
    } else if out.is_blocking() {
        AgentHookOutcome::Block {
            reason,
            system_message,
            clear_context,
        }
    } else {
        AgentHookOutcome::Proceed {
            additional_context: if with_context {
                out.additional_context()
            } else {
                None
            },
        }
    }
}

impl HookSystem {
    /// Claude's PreToolUse, then Gemini's BeforeTool (tests).
    #[cfg(test)]
    pub async fn before_tool(
        &self,
        tool_name: &str,
        tool_input: &serde_json::Map<String, Value>,
        mcp_context: Option<&Value>,
    ) -> BeforeToolOutcome {
        let call = HookToolCall {
            name: tool_name,
            args: tool_input,
            mcp_context,
            id: "",
        };
        match self.pre_tool_use(call).await.action {
            BeforeToolOutcome::Proceed { .. } if !self.has_claude_hooks(HookEvent::BeforeTool) => {
                self.before_tool_call(call).await
            }
            claude => claude,
        }
    }

    /// BeforeTool for `call`: the Gemini-format hooks, which run after
    /// policy and confirmation (as in Gemini CLI).
    pub async fn before_tool_call(&self, call: HookToolCall<'_>) -> BeforeToolOutcome {
        let action = self.tool_gate(call, HookDialect::Gemini).await.action;
        self.claude_state().call_started(call.id);
        action
    }

    /// PreToolUse for `call`: the Claude-format hooks, which run before
    /// policy and confirmation (as in Claude Code) and get the call's id.
    pub async fn pre_tool_use(&self, call: HookToolCall<'_>) -> PreToolUseOutcome {
        self.tool_gate(call, HookDialect::Claude).await
    }

    /// The BeforeTool hooks of one dialect and what they decided.
    async fn tool_gate(&self, call: HookToolCall<'_>, dialect: HookDialect) -> PreToolUseOutcome {
        let names = super::matcher::call_names(call.name, call.mcp_context);
        let out = self
            .run_event_for(
                HookEvent::BeforeTool,
                MatchTarget::Tool(&names),
                Some(call.id),
                Some(dialect),
                || tool_fields(call),
                || vec![("tool_use_id", Value::String(call.id.into()))],
            )
            .await;
        let Some(out) = out else {
            return PreToolUseOutcome {
                action: BeforeToolOutcome::Proceed {
                    tool_input: None,
                    additional_context: None,
                },
                permission: None,
                permission_reason: None,
            };
        };
        let action = if out.should_stop() {
            BeforeToolOutcome::Stop {
                reason: out.effective_reason(),
            }
        } else if out.is_blocking() {
            BeforeToolOutcome::Block {
                reason: out.effective_reason(),
            }
        } else {
            BeforeToolOutcome::Proceed {
                tool_input: out
                    .specific("tool_input")
                    .and_then(Value::as_object)
                    .cloned(),
                // Gemini CLI's BeforeTool has no context for the model;
                // Claude's PreToolUse has.
                additional_context: out
                    .additional_context()
                    .filter(|_| dialect == HookDialect::Claude),
            }
        };
        let permission = match out.specific("permissionDecision").and_then(Value::as_str) {
            Some("ask") if dialect == HookDialect::Claude => Some(HookPermission::Ask),
            Some("allow") if dialect == HookDialect::Claude => Some(HookPermission::Allow),
            _ => None,
        };
        let permission_reason = permission
            .and(out.specific("permissionDecisionReason"))
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
            .map(str::to_string);
        PreToolUseOutcome {
            action,
            permission,
            permission_reason,
        }
    }

    /// AfterTool for `call`, whose result is `tool_response` (hook JSON)
    /// and which failed with `error` when given. Gemini hooks see every
    /// result; Claude's `PostToolUse` hooks only a success and its
    /// `PostToolUseFailure` hooks only a failure.
    pub async fn after_tool_call(
        &self,
        call: HookToolCall<'_>,
        tool_response: &Value,
        error: Option<&str>,
    ) -> AfterToolOutcome {
        let names = super::matcher::call_names(call.name, call.mcp_context);
        let target = MatchTarget::Tool(&names);
        let ms = Value::from(self.claude_state().call_ended(call.id));
        let id = || {
            vec![
                ("tool_use_id", Value::String(call.id.into())),
                ("duration_ms", ms.clone()),
            ]
        };
        let with_response = || {
            let mut f = tool_fields(call);
            f.insert(2, ("tool_response", tool_response.clone()));
            f
        };
        let only = error.map(|_| HookDialect::Gemini);
        let after = self
            .run_event_for(
                HookEvent::AfterTool,
                target,
                Some(call.id),
                only,
                with_response,
                id,
            )
            .await;
        let failure = match error {
            Some(message) => {
                let failure_fields = || {
                    vec![
                        ("tool_use_id", Value::String(call.id.into())),
                        ("error", Value::String(message.into())),
                        ("is_interrupt", Value::Bool(false)),
                        ("duration_ms", ms.clone()),
                    ]
                };
                self.run_event_for(
                    HookEvent::AfterToolFailure,
                    target,
                    Some(call.id),
                    Some(HookDialect::Claude),
                    || tool_fields(call),
                    failure_fields,
                )
                .await
            }
            None => None,
        };
        let outputs: Vec<&HookOutput> = after.iter().chain(failure.iter()).collect();
        let Some(out) = super::aggregate::aggregate(HookEvent::AfterTool, &outputs) else {
            return AfterToolOutcome::Keep {
                additional_context: None,
            };
        };
        if out.should_stop() {
            AfterToolOutcome::Stop {
                reason: out.effective_reason(),
            }
        } else if out.is_blocking() {
            AfterToolOutcome::Block {
                reason: out.effective_reason(),
            }
        } else {
            AfterToolOutcome::Keep {
                additional_context: out.additional_context(),
            }
        }
    }

    /// BeforeAgent, once per prompt before its first model call.
    pub async fn before_agent(&self, prompt: &str) -> AgentHookOutcome {
        self.claude_state().new_prompt();
        let out = self
            .run_event(HookEvent::BeforeAgent, MatchTarget::None, || {
                vec![("prompt", Value::String(prompt.into()))]
            })
            .await;
        agent_outcome(out, true)
    }

    /// AfterAgent, when the outermost turn ends with no pending tool calls.
    /// `prompt_response` is the text of all model turns joined with `\n`
    /// (or `[no response text]`); `stop_hook_active` is false in v0.27.4.
    #[cfg(test)]
    pub async fn after_agent(
        &self,
        prompt: &str,
        prompt_response: &str,
        stop_hook_active: bool,
    ) -> AgentHookOutcome {
        self.agent_stop(AgentStop {
            prompt,
            response: prompt_response,
            last_message: prompt_response,
            stop_hook_active,
        })
        .await
    }

    /// AfterAgent (Claude: `Stop`) for `stop`; Claude hooks get
    /// `last_assistant_message`.
    pub async fn agent_stop(&self, stop: AgentStop<'_>) -> AgentHookOutcome {
        let out = self
            .run_event_with(
                HookEvent::AfterAgent,
                MatchTarget::None,
                None,
                || {
                    vec![
                        ("prompt", Value::String(stop.prompt.into())),
                        ("prompt_response", Value::String(stop.response.into())),
                        ("stop_hook_active", Value::Bool(stop.stop_hook_active)),
                    ]
                },
                || {
                    // Claude Code's background tasks and scheduled prompts
                    // have no counterpart here: always none.
                    vec![
                        (
                            "last_assistant_message",
                            Value::String(stop.last_message.into()),
                        ),
                        ("background_tasks", Value::Array(Vec::new())),
                        ("session_crons", Value::Array(Vec::new())),
                    ]
                },
            )
            .await;
        agent_outcome(out, false)
    }

    /// SubagentStart (Claude hooks only), when the sub-agent `agent_type`
    /// (run `agent_id`) starts; matchers select the agent's name. Advisory.
    pub async fn subagent_start(&self, agent_type: &str, agent_id: &str) {
        self.run_event_with(
            HookEvent::SubagentStart,
            MatchTarget::Trigger(agent_type),
            Some(HookDialect::Claude),
            Vec::new,
            || {
                vec![
                    ("agent_id", Value::String(agent_id.into())),
                    ("agent_type", Value::String(agent_type.into())),
                ]
            },
        )
        .await;
    }

    /// SubagentStop (Claude hooks only), when the sub-agent `agent_type`
    /// (run `agent_id`) hands back `result`; matchers select the agent's
    /// name. A block sends its reason to the sub-agent, which goes on.
    pub async fn subagent_stop(
        &self,
        agent_type: &str,
        agent_id: &str,
        result: &str,
        stop_hook_active: bool,
    ) -> AgentHookOutcome {
        let out = self
            .run_event_with(
                HookEvent::SubagentStop,
                MatchTarget::Trigger(agent_type),
                Some(HookDialect::Claude),
                Vec::new,
                || {
                    vec![
                        ("stop_hook_active", Value::Bool(stop_hook_active)),
                        ("agent_id", Value::String(agent_id.into())),
                        ("agent_type", Value::String(agent_type.into())),
                        // The sub-agent's turns are kept in the session's
                        // transcript, not a file of their own.
                        (
                            "agent_transcript_path",
                            Value::String(self.env.transcript_path.clone()),
                        ),
                        ("last_assistant_message", Value::String(result.into())),
                        ("background_tasks", Value::Array(Vec::new())),
                        ("session_crons", Value::Array(Vec::new())),
                    ]
                },
            )
            .await;
        agent_outcome(out, false)
    }

    /// BeforeModel, before each model call.
    pub async fn before_model(
        &self,
        request: &GenerateContentRequest,
        model: &str,
    ) -> BeforeModelOutcome {
        let out = self
            .run_event(HookEvent::BeforeModel, MatchTarget::None, || {
                vec![(
                    "llm_request",
                    to_json(to_hook_llm_request(request, Some(model))),
                )]
            })
            .await;
        let Some(out) = out else {
            return BeforeModelOutcome::Proceed {
                request: None,
                model: None,
            };
        };
        let (reason, system_message) = (out.effective_reason(), trimmed(&out.system_message));
        if out.should_stop() {
            return BeforeModelOutcome::Stop {
                reason,
                system_message,
            };
        }
        if out.is_blocking() {
            if let Some(mut response) = out
                .specific("llm_response")
                .and_then(LLMResponse::from_value)
                .map(|r| from_hook_llm_response(&r))
            {
                for c in response.candidates.iter_mut().flatten() {
                    c.finish_reason.get_or_insert_with(|| "STOP".to_string());
                }
                return BeforeModelOutcome::Respond {
                    response: Box::new(response),
                };
            }
            return BeforeModelOutcome::Block {
                reason,
                system_message,
            };
        }
        match out.specific("llm_request").and_then(LLMRequest::from_value) {
            Some(hook_req) => {
                let (req, new_model) = from_hook_llm_request(&hook_req, request);
                BeforeModelOutcome::Proceed {
                    request: Some(Box::new(req)),
                    model: new_model,
                }
            }
            None => BeforeModelOutcome::Proceed {
                request: None,
                model: None,
            },
        }
    }

    /// AfterModel, for each streamed chunk.
    pub async fn after_model(
        &self,
        request: &GenerateContentRequest,
        model: &str,
        chunk: &GenerateContentResponse,
    ) -> AfterModelOutcome {
        let out = self
            .run_event(HookEvent::AfterModel, MatchTarget::None, || {
                vec![
                    (
                        "llm_request",
                        to_json(to_hook_llm_request(request, Some(model))),
                    ),
                    ("llm_response", to_json(to_hook_llm_response(chunk))),
                ]
            })
            .await;
        let Some(out) = out else {
            return AfterModelOutcome::Proceed { response: None };
        };
        let (reason, system_message) = (out.effective_reason(), trimmed(&out.system_message));
        if out.should_stop() {
            return AfterModelOutcome::Stop {
                reason,
                system_message,
            };
        }
        if out.is_blocking() {
            return AfterModelOutcome::Block {
                reason,
                system_message,
            };
        }
        let response = out
            .specific("llm_response")
            .and_then(LLMResponse::from_value)
            .filter(LLMResponse::has_parts)
            .map(|r| Box::new(from_hook_llm_response(&r)));
        AfterModelOutcome::Proceed { response }
    }

    /// BeforeToolSelection, before each model call that offers tools. `Some`
    /// replaces the request's `toolConfig` (its functionCallingConfig).
    pub async fn before_tool_selection(
        &self,
        request: &GenerateContentRequest,
        model: &str,
    ) -> Option<ToolConfig> {
        let out = self
            .run_event(HookEvent::BeforeToolSelection, MatchTarget::None, || {
                vec![(
                    "llm_request",
                    to_json(to_hook_llm_request(request, Some(model))),
                )]
            })
            .await?;
        out.specific("toolConfig")
            .map(|v| from_hook_tool_config(&HookToolConfig::from_value(v).unwrap_or_default()))
    }
}
