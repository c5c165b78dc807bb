//! Builds a session's parts from its [`SessionConfig`]: the model client,
//! the workspace, the tools (discovered and MCP servers started
//! concurrently), policy, hooks, recording and the agent.

use super::auth;
use super::config::{
    SessionConfig, SessionKind, StartError, StartErrorKind, StartupNote, resolve_model,
};
use super::layers::{AgentSeed, SharedLayers};
use super::profile::Profile;
use super::tool_set::{command_layer, plan_state, tool_layer};
use crate::agent::routing::AutoRouting;
use crate::agent::{
    Agent, AgentConfig, PromptFeatures, compress, environment_context, memory, system_prompt,
};
use crate::checkpoint::Checkpointer;
use crate::config::{Env, GeminiPaths, Settings, project_hash};
use crate::events::stats::SessionStats;
use crate::events::{ConfirmationResponse, EventSender};
use crate::hooks::{HookConfig, HookEnv, Hooks};
use crate::model::default_generation_config;
use crate::policy::{ApprovalMode, PolicyEngine, load_policy_dir, load_policy_file};
use crate::recording::{self, ChatRecorder};
use crate::sandbox;
use crate::scheduler::shared_confirmations;
use crate::tools::background::BackgroundShells;
use crate::tools::mcp::{McpManager, extensions};
use crate::tools::{LiveRegistry, ToolContext, ToolRegistry, builtin};
use crate::workspace::Workspace;
use gemini_rs_protocol::Content;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::mpsc;

/// Where system (admin) policies live.
const SYSTEM_POLICIES: &str = "/etc/gemini-cli/policies";

/// The built parts the session task owns.
pub(super) struct Parts {
    pub agent: Agent,
    pub hooks: Option<Arc<dyn Hooks>>,
    pub hook_config: Option<HookConfig>,
    pub confirmations: mpsc::UnboundedSender<ConfirmationResponse>,
    pub mode: Arc<RwLock<ApprovalMode>>,
    pub stats: Arc<Mutex<SessionStats>>,
    pub policy: Arc<PolicyEngine>,
    pub ctx: ToolContext,
    pub tools: LiveRegistry,
    pub mcp: Option<Arc<McpManager>>,
    /// The MCP servers still to connect (the terminal UI's).
    pub late_mcp: Option<super::late_mcp::LateMcp>,
    pub custom_commands: Vec<super::custom_commands::CustomCommand>,
    pub command_folders: super::custom_commands::CommandFolders,
    pub context_windows: crate::model::provider::ContextWindows,
    pub skills: Arc<Vec<crate::skills::Skill>>,
    pub agents: Arc<crate::subagents::AgentSet>,
    pub checkpointer: Option<Checkpointer>,
    /// `ask_user` question sets waiting for the front end.
    pub questions: super::questions::Pending,
    pub context_files: Vec<memory::ContextFile>,
    pub session_id: String,
    pub model: String,
    pub resumed: bool,
    pub notes: Vec<StartupNote>,
    /// True when the model is reached over the network (not a replay).
    pub live_model: bool,
}

