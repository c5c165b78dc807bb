//! The steps [`build`](super::build) takes, one function each: the model
//! and its client, the tools with the context window probe, the hooks'
//! environment, the shared layers, the tools' context and the agent's
//! settings.

use super::*;

/// The layers an agent (the session's or a sub-agent's) is built on,
/// and the sender of the front end's confirmations.
pub(super) fn shared_layers(
    config: &SessionConfig,
    model: &str,
    (generator, providers, stats): (
        &Arc<dyn crate::model::ContentGenerator>,
        &Arc<crate::model::provider::Providers>,
        &auth::SharedStats,
    ),
    (policy, hooks, mode): (
        PolicyEngine,
        Option<Arc<dyn Hooks>>,
        Arc<RwLock<ApprovalMode>>,
    ),
    workspace: &Arc<Workspace>,
    notes: &mut Vec<StartupNote>,
) -> Result<(SharedLayers, mpsc::Sender<ConfirmationResponse>), StartError> {
    let settings = &config.settings;
    let root = config.root.as_path();
    let pricing = Arc::new(crate::session::automation::pricing(settings, providers)?);
    crate::session::automation::check_budget(config, &pricing, model)?;
    let (confirm_tx, confirm_rx) = mpsc::channel(crate::session::OP_QUEUE_CAPACITY);
    let layers = SharedLayers {
        generator: generator.clone(),
        policy: Arc::new(policy),
        hooks,
        mode,
        trusted: config.trusted,
        confirmations: shared_confirmations(confirm_rx),
        stats: stats.clone(),
        checkpointer: checkpointer(settings, root, workspace, notes),
        workspace: workspace.clone(),
        context_windows: providers.context_windows(),
        compression_threshold: compression_threshold(settings),
        pricing,
    };
    Ok((layers, confirm_tx))
}

/// What the tools are given: the workspace, what they read of the
/// settings (taken here, once per session), the model client,
/// sandbox and plan mode (the sub-agent host is added by the caller).
pub(super) fn tool_context(
    config: &SessionConfig,
    workspace: &Arc<Workspace>,
    model: &str,
    generator: Option<Arc<dyn crate::model::ContentGenerator>>,
    sandbox: Option<Arc<sandbox::PreparedSandbox>>,
    plan: Arc<crate::tools::plan::PlanMode>,
) -> ToolContext {
    let paths = &config.paths;
    ToolContext {
        workspace: workspace.clone(),
        settings: Arc::new(crate::tools::ToolSettings::of(&config.settings)),
        model: model.to_string(),
        generator,
        gemini_dir: paths.gemini_dir.clone(),
        sandbox,
        client_fs: config.client_fs.clone(),
        subagents: None,
        call_id: None,
        background: Arc::new(BackgroundShells::new(&paths.gemini_dir)),
        plan,
        dialect: Default::default(),
    }
}

/// What runs the session's sub-agents: the same layers, the live tools.
pub(super) fn subagent_host(
    layers: &SharedLayers,
    registry: &LiveRegistry,
    agents: &crate::subagents::AgentSet,
    events: &EventSender,
) -> Arc<crate::session::subagents::SubagentHost> {
    Arc::new(crate::session::subagents::SubagentHost {
        layers: layers.clone(),
        registry: registry.clone(),
        agent_names: agents.agents.iter().map(|a| a.name.clone()).collect(),
        events: events.clone(),
    })
}

/// What every hook command is told of the session: its folder and id, the
/// approval mode, the plans folder and the model prompt hooks ask (the
/// caller adds the transcript and the sandbox).
pub(super) fn hook_env(
    config: &SessionConfig,
    (session_id, mode, plan): (
        &str,
        &Arc<RwLock<ApprovalMode>>,
        &crate::tools::plan::PlanMode,
    ),
    (generator, model): (&Arc<dyn crate::model::ContentGenerator>, &str),
) -> HookEnv {
    HookEnv {
        project_dir: config.root.clone(),
        session_id: session_id.to_string(),
        approval_mode: Some(mode.clone()),
        plans_dir: Some(plan.plans_dir().to_path_buf()),
        judge: Some(Arc::new(crate::hooks::prompt::GeneratorJudge {
            generator: generator.clone(),
            model: model.to_string(),
        })),
        ..Default::default()
    }
}

