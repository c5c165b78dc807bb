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
use crate::extensions;
use crate::hooks::{HookConfig, HookEnv, Hooks};
use crate::model::default_generation_config;
use crate::policy::{
    ApprovalMode, Decision, EXTENSION_TIER, PolicyEngine, PolicyRule, load_policy_dir,
    load_policy_file,
};
use crate::recording::{self, ChatRecorder};
use crate::sandbox;
use crate::scheduler::shared_confirmations;
use crate::tools::background::BackgroundShells;
use crate::tools::mcp::McpManager;
use crate::tools::{LiveRegistry, ToolContext, ToolRegistry, builtin};
use crate::workspace::Workspace;
use gemini_rs_protocol::Content;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::mpsc;

mod steps;
use steps::{
    agent_config, dialect_note, hook_env, isolation_note, late_mcp, opening_history,
    profile_and_prompt, routed_by_name, session_generator, session_model, shared_layers,
    starting_mode, subagent_host, system_instruction, tool_context, tools_and_window,
};

/// Where system (admin) policies live.
const SYSTEM_POLICIES: &str = "/etc/gemini-cli/policies";

/// The built parts the session task owns.
pub(super) struct Parts {
    pub agent: Agent,
    /// The session's chat recording (its agent records through it).
    pub recorder: ChatRecorder,
    pub hooks: Option<Arc<dyn Hooks>>,
    pub hook_config: Option<HookConfig>,
    pub confirmations: mpsc::Sender<ConfirmationResponse>,
    pub mode: Arc<RwLock<ApprovalMode>>,
    pub stats: Arc<Mutex<SessionStats>>,
    pub policy: Arc<PolicyEngine>,
    pub ctx: ToolContext,
    /// The merged settings (the tools' context holds only what they read).
    pub settings: Arc<crate::config::Settings>,
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
    let mut notes = settings_notes(&config.settings);
    notes.extend(dialect_note(&config));
    let (model, alias) = session_model(&config);
    let tool_server = config.kind == SessionKind::ToolServer;
    let providers = auth::providers(&config.settings, &config.env)?;
    let (generator, stats) = session_generator(&config, &model, &providers, &events)?;
    let workspace = Arc::new(workspace(&config));
    let sandbox = native_sandbox(&config, &workspace)?;
    let policy = policy(&config, &mut notes)?;
    let questions = super::questions::Pending::default();
    let asker = (config.ask_user && !tool_server)
        .then(|| super::questions::asker(events.clone(), questions.clone()));
    let hook_setup = super::hook_layer::hook_setup(&config);
    let hosts = super::tool_set::ToolHosts {
        sandbox: sandbox.as_ref(),
        asker,
        hook_allowed: hook_setup.hook_allowed_tools(),
    };
    let mut tools = tools_and_window(
        &config,
        (&workspace, &policy),
        &model,
        &providers,
        hosts,
        &mut notes,
    )
    .await?;
    let (profile, fallback_prompt) = profile_and_prompt(
        &config,
        &model,
        &providers,
        (&mut tools, &policy),
        &mut notes,
    );
    let (session_id, recorder, opening) = recording_layer(&config, &workspace)?;
    let mode = Arc::new(RwLock::new(starting_mode(&config)));
    let plan = plan_state(&config, &workspace, (&session_id, &mode), &mut notes)?;
    let hook_env = HookEnv {
        transcript_path: recorder.path().display().to_string(),
        sandbox: sandbox.clone(),
        ..hook_env(&config, (&session_id, &mode, &plan), (&generator, &model))
    };
    let (hooks, hook_config) =
        super::hook_layer::hook_system(&config, hook_setup, hook_env, events.clone(), &mut notes);
    notes.extend(isolation_note(sandbox.as_deref()));
    let (layers, confirm_tx) = shared_layers(
        &config,
        &model,
        (&generator, &providers, &stats),
        (policy, hooks.clone(), mode),
        &workspace,
        &mut notes,
    )?;
    let registry = LiveRegistry::new(Arc::new(tools.registry));
    let mut ctx = tool_context(
        &config,
        &workspace,
        &model,
        (!tool_server).then(|| generator.clone()),
        sandbox,
        plan,
    );
    ctx.dialect = registry.snapshot().dialect();
    if !tool_server && !tools.agents.agents.is_empty() {
        ctx.subagents = Some(subagent_host(&layers, &registry, &tools.agents, &events));
    }
    let (system_instruction, context_files) =
        system_instruction(&config, fallback_prompt, &workspace, &mut notes)?;
    let (history, resumed) = opening_history(&workspace, opening, profile.tree_limit());
    let agent_config = AgentConfig {
        system_instruction,
        generation_config: alias_generation_config(&model, alias.as_ref()),
        compression_threshold: layers.compression_threshold,
        context_windows: providers.context_windows(),
        ..agent_config(&config, &model)
    };
    let mut agent = layers.agent(AgentSeed {
        registry: registry.clone(),
        ctx: ctx.clone(),
        config: agent_config,
        history,
        events,
        recorder: Some(recorder.recording_synchronous(hooks.is_some())),
    });
    if let Some(name) = routed_by_name(&config) {
        agent.set_model(name);
    }
    let (custom_commands, command_folders) =
        command_layer(&config, tools.mcp.as_deref(), &mut notes).await;
    let late_mcp = late_mcp(tools.mcp.clone(), tools.recipe, &registry, &layers.policy);
    Ok(Parts {
        live_model: config.replay.is_none(),
        agent,
        recorder,
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
        settings: Arc::new(config.settings.clone()),
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

/// The conversation a session resumes, and where its opening is recorded.
type Opening = (Option<Vec<Content>>, recording::Recording);

/// The session's id, its recording (in its dialect's format), and the
/// conversation it resumes.
fn recording_layer(
    config: &SessionConfig,
    workspace: &Workspace,
) -> Result<(String, ChatRecorder, Opening), StartError> {
    let chats_dir = workspace.project_temp_dir().join("chats");
    let enabled = config
        .env
        .raw("GEMINI_RS_NO_RECORDING")
        .is_none_or(|v| v.is_empty());
    let trajectory = config.trajectory.clone();
    let dialect_env = config.env.var(crate::catalogue::dialect::DIALECT_ENV);
    let format = recording::SessionFormat::of(config.settings.dialect(dialect_env.as_deref()).0);
    let (session_id, recorder, resumed_history) = match &config.resume {
        Some(which) => {
            let info = recording::find_session(&chats_dir, which).map_err(|e| {
                StartError::new(StartErrorKind::Input, "FatalInputError", e.to_string())
            })?;
            let history = recording::history_of(&info.record);
            let id = info.record.session_id.clone();
            (
                id,
                ChatRecorder::resume(format, info.path, info.record, enabled, trajectory),
                Some(history),
            )
        }
        None => {
            let hash = project_hash(&config.root);
            let id = &config.session_id;
            let ids = (id.as_str(), hash.as_str());
            let rec = ChatRecorder::new_in(format, &chats_dir, ids, enabled, trajectory);
            (config.session_id.clone(), rec, None)
        }
    };
    recording::cleanup_sessions(&chats_dir, &config.settings, &session_id);
    let recording = recorder.recording();
    Ok((session_id, recorder, (resumed_history, recording)))
}

/// What the built-in system prompt mentions: the todo tool, the agents
/// and the skills the model can use.
fn prompt_features(
    registry: &ToolRegistry,
    agents: &crate::subagents::AgentSet,
    skills: &[crate::skills::Skill],
) -> PromptFeatures {
    PromptFeatures {
        write_todos: registry.contains("write_todos"),
        agents: agents
            .agents
            .iter()
            .filter(|a| registry.contains(&a.name))
            .map(|a| (a.name.clone(), a.description.clone()))
            .collect(),
        skills: if registry.contains("activate_skill") {
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
    for extension in config.extensions.iter() {
        engine.add_rules(extension_policies(extension, &mut skipped));
        skipped.extend(extension.plan_warning.clone());
    }
    engine.add_rules(load_policy_dir(&user_dir, 2, &mut skipped).map_err(file_error)?);
    engine.add_rules(
        load_policy_dir(Path::new(SYSTEM_POLICIES), 3, &mut skipped).map_err(file_error)?,
    );
    for file in &config.policy_files {
        let rules = match load_policy_file(file, 2) {
            Err(e) if e.skip_note(2).is_some() => {
                skipped.extend(e.skip_note(2));
                continue;
            }
            rules => rules,
        };
        let rules = rules.map_err(|e| match e {
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
    // A note with its tier's label (`[USER] Policy file error in ...`) is
    // printed as Gemini CLI prints it; the others as warnings.
    notes.extend(skipped.into_iter().map(|text| StartupNote {
        warning: !text.starts_with('['),
        text,
    }));
    Ok(engine)
}

/// An extension's `policies/*.toml`, at the extension tier, as Gemini CLI
/// 0.61 takes them: an `allow` rule or one for `yolo` mode is dropped with
/// a warning (an extension may only restrict), a file that does not parse
/// is skipped with a warning rather than stopping the start-up.
fn extension_policies(
    extension: &extensions::Extension,
    notes: &mut Vec<String>,
) -> Vec<PolicyRule> {
    let name = &extension.name;
    let dir = extension.path.join("policies");
    let rules = match load_policy_dir(&dir, EXTENSION_TIER, notes) {
        Ok(rules) => rules,
        Err(e) => {
            notes.push(format!("Error loading policies from extension {name}: {e}"));
            return Vec::new();
        }
    };
    rules
        .into_iter()
        .filter_map(|mut rule| {
            if rule.decision == Decision::Allow {
                notes.push(format!(
                    "Extension \"{name}\" attempted to contribute an ALLOW rule for tool \"{}\". Ignoring this rule for security.",
                    rule.tool_name
                ));
                return None;
            }
            if rule.modes.contains(&ApprovalMode::Yolo) {
                notes.push(format!(
                    "Extension \"{name}\" attempted to contribute a rule for YOLO mode. Ignoring this rule for security."
                ));
                return None;
            }
            rule.source = rule
                .source
                .replacen("Extension: ", &format!("Extension ({name}): "), 1);
            Some(rule)
        })
        .collect()
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