/// Builds every part; `events` is where the agent, the scheduler and the
/// hooks report. Layer by layer: the model, the tools (with MCP servers,
/// skills and agents), the recording, hooks, then the agent on the
/// session's [`SharedLayers`].
pub(super) async fn build(config: SessionConfig, events: EventSender) -> Result<Parts, StartError> {
    let settings = &config.settings;
    let mut notes = settings_notes(settings);
    let dialect_env = config.env.var(crate::catalogue::dialect::DIALECT_ENV);
    if let (_, Some(text)) = settings.dialect(dialect_env.as_deref()) {
        notes.push(StartupNote {
            text,
            warning: true,
        });
    }
    let paths = &config.paths;
    let root = config.root.as_path();
    let model = resolve_model(
        config.model.as_deref(),
        config.env.var("GEMINI_MODEL"),
        settings.model_name(),
    );
    // A `modelConfigs.customAliases` name stands for its model and its
    // request settings.
    let alias = settings.model_alias(&model);
    let model = alias.as_ref().map_or(model, |a| a.model.clone());
    let tool_server = config.kind == SessionKind::ToolServer;
    let providers = auth::providers(settings, &config.env)?;
    let generator: Arc<dyn crate::model::ContentGenerator> = if tool_server {
        Arc::new(crate::model::NoModel)
    } else {
        auth::generator(&config, &model, &providers, &events)?
    };
    let mode = if config.trusted {
        config.approval_mode
    } else {
        ApprovalMode::Default
    };
    let workspace = Arc::new(workspace(&config));
    let sandbox = native_sandbox(&config, &workspace)?;
    let policy = policy(&config, &mut notes)?;
    let questions = super::questions::Pending::default();
    let asker = (config.ask_user && !tool_server)
        .then(|| super::questions::asker(events.clone(), questions.clone()));
    // A local server's context window is asked while the tools start.
    let windows = providers.context_windows();
    let probe = async {
        if !tool_server && config.replay.is_none() {
            windows.probe(&model).await;
        }
    };
    let hook_setup = super::hook_layer::hook_setup(&config);
    let hosts = super::tool_set::ToolHosts {
        sandbox: sandbox.as_ref(),
        asker,
        hook_allowed: hook_setup.hook_allowed_tools(),
    };
    let (tools, ()) = tokio::join!(
        tool_layer(&config, &workspace, &policy, &model, hosts, &mut notes),
        probe
    );
    let mut tools = tools?;
    let full_system = system_prompt(prompt_features(
        &tools.registry,
        &tools.agents,
        &tools.skills,
    ));
    let profile = super::profile::choose(
        config.settings.typed().model.profile.as_deref(),
        (&windows, &model),
        (&mut tools, &policy, mode),
        (&full_system, compression_threshold(&config.settings)),
        &mut notes,
    );
    let (session_id, recorder, resumed_history) = recording_layer(&config, &workspace)?;
    let mode = Arc::new(RwLock::new(mode));
    let plan = Arc::new(plan_state(&config, &workspace, &session_id, &mode)?);
    let (hooks, hook_config) = super::hook_layer::hook_system(
        &config,
        hook_setup,
        HookEnv {
            project_dir: config.root.clone(),
            session_id: session_id.clone(),
            transcript_path: recorder.path().display().to_string(),
            sandbox: sandbox.clone(),
            workspace_hooks: Default::default(),
            approval_mode: Some(mode.clone()),
            plans_dir: Some(plan.plans_dir().to_path_buf()),
            runs: None,
            judge: Some(Arc::new(crate::hooks::prompt::GeneratorJudge {
                generator: generator.clone(),
                model: model.clone(),
            })),
        },
        events.clone(),
        &mut notes,
    );
    let settings = Arc::new(config.settings.clone());
    if let Some(why) = sandbox.as_ref().and_then(|p| p.isolation_error()) {
        notes.push(StartupNote {
            text: format!(
                "The sandbox runs without its namespaces here ({why}): .gemini/, .git and .env stay writable to commands, and they share the host's network namespace and host name (internet sockets stay refused unless tools.sandboxNetwork allows them)."
            ),
            warning: true,
        });
    }
    let pricing = Arc::new(super::automation::pricing(&settings, &providers)?);
    super::automation::check_budget(&config, &pricing, &model)?;
    let (confirm_tx, confirm_rx) = mpsc::unbounded_channel();
    let layers = SharedLayers {
        generator: generator.clone(),
        policy: Arc::new(policy),
        hooks: hooks.clone(),
        mode,
        trusted: config.trusted,
        confirmations: shared_confirmations(confirm_rx),
        stats: Arc::new(Mutex::new(SessionStats::default())),
        checkpointer: checkpointer(&settings, root, &workspace, &mut notes),
        workspace: workspace.clone(),
        context_windows: providers.context_windows(),
        compression_threshold: compression_threshold(&settings),
        pricing,
    };
    let registry = LiveRegistry::new(Arc::new(tools.registry));
    let mut ctx = ToolContext {
        workspace: workspace.clone(),
        settings: settings.clone(),
        model: model.clone(),
        generator: (!tool_server).then(|| generator.clone()),
        gemini_dir: paths.gemini_dir.clone(),
        sandbox,
        client_fs: config.client_fs.clone(),
        subagents: None,
        call_id: None,
        background: Arc::new(BackgroundShells::new(&paths.gemini_dir)),
        plan,
        dialect: registry.snapshot().dialect(),
    };
    if !tool_server && !tools.agents.agents.is_empty() {
        ctx.subagents = Some(Arc::new(super::subagents::SubagentHost {
            layers: layers.clone(),
            registry: registry.clone(),
            agent_names: tools.agents.agents.iter().map(|a| a.name.clone()).collect(),
            events: events.clone(),
        }));
    }
    let base_prompt = match system_md(&config.env, paths, root) {
        Some(Ok(text)) => text,
        Some(Err(e)) => return Err(StartError::config(e.to_string())),
        None => match profile {
            Profile::Lean => super::profile::lean_prompt(),
            Profile::Full => full_system,
        },
    };
    let (system_instruction, context_files) = with_context_files(
        base_prompt,
        &settings,
        &config.extensions,
        &workspace,
        (paths, config.trusted),
        &mut notes,
    );
    let today = chrono::Local::now().format("%A, %B %-d, %Y").to_string();
    let tree = match profile {
        Profile::Lean => super::profile::LEAN_TREE_LIMIT,
        Profile::Full => crate::agent::TREE_LIMIT,
    };
    let mut history = vec![Content::user_text(environment_context(
        &workspace, &today, tree,
    ))];
    let resumed = resumed_history.is_some();
    history.extend(resumed_history.unwrap_or_default());
    let agent_config = AgentConfig {
        model: model.clone(),
        system_instruction,
        generation_config: alias_generation_config(&model, alias.as_ref()),
        max_session_turns: config
            .max_turns
            .unwrap_or_else(|| settings.max_session_turns()),
        loop_detection: !settings
            .typed()
            .model
            .disable_loop_detection
            .unwrap_or(crate::config::defaults::DISABLE_LOOP_DETECTION),
        compression_threshold: layers.compression_threshold,
        context_windows: providers.context_windows(),
        auto_classify: config.replay.is_none(),
        extra_declarations: Vec::new(),
        output_schema: config.output_schema.clone(),
        max_budget_usd: config.max_budget_usd,
        background_completions: true,
        logprobs: settings.typed().model.logprobs.unwrap_or(false),
    };
    let mut agent = layers.agent(AgentSeed {
        registry: registry.clone(),
        ctx: ctx.clone(),
        config: agent_config,
        history,
        events,
        recorder: Some(recorder),
    });
    // `auto` asked for by name routes each prompt; the default does not.
    let asked = config
        .model
        .clone()
        .or_else(|| config.env.var("GEMINI_MODEL"))
        .or_else(|| settings.model_name());
    if let Some(name) = asked.filter(|n| AutoRouting::for_model(n, false).is_some()) {
        agent.set_model(name);
    }
    let (custom_commands, command_folders) =
        command_layer(&config, tools.mcp.as_deref(), &mut notes).await;
    let late_mcp = tools
        .mcp
        .clone()
        .filter(|mcp| !mcp.connecting().is_empty())
        .map(|mcp| super::late_mcp::LateMcp {
            mcp,
            recipe: tools.recipe,
            live: registry.clone(),
            policy: layers.policy.clone(),
        });
    Ok(Parts {
        live_model: config.replay.is_none(),
        agent,
        custom_commands,
        command_folders,
        context_windows: providers.context_windows(),
        skills: tools.skills,
        agents: Arc::new(tools.agents),
        hooks,
        hook_config,
        confirmations: confirm_tx,
        mode: layers.mode,
        stats: layers.stats,
        policy: layers.policy,
        ctx,
        tools: registry,
        mcp: tools.mcp,
        late_mcp,
        checkpointer: layers.checkpointer,
        questions,
        context_files,
        session_id,
        model,
        resumed,
        notes,
    })
}

