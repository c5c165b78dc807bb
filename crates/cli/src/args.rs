//! Command-line arguments, spelled as Gemini CLI spells them.

use clap::{ArgAction, Parser, ValueEnum};
use std::path::PathBuf;

/// How headless output is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The model's text as it streams.
    Text,
    /// One JSON object at the end.
    Json,
    /// One JSON event per line.
    #[value(name = "stream-json")]
    StreamJson,
}

/// The subcommands, listed under `--help` (they are dispatched before
/// the flags are parsed, so clap does not know them).
const SUBCOMMANDS: &str = "\
Commands:
  gemini-rs mcp         Manage MCP servers (add, remove, list, enable, disable, auth, serve)
  gemini-rs extensions  Manage extensions (install, uninstall, list, enable, disable, validate, config, ...)
  gemini-rs skills      Manage agent skills (list, install, link, uninstall, enable, disable)
  gemini-rs hooks       Manage hooks (list, migrate --from-claude)
  gemini-rs completion  Print shell completions or the man page (bash, zsh, fish, powershell, elvish, man)
  gemini-rs serve       Serve sessions over the network: ACP over WebSocket, A2A, /health (--listen ADDR)
  gemini-rs [PROMPT]    Launch gemini-rs (headless with -p or a non-terminal stdin)";

/// gemini-rs: a fast, drop-in compatible Gemini CLI agent.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "gemini-rs",
    version,
    disable_version_flag = true,
    after_help = SUBCOMMANDS
)]
pub struct Args {
    /// The prompt (runs headless when stdin is not a terminal).
    #[arg(value_name = "PROMPT")]
    pub prompt: Vec<String>,
    /// Run this prompt headless.
    #[arg(short = 'p', long = "prompt", value_name = "TEXT")]
    pub prompt_flag: Option<String>,
    /// Start the interactive session with this prompt.
    #[arg(short = 'i', long = "prompt-interactive", value_name = "TEXT")]
    pub prompt_interactive: Option<String>,
    /// Model id (else GEMINI_MODEL, settings model.name, gemini-2.5-pro).
    #[arg(short = 'm', long)]
    pub model: Option<String>,
    /// Approve every tool call.
    #[arg(short = 'y', long)]
    pub yolo: bool,
    /// default, auto_edit, yolo or plan.
    #[arg(
        long = "approval-mode",
        value_name = "MODE",
        value_parser = ModeNames,
        hide_possible_values = true
    )]
    pub approval_mode: Option<String>,
    /// text, json or stream-json.
    #[arg(
        short = 'o',
        long = "output-format",
        value_enum,
        default_value = "text"
    )]
    pub output_format: OutputFormat,
    /// Tools that run without confirmation (comma-separated or repeated).
    #[arg(long = "allowed-tools", value_delimiter = ',', value_name = "TOOLS")]
    pub allowed_tools: Vec<String>,
    /// MCP servers to connect (comma-separated or repeated).
    #[arg(
        long = "allowed-mcp-server-names",
        value_delimiter = ',',
        value_name = "NAMES"
    )]
    pub allowed_mcp_server_names: Vec<String>,
    /// More workspace directories (comma-separated or repeated).
    #[arg(
        long = "include-directories",
        value_delimiter = ',',
        value_name = "DIRS",
        value_hint = clap::ValueHint::DirPath
    )]
    pub include_directories: Vec<PathBuf>,
    /// Replay model answers from a recorded JSONL file, in order.
    #[arg(long = "fake-responses", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub fake_responses: Option<PathBuf>,
    /// Replay model answers, each call taking the first unused line of its method.
    #[arg(long = "fake-responses-non-strict", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub fake_responses_non_strict: Option<PathBuf>,
    /// Append every model answer to this JSONL file.
    #[arg(long = "record-responses", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub record_responses: Option<PathBuf>,
    /// Keep the session's ATIF (v1.8) trajectory in FILE, rewritten whole after each message.
    #[arg(long = "trajectory", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub trajectory: Option<PathBuf>,
    /// Extra policy files (TOML `[[rule]]` tables), comma-separated or repeated.
    #[arg(long = "policy", value_delimiter = ',', value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub policy: Vec<PathBuf>,
    /// Resume a recorded session: `latest`, an index from --list-sessions, or an id.
    #[arg(short = 'r', long = "resume", value_name = "SESSION", num_args = 0..=1, default_missing_value = "latest")]
    pub resume: Option<String>,
    /// List the recorded sessions of this project and exit.
    #[arg(long = "list-sessions")]
    pub list_sessions: bool,
    /// Delete a recorded session (index or id) and exit.
    #[arg(long = "delete-session", value_name = "SESSION")]
    pub delete_session: Option<String>,
    /// Keep ANSI escape sequences in model text (headless text output).
    #[arg(long = "raw-output")]
    pub raw_output: bool,
    /// Accept the risk of --raw-output without a warning.
    #[arg(long = "accept-raw-output-risk")]
    pub accept_raw_output_risk: bool,
    /// Run every command the agent starts in the native Linux sandbox
    /// (`--sandbox=false` turns a settings/env sandbox off).
    #[arg(
        short = 's',
        long = "sandbox",
        value_name = "MODE",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true"
    )]
    pub sandbox: Option<String>,
    /// Debug logging (stderr in headless mode).
    #[arg(short = 'd', long)]
    pub debug: bool,
    /// Trust the current folder for this run (as GEMINI_CLI_TRUST_WORKSPACE=true).
    #[arg(long = "skip-trust")]
    pub skip_trust: bool,
    /// Start a new session with this id (letters, digits, `-` and `_`).
    #[arg(long = "session-id", value_name = "ID")]
    pub session_id: Option<String>,
    /// Start from a session exported to a JSON file (`/export-session`).
    #[arg(long = "session-file", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub session_file: Option<PathBuf>,
    /// Admin-tier policy files or directories (comma-separated or repeated).
    #[arg(long = "admin-policy", value_delimiter = ',', value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub admin_policy: Vec<PathBuf>,
    /// Use only these extensions (`none` for no extension).
    #[arg(
        short = 'e',
        long = "extensions",
        value_delimiter = ',',
        value_name = "NAMES"
    )]
    pub extensions: Vec<String>,
    /// List the extensions and exit.
    #[arg(short = 'l', long = "list-extensions")]
    pub list_extensions: bool,
    /// Screen reader mode: plain text, no animations.
    #[arg(long = "screen-reader")]
    pub screen_reader: bool,
    /// Work in a git worktree `.gemini/worktrees/<NAME>` on branch NAME
    /// (a generated name without one); it is never deleted automatically.
    #[arg(short = 'w', long = "worktree", value_name = "NAME", num_args = 0..=1, default_missing_value = "")]
    pub worktree: Option<String>,
    /// Run as an Agent Client Protocol agent on stdio (for editors).
    #[arg(long = "acp", visible_alias = "experimental-acp")]
    pub acp: bool,
    /// The final answer must be JSON valid against the JSON Schema in FILE.
    #[arg(long = "output-schema", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub output_schema: Option<PathBuf>,
    /// The final answer must be JSON valid against this JSON Schema.
    #[arg(long = "json-schema", value_name = "SCHEMA")]
    pub json_schema: Option<String>,
    /// Stop after N model turns (over model.maxSessionTurns); exits 53.
    #[arg(long = "max-turns", value_name = "N")]
    pub max_turns: Option<u32>,
    /// Stop once the session cost more than USD dollars; exits 57.
    #[arg(long = "max-budget-usd", value_name = "USD")]
    pub max_budget_usd: Option<f64>,
    /// End the session once it and its commands use more than N MiB of
    /// memory (over limits.memoryMb); exits 59.
    #[arg(long = "max-memory-mb", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_memory_mb: Option<u64>,
    /// End the session after N seconds (over limits.wallSeconds); exits 59.
    #[arg(long = "max-wall-seconds", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_wall_seconds: Option<u64>,
    /// Work in a copy-on-write copy of DIR kept under the project's temp
    /// folder (an overlay where the kernel allows it); DIR is never changed.
    #[arg(long = "workspace-from", value_name = "DIR", value_hint = clap::ValueHint::DirPath)]
    pub workspace_from: Option<PathBuf>,
    /// Write the session's changes to its --workspace-from copy as a
    /// unified diff to FILE.
    #[arg(long = "patch-out", value_name = "FILE", value_hint = clap::ValueHint::FilePath, requires = "workspace_from")]
    pub patch_out: Option<PathBuf>,
    /// Print the version.
    #[arg(short = 'v', long = "version", action = ArgAction::Version)]
    pub version: (),
}

