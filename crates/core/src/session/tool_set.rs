//! The session's tool set: tools found by `tools.discoveryCommand`, the
//! registry (built-ins, sub-agents, `activate_skill`, discovered and MCP tools, with
//! exclusions and policy-wide denials) and when `write_todos` is declared.

use super::config::{SessionConfig, SessionKind, StartError, StartErrorKind, StartupNote};
use super::custom_commands::{self, CommandFolders, CustomCommand};
use crate::config::{Scope, Settings};
use crate::extensions;
use crate::policy::{ApprovalMode, PolicyEngine, headless_excluded_tools};
use crate::sandbox::PreparedSandbox;
use crate::skills::Skill;
use crate::subagents::AgentSet;
use crate::tools::discovered::discover_tools;
use crate::tools::mcp::{McpManager, McpServerConfig};
use crate::tools::plan::{PlanMode, plans_dir};
use crate::tools::spec::ModelUse;
use crate::tools::{Tool, ToolRegistry, builtin};
use crate::workspace::Workspace;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// The built-in tools a lean request declares (internal names).
pub(crate) const LEAN_TOOLS: [&str; 6] = [
    "read_file",
    "list_directory",
    "glob",
    "write_file",
    "replace",
    "run_shell_command",
];

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
    asker: Option<builtin::Asker>,
    hook_allowed: Vec<String>,
    /// The lean profile: the core built-ins only, no discovered or MCP
    /// tools ([`super::profile`]).
    pub(super) lean: bool,
}

