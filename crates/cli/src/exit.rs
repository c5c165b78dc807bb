//! The process's exit codes, as Gemini CLI uses them: scripts rely on them.

use gemini_rs_core::StartErrorKind;
use gemini_rs_protocol::events::AgentError;

/// Every way `gemini-rs` exits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Success.
    Ok,
    /// A general error (the model call failed, an unreadable file).
    Error,
    /// Authentication is missing or not supported.
    Auth,
    /// Bad input: conflicting flags, no prompt, an unknown session.
    Input,
    /// The sandbox cannot be set up.
    Sandbox,
    /// A configuration file or value is wrong.
    Config,
    /// `model.maxSessionTurns` was reached.
    TurnLimit,
    /// A tool failed in a way that ends the session (disk full).
    FatalTool,
    /// Headless in a folder that is not trusted.
    Untrusted,
    /// Loop detection stopped the agent.
    LoopDetected,
    /// `--max-budget-usd` was crossed.
    Budget,
    /// The final answer did not match `--output-schema` / `--json-schema`.
    StructuredOutput,
    /// A resource limit (`--max-memory-mb`, `--max-wall-seconds`) ended
    /// the session.
    ResourceLimit,
    /// The user cancelled (Ctrl-C, SIGINT).
    Cancelled,
    /// SIGTERM ended the run.
    Terminated,
    /// SIGHUP ended the run (the terminal closed).
    HungUp,
}

impl ExitCode {
    /// The number the process exits with.
    pub fn code(self) -> i32 {
        match self {
            ExitCode::Ok => 0,
            ExitCode::Error => 1,
            ExitCode::Auth => 41,
            ExitCode::Input => 42,
            ExitCode::Sandbox => 44,
            ExitCode::Config => 52,
            ExitCode::TurnLimit => 53,
            ExitCode::FatalTool => 54,
            ExitCode::Untrusted => 55,
            ExitCode::LoopDetected => 56,
            ExitCode::Budget => 57,
            ExitCode::StructuredOutput => 58,
            ExitCode::ResourceLimit => 59,
            ExitCode::Cancelled => 130,
            ExitCode::Terminated => 143,
            ExitCode::HungUp => 129,
        }
    }

    /// Every exit code, in the man page's order.
    pub const ALL: [ExitCode; 16] = [
        ExitCode::Ok,
        ExitCode::Error,
        ExitCode::Auth,
        ExitCode::Input,
        ExitCode::Sandbox,
        ExitCode::Config,
        ExitCode::TurnLimit,
        ExitCode::FatalTool,
        ExitCode::Untrusted,
        ExitCode::LoopDetected,
        ExitCode::Budget,
        ExitCode::StructuredOutput,
        ExitCode::ResourceLimit,
        ExitCode::HungUp,
        ExitCode::Cancelled,
        ExitCode::Terminated,
    ];

    /// What the code means, one sentence (the man page's EXIT STATUS).
    pub fn meaning(self) -> &'static str {
        match self {
            ExitCode::Ok => "Success.",
            ExitCode::Error => {
                "A general error: the model call failed, a file could not be read, a bad argument."
            }
            ExitCode::Auth => {
                "Authentication is missing or not supported (no API key, no provider)."
            }
            ExitCode::Input => "Bad input: conflicting flags, no prompt, an unknown session.",
            ExitCode::Sandbox => "The sandbox cannot be set up.",
            ExitCode::Config => "A configuration file or value is wrong.",
            ExitCode::TurnLimit => "model.maxSessionTurns (or --max-turns) was reached.",
            ExitCode::FatalTool => "A tool failed in a way that ends the session (disk full).",
            ExitCode::Untrusted => {
                "Headless in a folder that is not trusted: trust it in the terminal UI, pass --skip-trust, or set GEMINI_CLI_TRUST_WORKSPACE=true."
            }
            ExitCode::LoopDetected => "Loop detection stopped the agent.",
            ExitCode::Budget => "--max-budget-usd was crossed.",
            ExitCode::StructuredOutput => {
                "The final answer did not match --output-schema / --json-schema."
            }
            ExitCode::ResourceLimit => {
                "A resource limit ended the session: --max-memory-mb (limits.memoryMb) or --max-wall-seconds (limits.wallSeconds)."
            }
            ExitCode::Cancelled => "The user cancelled (Ctrl-C, SIGINT).",
            ExitCode::Terminated => "SIGTERM ended the run.",
            ExitCode::HungUp => "SIGHUP ended the run (the terminal closed).",
        }
    }

    /// The exit code of a prompt that failed.
    pub fn of_agent_error(err: &AgentError) -> ExitCode {
        match err {
            AgentError::TurnLimit => ExitCode::TurnLimit,
            AgentError::Model { .. } => ExitCode::Error,
            AgentError::Cancelled => ExitCode::Cancelled,
            AgentError::FatalTool { .. } => ExitCode::FatalTool,
            AgentError::Command { .. } => ExitCode::Error,
            AgentError::BudgetExceeded { .. } => ExitCode::Budget,
            AgentError::StructuredOutput { .. } => ExitCode::StructuredOutput,
            AgentError::ResourceLimit { .. } => ExitCode::ResourceLimit,
        }
    }

    /// The exit code of a session that could not start.
    pub fn of_start_error(kind: StartErrorKind) -> ExitCode {
        match kind {
            StartErrorKind::Auth => ExitCode::Auth,
            StartErrorKind::Input => ExitCode::Input,
            StartErrorKind::Config => ExitCode::Config,
            StartErrorKind::Sandbox => ExitCode::Sandbox,
            StartErrorKind::Other => ExitCode::Error,
        }
    }
}

/// The exit code of a process ended by SIGPIPE, as a shell reports it.
pub const CLOSED_OUTPUT: i32 = 128 + libc::SIGPIPE;

/// Writes `bytes` to stdout and flushes; the exit code: 0, or
/// [`CLOSED_OUTPUT`] when the reader has gone, or 1 (with a message) on
/// another error.
pub fn write_stdout(bytes: &[u8]) -> i32 {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => CLOSED_OUTPUT,
        Err(e) => {
            eprintln!("Error: cannot write the output: {e}");
            1
        }
    }
}

/// Makes a closed stdout or stderr end the process quietly with exit 141
/// (what a shell reports for SIGPIPE), as `head` expects of a writer:
/// `println!` and `eprintln!` panic on EPIPE (SIGPIPE stays ignored, so
/// a child's closed pipe is an error, never a death), and this hook turns
/// exactly that panic into the exit, with no message or backtrace.
pub fn quiet_on_closed_output() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to std") && message.contains("os error 32") {
            std::process::exit(CLOSED_OUTPUT);
        }
        previous(info);
    }));
}
