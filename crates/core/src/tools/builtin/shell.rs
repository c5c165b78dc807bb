//! `run_shell_command` (Shell): `bash -c` in the project root or
//! `dir_path`, in its own process group, stdout and stderr merged in
//! arrival order and rendered as the reference's terminal shows them.
//!
//! Results follow Gemini CLI v0.27.4's PTY mode: `Output: …`, `Exit Code: n`
//! (non-zero only), `Signal: n`, `Background PIDs: a, b`,
//! `Process Group PGID: n`. Long results are cut to their last lines with
//! the full text saved in the project temp dir.

#[cfg(test)]
mod abort_tests;
mod capture;
mod inline;
mod live;
mod render;
mod run;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod text_tests;

pub use crate::policy::shell_parse::{root_commands, strip_shell_wrapper};
pub use inline::run_inline;

use super::common::{Aliases, lenient, parse_params};
use super::{Builtin, Make};
use crate::catalogue::builtins::SHELL as SPEC;
use crate::tools::background::CompletionBehavior;
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    ConfirmationDetails, OutputSink, Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation,
    ToolResult,
};
use capture::{Capture, Limits};
use futures::future::BoxFuture;
use live::{Live, Tee};
use run::{Abort, Background, Ending, Outcome, Spec};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::OnceLock;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long an `is_background` command runs before it is handed off.
const BACKGROUND_DELAY: Duration = Duration::from_millis(200);
/// `tools.shell.inactivityTimeout` default, in seconds.
const DEFAULT_INACTIVITY_SECS: f64 = 300.0;
/// `tools.truncateToolOutputThreshold` default.
const DEFAULT_THRESHOLD: usize = 4_000_000;
/// `tools.truncateToolOutputLines` default.
const DEFAULT_LINES: usize = 1000;

/// The `run_shell_command` tool.
pub struct ShellTool;

/// `directory` is the later name of `dir_path`.
const ALIASES: Aliases = SPEC.param_aliases;

/// The arguments of one call, after schema validation.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    command: String,
    description: Option<String>,
    #[serde(alias = "directory")]
    dir_path: Option<String>,
    is_background: Option<bool>,
    /// How long a background command runs before it is handed off, in
    /// milliseconds.
    #[serde(deserialize_with = "lenient")]
    delay_ms: Option<f64>,
}

const DESCRIPTION: &str = "This tool executes a given shell command as `bash -c <command>`. Command can start background processes using `&`. To run a long-lived command (a server, a watcher) in the background, set `is_background` to true. Command is executed as a subprocess that leads its own process group. Command process group can be terminated as `kill -- -PGID` or signaled as `kill -s SIGNAL -- -PGID`.

      The following information is returned:

      Output: Combined stdout/stderr. Can be `(empty)` or partial on error and for any unwaited background processes.
      Exit Code: Only included if non-zero (command failed).
      Error: Only included if a process-level error occurred (e.g., spawn failure).
      Signal: Only included if process was terminated by a signal.
      Background PIDs: Only included if background processes were started.
      Process Group PGID: Only included if available.";

fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "description": "Exact bash command to execute as `bash -c <command>`"
                },
                "description": {
                    "type": "string",
                    "description": "Brief description of the command for the user. Be specific and concise. Ideally a single sentence. Can be up to 3 sentences for clarity. No line breaks."
                },
                "dir_path": {
                    "type": "string",
                    "description": "(OPTIONAL) The path of the directory to run the command in. If not provided, the project root directory is used. Must be a directory within the workspace and must already exist."
                },
                "is_background": {
                    "type": "boolean",
                    "description": "Set to true if this command should be run in the background (e.g. for long-running servers or watchers). The command will be started, allowed to run for a brief moment to check for immediate errors, and then moved to the background."
                },
                "delay_ms": {
                    "type": "integer",
                    "description": "Optional. With `is_background`: how many milliseconds the command runs before it is moved to the background, so its first output can come back with the result. Defaults to 200."
                }
            },
            "required": ["command"]
        })
    })
}

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(ShellTool)),
};

impl Tool for ShellTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn output_is_markdown(&self) -> bool {
        false
    }

    fn parameter_schema(&self) -> &Value {
        schema()
    }

    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let params: Params = parse_params(args, ALIASES)?;
        let command = params.command;
        if command.trim().is_empty() {
            return Err(ToolError::invalid_params("Command cannot be empty."));
        }
        let dir_path = params.dir_path;
        let cwd = match &dir_path {
            Some(d) => {
                let abs = ctx.workspace.resolve(d);
                ctx.workspace
                    .check_access(&abs)
                    .map_err(ToolError::invalid_params)?;
                abs
            }
            None => ctx.workspace.target_dir().to_path_buf(),
        };
        let delay = params
            .delay_ms
            .filter(|ms| ms.is_finite() && *ms >= 0.0)
            .map_or(BACKGROUND_DELAY, |ms| Duration::from_millis(ms as u64));
        Ok(Box::new(ShellInvocation {
            command,
            description: params.description,
            dir_path,
            cwd,
            background: params.is_background.unwrap_or(false),
            delay,
        }))
    }
}

