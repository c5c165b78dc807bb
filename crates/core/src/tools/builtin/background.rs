//! `list_background_processes` and `read_background_output`: what the
//! model may learn about the commands `run_shell_command` moved to the
//! background in this session (their status, the tail of their log).
//! Parameters and result shapes as Gemini CLI 0.61 has them.

use super::common::parse_params;
use super::{Builtin, Make};
use crate::catalogue::builtins::{BACKGROUND_LIST as LIST_SPEC, BACKGROUND_READ as READ_SPEC};
use crate::tools::background::{TAIL_BYTES, read_end};
use crate::tools::spec::ToolSpec;
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    ConfirmationDetails, Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult,
};
use futures::future::BoxFuture;
use gemini_rs_protocol::events::BackgroundStatus;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::{Arc, OnceLock};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Lines of the log returned when the call names no count.
const DEFAULT_LINES: u64 = 100;
/// Longest wait `delay_ms` may ask for.
const MAX_DELAY: Duration = Duration::from_secs(60);

/// The `list_background_processes` tool.
pub struct ListBackgroundProcesses;

/// The `read_background_output` tool.
pub struct ReadBackgroundOutput;

/// Registration of `list_background_processes` (every session).
pub(super) const LIST_BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(ListBackgroundProcesses)),
};

/// Registration of `read_background_output` (every session).
pub(super) const READ_BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(ReadBackgroundOutput)),
};

fn list_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| json!({"type": "object", "properties": {}}))
}

fn read_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "type": "object",
            "properties": {
                "pid": {
                    "type": "integer",
                    "description": "The PID of the background process, as `run_shell_command` reported it."
                },
                "lines": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Optional. How many lines to return from the end of the log (default 100)."
                },
                "delay_ms": {
                    "type": "integer",
                    "description": "Optional. Milliseconds to wait before reading, to give a starting process time to print."
                }
            },
            "required": ["pid"]
        })
    })
}

/// A confirmation dialog as 0.61 shows for tools without a rule of their
/// own (an information prompt).
fn info_confirmation(spec: &ToolSpec, prompt: String) -> Option<ConfirmationDetails> {
    Some(ConfirmationDetails::Info {
        title: format!("Confirm: {}", spec.display_name),
        prompt,
        urls: Vec::new(),
    })
}

impl Tool for ListBackgroundProcesses {
    identity_from_spec!(LIST_SPEC);
    fn description(&self) -> &str {
        "Lists the shell commands started in the background in this session (`run_shell_command` with `is_background`), running or finished, with their PIDs."
    }
    fn parameter_schema(&self) -> &Value {
        list_schema()
    }
    fn build(
        &self,
        _args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        Ok(Box::new(ListInvocation))
    }
}

struct ListInvocation;

impl ToolInvocation for ListInvocation {
    fn description(&self) -> String {
        "Lists all active and recently completed background processes for the current session."
            .to_string()
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move { info_confirmation(&LIST_SPEC, self.description()) })
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let listed = ctx.background.list(0);
            if listed.is_empty() {
                let msg = "No background processes found.";
                return ToolResult::text(msg, msg);
            }
            let lines: Vec<String> = listed
                .iter()
                .map(|p| {
                    let status = match p.status {
                        BackgroundStatus::Running => "RUNNING",
                        BackgroundStatus::Exited => "EXITED",
                    };
                    let mut line = format!("- [PID {}] {status}: `{}`", p.pid, p.command);
                    if let Some(code) = p.exit_code {
                        line.push_str(&format!(" (Exit Code: {code})"));
                    }
                    if let Some(signal) = p.signal {
                        line.push_str(&format!(" (Signal: {signal})"));
                    }
                    line
                })
                .collect();
            let text = lines.join("\n");
            ToolResult::text(text.clone(), text)
        })
    }
}

/// The arguments of `read_background_output`.
#[derive(Debug, Deserialize)]
struct ReadParams {
    pid: i64,
    lines: Option<u64>,
    delay_ms: Option<i64>,
}

impl Tool for ReadBackgroundOutput {
    identity_from_spec!(READ_SPEC);
    fn description(&self) -> &str {
        "Reads the end of the output log of a shell command started in the background in this session."
    }
    fn parameter_schema(&self) -> &Value {
        read_schema()
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let p: ReadParams = parse_params(args, &[])?;
        let pid = u32::try_from(p.pid)
            .map_err(|_| ToolError::invalid_params(format!("Invalid PID: {}", p.pid)))?;
        let delay = p
            .delay_ms
            .filter(|ms| *ms > 0)
            .map_or(Duration::ZERO, |ms| {
                Duration::from_millis(ms.unsigned_abs()).min(MAX_DELAY)
            });
        Ok(Box::new(ReadInvocation {
            pid,
            lines: p.lines.unwrap_or(DEFAULT_LINES).max(1),
            delay,
        }))
    }
}

struct ReadInvocation {
    pid: u32,
    lines: u64,
    delay: Duration,
}

impl ToolInvocation for ReadInvocation {
    fn description(&self) -> String {
        format!("Reading output for background process {}", self.pid)
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move { info_confirmation(&READ_SPEC, self.description()) })
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            if !self.delay.is_zero() {
                tokio::select! {
                    () = tokio::time::sleep(self.delay) => {}
                    () = cancel.cancelled() => {
                        let msg = "Reading the background output was cancelled.";
                        return ToolResult::text(msg, msg);
                    }
                }
            }
            self.read(ctx)
        })
    }
}

impl ReadInvocation {
    fn read(&self, ctx: &ToolContext) -> ToolResult {
        let pid = self.pid;
        if !ctx.background.knows(pid) {
            return ToolResult::error(
                ToolErrorKind::ExecutionFailed,
                format!(
                    "No background process with PID {pid} was started in this session; list_background_processes shows the ones that were."
                ),
                format!("Unknown background PID {pid}."),
            );
        }
        let log = ctx.background.log_path(pid);
        let (text, cut) = match read_end(&log, TAIL_BYTES) {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return ToolResult::error(
                    ToolErrorKind::ExecutionFailed,
                    format!(
                        "No output log found for process ID {pid} (expected at {}).",
                        log.display()
                    ),
                    format!("No log found for PID {pid}"),
                );
            }
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return ToolResult::error(
                    ToolErrorKind::ExecutionFailed,
                    format!(
                        "The log path {} is a symbolic link; it is not followed.",
                        log.display()
                    ),
                    format!("Symlink detected for PID {pid}"),
                );
            }
            Err(e) => {
                return ToolResult::error(
                    ToolErrorKind::ExecutionFailed,
                    format!("Error reading background log {}: {e}", log.display()),
                    "Failed to read log.",
                );
            }
        };
        if text.is_empty() {
            return ToolResult::text("Log is empty.", "Log is empty.");
        }
        let mut all: Vec<&str> = text.split('\n').collect();
        if all.last() == Some(&"") {
            all.pop();
        }
        if cut && !all.is_empty() {
            // The first line read is only the end of a line.
            all.remove(0);
        }
        let want = usize::try_from(self.lines).unwrap_or(usize::MAX);
        let tail = &all[all.len().saturating_sub(want)..];
        let header = if want < all.len() {
            format!("Showing last {want} of {} lines:\n", all.len())
        } else {
            "Full Log Output:\n".to_string()
        };
        let out = format!("{header}{}", tail.join("\n"));
        ToolResult::text(out.clone(), out)
    }
}

#[cfg(test)]
#[path = "background_tests.rs"]
mod tests;
