//! A command whose output goes into a prompt (a custom command's
//! `!{...}`): run as the shell tool runs commands (bash, the sandbox, the
//! timeouts of `tools.shell`), its terminal text collected.

use super::render::LineSink;
use super::run::{self, Ending, Spec};
use super::{ShellSettings, strip_shell_wrapper};
use crate::tools::ToolContext;
use tokio_util::sync::CancellationToken;

/// Most output kept (the rest is cut with a note).
const MAX_OUTPUT: usize = 1024 * 1024;

/// How an inline command ended and what it printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineRun {
    /// Its terminal text (stdout and stderr as they interleaved).
    pub output: String,
    /// The exit code, when it exited by itself.
    pub exit_code: Option<i32>,
    /// The signal that ended it, if one did.
    pub signal: Option<i32>,
    /// True when it was stopped (cancelled or timed out).
    pub aborted: bool,
}

/// Collects lines into one string, up to [`MAX_OUTPUT`].
#[derive(Default)]
struct Collect {
    text: String,
    cut: bool,
}

impl LineSink for Collect {
    fn fragment(&mut self, text: &str) {
        if self.text.len() + text.len() > MAX_OUTPUT {
            self.cut = true;
            return;
        }
        self.text.push_str(text);
    }
    fn newline(&mut self) {
        if !self.cut {
            self.text.push('\n');
        }
    }
}

/// Runs `command` in the project root; an error when bash cannot start.
pub async fn run_inline(
    ctx: &ToolContext,
    command: &str,
    cancel: &CancellationToken,
) -> std::io::Result<InlineRun> {
    let settings = ShellSettings::read(ctx);
    let script = format!(
        "shopt -u promptvars nullglob extglob nocaseglob dotglob; {}",
        strip_shell_wrapper(command)
    );
    let mut env = vec![
        ("GEMINI_CLI", "1".to_string()),
        ("TERM", "xterm-256color".to_string()),
        ("PAGER", settings.pager.clone()),
        ("GIT_PAGER", "cat".to_string()),
    ];
    if let Some(traceparent) = crate::telemetry::session_traceparent() {
        env.push(("TRACEPARENT", traceparent));
    }
    let spec = Spec {
        script: &script,
        cwd: ctx.workspace.target_dir(),
        env: &env,
        inactivity: settings.inactivity,
        total: settings.total,
        background: None,
        sandbox: ctx.sandbox.as_ref(),
    };
    let mut sink = Collect::default();
    let outcome = run::run(spec, &mut sink, cancel).await?;
    let mut output = sink.text.trim_end_matches('\n').to_string();
    if sink.cut {
        output.push_str("\n[output cut at 1 MiB]");
    }
    Ok(match outcome.ending {
        Ending::Exited { code, signal, .. } => InlineRun {
            output,
            exit_code: code,
            signal,
            aborted: false,
        },
        Ending::Aborted(_) | Ending::Backgrounded => InlineRun {
            output,
            exit_code: None,
            signal: None,
            aborted: true,
        },
    })
}