/// One validated shell call.
struct ShellInvocation {
    command: String,
    description: Option<String>,
    dir_path: Option<String>,
    cwd: PathBuf,
    background: bool,
    delay: Duration,
}

impl ToolInvocation for ShellInvocation {
    fn description(&self) -> String {
        let mut d = self.command.clone();
        match &self.dir_path {
            Some(dir) => d.push_str(&format!(" [in {dir}]")),
            None => d.push_str(&format!(
                " [current working directory {}]",
                self.cwd.display()
            )),
        }
        if let Some(desc) = self.description.as_deref().filter(|s| !s.is_empty()) {
            d.push_str(&format!(" ({})", desc.replace('\n', " ")));
        }
        if self.background {
            d.push_str(" [background]");
        }
        d
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            Some(ConfirmationDetails::Exec {
                title: "Confirm Shell Command".to_string(),
                command: self.command.clone(),
                root_commands: root_commands(&strip_shell_wrapper(&self.command)),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { self.run(ctx, &cancel, None).await })
    }

    fn execute_streaming<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
        output: OutputSink,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move { self.run(ctx, &cancel, Some(output)).await })
    }
}

/// Settings the tool reads.
struct ShellSettings {
    inactivity: Option<Duration>,
    total: Option<Duration>,
    pager: String,
    limits: Limits,
}

fn positive_duration(secs: Option<f64>) -> Option<Duration> {
    secs.filter(|s| s.is_finite() && *s > 0.0)
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
}

impl ShellSettings {
    fn read(ctx: &ToolContext) -> Self {
        let tools = &ctx.settings;
        let count = |value: Option<f64>, default: usize| match value {
            Some(v) if v.is_finite() => v.max(0.0) as usize,
            _ => default,
        };
        let enabled = tools.truncation.unwrap_or(true);
        let threshold = count(tools.truncate_threshold, DEFAULT_THRESHOLD);
        let lines = count(tools.truncate_lines, DEFAULT_LINES);
        let on = enabled && threshold > 0 && lines > 0;
        ShellSettings {
            inactivity: positive_duration(Some(
                tools
                    .shell_inactivity_timeout
                    .unwrap_or(DEFAULT_INACTIVITY_SECS),
            )),
            total: positive_duration(tools.shell_timeout),
            pager: tools
                .shell_pager
                .as_deref()
                .unwrap_or(crate::config::defaults::SHELL_PAGER)
                .to_string(),
            limits: Limits {
                threshold: on.then_some(threshold),
                lines: if on { lines } else { DEFAULT_LINES },
            },
        }
    }
}

impl ShellInvocation {
    async fn run(
        &self,
        ctx: &ToolContext,
        cancel: &CancellationToken,
        output: Option<OutputSink>,
    ) -> ToolResult {
        if cancel.is_cancelled() {
            let msg = "Command was cancelled by user before it could start.";
            return ToolResult::text(msg, msg);
        }
        let settings = ShellSettings::read(ctx);
        let temp = ctx.workspace.project_temp_dir();
        let stripped = strip_shell_wrapper(&self.command);
        let (script, cwd) = match missing_dir(&self.cwd) {
            None => (
                format!("shopt -u promptvars nullglob extglob nocaseglob dotglob; {stripped}"),
                self.cwd.as_path(),
            ),
            // As node-pty reports a failed chdir: terminal text, exit 1.
            Some(reason) => (
                format!(
                    "printf '%s\\n' 'chdir(2) failed.: {}'; exit 1",
                    reason.replace('\'', "'\\''")
                ),
                ctx.workspace.target_dir(),
            ),
        };
        let mut env = vec![
            ("GEMINI_CLI", "1".to_string()),
            ("TERM", "xterm-256color".to_string()),
            ("PAGER", settings.pager.clone()),
            ("GIT_PAGER", "cat".to_string()),
        ];
        // With telemetry on, the command's spans nest under its call's span.
        let traceparent = match &ctx.call_id {
            Some(id) => crate::telemetry::tool_traceparent(id),
            None => crate::telemetry::session_traceparent(),
        };
        if let Some(traceparent) = traceparent {
            env.push(("TRACEPARENT", traceparent));
        }
        let behavior = CompletionBehavior::from_setting(
            ctx.settings.background_completion_behavior.as_deref(),
        );
        let spec = Spec {
            script: &script,
            cwd,
            env: &env,
            inactivity: settings.inactivity,
            total: settings.total,
            background: self.background.then_some(Background {
                delay: self.delay,
                shells: &ctx.background,
                command: &self.command,
                behavior,
            }),
            sandbox: ctx.sandbox.as_ref(),
        };
        let mut capture = Capture::new(settings.limits, temp);
        let mut live = output.map(Live::new);
        let mut tee = Tee {
            capture: &mut capture,
            live: live.as_mut(),
        };
        let outcome = match run::run(spec, &mut tee, cancel).await {
            Ok(o) => o,
            Err(e) => return spawn_error(&e, &self.command),
        };
        if let Some(live) = live.as_mut() {
            live.tick(true);
        }
        let save_as = temp.join(format!(
            "run_shell_command_{}.txt",
            uuid::Uuid::new_v4().simple()
        ));
        finish(outcome, capture, &settings, &save_as)
    }
}

