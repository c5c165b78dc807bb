//! Builds a session from arguments, settings and environment: the model
//! client, the workspace, the tools, policy, the scheduler and the agent.

mod auth;
mod tools;

use crate::args::Args;
use gemini_rs_core::agent::events::{AgentEvent, ConfirmationResponse};
use gemini_rs_core::agent::stats::SessionStats;
use gemini_rs_core::agent::{
    Agent, AgentConfig, AgentExtras, compress, environment_context, memory, system_prompt,
};
use gemini_rs_core::config::{GeminiPaths, Scope, Settings, project_hash};
use gemini_rs_core::hooks::{
    HookConfig, HookEnv, HookMessage, HookMessageKind, HookMessageSink, HookSystem,
    project_hooks_warning,
};
use gemini_rs_core::model::default_generation_config;
use gemini_rs_core::policy::ApprovalMode;
use gemini_rs_core::sandbox;
use gemini_rs_core::scheduler::{NoHooks, Scheduler, SchedulerParts, ToolHooks};
use gemini_rs_core::session::{self, ChatRecorder};
use gemini_rs_core::tools::mcp::{McpManager, extensions};
use gemini_rs_core::tools::{ToolContext, ToolRegistry};
use gemini_rs_core::workspace::Workspace;
use gemini_rs_protocol::Content;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::mpsc;

/// A fatal problem before the agent runs, with its exit code.
#[derive(Debug)]
pub struct SetupError {
    /// Gemini CLI's exit code (41 auth, 42 input, 52 config, 1 other).
    pub code: i32,
    /// The error class name used in JSON output.
    pub kind: &'static str,
    /// What went wrong and what to do.
    pub message: String,
}

impl SetupError {
    /// A new error.
    pub fn new(code: i32, kind: &'static str, message: impl Into<String>) -> Self {
        SetupError {
            code,
            kind,
            message: message.into(),
        }
    }
}

/// A ready session.
pub struct Session {
    /// The agent.
    pub agent: Agent,
    /// Its event stream.
    pub events: mpsc::UnboundedReceiver<AgentEvent>,
    /// Where front ends answer confirmations.
    pub confirmations: mpsc::UnboundedSender<ConfirmationResponse>,
    /// The session id (uuid).
    pub session_id: String,
    /// The model id.
    pub model: String,
    /// Session metrics.
    pub stats: Arc<Mutex<SessionStats>>,
    /// The hooks, when any are configured.
    pub hooks: Option<Arc<HookSystem>>,
    /// True when this continues a recorded session.
    pub resumed: bool,
    /// The workspace.
    pub workspace: Arc<Workspace>,
    /// The connected MCP servers (shut down before exit).
    pub mcp: Option<Arc<McpManager>>,
    /// The scheduler's approval mode (the UI's Shift-Tab changes it).
    pub approval_mode: Arc<RwLock<ApprovalMode>>,
    /// The tool registry (for `/tools`).
    pub tools: Arc<ToolRegistry>,
    /// Snapshots before edits, when checkpointing is on (`/restore`).
    pub checkpointer: Option<session::Checkpointer>,
}

/// The model: `-m`, `GEMINI_MODEL`, settings `model.name`, else
/// `gemini-2.5-pro`. Auto aliases resolve to a concrete model (no router).
pub fn resolve_model(flag: Option<&str>, env: Option<String>, settings: Option<String>) -> String {
    let chosen = flag
        .map(str::to_string)
        .or(env.filter(|s| !s.is_empty()))
        .or(settings.filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "auto".to_string());
    match chosen.as_str() {
        "auto" | "auto-gemini-2.5" | "pro" => "gemini-2.5-pro".to_string(),
        "auto-gemini-3" => "gemini-3-pro-preview".to_string(),
        "flash" => "gemini-2.5-flash".to_string(),
        "flash-lite" => "gemini-2.5-flash-lite".to_string(),
        _ => chosen,
    }
}