/// The model client (none for a tool server, `mcp serve`, which answers
/// no prompts) and the session's stats, which it counts retried failures
/// in.
pub(super) fn session_generator(
    config: &SessionConfig,
    model: &str,
    providers: &Arc<crate::model::provider::Providers>,
    events: &EventSender,
) -> Result<(Arc<dyn crate::model::ContentGenerator>, auth::SharedStats), StartError> {
    let stats = auth::SharedStats::default();
    if config.kind == SessionKind::ToolServer {
        return Ok((Arc::new(crate::model::NoModel), stats));
    }
    let generator = auth::generator(config, model, providers, (events, &stats))?;
    Ok((generator, stats))
}

/// The approval mode a session starts in: the asked one in a trusted
/// folder, the default elsewhere.
pub(super) fn starting_mode(config: &SessionConfig) -> ApprovalMode {
    if config.trusted {
        config.approval_mode
    } else {
        ApprovalMode::Default
    }
}

/// `model.compressionThreshold`, or its default.
pub(super) fn compression_threshold(settings: &Settings) -> f64 {
    settings
        .typed()
        .model
        .compression_threshold
        .unwrap_or(compress::DEFAULT_THRESHOLD)
}

/// The MCP servers still connecting when the session starts (the terminal
/// UI's), to be added to the registry as they come, and the tool-list
/// changes of all of them, taken in as they happen.
pub(super) fn late_mcp(
    mcp: Option<Arc<McpManager>>,
    recipe: crate::session::tool_set::RegistryRecipe,
    live: &LiveRegistry,
    policy: &Arc<PolicyEngine>,
) -> Option<crate::session::late_mcp::LateMcp> {
    let mcp = mcp?;
    Some(crate::session::late_mcp::LateMcp {
        mcp,
        recipe,
        live: live.clone(),
        policy: policy.clone(),
    })
}

/// The tool layer, built while a local server is asked its context window.
pub(super) async fn tools_and_window(
    config: &SessionConfig,
    (workspace, policy): (&Arc<Workspace>, &PolicyEngine),
    model: &str,
    providers: &Arc<crate::model::provider::Providers>,
    hosts: crate::session::tool_set::ToolHosts<'_>,
    notes: &mut Vec<StartupNote>,
) -> Result<crate::session::tool_set::ToolLayer, StartError> {
    let windows = providers.context_windows();
    let probe = async {
        if config.kind != SessionKind::ToolServer && config.replay.is_none() {
            windows.probe(model).await;
        }
    };
    let (tools, ()) = tokio::join!(
        tool_layer(config, workspace, policy, model, hosts, notes),
        probe
    );
    tools
}

/// A conversation's first messages: the environment context, then the
/// resumed session's history, if any; and whether there was one. A new
/// conversation's context is recorded (as 0.61 records its own).
pub(super) fn opening_history(
    workspace: &Workspace,
    (resumed, recording): (Option<Vec<Content>>, crate::recording::Recording),
    tree_limit: usize,
) -> (Vec<Content>, bool) {
    let today = chrono::Local::now().format("%A, %B %-d, %Y").to_string();
    let context = environment_context(workspace, &today, tree_limit);
    let was_resumed = resumed.is_some();
    if !was_resumed {
        recording.record_context(&context);
    }
    let mut history = vec![Content::user_text(context)];
    history.extend(resumed.unwrap_or_default());
    (history, was_resumed)
}

/// The warning a dialect chosen by setting or environment leaves, if any.
pub(super) fn dialect_note(config: &SessionConfig) -> Option<StartupNote> {
    let dialect_env = config.env.var(crate::catalogue::dialect::DIALECT_ENV);
    let (_, text) = config.settings.dialect(dialect_env.as_deref());
    text.map(|text| StartupNote {
        text,
        warning: true,
    })
}