/// `model.compressionThreshold`, or its default.
fn compression_threshold(settings: &Settings) -> f64 {
    settings
        .typed()
        .model
        .compression_threshold
        .unwrap_or(compress::DEFAULT_THRESHOLD)
}

/// Settings of the wrong type, and legacy keys read under their new
/// names: warnings shown before anything else.
fn settings_notes(settings: &Settings) -> Vec<StartupNote> {
    let invalid = settings
        .invalid_settings()
        .iter()
        .map(std::string::ToString::to_string);
    let migrated = settings
        .migrated_settings()
        .iter()
        .map(std::string::ToString::to_string);
    let skipped = settings.load_warnings().iter().cloned();
    skipped
        .chain(invalid)
        .chain(migrated)
        .chain(settings.today_notes())
        .map(|text| StartupNote {
            text,
            warning: true,
        })
        .collect()
}

/// The model's default `generationConfig` with a custom alias's
/// `generateContentConfig` laid over it (fields the wire type does not
/// model are kept as they are and sent).
fn alias_generation_config(
    model: &str,
    alias: Option<&crate::config::ResolvedAlias>,
) -> gemini_rs_protocol::GenerationConfig {
    let base = default_generation_config(model);
    let Some(alias) = alias.filter(|a| !a.generate_content_config.is_empty()) else {
        return base;
    };
    let mut value = match serde_json::to_value(&base) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    crate::config::merge_json(&mut value, &alias.generate_content_config);
    serde_json::from_value(serde_json::Value::Object(value)).unwrap_or_else(|e| {
        tracing::warn!("modelConfigs.customAliases: unusable generateContentConfig: {e}");
        base
    })
}