/// The approval mode from the flags (an untrusted folder forces `default`).
pub fn approval_mode(args: &Args, trusted: bool) -> ApprovalMode {
    let mode = if args.yolo {
        ApprovalMode::Yolo
    } else {
        args.approval_mode
            .as_deref()
            .and_then(ApprovalMode::parse)
            .unwrap_or(ApprovalMode::Default)
    };
    if trusted { mode } else { ApprovalMode::Default }
}

fn workspace(args: &Args, settings: &Settings, root: &Path, paths: &GeminiPaths) -> Workspace {
    let mut extra: Vec<PathBuf> = settings
        .include_directories()
        .into_iter()
        .map(PathBuf::from)
        .collect();
    extra.extend(args.include_directories.iter().map(PathBuf::from));
    let extra = extra
        .into_iter()
        .map(|p| expand_home(&p, &paths.home))
        .collect();
    Workspace::new(root.to_path_buf(), extra, paths.project_temp_dir(root))
        .with_filter_options(gemini_rs_core::tools::builtin::filter_options_from_settings(settings))
}

fn expand_home(p: &Path, home: &Path) -> PathBuf {
    match p.strip_prefix("~") {
        Ok(rest) => home.join(rest),
        Err(_) => p.to_path_buf(),
    }
}

/// The native sandbox (`-s/--sandbox`, `GEMINI_SANDBOX`, `tools.sandbox`):
/// writes allowed in the workspace dirs, the project temp dir and the
/// system temp dirs. Errors exit 44 as Gemini CLI's sandbox errors do.
fn native_sandbox(
    args: &Args,
    settings: &Settings,
    workspace: &Workspace,
) -> Result<Option<Arc<sandbox::PreparedSandbox>>, SetupError> {
    let fatal = |e: sandbox::SandboxError| SetupError::new(44, "FatalSandboxError", e.to_string());
    let mut writable = workspace.dirs().to_vec();
    let project_temp = workspace.project_temp_dir().to_path_buf();
    // Landlock needs the directory to exist to allow writes below it.
    let _ = std::fs::create_dir_all(&project_temp);
    writable.push(project_temp);
    let env = |k: &str| std::env::var(k).ok();
    let Some(policy) =
        sandbox::from_settings(settings, args.sandbox.as_deref(), &env, writable).map_err(fatal)?
    else {
        return Ok(None);
    };
    policy.prepare().map(|p| Some(Arc::new(p))).map_err(fatal)
}

/// Everything needed to build a session.
pub struct SetupInput<'a> {
    /// Parsed arguments.
    pub args: &'a Args,
    /// Merged settings.
    pub settings: Settings,
    /// Home paths.
    pub paths: &'a GeminiPaths,
    /// The project root.
    pub root: &'a Path,
    /// Whether the folder is trusted.
    pub trusted: bool,
    /// Whether someone can answer confirmations.
    pub interactive: bool,
    /// The session id.
    pub session_id: String,
}

