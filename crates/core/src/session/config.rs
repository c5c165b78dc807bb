//! What a front end tells a session before it starts, and why a start can
//! fail. Plain data: the binary fills it from its flags.

use crate::catalogue::dialect::{DIALECT_ENV, Dialect};
use crate::config::{Env, GeminiPaths, Settings};
use crate::extensions::Extension;
use crate::model::ReplayMode;
use crate::policy::ApprovalMode;
use crate::startup::Startup;
use std::path::PathBuf;
use std::sync::Arc;

/// What a session is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionKind {
    /// A conversation with a model.
    Chat,
    /// Tool calls from a client and no model (`mcp serve`): no auth, no
    /// discovered or MCP tools, no tool that needs a model.
    ToolServer,
}

/// Everything a session is built from.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// What the session is for.
    pub kind: SessionKind,
    /// Merged settings (read once by the front end).
    pub settings: Settings,
    /// Home paths (`~/.gemini`, system files).
    pub paths: GeminiPaths,
    /// The project root (the working directory, canonical).
    pub root: PathBuf,
    /// Whether the folder is trusted (untrusted forces `default` approval).
    pub trusted: bool,
    /// The enabled extensions, as the start-up read them.
    pub extensions: Arc<Vec<Extension>>,
    /// The environment the session reads variables from.
    pub env: Env,
    /// The Gemini CLI dialect the session speaks (`general.dialect`,
    /// overridden by `GEMINI_RS_DIALECT`).
    pub dialect: Dialect,
    /// Whether someone can answer confirmations.
    pub interactive: bool,
    /// Whether the front end shows the model's questions (`ask_user`) and
    /// answers them with [`Op::AnswerQuestions`](gemini_rs_protocol::events::Op::AnswerQuestions):
    /// the terminal UI only (headless and ACP leave the tool out).
    pub ask_user: bool,
    /// MCP servers connect after the start, their tools declared from the
    /// first request after each connects (the terminal UI); otherwise the
    /// start waits for all of them.
    pub mcp_in_background: bool,
    /// The id of a new session (a resumed one keeps its own).
    pub session_id: String,
    /// `-m/--model`.
    pub model: Option<String>,
    /// The approval mode asked for (`-y`, `--approval-mode`).
    pub approval_mode: ApprovalMode,
    /// `--allowed-tools`.
    pub allowed_tools: Vec<String>,
    /// `--allowed-mcp-server-names`.
    pub allowed_mcp_server_names: Vec<String>,
    /// `--include-directories`.
    pub include_directories: Vec<PathBuf>,
    /// `--policy` files.
    pub policy_files: Vec<PathBuf>,
    /// `--admin-policy` files or directories: rules at the admin tier,
    /// above the user's and the workspace's.
    pub admin_policy_files: Vec<PathBuf>,
    /// `--resume`: `latest`, an index or a session id.
    pub resume: Option<String>,
    /// `-s/--sandbox` (`true` or a sandbox name).
    pub sandbox: Option<String>,
    /// `--fake-responses` / `--fake-responses-non-strict`.
    pub replay: Option<(PathBuf, ReplayMode)>,
    /// `--record-responses`.
    pub record_responses: Option<PathBuf>,
    /// `--trajectory` (or ACP `session/new`'s `_meta.trajectory`): where
    /// the session's ATIF trajectory is kept.
    pub trajectory: Option<PathBuf>,
    /// MCP servers a front end adds (an ACP client's), in the form of
    /// settings' `mcpServers` entries; they win over settings' servers of
    /// the same name.
    pub mcp_servers: Vec<(String, serde_json::Value)>,
    /// `--max-turns`: over `model.maxSessionTurns`.
    pub max_turns: Option<i64>,
    /// `--max-budget-usd`: the most the session may cost.
    pub max_budget_usd: Option<f64>,
    /// `--output-schema` / `--json-schema`: the final answer's schema.
    pub output_schema: Option<crate::agent::OutputSchema>,
    /// The front end's client file system (an ACP editor's): text files
    /// are read and written through it.
    pub client_fs: Option<std::sync::Arc<dyn crate::tools::ClientFs>>,
    /// Memory and wall-clock limits (`limits.*`, the flags over them).
    pub limits: crate::limits::ResourceLimits,
    /// Whose memory counts against [`Self::limits`]: the whole process
    /// (headless) or the session's commands only (a session among many).
    pub limit_scope: crate::limits::Scope,
}

impl SessionConfig {
    /// A config with no flags set, from the start-up load.
    pub fn new(startup: Startup) -> Self {
        let dialect = startup
            .settings
            .dialect(startup.env.var(DIALECT_ENV).as_deref())
            .0;
        let limits = startup.settings.typed().limits.clone();
        SessionConfig {
            dialect,
            kind: SessionKind::Chat,
            settings: startup.settings,
            paths: startup.paths,
            root: startup.root,
            trusted: startup.trusted,
            extensions: startup.extensions,
            env: startup.env,
            interactive: false,
            ask_user: false,
            mcp_in_background: false,
            session_id: uuid::Uuid::new_v4().to_string(),
            model: None,
            approval_mode: ApprovalMode::Default,
            allowed_tools: Vec::new(),
            allowed_mcp_server_names: Vec::new(),
            include_directories: Vec::new(),
            policy_files: Vec::new(),
            admin_policy_files: Vec::new(),
            resume: None,
            sandbox: None,
            replay: None,
            record_responses: None,
            trajectory: None,
            mcp_servers: Vec::new(),
            client_fs: None,
            max_turns: None,
            max_budget_usd: None,
            output_schema: None,
            limits: crate::limits::ResourceLimits {
                memory_mb: limits.memory_mb,
                wall_seconds: limits.wall_seconds,
            },
            limit_scope: crate::limits::Scope::Session,
        }
    }
}

/// What kind of problem stopped a session from starting (the binary maps
/// each to its exit code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartErrorKind {
    /// Authentication is missing or not supported.
    Auth,
    /// A bad input: an unknown session to resume.
    Input,
    /// A configuration file or value is wrong.
    Config,
    /// The sandbox cannot be set up.
    Sandbox,
    /// Anything else (an unreadable responses file, a failing discovery).
    Other,
}

/// A fatal problem before the session runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct StartError {
    /// What kind of problem.
    pub kind: StartErrorKind,
    /// The error class name Gemini CLI's JSON output uses.
    pub class: &'static str,
    /// What went wrong and what to do.
    pub message: String,
    /// Lines printed before the error (a discovery command's output).
    pub notes: Vec<String>,
}

impl StartError {
    /// A new error.
    pub fn new(kind: StartErrorKind, class: &'static str, message: impl Into<String>) -> Self {
        StartError {
            kind,
            class,
            message: message.into(),
            notes: Vec::new(),
        }
    }

    /// A configuration error (`FatalConfigError`, exit 52).
    pub fn config(message: impl Into<String>) -> Self {
        StartError::new(StartErrorKind::Config, "FatalConfigError", message)
    }
}

/// A line for the user from the start-up (settings warnings, MCP servers
/// that failed), shown before anything else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StartupNote {
    /// The text.
    pub text: String,
    /// True for a warning (`[WARNING] ` in front, headless).
    pub warning: bool,
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