/// The session's id, its recording, and the conversation it resumes.
fn recording_layer(
    config: &SessionConfig,
    workspace: &Workspace,
) -> Result<(String, ChatRecorder, Option<Vec<Content>>), StartError> {
    let chats_dir = workspace.project_temp_dir().join("chats");
    let enabled = config
        .env
        .raw("GEMINI_RS_NO_RECORDING")
        .is_none_or(|v| v.is_empty());
    let trajectory = config.trajectory.clone();
    let (session_id, recorder, resumed_history) = match &config.resume {
        Some(which) => {
            let info = recording::find_session(&chats_dir, which).map_err(|e| {
                StartError::new(StartErrorKind::Input, "FatalInputError", e.to_string())
            })?;
            let history = recording::history_of(&info.record);
            let id = info.record.session_id.clone();
            (
                id,
                ChatRecorder::resume(info.path, info.record, enabled, trajectory),
                Some(history),
            )
        }
        None => {
            let hash = project_hash(&config.root);
            let id = &config.session_id;
            let rec = ChatRecorder::new_session(&chats_dir, id, &hash, enabled, trajectory);
            (config.session_id.clone(), rec, None)
        }
    };
    recording::cleanup_sessions(&chats_dir, &config.settings, &session_id);
    Ok((session_id, recorder, resumed_history))
}

/// What the built-in system prompt mentions: the todo tool, the agents
/// and the skills the model can use.
fn prompt_features(
    registry: &ToolRegistry,
    agents: &crate::subagents::AgentSet,
    skills: &[crate::skills::Skill],
) -> PromptFeatures {
    PromptFeatures {
        write_todos: registry.get("write_todos").is_some(),
        agents: agents
            .agents
            .iter()
            .filter(|a| registry.get(&a.name).is_some())
            .map(|a| (a.name.clone(), a.description.clone()))
            .collect(),
        skills: if registry.get("activate_skill").is_some() {
            skills
                .iter()
                .map(|s| {
                    let location = s
                        .dir
                        .as_ref()
                        .map(|d| d.join("SKILL.md").display().to_string());
                    (s.name.clone(), s.description.clone(), location)
                })
                .collect()
        } else {
            Vec::new()
        },
    }
}

fn workspace(config: &SessionConfig) -> Workspace {
    let paths = &config.paths;
    let extra = config
        .settings
        .include_directories()
        .into_iter()
        .map(PathBuf::from)
        .chain(config.include_directories.iter().cloned())
        .map(|p| expand_home(&p, &paths.home))
        .collect();
    Workspace::new(
        config.root.clone(),
        extra,
        paths.project_temp_dir(&config.root),
    )
    .with_filter_options(builtin::filter_options_from_settings(&config.settings))
}

fn expand_home(p: &Path, home: &Path) -> PathBuf {
    match p.strip_prefix("~") {
        Ok(rest) => home.join(rest),
        Err(_) => p.to_path_buf(),
    }
}

/// The native sandbox (`-s/--sandbox`, `GEMINI_SANDBOX`, `tools.sandbox`):
/// writes allowed in the workspace dirs, the project temp dir and the
/// system temp dirs.
fn native_sandbox(
    config: &SessionConfig,
    workspace: &Workspace,
) -> Result<Option<Arc<sandbox::PreparedSandbox>>, StartError> {
    let fatal = |e: sandbox::SandboxError| {
        StartError::new(StartErrorKind::Sandbox, "FatalSandboxError", e.to_string())
    };
    let mut writable = workspace.dirs();
    let project_temp = workspace.project_temp_dir().to_path_buf();
    // Landlock needs the directory to exist to allow writes below it.
    let _ = std::fs::create_dir_all(&project_temp);
    writable.push(project_temp);
    let env = |k: &str| config.env.raw(k);
    let Some(policy) =
        sandbox::from_settings(&config.settings, config.sandbox.as_deref(), &env, writable)
            .map_err(fatal)?
    else {
        return Ok(None);
    };
    policy.prepare().map(|p| Some(Arc::new(p))).map_err(fatal)
}