/// Builds the session: model client, tools (discovered and MCP servers
/// started concurrently), policy, hooks, recording and the agent.
pub async fn build(input: SetupInput<'_>) -> Result<Session, SetupError> {
    let SetupInput {
        args,
        settings,
        paths,
        root,
        trusted,
        interactive,
        session_id,
    } = input;
    let model = resolve_model(
        args.model.as_deref(),
        std::env::var("GEMINI_MODEL").ok(),
        settings.model_name(),
    );
    let generator = auth::generator(args, &settings, paths)?;
    let mode = approval_mode(args, trusted);
    let workspace = Arc::new(workspace(args, &settings, root, paths));
    let sandbox = native_sandbox(args, &settings, &workspace)?;
    let policy = tools::policy(args, &settings, paths, interactive)?;
    let discovered = tools::discovered(&settings, root).await?;
    let mcp = if !extensions::all_servers(&settings, paths, root).is_empty() {
        let mgr = McpManager::start(
            &settings,
            workspace.dirs(),
            &args.allowed_mcp_server_names,
            trusted,
        )
        .await;
        for failure in mgr.failures() {
            eprintln!("{failure}");
        }
        Some(Arc::new(mgr))
    } else {
        None
    };
    let mut registry = tools::registry(
        args,
        &settings,
        &policy,
        mode,
        interactive,
        discovered,
        mcp.as_deref(),
    );
    registry.exclude(extensions::excluded_tools(&extensions::load_extensions(
        paths, root,
    )));

    let chats_dir = workspace.project_temp_dir().join("chats");
    let (session_id, recorder, resumed_history) = match &args.resume {
        Some(which) => {
            let info = session::find_session(&chats_dir, which)
                .map_err(|e| SetupError::new(42, "FatalInputError", e.to_string()))?;
            let history = session::history_of(&info.record);
            let id = info.record.session_id.clone();
            (
                id,
                ChatRecorder::resume(info.path, info.record),
                Some(history),
            )
        }
        None => {
            let hash = project_hash(root);
            let rec = ChatRecorder::new(&chats_dir, &session_id, &hash);
            (session_id, rec, None)
        }
    };

    session::cleanup_sessions(&chats_dir, &settings, &session_id);
    let (events_tx, events_rx) = mpsc::unbounded_channel();
    let hook_events = interactive.then(|| events_tx.clone());
    let hooks = hook_system(
        &settings,
        root,
        paths,
        trusted,
        &session_id,
        recorder.path(),
        hook_events,
    );
    let settings = Arc::new(settings);
    let ctx = ToolContext {
        workspace: workspace.clone(),
        settings: settings.clone(),
        model: model.clone(),
        generator: Some(generator.clone()),
        gemini_dir: paths.gemini_dir.clone(),
        sandbox,
    };
    let (confirm_tx, confirm_rx) = mpsc::unbounded_channel();
    let stats = Arc::new(Mutex::new(SessionStats::default()));
    let tool_hooks: Arc<dyn ToolHooks> = match &hooks {
        Some(h) => h.clone(),
        None => Arc::new(NoHooks),
    };
    let registry = Arc::new(registry);
    let approval_mode = Arc::new(RwLock::new(mode));
    let checkpointer = checkpointer(&settings, root, &workspace);
    let scheduler = Scheduler::new(SchedulerParts {
        registry: registry.clone(),
        policy: Arc::new(policy),
        hooks: tool_hooks,
        ctx,
        mode: approval_mode.clone(),
        checkpointer: checkpointer.clone(),
        events: events_tx.clone(),
        confirmations: confirm_rx,
        stats: stats.clone(),
    });
    let base_prompt = match system_md(paths, root) {
        Some(Ok(text)) => text,
        Some(Err(e)) => return Err(SetupError::new(52, "FatalConfigError", e)),
        None => system_prompt(),
    };
    let system_instruction = with_context_files(base_prompt, &settings, &workspace, paths);
    let today = chrono::Local::now().format("%A, %B %-d, %Y").to_string();
    let mut history = vec![Content::user_text(environment_context(&workspace, &today))];
    let resumed = resumed_history.is_some();
    history.extend(resumed_history.unwrap_or_default());
    let agent = Agent::new(
        generator,
        scheduler,
        AgentConfig {
            model: model.clone(),
            system_instruction,
            generation_config: default_generation_config(&model),
            max_session_turns: settings.max_session_turns(),
            loop_detection: !settings
                .get("model.disableLoopDetection")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
            compression_threshold: settings
                .get("model.compressionThreshold")
                .and_then(serde_json::Value::as_f64)
                .unwrap_or(compress::DEFAULT_THRESHOLD),
        },
        history,
        events_tx,
        stats.clone(),
    )
    .with_extras(AgentExtras {
        hooks: hooks.clone(),
        recorder: Some(recorder),
    });
    Ok(Session {
        agent,
        events: events_rx,
        confirmations: confirm_tx,
        session_id,
        model,
        stats,
        hooks,
        resumed,
        workspace,
        mcp,
        approval_mode,
        tools: registry,
        checkpointer,
    })
}

