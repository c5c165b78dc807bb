//! Runs sub-agents for the session: each run is an [`Agent`] with its own
//! system prompt, model and tool registry (only the agent's tools, never
//! another agent), sharing the session's model client, policy, hooks,
//! approval mode, confirmations and stats. Its events reach the front end
//! wrapped in [`AgentEvent::Nested`] with the delegating call's id.

use super::layers::{AgentSeed, SharedLayers};
use crate::agent::{AgentConfig, complete_task_declaration, environment_context};
use crate::events::{AgentEvent, EventSender};
use crate::model::{default_generation_config, is_gemini_3};
use crate::subagents::{
    AgentDefinition, AgentOrigin, AgentOutput, COMPLETE_TASK, INTERNAL_DOCS_TOOL, ToolSelection,
    fill_template, runtime_inputs,
};
use crate::tools::builtin::InternalDocsTool;
use crate::tools::{
    LiveRegistry, SubagentOutcome, SubagentRunError, SubagentRunner, ToolContext, ToolRegistry,
};
use futures::future::BoxFuture;
use serde_json::{Map, Value};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What every sub-agent run shares with the session.
pub(super) struct SubagentHost {
    /// The session's layers (model client, policy, hooks, ...).
    pub layers: SharedLayers,
    /// The session's tools (the agents' tools are picked from them).
    pub registry: LiveRegistry,
    /// The names of the session's agents (never given to an agent).
    pub agent_names: Vec<String>,
    /// The session's event stream (nested events go there).
    pub events: EventSender,
}

impl SubagentRunner for SubagentHost {
    fn run<'a>(
        &'a self,
        agent: &'a AgentDefinition,
        args: Map<String, Value>,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentRunError>> {
        Box::pin(async move {
            let parent_call_id = ctx.call_id.clone().unwrap_or_default();
            let inputs = runtime_inputs(&args, &ctx.model);
            let query = fill_template(&agent.query, &inputs)?;
            let prompt = fill_template(&agent.system_prompt, &inputs)?;
            let model = agent_model(agent, &ctx.model);
            let today = chrono::Local::now().format("%A, %B %-d, %Y").to_string();
            let system_instruction = format!(
                "{prompt}\n\n# Environment Context\n{}\n\n{}",
                environment_context(&self.layers.workspace, &today, crate::agent::TREE_LIMIT,),
                rules(&agent.output)
            );
            let (tx, mut rx) = crate::events::event_channel();
            let parent = self.events.clone();
            let forward_id = parent_call_id.clone();
            // Stopped if the run is dropped (the call was cancelled): its
            // late events would trail the call's end.
            let mut forwarder = AbortOnDrop(Some(tokio::spawn(async move {
                while let Some(event) = rx.recv().await {
                    parent
                        .emit(AgentEvent::Nested {
                            parent_call_id: forward_id.clone(),
                            event: Box::new(event),
                        })
                        .await;
                }
            })));
            let nested_ctx = ToolContext {
                model: model.clone(),
                subagents: None,
                call_id: None,
                ..ctx.clone()
            };
            let mut generation_config = default_generation_config(&model);
            if let Some(t) = agent.temperature.and_then(serde_json::Number::from_f64) {
                generation_config.temperature = Some(t);
            }
            let config = AgentConfig {
                model,
                system_instruction,
                generation_config,
                max_session_turns: -1,
                loop_detection: false,
                compression_threshold: self.layers.compression_threshold,
                context_windows: self.layers.context_windows.clone(),
                auto_classify: false,
                extra_declarations: vec![complete_task_declaration(agent)],
                output_schema: None,
                max_budget_usd: None,
                background_completions: false,
                logprobs: false,
            };
            let mut runner = self.layers.agent(AgentSeed {
                registry: Arc::new(self.tools_for(agent)).into(),
                ctx: nested_ctx,
                config,
                history: Vec::new(),
                events: tx,
                recorder: None,
            });
            let suffix = uuid::Uuid::new_v4().simple().to_string();
            let agent_id = format!("{}-{}", agent.name, &suffix[..6]);
            let outcome = runner.run_subagent(agent, query, &agent_id, &cancel).await;
            // Every nested event is out before the delegating call ends.
            drop(runner);
            if let Some(task) = forwarder.0.take() {
                let _ = task.await;
            }
            outcome.map_err(|e| SubagentRunError::Run(Box::new(e)))
        })
    }
}

/// Aborts a task when dropped.
struct AbortOnDrop(Option<tokio::task::JoinHandle<()>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(task) = self.0.take() {
            task.abort();
        }
    }
}