/// The policy engine: defaults, settings rules, user and system policy
/// files and `--policy` files. A file that does not parse is a
/// configuration error naming the file and line; a `--policy` file that is
/// not a regular file (or too large) is bad input, one in a policy folder
/// is skipped with a warning.
fn policy(
    config: &SessionConfig,
    notes: &mut Vec<StartupNote>,
) -> Result<PolicyEngine, StartError> {
    let (settings, paths) = (&config.settings, &config.paths);
    let engine = PolicyEngine::new(config.interactive)
        .with_saved_rules_file(paths.gemini_dir.join("policies").join("auto-saved.toml"));
    let mut allowed = settings.tools_allowed();
    allowed.extend(config.allowed_tools.iter().cloned());
    let core = settings.tools_core();
    engine.add_settings_rules(&allowed, &settings.tools_exclude(), core.as_deref());
    engine.add_confirmation_rules(&settings.tools_confirmation_required());
    let file_error = |e: crate::policy::PolicyFileError| StartError::config(e.to_string());
    let mut skipped = Vec::new();
    let user_dir = paths.gemini_dir.join("policies");
    engine.add_rules(load_policy_dir(&user_dir, 2, &mut skipped).map_err(file_error)?);
    engine.add_rules(
        load_policy_dir(Path::new(SYSTEM_POLICIES), 3, &mut skipped).map_err(file_error)?,
    );
    for file in &config.policy_files {
        let rules = load_policy_file(file, 2).map_err(|e| match e {
            crate::policy::PolicyFileError::Input(ref why) if !why.is_missing() => {
                StartError::new(StartErrorKind::Input, "FatalInputError", e.to_string())
            }
            e => file_error(e),
        })?;
        engine.add_rules(rules);
    }
    for path in &config.admin_policy_files {
        let rules = if path.is_dir() {
            load_policy_dir(path, 3, &mut skipped)
        } else {
            load_policy_file(path, 3)
        };
        engine.add_rules(rules.map_err(file_error)?);
    }
    notes.extend(skipped.into_iter().map(|text| StartupNote {
        text,
        warning: true,
    }));
    Ok(engine)
}

/// The checkpointer, when `general.checkpointing.enabled` is set (a
/// warning and none when git is missing).
fn checkpointer(
    settings: &Settings,
    root: &Path,
    workspace: &Workspace,
    notes: &mut Vec<StartupNote>,
) -> Option<Checkpointer> {
    if !settings
        .typed()
        .general
        .checkpointing
        .enabled
        .unwrap_or(false)
    {
        return None;
    }
    match Checkpointer::new(root, workspace.project_temp_dir()) {
        Ok(c) => Some(c),
        Err(e) => {
            notes.push(StartupNote {
                text: e.to_string(),
                warning: true,
            });
            None
        }
    }
}

/// The system instruction plus the project's context files; refused
/// imports become start-up warnings.
fn with_context_files(
    base: String,
    settings: &Settings,
    extensions: &[extensions::Extension],
    workspace: &Workspace,
    (paths, trusted): (&GeminiPaths, bool),
    notes: &mut Vec<StartupNote>,
) -> (String, Vec<memory::ContextFile>) {
    let files = extension_context_files(extensions);
    let context = memory::context_from_settings(
        workspace,
        settings,
        &files,
        (&paths.gemini_dir, &paths.home),
        trusted,
    );
    notes.extend(context.warnings.into_iter().map(|text| StartupNote {
        text,
        warning: true,
    }));
    let text = context.text;
    let system = if text.is_empty() {
        base
    } else {
        format!("{base}\n\n---\n\n{text}")
    };
    (system, context.files)
}

/// The extensions' context files, after the others.
pub(super) fn extension_context_files(extensions: &[extensions::Extension]) -> Vec<PathBuf> {
    extensions
        .iter()
        .flat_map(|e| e.context_files.iter().cloned())
        .collect()
}

/// The file `GEMINI_SYSTEM_MD` names cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("missing system prompt file '{}': {source}", path.display())]
struct SystemMdError {
    path: PathBuf,
    source: std::io::Error,
}

/// `GEMINI_SYSTEM_MD`: `true`/`1` reads `~/.gemini/system.md`, another value
/// is a path; `false`/`0`/unset keeps the built-in prompt.
fn system_md(env: &Env, paths: &GeminiPaths, root: &Path) -> Option<Result<String, SystemMdError>> {
    let value = env.raw("GEMINI_SYSTEM_MD")?;
    let value = value.trim();
    let path = match value.to_ascii_lowercase().as_str() {
        "" | "false" | "0" => return None,
        "true" | "1" => paths.gemini_dir.join("system.md"),
        _ => {
            let p = expand_home(Path::new(value), &paths.home);
            if p.is_absolute() { p } else { root.join(p) }
        }
    };
    Some(std::fs::read_to_string(&path).map_err(|source| SystemMdError { path, source }))
}