impl Args {
    /// Checks the combinations Gemini CLI refuses; the error text is its own.
    pub fn check(&self) -> Result<(), String> {
        if self.prompt_flag.is_some() && !self.prompt.is_empty() {
            return Err(
                "Cannot use both a positional prompt and the --prompt (-p) flag together".into(),
            );
        }
        if self.prompt_flag.is_some() && self.prompt_interactive.is_some() {
            return Err(
                "Cannot use both --prompt (-p) and --prompt-interactive (-i) together".into(),
            );
        }
        if self.yolo && self.approval_mode.is_some() {
            return Err("Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.".into());
        }
        if let Some(mode) = &self.approval_mode
            && gemini_rs_protocol::events::ApprovalMode::parse(mode).is_none()
        {
            return Err(format!(
                "Invalid approval mode: {mode}. Valid values are: yolo, auto_edit, plan, default"
            ));
        }
        if self.output_schema.is_some() && self.json_schema.is_some() {
            return Err("Cannot use both --output-schema and --json-schema together".into());
        }
        if let Some(usd) = self.max_budget_usd
            && !(usd.is_finite() && usd >= 0.0)
        {
            return Err(format!(
                "Invalid value for --max-budget-usd: {usd}. Give an amount of US dollars of 0 or more."
            ));
        }
        if self.acp && self.workspace_from.is_some() {
            return Err("--workspace-from is for one run; over ACP give `workspaceFrom` in session/new's `_meta`.".into());
        }
        if self.acp && self.trajectory.is_some() {
            return Err("--trajectory is per session over ACP: give `trajectory` in session/new's `_meta` instead".into());
        }
        if self.fake_responses.is_some() && self.fake_responses_non_strict.is_some() {
            return Err(
                "Cannot use both --fake-responses and --fake-responses-non-strict together".into(),
            );
        }
        Ok(())
    }
}

