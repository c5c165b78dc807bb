//! The tool of a sub-agent: named after the agent, its parameters are the
//! agent's inputs; running it runs the agent (through the session's
//! [`crate::tools::SubagentRunner`]) and answers with Gemini CLI's result
//! texts. Today's Gemini CLI calls every agent through one tool,
//! `invoke_agent {agent_name, prompt}`; the registry accepts that call
//! too and turns it into a call of the agent's own tool ([`invoke_agent`]).

use crate::subagents::AgentDefinition;
use crate::subagents::remote::{
    self, CardSource, Conversation, DEFAULT_QUERY, Reassembler, RemoteAgent,
};
use crate::tools::validate::ArgsValidator;
use crate::tools::{
    Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolKind, ToolResult,
};
use futures::future::BoxFuture;
use gemini_rs_protocol::events::ConfirmationDetails;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::{Arc, OnceLock};
use tokio_util::sync::CancellationToken;

/// The one agent tool of today's Gemini CLI (0.39 and later).
pub const INVOKE_AGENT: &str = "invoke_agent";

/// The arguments of an `invoke_agent` call.
#[derive(Debug, Deserialize)]
struct InvokeArgs {
    agent_name: String,
    prompt: String,
}

/// An `invoke_agent {agent_name, prompt}` call as a call of the agent's
/// own tool: the agent's name and its arguments, the prompt filling the
/// agent's only input (or `prompt` when it has several), as today's Gemini
/// CLI maps it. `find_schema` gives the input schema of an active agent.
pub(crate) fn invoke_agent(
    args: &Value,
    find_schema: impl Fn(&str) -> Option<Value>,
) -> Result<(String, Value), ToolError> {
    static SCHEMA: OnceLock<ArgsValidator> = OnceLock::new();
    let validator = SCHEMA.get_or_init(|| {
        ArgsValidator::new(&json!({
            "type": "object",
            "properties": {
                "agent_name": {"type": "string"},
                "prompt": {"type": "string"}
            },
            "required": ["agent_name", "prompt"]
        }))
    });
    validator
        .validate(args)
        .map_err(|e| ToolError::invalid_params(e.to_string()))?;
    let InvokeArgs { agent_name, prompt } = InvokeArgs::deserialize(args)
        .map_err(|e| ToolError::invalid_params(format!("Invalid parameters: {e}")))?;
    let Some(schema) = find_schema(&agent_name) else {
        return Err(ToolError::new(
            ToolErrorKind::ToolNotRegistered,
            format!("Subagent '{agent_name}' not found."),
        ));
    };
    // open shape: an agent's input schema is any JSON Schema.
    let key = match schema.get("properties").and_then(Value::as_object) {
        Some(props) if props.len() == 1 => props.keys().next().cloned(),
        _ => None,
    }
    .unwrap_or_else(|| "prompt".to_string());
    let mut mapped = Map::new();
    mapped.insert(key, Value::String(prompt));
    Ok((agent_name, Value::Object(mapped)))
}

/// A sub-agent as a tool (kind think).
pub struct SubagentTool {
    agent: Arc<AgentDefinition>,
    /// A remote agent's conversation, carried from call to call.
    conversation: Arc<tokio::sync::Mutex<Conversation>>,
}

impl SubagentTool {
    /// The tool for `agent`.
    pub fn new(agent: AgentDefinition) -> Self {
        SubagentTool {
            agent: Arc::new(agent),
            conversation: Arc::default(),
        }
    }
}

impl Tool for SubagentTool {
    fn name(&self) -> &str {
        &self.agent.name
    }
    fn display_name(&self) -> &str {
        self.agent.shown_name()
    }
    fn description(&self) -> &str {
        &self.agent.description
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Think
    }
    fn parameter_schema(&self) -> &Value {
        &self.agent.input_schema
    }
    fn is_agent(&self) -> bool {
        true
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        if let Some(remote) = &self.agent.remote {
            /// A remote agent's one parameter.
            #[derive(Default, Deserialize)]
            struct RemoteArgs {
                #[serde(default)]
                query: Value,
            }
            let RemoteArgs { query } = RemoteArgs::deserialize(args).unwrap_or_default();
            let query = match query {
                Value::Null => DEFAULT_QUERY.to_string(),
                Value::String(q) => q,
                _ => {
                    return Err(ToolError::invalid_params(format!(
                        "Remote agent '{}' requires a string 'query' input.",
                        self.agent.name
                    )));
                }
            };
            return Ok(Box::new(RemoteCall {
                agent: self.agent.clone(),
                remote: remote.clone(),
                query,
                conversation: self.conversation.clone(),
            }));
        }
        Ok(Box::new(Delegation {
            agent: self.agent.clone(),
            args: args.clone(),
        }))
    }
}

