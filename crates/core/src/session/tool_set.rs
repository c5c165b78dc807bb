//! The session's tool set: tools found by `tools.discoveryCommand`, the
//! registry (built-ins, sub-agents, `activate_skill`, discovered and MCP tools, with
//! exclusions and policy-wide denials) and when `write_todos` is declared.

use super::config::{SessionConfig, SessionKind, StartError, StartErrorKind, StartupNote};
use super::custom_commands::{self, CustomCommand};
use crate::config::Settings;
use crate::policy::{ApprovalMode, PolicyEngine, headless_excluded_tools};
use crate::skills::Skill;
use crate::subagents::AgentSet;
use crate::tools::discovered::discover_tools;
use crate::tools::mcp::{McpManager, McpServerConfig, extensions};
use crate::tools::spec::ModelUse;
use crate::tools::{Tool, ToolRegistry, builtin};
use crate::workspace::Workspace;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The tools of a session and where they come from.
pub(super) struct ToolLayer {
    /// The declared tools.
    pub registry: ToolRegistry,
    /// The connected MCP servers.
    pub mcp: Option<Arc<McpManager>>,
    /// The enabled skills.
    pub skills: Arc<Vec<Skill>>,
    /// The sub-agents.
    pub agents: AgentSet,
    /// What the registry is built from, to build it again as late MCP
    /// servers connect.
    pub recipe: RegistryRecipe,
}

/// Everything the registry is built from but the MCP servers' state, so a
/// server connecting after the start (the terminal UI's) can be taken in.
pub(super) struct RegistryRecipe {
    config: SessionConfig,
    discovered: Vec<Arc<dyn Tool>>,
    skills: Arc<Vec<Skill>>,
    agents: Vec<crate::subagents::AgentDefinition>,
    model: String,
}

impl RegistryRecipe {
    /// The registry over the MCP servers connected now, with every
    /// exclusion applied.
    pub fn build(
        &self,
        policy: &PolicyEngine,
        mode: ApprovalMode,
        mcp: Option<&Arc<McpManager>>,
    ) -> ToolRegistry {
        let config = &self.config;
        let mut registry = registry(
            config,
            policy,
            mode,
            self.discovered.clone(),
            mcp,
            &self.skills,
            &self.agents,
        );
        registry.exclude(extensions::excluded_tools(&config.extensions));
        if config.kind == SessionKind::ToolServer {
            // A session without a model leaves out the tools that need one.
            registry.exclude(
                builtin::specs()
                    .filter(|s| s.model == ModelUse::Required)
                    .map(|s| s.name.to_string()),
            );
        }
        if !write_todos_enabled(&config.settings, &self.model) {
            registry.exclude(["write_todos".to_string()]);
        }
        registry
    }
}