impl Args {
    /// The session flags' checks; like every argument error of today's
    /// Gemini CLI, a failure exits 1.
    pub fn check_session_flags(&self) -> Result<(), String> {
        let session_flags = [
            self.resume.is_some(),
            self.session_id.is_some(),
            self.session_file.is_some(),
        ];
        if session_flags.iter().filter(|f| **f).count() > 1 {
            return Err("The flags --resume, --session-id, and --session-file cannot be used together: give only one.".into());
        }
        match &self.session_id {
            Some(id) => check_session_id(id),
            None => Ok(()),
        }
    }
}

/// `--session-id`: not empty, letters, digits, `-` and `_` only (the
/// characters today's Gemini CLI accepts; a uuid qualifies).
fn check_session_id(id: &str) -> Result<(), String> {
    let id = id.trim();
    if id.is_empty() {
        return Err("Invalid --session-id: the value is empty.".into());
    }
    if let Some(bad) = id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(format!(
            "Invalid --session-id \"{id}\": '{bad}' is not allowed (use letters, digits, '-' and '_', e.g. a UUID)."
        ));
    }
    Ok(())
}

impl Args {
    /// The session's configuration from these flags (the approval mode as
    /// asked; the session forces `default` in an untrusted folder).
    pub fn session_config(
        &self,
        startup: gemini_rs_core::Startup,
        interactive: bool,
        session_id: String,
    ) -> gemini_rs_core::SessionConfig {
        use gemini_rs_core::ReplayMode;
        use gemini_rs_protocol::events::ApprovalMode;
        let approval_mode = if self.yolo {
            ApprovalMode::Yolo
        } else {
            self.approval_mode
                .as_deref()
                .and_then(ApprovalMode::parse)
                .or_else(|| startup.settings.default_approval_mode())
                .unwrap_or(ApprovalMode::Default)
        };
        let replay = match (&self.fake_responses, &self.fake_responses_non_strict) {
            (Some(f), _) => Some((f.clone(), ReplayMode::Strict)),
            (None, Some(f)) => Some((f.clone(), ReplayMode::NonStrict)),
            (None, None) => None,
        };
        let mut config = gemini_rs_core::SessionConfig::new(startup);
        config.interactive = interactive;
        config.session_id = session_id;
        config.model = self.model.clone();
        config.approval_mode = approval_mode;
        config.allowed_tools = self.allowed_tools.clone();
        config.allowed_mcp_server_names = self.allowed_mcp_server_names.clone();
        config.include_directories = self.include_directories.clone();
        config.policy_files = self.policy.clone();
        config.admin_policy_files = self.admin_policy.clone();
        config.resume = self.resume.clone();
        config.sandbox = self.sandbox.clone();
        config.replay = replay;
        config.record_responses = self.record_responses.clone();
        config.trajectory = self.trajectory.clone();
        config.max_turns = self.max_turns.map(i64::from);
        config.max_budget_usd = self.max_budget_usd;
        // One process, one session: its own memory counts with its commands'.
        config.limit_scope = gemini_rs_core::LimitScope::Process;
        if let Some(mb) = self.max_memory_mb {
            config.limits.memory_mb = Some(mb);
        }
        if let Some(seconds) = self.max_wall_seconds {
            config.limits.wall_seconds = Some(seconds);
        }
        config
    }

    /// The schema of `--output-schema` or `--json-schema`, checked; the
    /// error names the flag.
    pub fn output_schema(&self) -> Result<Option<gemini_rs_core::OutputSchema>, String> {
        use gemini_rs_core::OutputSchema;
        if let Some(path) = &self.output_schema {
            let text = gemini_rs_core::read_input(path, None, gemini_rs_core::MAX_INPUT_BYTES)
                .map_err(|e| format!("--output-schema: {e}"))?;
            return OutputSchema::parse(&text)
                .map(Some)
                .map_err(|e| format!("--output-schema {}: {e}", path.display()));
        }
        match &self.json_schema {
            Some(text) => OutputSchema::parse(text)
                .map(Some)
                .map_err(|e| format!("--json-schema: {e}")),
            None => Ok(None),
        }
    }
}

/// `--approval-mode`'s values, offered by the shell completions; any text
/// parses, and [`Args::check`] names a wrong one as Gemini CLI does.
#[derive(Debug, Clone, Copy)]
struct ModeNames;

impl clap::builder::TypedValueParser for ModeNames {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            ["default", "auto_edit", "yolo", "plan"]
                .into_iter()
                .map(clap::builder::PossibleValue::new),
        ))
    }
}
