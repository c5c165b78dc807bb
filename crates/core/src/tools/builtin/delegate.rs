//! The tool of a sub-agent: named after the agent, its parameters are the
//! agent's inputs; running it runs the agent (through the session's
//! [`crate::tools::SubagentRunner`]) and answers with Gemini CLI's result
//! texts.

use crate::subagents::AgentDefinition;
use crate::tools::{
    Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolKind, ToolResult,
};
use futures::future::BoxFuture;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// A sub-agent as a tool (kind think).
pub struct SubagentTool {
    agent: Arc<AgentDefinition>,
}

impl SubagentTool {
    /// The tool for `agent`.
    pub fn new(agent: AgentDefinition) -> Self {
        SubagentTool {
            agent: Arc::new(agent),
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
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
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
