//! Builds a session from arguments, settings and environment: the model
//! client, the workspace, the tools, policy, the scheduler and the agent.

use crate::args::Args;
use gemini_rs_core::agent::events::{AgentEvent, ConfirmationResponse};
use gemini_rs_core::agent::stats::SessionStats;
use gemini_rs_core::agent::{Agent, AgentConfig, environment_context, system_prompt};
use gemini_rs_core::config::{GeminiPaths, Settings};
use gemini_rs_core::model::{
    ContentGenerator, GeminiClient, GeminiConfig, RecordingGenerator, ReplayGenerator, ReplayMode,
    RetryConfig, default_generation_config,
};
use gemini_rs_core::policy::{ApprovalMode, PolicyEngine, headless_excluded_tools};
use gemini_rs_core::scheduler::{NoHooks, Scheduler, SchedulerParts};
use gemini_rs_core::tools::{ToolContext, ToolRegistry, builtin};
use gemini_rs_core::workspace::{FilterOptions, Workspace};
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
    fn new(code: i32, kind: &'static str, message: impl Into<String>) -> Self {
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

/// The selected auth type and whether settings enforce another.
fn check_auth(settings: &Settings, paths: &GeminiPaths, needs_key: bool) -> Result<Option<String>, SetupError> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let truthy = |k: &str| env(k).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let selected = settings
        .get("security.auth.selectedType")
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    let from_env = if truthy("GOOGLE_GENAI_USE_GCA") {
        Some("oauth-personal")
    } else if truthy("GOOGLE_GENAI_USE_VERTEXAI") {
        Some("vertex-ai")
    } else if env("GEMINI_API_KEY").is_some() {
        Some("gemini-api-key")
    } else {
        None
    };
    let current = selected.clone().or(from_env.map(str::to_string));
    if let Some(enforced) = settings
        .get("security.auth.enforcedType")
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
        && current.as_deref() != Some(enforced)
    {
        return Err(SetupError::new(
            41,
            "Error",
            format!(
                "The enforced authentication type is '{enforced}', but the current type is '{}'. Please re-authenticate with the correct type.",
                current.as_deref().unwrap_or("none")
            ),
        ));
    }
    let key = env("GEMINI_API_KEY");
    if needs_key {
        match current.as_deref() {
            Some("oauth-personal") | Some("vertex-ai") | Some("cloud-shell") | Some("compute-default-credentials") => {
                return Err(SetupError::new(
                    41,
                    "FatalAuthenticationError",
                    format!(
                        "Authentication type '{}' is not supported by gemini-rs yet. Set GEMINI_API_KEY (an API key from Google AI Studio) and select \"gemini-api-key\" in {}.",
                        current.as_deref().unwrap_or(""),
                        paths.user_settings().display()
                    ),
                ));
            }
            _ if key.is_none() => {
                return Err(SetupError::new(
                    41,
                    "FatalAuthenticationError",
                    format!(
                        "Please set an Auth method in your {} or specify one of the following environment variables before running: GEMINI_API_KEY",
                        paths.user_settings().display()
                    ),
                ));
            }
            _ => {}
        }
    }
    Ok(key)
}

fn generator(args: &Args, settings: &Settings, paths: &GeminiPaths) -> Result<Arc<dyn ContentGenerator>, SetupError> {
    let replay = match (&args.fake_responses, &args.fake_responses_non_strict) {
        (Some(f), _) => Some((f, ReplayMode::Strict)),
        (None, Some(f)) => Some((f, ReplayMode::NonStrict)),
        (None, None) => None,
    };
    let key = check_auth(settings, paths, replay.is_none())?;
    let inner: Arc<dyn ContentGenerator> = match replay {
        Some((file, mode)) => Arc::new(
            ReplayGenerator::from_file(file, mode).map_err(|e| SetupError::new(1, "Error", e.to_string()))?,
        ),
        None => {
            let mut retry = RetryConfig::default();
            if let Some(ms) = settings.retry_initial_delay_ms() {
                retry.initial_delay_ms = ms;
            }
            let base_url = std::env::var("GOOGLE_GEMINI_BASE_URL")
                .ok()
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "https://generativelanguage.googleapis.com".to_string());
            Arc::new(
                GeminiClient::new(GeminiConfig {
                    api_key: key.unwrap_or_default(),
                    base_url,
                    retry,
                    proxy: None,
                })
                .map_err(|e| SetupError::new(1, "Error", e.to_string()))?,
            )
        }
    };
    Ok(match &args.record_responses {
        Some(path) => Arc::new(RecordingGenerator::new(inner, path.clone())),
        None => inner,
    })
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
    let mut extra: Vec<PathBuf> = settings.include_directories().into_iter().map(PathBuf::from).collect();
    extra.extend(args.include_directories.iter().map(PathBuf::from));
    let extra = extra
        .into_iter()
        .map(|p| expand_home(&p, &paths.home))
        .collect();
    Workspace::new(root.to_path_buf(), extra, paths.project_temp_dir(root)).with_filter_options(FilterOptions {
        respect_git_ignore: settings.respect_git_ignore(),
        respect_gemini_ignore: settings.respect_gemini_ignore(),
        custom_ignore_files: settings.custom_ignore_file_paths().into_iter().map(PathBuf::from).collect(),
    })
}

