//! The session's tool set: tools found by `tools.discoveryCommand`, the
//! registry (built-ins, sub-agents, `activate_skill`, discovered and MCP tools, with
//! exclusions and policy-wide denials) and when `write_todos` is declared.

use super::config::{SessionConfig, StartError, StartErrorKind};
use crate::config::Settings;
use crate::policy::{ApprovalMode, PolicyEngine, headless_excluded_tools};
use crate::tools::discovered::discover_tools;
use crate::tools::mcp::McpManager;
use crate::tools::{Tool, ToolRegistry, builtin};
use std::path::Path;
use std::sync::Arc;

/// Runs `tools.discoveryCommand` (blocking, off the async threads). A
/// failing command ends the start-up, as in Gemini CLI.
pub(super) async fn discovered(
    settings: &Settings,
    root: &Path,
) -> Result<Vec<Arc<dyn Tool>>, StartError> {
    let settings = settings.clone();
    let root = root.to_path_buf();
    let joined = tokio::task::spawn_blocking(move || discover_tools(&settings, &root)).await;
    match joined {
        Ok(Ok(tools)) => Ok(tools),
        Ok(Err(e)) => {
            let mut err = StartError::new(StartErrorKind::Other, "Error", e.to_string());
            err.notes.extend(e.feedback());
            Err(err)
        }
        Err(e) => Err(StartError::new(
            StartErrorKind::Other,
            "Error",
            format!("Tool discovery failed: {e}"),
        )),
    }
}

/// Whether `write_todos` is declared: `useWriteTodos` (default true), never
/// for the preview models, as in Gemini CLI v0.27.4.
pub(super) fn write_todos_enabled(settings: &Settings, model: &str) -> bool {
    let preview = matches!(
        model.strip_prefix("models/").unwrap_or(model),
        "gemini-3-pro-preview" | "gemini-3-flash-preview" | "auto-gemini-3"
    );
    !preview && settings.typed().use_write_todos.unwrap_or(true)
}

/// The registry: built-ins (as `tools.core` allows), discovered tools, then
/// MCP tools (renamed `<server>__<tool>` on a clash), with `tools.exclude`,
/// policy-wide denials and, when nobody can be asked, the headless
/// exclusions applied.
pub(super) fn registry(
    config: &SessionConfig,
    policy: &PolicyEngine,
    mode: ApprovalMode,
    discovered: Vec<Arc<dyn Tool>>,
    mcp: Option<&McpManager>,
    skills: &Arc<Vec<crate::skills::Skill>>,
    agents: &[crate::subagents::AgentDefinition],
) -> ToolRegistry {
    let settings = &config.settings;
    let mut registry = ToolRegistry::new();
    let core = settings.tools_core();
    let mut builtins = builtin::builtin_tools();
    // The agents after the other built-ins, as in Gemini CLI.
    for agent in agents {
        builtins.push(Arc::new(builtin::SubagentTool::new(agent.clone())));
    }
    if !skills.is_empty() {
        // Last among the built-ins, as in Gemini CLI.
        builtins.push(Arc::new(builtin::ActivateSkillTool::new(skills.clone())));
    }
    for tool in builtins {
        let keep = core.as_ref().is_none_or(|core| {
            core.iter()
                .any(|c| c == tool.name() || c.starts_with(&format!("{}(", tool.name())))
        });
        if keep {
            registry.register(tool);
        }
    }
    for tool in discovered {
        registry.register(tool);
    }
    if let Some(mcp) = mcp {
        for tool in mcp.tools(&|name| registry.is_registered(name)) {
            registry.register(tool);
        }
        registry.add_aliases(mcp.qualified_aliases());
        registry.add_aliases(mcp.mcp_prefixed_aliases());
        policy.add_rules(mcp.policy_rules());
    }
    registry.exclude(settings.tools_exclude());
    let denied: Vec<String> = registry
        .active_names()
        .into_iter()
        .filter(|name| policy.denies_always(name, mode))
        .collect();
    registry.exclude(denied);
    if !config.interactive {
        let mut allowed = settings.tools_allowed();
        allowed.extend(config.allowed_tools.iter().cloned());
        let hidden: Vec<String> = headless_excluded_tools(mode, &allowed)
            .into_iter()
            .filter(|name| !policy.allows_somewhere(name))
            .collect();
        registry.exclude(hidden);
    }
    registry
}