/// Discovered tools, MCP servers (the settings', the extensions' and a
/// front end's), skills and agents, and the registry over them with every
/// exclusion applied. A tool server (`mcp serve`) gets the built-ins only.
pub(super) async fn tool_layer(
    config: &SessionConfig,
    workspace: &Workspace,
    policy: &PolicyEngine,
    mode: ApprovalMode,
    model: &str,
    notes: &mut Vec<StartupNote>,
) -> Result<ToolLayer, StartError> {
    let settings = &config.settings;
    let root = config.root.as_path();
    let tool_server = config.kind == SessionKind::ToolServer;
    let discovered = if tool_server {
        Vec::new()
    } else {
        discovered(settings, root).await?
    };
    let mut servers = extensions::all_servers(settings, &config.extensions);
    for (name, value) in &config.mcp_servers {
        servers.retain(|c| c.name != *name);
        servers.push(McpServerConfig::from_value(name, value));
    }
    let mcp = if !tool_server && !servers.is_empty() {
        let mgr = McpManager::new(
            settings,
            crate::tools::mcp::host(&config.paths, &config.env),
            servers,
            &workspace.dirs(),
            &config.allowed_mcp_server_names,
            config.trusted,
        );
        // The terminal UI takes the servers in as they connect (the
        // session does); everyone else waits for all of them at once.
        if !config.mcp_in_background {
            mgr.connect_all().await;
        }
        notes.extend(mgr.failures().into_iter().map(|text| StartupNote {
            text,
            warning: false,
        }));
        // The rules follow from the configuration, connected or not.
        policy.add_rules(mgr.policy_rules());
        Some(Arc::new(mgr))
    } else {
        None
    };
    let (skills, skill_warnings) = if tool_server || !settings.skills_enabled() {
        (Vec::new(), Vec::new())
    } else {
        let extension_skills: Vec<PathBuf> = config
            .extensions
            .iter()
            .map(|e| e.path.join("skills"))
            .collect();
        crate::skills::discover(
            &extension_skills,
            &config.paths.gemini_dir,
            config.trusted.then_some(root),
            &settings.typed().skills.disabled,
        )
    };
    notes.extend(skill_warnings.into_iter().map(|text| StartupNote {
        text,
        warning: true,
    }));
    let skills = Arc::new(skills);
    let agents = super::subagents::session_agents(config, tool_server, &config.extensions);
    notes.extend(super::subagents::agent_notes(&agents));
    let recipe = RegistryRecipe {
        config: config.clone(),
        discovered,
        skills: skills.clone(),
        agents: agents.agents.clone(),
        model: model.to_string(),
    };
    let registry = recipe.build(policy, mode, mcp.as_ref());
    Ok(ToolLayer {
        registry,
        mcp,
        skills,
        agents,
        recipe,
    })
}

/// The custom slash commands: the extensions', the user's and (in a
/// trusted folder) the project's files, then the MCP servers' prompts.
pub(super) async fn command_layer(
    config: &SessionConfig,
    mcp: Option<&McpManager>,
    notes: &mut Vec<StartupNote>,
) -> Vec<CustomCommand> {
    let project_commands = config.root.join(".gemini").join("commands");
    let extension_commands: Vec<(String, PathBuf)> = config
        .extensions
        .iter()
        .map(|e| (e.name.clone(), e.path.join("commands")))
        .collect();
    let (mut commands, warnings) = custom_commands::load(
        &extension_commands,
        &config.paths.gemini_dir.join("commands"),
        config.trusted.then_some(project_commands.as_path()),
    );
    if let Some(mcp) = mcp {
        for prompt in custom_commands::mcp_prompt_commands(mcp).await {
            if !commands.iter().any(|c| c.name == prompt.name) {
                commands.push(prompt);
            }
        }
    }
    notes.extend(warnings.into_iter().map(|text| StartupNote {
        text,
        warning: true,
    }));
    commands
}

/// Runs `tools.discoveryCommand` (blocking, off the async threads). A
/// failing command ends the start-up, as in Gemini CLI.
async fn discovered(settings: &Settings, root: &Path) -> Result<Vec<Arc<dyn Tool>>, StartError> {
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
fn write_todos_enabled(settings: &Settings, model: &str) -> bool {
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
fn registry(
    config: &SessionConfig,
    policy: &PolicyEngine,
    mode: ApprovalMode,
    discovered: Vec<Arc<dyn Tool>>,
    mcp: Option<&Arc<McpManager>>,
    skills: &Arc<Vec<crate::skills::Skill>>,
    agents: &[crate::subagents::AgentDefinition],
) -> ToolRegistry {
    let settings = &config.settings;
    let mut registry = ToolRegistry::new();
    let core = settings.tools_core();
    let mut builtins = builtin::builtin_tools();
    if let Some(mcp) = mcp {
        // After web_fetch, as Gemini CLI registers them.
        let at = builtins
            .iter()
            .position(|t| t.name() == "web_fetch")
            .map_or(builtins.len(), |i| i + 1);
        for (i, tool) in builtin::resource_tools(mcp).into_iter().enumerate() {
            builtins.insert(at + i, tool);
        }
    }
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
            let names = crate::tools::names::tool_forms(tool.as_ref());
            core.iter()
                .any(|c| crate::tools::names::entry_names(c, &names))
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
    }
    registry.exclude(settings.tools_exclude());
    let denied: Vec<String> = registry
        .active_policy_names()
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