struct Delegation {
    agent: Arc<AgentDefinition>,
    args: Map<String, Value>,
}

impl ToolInvocation for Delegation {
    fn description(&self) -> String {
        format!("Delegating to agent '{}'", self.agent.name)
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let name = &self.agent.name;
            let Some(runner) = ctx.subagents.clone() else {
                let msg = "Sub-agents cannot be started from here.".to_string();
                return failed(name, msg);
            };
            match runner
                .run(&self.agent, self.args.clone(), ctx, cancel)
                .await
            {
                Ok(out) => {
                    let reason = out.reason.as_str();
                    ToolResult::text(
                        format!(
                            "Subagent '{name}' finished.\nTermination Reason: {reason}\nResult:\n{}",
                            out.result
                        ),
                        format!(
                            "\nSubagent {name} Finished\n\nTermination Reason:\n {reason}\n\nResult:\n{}\n",
                            out.result
                        ),
                    )
                }
                Err(e) => failed(name, e.to_string()),
            }
        })
    }
}

/// A call of a remote agent over A2A (0.61's `RemoteAgentInvocation`).
struct RemoteCall {
    agent: Arc<AgentDefinition>,
    remote: RemoteAgent,
    query: String,
    conversation: Arc<tokio::sync::Mutex<Conversation>>,
}

impl ToolInvocation for RemoteCall {
    fn description(&self) -> String {
        format!("Calling remote agent {}", self.agent.shown_name())
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            let urls = match &self.remote.card {
                CardSource::Url(url) => vec![url.clone()],
                CardSource::Json(_) => Vec::new(),
            };
            Some(ConfirmationDetails::Info {
                title: format!("Call Remote Agent: {}", self.agent.shown_name()),
                prompt: format!("Calling remote agent: \"{}\"", self.query),
                urls,
            })
        })
    }

    fn execute<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let mut conversation = self.conversation.lock().await;
            let mut answer = Reassembler::default();
            let outcome = match remote_client() {
                Ok(http) => {
                    let call = remote::call(
                        &http,
                        &self.remote,
                        &self.query,
                        &mut conversation,
                        &mut answer,
                        &cancel,
                    );
                    call.await
                }
                Err(e) => Err(remote::RemoteError::Other(e.to_string())),
            };
            let text = answer.text();
            let text = match outcome {
                Ok(()) if text.is_empty() => "No response from remote agent.".to_string(),
                Ok(()) => text,
                Err(e) if text.is_empty() => e.to_string(),
                Err(e) => format!("{text}\n\n{e}"),
            };
            ToolResult::text(text.clone(), text)
        })
    }
}

/// The HTTP client of remote agent calls (built once).
fn remote_client() -> Result<reqwest::Client, crate::model::http::ClientBuildError> {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    if let Some(c) = CLIENT.get() {
        return Ok(c.clone());
    }
    let builder = reqwest::Client::builder()
        .user_agent(concat!("gemini-rs/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(std::time::Duration::from_secs(10));
    let client = crate::model::http::build_client(builder)?;
    Ok(CLIENT.get_or_init(|| client).clone())
}

/// The error result of a run that could not start or broke.
fn failed(name: &str, msg: String) -> ToolResult {
    let mut r = ToolResult::error(
        ToolErrorKind::ExecutionFailed,
        msg.clone(),
        format!("Subagent Failed: {name}\nError: {msg}"),
    );
    r.llm_content = vec![gemini_rs_protocol::Part::text(format!(
        "Subagent '{name}' failed. Error: {msg}"
    ))];
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_fills_the_only_input() {
        let one = json!({"properties": {"objective": {"type": "string"}}});
        let two = json!({"properties": {"a": {}, "b": {}}});
        let find = |name: &str| match name {
            "one" => Some(one.clone()),
            "two" => Some(two.clone()),
            _ => None,
        };
        let call = |v: Value| invoke_agent(&v, find).map_err(|e| e.message);
        assert_eq!(
            call(json!({"agent_name": "one", "prompt": "p"})).unwrap(),
            ("one".to_string(), json!({"objective": "p"}))
        );
        assert_eq!(
            call(json!({"agent_name": "two", "prompt": "p"})).unwrap().1,
            json!({"prompt": "p"})
        );
        assert_eq!(
            call(json!({"agent_name": "x", "prompt": "p"})).unwrap_err(),
            "Subagent 'x' not found."
        );
        assert_eq!(
            call(json!({"agent_name": "one"})).unwrap_err(),
            "params must have required property 'prompt'"
        );
    }
}