/// The checkpointer, when `general.checkpointing.enabled` is set (a
/// warning and none when git is missing).
fn checkpointer(
    settings: &Settings,
    root: &Path,
    workspace: &Workspace,
) -> Option<session::Checkpointer> {
    let enabled = settings
        .get("general.checkpointing.enabled")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    if !enabled {
        return None;
    }
    match session::Checkpointer::new(root, workspace.project_temp_dir()) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!("[WARNING] {e}");
            None
        }
    }
}

/// The hook system, when any hook is configured; prints the first-sighting
/// warning for project hooks and config warnings on stderr.
fn hook_system(
    settings: &Settings,
    root: &Path,
    paths: &GeminiPaths,
    trusted: bool,
    session_id: &str,
    transcript: &Path,
    events: Option<mpsc::UnboundedSender<AgentEvent>>,
) -> Option<Arc<HookSystem>> {
    let config = HookConfig::from_settings(settings, trusted);
    for warning in &config.warnings {
        eprintln!("[WARNING] {warning}");
    }
    if !config.enabled || config.events.is_empty() {
        return None;
    }
    if trusted
        && let Some((_, layer)) = settings.layer(Scope::Workspace)
        && let Some(hooks) = layer.get("hooks")
        && let Some(warning) =
            project_hooks_warning(root, hooks, &paths.gemini_dir.join("trusted_hooks.json"))
    {
        eprintln!("{warning}");
    }
    let env = HookEnv {
        project_dir: root.to_path_buf(),
        session_id: session_id.to_string(),
        transcript_path: transcript.display().to_string(),
    };
    // Headless prints hook messages on stderr; the terminal UI shows them.
    let sink: HookMessageSink = match events {
        Some(tx) => Arc::new(move |msg: HookMessage| {
            let _ = tx.send(match msg.kind {
                HookMessageKind::Warning => AgentEvent::Warning(msg.text),
                HookMessageKind::SystemMessage | HookMessageKind::Info => {
                    AgentEvent::Info(msg.text)
                }
            });
        }),
        None => Arc::new(|msg: HookMessage| match msg.kind {
            HookMessageKind::Warning => eprintln!("[WARNING] {}", msg.text),
            HookMessageKind::SystemMessage | HookMessageKind::Info => eprintln!("{}", msg.text),
        }),
    };
    Some(Arc::new(HookSystem::new(config, env, sink)))
}

/// The system instruction plus the project's context files.
fn with_context_files(
    base: String,
    settings: &Settings,
    workspace: &Workspace,
    paths: &GeminiPaths,
) -> String {
    let (_, text) =
        memory::context_from_settings(workspace, settings, &paths.gemini_dir, &paths.home);
    if text.is_empty() {
        base
    } else {
        format!("{base}\n\n---\n\n{text}")
    }
}

/// `GEMINI_SYSTEM_MD`: `true`/`1` reads `~/.gemini/system.md`, another value
/// is a path; `false`/`0`/unset keeps the built-in prompt.
fn system_md(paths: &GeminiPaths, root: &Path) -> Option<Result<String, String>> {
    let value = std::env::var("GEMINI_SYSTEM_MD").ok()?;
    let value = value.trim();
    let path = match value.to_ascii_lowercase().as_str() {
        "" | "false" | "0" => return None,
        "true" | "1" => paths.gemini_dir.join("system.md"),
        _ => {
            let p = expand_home(Path::new(value), &paths.home);
            if p.is_absolute() { p } else { root.join(p) }
        }
    };
    Some(
        std::fs::read_to_string(&path)
            .map_err(|e| format!("missing system prompt file '{}': {e}", path.display())),
    )
}

#[cfg(test)]
mod tests {
    use super::resolve_model;

    #[test]
    fn model_precedence() {
        assert_eq!(
            resolve_model(Some("a"), Some("b".into()), Some("c".into())),
            "a"
        );
        assert_eq!(resolve_model(None, Some("b".into()), Some("c".into())), "b");
        assert_eq!(resolve_model(None, None, Some("c".into())), "c");
        assert_eq!(resolve_model(None, None, None), "gemini-2.5-pro");
        assert_eq!(
            resolve_model(None, Some(String::new()), Some("auto".into())),
            "gemini-2.5-pro"
        );
    }
}