fn expand_home(p: &Path, home: &Path) -> PathBuf {
    match p.strip_prefix("~") {
        Ok(rest) => home.join(rest),
        Err(_) => p.to_path_buf(),
    }
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

/// Builds the session.
pub fn build(input: SetupInput<'_>) -> Result<Session, SetupError> {
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
    let generator = generator(args, &settings, paths)?;
    let mode = approval_mode(args, trusted);
    let workspace = Arc::new(workspace(args, &settings, root, paths));

    let mut allowed = settings.tools_allowed();
    allowed.extend(args.allowed_tools.iter().cloned());
    let excluded = settings.tools_exclude();
    let mut registry = ToolRegistry::new();
    let core = settings.tools_core();
    for tool in builtin::builtin_tools() {
        let keep = core.as_ref().is_none_or(|core| {
            core.iter()
                .any(|c| c == tool.name() || c.starts_with(&format!("{}(", tool.name())))
        });
        if keep {
            registry.register(tool);
        }
    }
    registry.exclude(excluded.iter().cloned());
    if !interactive {
        registry.exclude(headless_excluded_tools(mode, &allowed));
    }
    let policy = Arc::new(PolicyEngine::new(interactive));
    policy.add_settings_rules(&allowed, &excluded);

    let settings = Arc::new(settings);
    let ctx = ToolContext {
        workspace: workspace.clone(),
        settings: settings.clone(),
        model: model.clone(),
    };
    let (events_tx, events_rx) = mpsc::unbounded_channel();
    let (confirm_tx, confirm_rx) = mpsc::unbounded_channel();
    let stats = Arc::new(Mutex::new(SessionStats::default()));
    let scheduler = Scheduler::new(SchedulerParts {
        registry: Arc::new(registry),
        policy,
        hooks: Arc::new(NoHooks),
        ctx,
        mode: Arc::new(RwLock::new(mode)),
        events: events_tx.clone(),
        confirmations: confirm_rx,
        stats: stats.clone(),
    });
    let system_instruction = match system_md(paths, root) {
        Some(Ok(text)) => text,
        Some(Err(e)) => return Err(SetupError::new(52, "FatalConfigError", e)),
        None => system_prompt(),
    };
    let today = chrono::Local::now().format("%A, %B %-d, %Y").to_string();
    let agent = Agent::new(
        generator,
        scheduler,
        AgentConfig {
            model: model.clone(),
            system_instruction,
            generation_config: default_generation_config(&model),
            max_session_turns: settings.max_session_turns(),
        },
        vec![Content::user_text(environment_context(&workspace, &today))],
        events_tx,
        stats.clone(),
    );
    Ok(Session {
        agent,
        events: events_rx,
        confirmations: confirm_tx,
        session_id,
        model,
        stats,
    })
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
    Some(std::fs::read_to_string(&path).map_err(|e| {
        format!("missing system prompt file '{}': {e}", path.display())
    }))
}

#[cfg(test)]
mod tests {
    use super::resolve_model;

    #[test]
    fn model_precedence() {
        assert_eq!(resolve_model(Some("a"), Some("b".into()), Some("c".into())), "a");
        assert_eq!(resolve_model(None, Some("b".into()), Some("c".into())), "b");
        assert_eq!(resolve_model(None, None, Some("c".into())), "c");
        assert_eq!(resolve_model(None, None, None), "gemini-2.5-pro");
        assert_eq!(resolve_model(None, Some(String::new()), Some("auto".into())), "gemini-2.5-pro");
    }
}