/// Why `dir` cannot be entered (`No such file or directory`), if it cannot.
fn missing_dir(dir: &Path) -> Option<String> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => None,
        Ok(_) => Some(os_text(&std::io::Error::from_raw_os_error(libc::ENOTDIR))),
        Err(e) => Some(os_text(&e)),
    }
}

/// The OS error text without Rust's ` (os error n)` suffix.
fn os_text(e: &std::io::Error) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

fn spawn_error(e: &std::io::Error, command: &str) -> ToolResult {
    let message = os_text(e);
    let llm = format!("Output: (empty)\nError: {message}");
    let mut r = ToolResult::error(
        ToolErrorKind::ShellExecuteError,
        message.clone(),
        format!("Command failed: {message}"),
    );
    r.llm_content = vec![gemini_rs_protocol::Part::text(llm)];
    tracing::debug!("shell command {command:?} failed to start: {message}");
    r
}

/// Minutes with one decimal, rounded half up as JavaScript's `toFixed(1)`.
fn minutes(d: Option<Duration>) -> String {
    let m = d.map_or(0.0, |d| d.as_secs_f64() / 60.0);
    format!("{:.1}", (m * 10.0).round() / 10.0)
}

/// Builds the result text of a finished, aborted or backgrounded run.
fn finish(
    outcome: Outcome,
    capture: Capture,
    settings: &ShellSettings,
    save_as: &Path,
) -> ToolResult {
    let pid = outcome.pid;
    let raw = capture.text().map(str::to_string);
    let empty = capture.is_empty();
    match outcome.ending {
        Ending::Backgrounded => {
            let initial = raw.unwrap_or_default();
            ToolResult::text(
                format!("Command is running in background. PID: {pid}. Initial output:\n{initial}"),
                format!("Background process started with PID {pid}."),
            )
        }
        Ending::Aborted(why) => {
            let head = match why {
                Abort::Cancelled => {
                    "Command was cancelled by user before it could complete.".to_string()
                }
                Abort::Inactive => format!(
                    "Command was automatically cancelled because it exceeded the timeout of {} minutes without output.",
                    minutes(settings.inactivity)
                ),
                Abort::TimedOut => format!(
                    "Command was automatically cancelled because it exceeded the total timeout of {} minutes.",
                    minutes(settings.total)
                ),
                Abort::Stopped => {
                    "Command was stopped (it received a stop signal) and was ended, since it could not go on by itself.".to_string()
                }
            };
            let llm = if empty {
                capture.finish(
                    &format!("{head} There was no output before it was cancelled."),
                    "",
                    save_as,
                )
            } else {
                capture.finish(
                    &format!("{head} Below is the output before it was cancelled:\n"),
                    "",
                    save_as,
                )
            };
            let display = match raw {
                None => llm.clone(),
                Some(out) if !out.trim().is_empty() => out,
                Some(_) if why == Abort::Cancelled => "Command cancelled by user.".to_string(),
                Some(_) => head,
            };
            ToolResult::text(llm, display)
        }
        Ending::Exited {
            code,
            signal,
            background_pids,
        } => {
            let mut trailer = String::new();
            if let Some(c) = code.filter(|c| *c != 0) {
                trailer.push_str(&format!("\nExit Code: {c}"));
            }
            if let Some(s) = signal {
                trailer.push_str(&format!("\nSignal: {s}"));
            }
            if !background_pids.is_empty() {
                let pids: Vec<String> = background_pids.iter().map(u32::to_string).collect();
                trailer.push_str(&format!("\nBackground PIDs: {}", pids.join(", ")));
            }
            trailer.push_str(&format!("\nProcess Group PGID: {pid}"));
            let prefix = if empty { "Output: (empty)" } else { "Output: " };
            let llm = capture.finish(prefix, &trailer, save_as);
            let display = match raw {
                // Spooled: too long to show whole.
                None => llm.clone(),
                Some(_) if llm.starts_with("Output too large.") => llm.clone(),
                Some(out) if !out.trim().is_empty() => out,
                Some(_) => match (signal, code) {
                    (Some(s), _) => format!("Command terminated by signal: {s}"),
                    (None, Some(c)) if c != 0 => format!("Command exited with code: {c}"),
                    _ => String::new(),
                },
            };
            ToolResult::text(llm, display)
        }
    }
}