impl SubagentHost {
    /// The agent's registry: the tools it names (or every tool), never an
    /// agent; `get_internal_docs` for the agents that name it.
    fn tools_for(&self, agent: &AgentDefinition) -> ToolRegistry {
        let registry_now = self.registry.snapshot();
        let names: Vec<String> = match &agent.tools {
            ToolSelection::All => registry_now.active_names(),
            ToolSelection::Named(names) => names.clone(),
        };
        let mut registry = ToolRegistry::new();
        registry.exclude_like(&self.registry.snapshot());
        for name in names {
            if self.agent_names.contains(&name) || name == COMPLETE_TASK {
                continue;
            }
            if name == INTERNAL_DOCS_TOOL {
                registry.register(Arc::new(InternalDocsTool));
            } else if let Some(tool) = registry_now.get(&name) {
                registry.register(tool.tool.clone());
            }
        }
        registry
    }
}

/// The session's agents (none for `mcp serve`).
pub(super) fn session_agents(
    config: &super::SessionConfig,
    tool_server: bool,
    extensions: &[crate::extensions::Extension],
) -> crate::subagents::AgentSet {
    if tool_server {
        return crate::subagents::AgentSet::default();
    }
    let extension_agents: Vec<std::path::PathBuf> =
        extensions.iter().map(|e| e.path.join("agents")).collect();
    crate::subagents::discover(
        &config.settings,
        &config.paths.gemini_dir,
        config.trusted.then_some(config.root.as_path()),
        &extension_agents,
    )
}

/// Start-up lines about the agents: each file that could not be used, and
/// the project agents that wait for the user's acknowledgement.
pub(super) fn agent_notes(agents: &crate::subagents::AgentSet) -> Vec<super::StartupNote> {
    let mut notes: Vec<super::StartupNote> = agents
        .errors
        .iter()
        .map(|e| super::StartupNote {
            text: format!("Agent loading error: {e}"),
            warning: true,
        })
        .collect();
    if !agents.unacknowledged.is_empty() {
        let names: Vec<&str> = agents
            .unacknowledged
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        notes.push(super::StartupNote {
            text: format!(
                "New or changed project agents in .gemini/agents are not used until you acknowledge them: {}. Review the files, then run /agents acknowledge.",
                names.join(", ")
            ),
            warning: false,
        });
    }
    notes
}

/// The model a run uses: the agent's own, except that the built-in agents
/// follow a Gemini 3 session to its flash model and keep a session on
/// another provider on that provider's model.
fn agent_model(agent: &AgentDefinition, session_model: &str) -> String {
    let Some(own) = &agent.model else {
        return session_model.to_string();
    };
    if agent.origin != AgentOrigin::BuiltIn {
        return own.clone();
    }
    let other_provider = session_model
        .split_once('/')
        .is_some_and(|(p, _)| !matches!(p, "models" | "tunedModels" | "gemini"));
    if other_provider {
        session_model.to_string()
    } else if is_gemini_3(session_model) {
        "gemini-3-flash-preview".to_string()
    } else {
        own.clone()
    }
}

/// The rules every sub-agent's system prompt ends with (our words).
fn rules(output: &AgentOutput) -> String {
    let finish = match output {
        AgentOutput::Report { .. } => {
            "- When you are done, call `complete_task` with your structured `report`. Call no other tool in that turn."
        }
        AgentOutput::Result => {
            "- When you are done, call `complete_task` with everything you found in its `result` argument, in the format your instructions ask for. Call no other tool in that turn."
        }
    };
    format!(
        "# Rules\n- Nobody can answer questions during this task: work it out with your tools.\n- Use absolute paths, built from the environment context above.\n{finish}\n- `complete_task` is the only way to finish; stopping without it counts as a failure."
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::subagents::parse_markdown;

    #[test]
    fn built_in_agents_follow_the_session_model() {
        let Ok(mut def) = parse_markdown(
            "---\nname: a\ndescription: d\nmodel: gemini-2.5-pro\n---\n",
            AgentOrigin::BuiltIn,
        ) else {
            panic!("parse");
        };
        assert_eq!(agent_model(&def, "gemini-2.5-flash"), "gemini-2.5-pro");
        assert_eq!(
            agent_model(&def, "gemini-3-pro-preview"),
            "gemini-3-flash-preview"
        );
        assert_eq!(agent_model(&def, "openai/gpt-4o"), "openai/gpt-4o");
        def.origin = AgentOrigin::User("a.md".into());
        assert_eq!(agent_model(&def, "openai/gpt-4o"), "gemini-2.5-pro");
        def.model = None;
        assert_eq!(agent_model(&def, "openai/gpt-4o"), "openai/gpt-4o");
    }
}