impl RegistryRecipe {
    /// The registry over the MCP servers connected now, with every
    /// exclusion applied.
    pub fn build(&self, policy: &PolicyEngine, mcp: Option<&Arc<McpManager>>) -> ToolRegistry {
        let config = &self.config;
        let mut builtins = session_builtins(
            mcp,
            (&self.skills, policy.active_skills()),
            &self.agents,
            self.asker.clone(),
        );
        let (discovered, mcp) = if self.lean {
            let lean = LEAN_TOOLS;
            builtins.retain(|t| lean.contains(&t.name()));
            // In the profile's order, reading first: a small model leans
            // on the first tools it is shown.
            builtins.sort_by_key(|t| lean.iter().position(|n| *n == t.name()));
            (Vec::new(), None)
        } else {
            (self.discovered.clone(), mcp)
        };
        let mut registry = registry(
            config,
            policy,
            builtins,
            discovered,
            mcp,
            &self.hook_allowed,
        );
        if self.lean {
            registry = registry.with_short_declarations();
        }
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

/// Who the tools lean on: the sandbox that wraps the workspace's
/// processes (`-s`) and the front end that answers `ask_user`.
pub(super) struct ToolHosts<'a> {
    /// The sandbox, when on.
    pub sandbox: Option<&'a Arc<PreparedSandbox>>,
    /// The front end's answerer, where a person can answer.
    pub asker: Option<builtin::Asker>,
    /// The tools a Claude `PreToolUse` hook could allow, declared in a
    /// headless run where the policy would ask for them.
    pub hook_allowed: Vec<String>,
}

/// Discovered tools, MCP servers (the settings', the extensions' and a
/// front end's), skills and agents, and the registry over them with every
/// exclusion applied. A tool server (`mcp serve`) gets the built-ins only.
pub(super) async fn tool_layer(
    config: &SessionConfig,
    workspace: &Workspace,
    policy: &PolicyEngine,
    model: &str,
    hosts: ToolHosts<'_>,
    notes: &mut Vec<StartupNote>,
) -> Result<ToolLayer, StartError> {
    let ToolHosts {
        sandbox,
        asker,
        hook_allowed,
    } = hosts;
    let settings = &config.settings;
    let root = config.root.as_path();
    let tool_server = config.kind == SessionKind::ToolServer;
    let discovered = if tool_server {
        Vec::new()
    } else {
        discovered(settings, root, sandbox).await?
    };
    let mut servers = extensions::all_servers(settings, &config.extensions);
    for (name, value) in &config.mcp_servers {
        servers.retain(|c| c.name != *name);
        servers.push(McpServerConfig::from_value(name, value));
    }
    let mcp = if !tool_server && !servers.is_empty() {
        let host = crate::tools::mcp::host(&config.paths, &config.env);
        let sandboxed = sandbox.map(|s| {
            let names = workspace_servers(settings, &config.extensions, root);
            (crate::tools::mcp::sandboxed(&host, s.clone()), names)
        });
        let mgr = McpManager::new(
            settings,
            host,
            servers,
            sandboxed,
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
        asker,
        hook_allowed,
        lean: false,
    };
    let registry = recipe.build(policy, mcp.as_ref());
    Ok(ToolLayer {
        registry,
        mcp,
        skills,
        agents,
        recipe,
    })
}

/// The custom slash commands: the extensions', the user's and (in a
/// trusted folder) the project's files, then the MCP servers' prompts;
/// and the folders the files came from (`/commands reload` reads them
/// again).
pub(super) async fn command_layer(
    config: &SessionConfig,
    mcp: Option<&McpManager>,
    notes: &mut Vec<StartupNote>,
) -> (Vec<CustomCommand>, CommandFolders) {
    let folders = CommandFolders {
        extensions: config
            .extensions
            .iter()
            .map(|e| (e.name.clone(), e.path.join("commands")))
            .collect(),
        user: config.paths.gemini_dir.join("commands"),
        project: config
            .trusted
            .then(|| config.root.join(".gemini").join("commands")),
    };
    let (mut commands, warnings) = folders.load();
    if let Some(mcp) = mcp {
        let prompts = custom_commands::mcp_prompt_commands(mcp).await;
        custom_commands::add_unnamed(&mut commands, prompts);
    }
    notes.extend(warnings.into_iter().map(|text| StartupNote {
        text,
        warning: true,
    }));
    (commands, folders)
}

/// The MCP servers a sandboxed command could have declared: those of the
/// workspace's settings and of the extensions in the project's
/// `.gemini/extensions/`.
pub(crate) fn workspace_servers(
    settings: &Settings,
    extensions: &[extensions::Extension],
    root: &Path,
) -> HashSet<String> {
    let mut names: HashSet<String> = settings
        .layer(Scope::Workspace)
        .and_then(|(_, layer)| crate::config::layer_view::LayerView::of(layer).mcp_servers)
        .map(|servers| servers.into_iter().map(|(name, _)| name).collect())
        .unwrap_or_default();
    let project_extensions = root.join(".gemini").join("extensions");
    let canonical = std::fs::canonicalize(&project_extensions).unwrap_or(project_extensions);
    for ext in extensions {
        let path = std::fs::canonicalize(&ext.path).unwrap_or_else(|_| ext.path.clone());
        if path.starts_with(&canonical) {
            names.extend(ext.servers.iter().map(|s| s.name.clone()));
        }
    }
    names
}

/// Runs `tools.discoveryCommand` (blocking, off the async threads). A
/// failing command ends the start-up, as in Gemini CLI.
async fn discovered(
    settings: &Settings,
    root: &Path,
    sandbox: Option<&Arc<PreparedSandbox>>,
) -> Result<Vec<Arc<dyn Tool>>, StartError> {
    let settings = settings.clone();
    let root = root.to_path_buf();
    let sandbox = sandbox.cloned();
    let joined =
        tokio::task::spawn_blocking(move || discover_tools(&settings, &root, sandbox.as_ref()))
            .await;
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
    !preview
        && settings
            .typed()
            .use_write_todos
            .unwrap_or(crate::config::defaults::USE_WRITE_TODOS)
}

/// The built-in tools of this session, in Gemini CLI's registration
/// order: every session's, the MCP resource tools (when a server is
/// connected), `ask_user` (when the front end answers questions), the
/// sub-agents and `activate_skill`.
fn session_builtins(
    mcp: Option<&Arc<McpManager>>,
    (skills, active): (
        &Arc<Vec<crate::skills::Skill>>,
        Arc<crate::policy::ActiveSkills>,
    ),
    agents: &[crate::subagents::AgentDefinition],
    asker: Option<builtin::Asker>,
) -> Vec<Arc<dyn Tool>> {
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
    if let Some(asker) = asker {
        // After google_web_search, as Gemini CLI registers it.
        let at = builtins
            .iter()
            .position(|t| t.name() == "google_web_search")
            .map_or(builtins.len(), |i| i + 1);
        builtins.insert(at, Arc::new(builtin::AskUserTool::new(asker)));
    }
    // The agents after the other built-ins, as in Gemini CLI.
    for agent in agents {
        builtins.push(Arc::new(builtin::SubagentTool::new(agent.clone())));
    }
    if !skills.is_empty() {
        // Last among the built-ins, as in Gemini CLI.
        builtins.push(Arc::new(builtin::ActivateSkillTool::new(
            skills.clone(),
            active,
        )));
    }
    builtins
}

/// The registry: built-ins (as `tools.core` allows), discovered tools, then
/// MCP tools (renamed `<server>__<tool>` on a clash), with `tools.exclude`,
/// policy-wide denials and, when nobody can be asked, the headless
/// exclusions applied (but to the tools a Claude `PreToolUse` hook could
/// allow, `hook_allowed`: Claude Code offers them, runs the hook, and runs
/// the call on its `allow`).
fn registry(
    config: &SessionConfig,
    policy: &PolicyEngine,
    builtins: Vec<Arc<dyn Tool>>,
    discovered: Vec<Arc<dyn Tool>>,
    mcp: Option<&Arc<McpManager>>,
    hook_allowed: &[String],
) -> ToolRegistry {
    let settings = &config.settings;
    let mut registry = ToolRegistry::new().with_dialect(config.dialect);
    let core = settings.tools_core();
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
        policy.set_tool_annotations(mcp.tool_annotations());
    }
    registry.exclude(settings.tools_exclude());
    // Denied in every mode: not found at all. A rule for some modes only
    // hides the tool's declaration there, and its calls get the refusal.
    const MODES: [ApprovalMode; 4] = [
        ApprovalMode::Default,
        ApprovalMode::AutoEdit,
        ApprovalMode::Yolo,
        ApprovalMode::Plan,
    ];
    let denied: Vec<String> = registry
        .active_policy_names()
        .into_iter()
        .filter(|name| MODES.iter().all(|m| policy.denies_always(name, *m)))
        .collect();
    registry.exclude(denied);
    let rules = config.dialect.rules();
    if rules.remove_denied_in_mode {
        // Today's Gemini CLI removes a tool in a mode whose strongest rule
        // there denies it outright (plan mode's shell, a deny with
        // `modes`): the model is told it is not found.
        for mode in MODES {
            let removed: Vec<String> = registry
                .active_policy_names()
                .into_iter()
                .filter(|name| policy.denies_outright(name, mode))
                .collect();
            registry.exclude_in(mode, removed);
        }
    }
    if !config.interactive {
        // Per mode: a run that enters plan mode may write its plan, one
        // that leaves it for auto_edit may edit.
        let mut allowed = settings.tools_allowed();
        allowed.extend(config.allowed_tools.iter().cloned());
        for mode in MODES {
            // 0.27.4 hid in headless plan mode what it hid in default.
            let hides_as = match mode {
                ApprovalMode::Plan if rules.headless_plan_hides_as_default => ApprovalMode::Default,
                other => other,
            };
            let hidden: Vec<String> = headless_excluded_tools(hides_as, &allowed)
                .into_iter()
                .filter(|name| {
                    let allowed_by_rule =
                        rules.headless_allow_rule_declares && policy.allows_somewhere(name);
                    !allowed_by_rule && !hook_allowed.contains(name)
                })
                .collect();
            registry.exclude_in(mode, hidden);
        }
    }
    registry
}

/// Plan mode's state: the plans folder (`general.plan.directory` inside
/// the project, else the first enabled extension's `plan.directory`, else
/// the session's temp folder) and the shared mode. A settings folder
/// outside the project stops the start-up; an extension's falls back to
/// the temp folder with 0.61's warning.
pub(super) fn plan_state(
    config: &SessionConfig,
    workspace: &Workspace,
    (session_id, mode): (&str, &Arc<RwLock<ApprovalMode>>),
    notes: &mut Vec<StartupNote>,
) -> Result<Arc<PlanMode>, StartError> {
    let temp = workspace.project_temp_dir();
    let setting = config
        .settings
        .typed()
        .general
        .plan
        .directory
        .clone()
        .filter(|d| !d.trim().is_empty());
    let from_extension = config
        .extensions
        .iter()
        .find_map(|e| e.plan_directory.clone());
    let dir = match (setting, from_extension) {
        (Some(setting), _) => plans_dir(Some(&setting), &config.root, temp, session_id)
            .map_err(|e| StartError::config(e.to_string()))?,
        (None, Some(ext)) => plans_dir(Some(&ext), &config.root, temp, session_id)
            .unwrap_or_else(|e| {
                notes.push(StartupNote {
                    text: format!(
                        "Invalid custom plans directory: {e}. Falling back to default project temp directory."
                    ),
                    warning: true,
                });
                temp.join(session_id).join("plans")
            }),
        (None, None) => temp.join(session_id).join("plans"),
    };
    let plan = PlanMode::new(dir, config.root.clone(), mode.clone(), config.interactive);
    if plan.active() {
        plan.ensure_dir();
    }
    Ok(Arc::new(plan))
}