/// The session's model (flag, `GEMINI_MODEL`, settings) and the
/// `modelConfigs.customAliases` entry it named: an alias stands for its
/// model and its request settings.
pub(super) fn session_model(
    config: &SessionConfig,
) -> (String, Option<crate::config::ResolvedAlias>) {
    let model = resolve_model(
        config.model.as_deref(),
        config.env.var("GEMINI_MODEL"),
        config.settings.model_name(),
    );
    let alias = config.settings.model_alias(&model);
    let model = alias.as_ref().map_or(model, |a| a.model.clone());
    (model, alias)
}

/// `auto` asked for by name routes each prompt; the default does not.
pub(super) fn routed_by_name(config: &SessionConfig) -> Option<String> {
    config
        .model
        .clone()
        .or_else(|| config.env.var("GEMINI_MODEL"))
        .or_else(|| config.settings.model_name())
        .filter(|n| AutoRouting::for_model(n, false).is_some())
}

/// The warning of a sandbox that could not isolate itself fully.
pub(super) fn isolation_note(sandbox: Option<&sandbox::PreparedSandbox>) -> Option<StartupNote> {
    let why = sandbox.and_then(|p| p.isolation_error())?;
    Some(StartupNote {
        text: format!(
            "The sandbox runs without its namespaces here ({why}): .gemini/, .git and .env stay writable to commands, and they share the host's network namespace and host name (internet sockets stay refused unless tools.sandboxNetwork allows them)."
        ),
        warning: true,
    })
}

/// The agent's settings that come from the session's configuration alone
/// (the caller fills in the prompt, the model's request settings and the
/// context windows).
pub(super) fn agent_config(config: &SessionConfig, model: &str) -> AgentConfig {
    let settings = &config.settings;
    AgentConfig {
        model: model.to_string(),
        system_instruction: String::new(),
        generation_config: default_generation_config(model),
        max_session_turns: config
            .max_turns
            .unwrap_or_else(|| settings.max_session_turns()),
        loop_detection: !settings
            .typed()
            .model
            .disable_loop_detection
            .unwrap_or(crate::config::defaults::DISABLE_LOOP_DETECTION),
        compression_threshold: compress::DEFAULT_THRESHOLD,
        context_windows: Default::default(),
        auto_classify: config.replay.is_none(),
        extra_declarations: Vec::new(),
        output_schema: config.output_schema.clone(),
        max_budget_usd: config.max_budget_usd,
        background_completions: true,
        logprobs: settings.typed().model.logprobs.unwrap_or(false),
    }
}

/// The system instruction (`GEMINI_SYSTEM_MD`'s file, or `built`: the
/// prompt of the session's profile) with the context files appended.
pub(super) fn system_instruction(
    config: &SessionConfig,
    built: String,
    workspace: &Workspace,
    notes: &mut Vec<StartupNote>,
) -> Result<(String, Vec<memory::ContextFile>), StartError> {
    let paths = &config.paths;
    let base_prompt = match system_md(&config.env, paths, &config.root) {
        Some(Ok(text)) => text,
        Some(Err(e)) => return Err(StartError::config(e.to_string())),
        None => built,
    };
    Ok(with_context_files(
        base_prompt,
        &config.settings,
        &config.extensions,
        workspace,
        (paths, config.trusted),
        notes,
    ))
}

/// The session's profile (full, or lean for a small context window) and
/// the built-in system prompt that goes with it.
pub(super) fn profile_and_prompt(
    config: &SessionConfig,
    model: &str,
    providers: &Arc<crate::model::provider::Providers>,
    (tools, policy): (&mut crate::session::tool_set::ToolLayer, &PolicyEngine),
    notes: &mut Vec<StartupNote>,
) -> (Profile, String) {
    let full_system = system_prompt(prompt_features(
        &tools.registry,
        &tools.agents,
        &tools.skills,
    ));
    let profile = crate::session::profile::choose(
        config.settings.typed().model.profile.as_deref(),
        (&providers.context_windows(), model),
        (tools, policy, starting_mode(config)),
        (&full_system, compression_threshold(&config.settings)),
        notes,
    );
    let prompt = match profile {
        Profile::Lean => crate::session::profile::lean_prompt(),
        Profile::Full => full_system,
    };
    (profile, prompt)
}
