//! Headless mode: run one prompt and report it as text, JSON or
//! stream-JSON on stdout, with messages on stderr and Gemini CLI's exit
//! codes.

mod printer;

use crate::args::OutputFormat;
use crate::exit::ExitCode;
use gemini_rs_core::{HeadlessShape, Session, SessionConfig, StartupNote};
use gemini_rs_protocol::events::{
    AgentError, AgentEvent, ErrorEvent, ErrorInfo, Finished, InitEvent, JsonError, JsonOutput,
    MessageEvent, MessageRole, Op, PromptOutcome, ResultEvent, SessionStats, Severity, Status,
    StreamEvent, StreamStats,
};
use printer::{Printer, iso_now};
use serde_json::Value;
use std::io::Write;
use std::time::{Duration, Instant};

/// After a signal: how long each child group has between SIGTERM and
/// SIGKILL, and how long the session gets to end by itself.
const KILL_AFTER: Duration = Duration::from_secs(1);
/// After a signal: when the groups started since (SessionEnd hooks) are
/// killed at the latest, so the process is gone within two seconds.
const LAST_KILL: Duration = Duration::from_millis(1700);

/// Starts a session, runs `prompt` (after the SessionStart hooks and
/// `@path` expansion, which the session does) and returns the exit code.
pub async fn run(
    config: SessionConfig,
    prompt: String,
    format: OutputFormat,
    raw_output: bool,
) -> ExitCode {
    let mut signal = tokio::spawn(crate::signals::first());
    let structured = config.output_schema.is_some();
    let shape = config.dialect.headless();
    let started = tokio::select! {
        started = Session::start(config.clone()) => started,
        code = &mut signal => return code.unwrap_or(ExitCode::Cancelled),
    };
    let handle = match started {
        Ok(h) => h,
        Err(e) => {
            for note in &e.notes {
                eprintln!("{note}");
            }
            let code = ExitCode::of_start_error(e.kind);
            let mut message = e.message.clone();
            if e.kind == gemini_rs_core::StartErrorKind::Auth {
                message.push_str(&local_servers_note(&config.env).await);
            }
            fatal_before_run(format, &config.session_id, e.class, &message, code);
            return code;
        }
    };
    for note in &handle.notes {
        print_note(note);
    }
    handle.submit(Op::prompt(prompt));
    handle.submit(Op::Shutdown);
    let (ops, mut events, info, mut task) = handle.into_parts();
    let started = Instant::now();
    let mut printer = Printer::new(format, raw_output, structured, shape);
    let mut outcome = None;
    let mut stats = SessionStats::default();
    let mut signalled: Option<ExitCode> = None;
    let mut deadline = None;
    loop {
        let event = tokio::select! {
            event = events.recv() => event,
            code = &mut signal, if signalled.is_none() => {
                // Cancel what runs, and give every child group (a hook
                // does not watch the prompt's cancellation) SIGTERM now
                // and SIGKILL a second later; the session then reports
                // SessionEnd, or is left behind after a second.
                signalled = Some(code.unwrap_or(ExitCode::Cancelled));
                ops.submit(Op::Cancel);
                tokio::task::spawn_blocking(|| gemini_rs_core::terminate_children(KILL_AFTER));
                deadline = Some(tokio::time::Instant::now() + KILL_AFTER);
                continue;
            }
            () = sleep_until(deadline) => break,
        };
        let Some(event) = event else { break };
        match event {
            AgentEvent::SessionStarted {
                session_id, model, ..
            } if format == OutputFormat::StreamJson => printer.json_line(&StreamEvent::Init(
                InitEvent::new(iso_now(), session_id, model).with_mode(info.approval_mode()),
            )),
            AgentEvent::PromptStarted { text, .. } if format == OutputFormat::StreamJson => printer
                .json_line(&StreamEvent::Message(MessageEvent {
                    timestamp: iso_now(),
                    role: MessageRole::User,
                    content: text,
                    delta: None,
                    parent_tool_id: None,
                })),
            AgentEvent::Finished {
                finished: Finished::Prompt(result),
                ..
            } => outcome = Some(result),
            AgentEvent::Stats(s) => stats = *s,
            AgentEvent::SessionEnded => break,
            other => printer.handle(other),
        }
    }
    signal.abort();
    if let Some(at) = deadline {
        // The session had its second: it starts nothing more, and the
        // groups started after the signal (SessionEnd hooks) get what is
        // left of the two seconds.
        task.abort();
        let _ = (&mut task).await;
        let grace =
            (at - KILL_AFTER + LAST_KILL).saturating_duration_since(tokio::time::Instant::now());
        let _ =
            tokio::task::spawn_blocking(move || gemini_rs_core::terminate_children(grace)).await;
    }
    if signalled.is_some() {
        outcome = Some(Err(AgentError::Cancelled));
    }
    let session_id = info.session_id();
    let duration_ms = started.elapsed().as_millis() as u64;
    let end = Ending {
        session_id,
        stats: &stats,
        duration_ms,
        shape,
    };
    let code = match outcome.unwrap_or(Err(AgentError::Cancelled)) {
        Ok(outcome) if outcome.loop_detected => {
            let code = ExitCode::LoopDetected;
            let failure = Failure {
                kind: "FatalLoopDetectedError",
                message: "Loop detected, stopping execution".to_string(),
                console: "Loop detected, stopping execution".to_string(),
                code,
                limit: None,
            };
            report_error(&failure, format, printer, &end);
            code
        }
        Ok(outcome) => {
            report_success(outcome, format, printer, &end);
            ExitCode::Ok
        }
        Err(err) => {
            let code = signalled.unwrap_or(ExitCode::of_agent_error(&err));
            report_error(&Failure::of(&err, code), format, printer, &end);
            code
        }
    };
    // The answer is out; what is left is the MCP servers' ending.
    if deadline.is_none() {
        let _ = task.await;
    }
    code
}

/// What every ending reports.
struct Ending<'a> {
    session_id: &'a str,
    stats: &'a SessionStats,
    duration_ms: u64,
    /// What the dialect's output holds.
    shape: &'static HeadlessShape,
}

/// A run that failed: its error class, its text and its exit code.
struct Failure {
    kind: &'static str,
    /// The text of the JSON error and of the stream's result.
    message: String,
    /// The line on stderr.
    console: String,
    code: ExitCode,
    /// The resource limit that ended the session (`memory`, `wall_clock`).
    limit: Option<String>,
}

/// The stop reason of a session a resource limit ended.
const RESOURCE_LIMIT: &str = "resource_limit";

impl Failure {
    fn of(err: &AgentError, code: ExitCode) -> Failure {
        let console = match err {
            AgentError::Model { error: e } => format!("Error when talking to {}: {e}", e.api()),
            other => other.to_string(),
        };
        Failure {
            kind: error_type(err),
            message: err.to_string(),
            console,
            code,
            limit: match err {
                AgentError::ResourceLimit { limit, .. } => Some(limit.clone()),
                _ => None,
            },
        }
    }

    /// The stream's `error` line before the result, for the ends that
    /// have one (Gemini CLI's text for the turn limit).
    fn stream_error(&self) -> Option<String> {
        match self.code {
            ExitCode::TurnLimit => Some("Maximum session turns exceeded".to_string()),
            ExitCode::LoopDetected
            | ExitCode::Budget
            | ExitCode::StructuredOutput
            | ExitCode::ResourceLimit => Some(self.message.clone()),
            _ => None,
        }
    }
}

fn report_success(
    outcome: PromptOutcome,
    format: OutputFormat,
    mut printer: Printer,
    end: &Ending,
) {
    if let Some(reason) = &outcome.stopped {
        eprintln!("Agent execution stopped: {reason}");
    }
    match format {
        OutputFormat::Text => {
            if let Some(value) = &outcome.structured_output {
                printer.print_line(&value.to_string());
            }
            // Headless planning ends with the plan.
            if let Some(plan) = &outcome.plan {
                printer.print_line(plan.trim_end());
            }
            printer.finish_text();
        }
        OutputFormat::Json => {
            let body = JsonOutput {
                session_id: Some(end.session_id.to_string()),
                response: Some(outcome.plan.unwrap_or(outcome.last_turn_text)),
                stats: Some(end.stats.clone()),
                error: None,
                structured_output: outcome.structured_output,
            };
            print_stdout(&pretty(&body, end.shape));
        }
        OutputFormat::StreamJson => {
            if let Some(plan) = outcome.plan {
                printer.json_line(&StreamEvent::Message(MessageEvent {
                    timestamp: iso_now(),
                    role: MessageRole::Assistant,
                    content: plan,
                    delta: None,
                    parent_tool_id: None,
                }));
            }
            printer.result_line(ResultEvent {
                timestamp: iso_now(),
                status: Status::Success,
                error: None,
                stats: StreamStats::of(end.stats, end.duration_ms),
                structured_output: outcome.structured_output,
            })
        }
    }
}

async fn sleep_until(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// A start-up note on stderr.
fn print_note(note: &StartupNote) {
    if note.warning {
        eprintln!("[WARNING] {}", note.text);
    } else {
        eprintln!("{}", note.text);
    }
}

fn error_type(err: &AgentError) -> &'static str {
    match err {
        AgentError::TurnLimit => "FatalTurnLimitedError",
        AgentError::Cancelled => "FatalCancellationError",
        AgentError::FatalTool { .. } => "FatalToolExecutionError",
        AgentError::Command { .. } => "FatalCommandError",
        AgentError::Model { .. } => "ApiError",
        AgentError::BudgetExceeded { .. } => "FatalBudgetExceededError",
        AgentError::StructuredOutput { .. } => "FatalStructuredOutputError",
        AgentError::ResourceLimit { .. } => "FatalResourceLimitError",
    }
}

fn report_error(failure: &Failure, format: OutputFormat, mut printer: Printer, end: &Ending) {
    match format {
        OutputFormat::Text => {
            printer.finish_text();
            eprintln!("{}", failure.console);
        }
        OutputFormat::Json => {
            let body = JsonOutput {
                session_id: Some(end.session_id.to_string()),
                error: Some(JsonError {
                    kind: failure.kind.to_string(),
                    message: failure.message.clone(),
                    code: Some(failure.code.code()),
                    stop_reason: failure.limit.as_ref().map(|_| RESOURCE_LIMIT.to_string()),
                    limit: failure.limit.clone(),
                }),
                // What a limit measured is part of its report.
                stats: failure.limit.as_ref().map(|_| end.stats.clone()),
                ..JsonOutput::default()
            };
            eprintln!("{}", pretty(&body, end.shape));
        }
        OutputFormat::StreamJson => {
            if let Some(message) = failure.stream_error() {
                printer.json_line(&StreamEvent::Error(ErrorEvent {
                    timestamp: iso_now(),
                    severity: Severity::Error,
                    message,
                }));
            }
            printer.result_line(ResultEvent {
                timestamp: iso_now(),
                status: Status::Error,
                error: Some(ErrorInfo {
                    kind: failure.kind.to_string(),
                    message: failure.message.clone(),
                    stop_reason: failure.limit.as_ref().map(|_| RESOURCE_LIMIT.to_string()),
                    limit: failure.limit.clone(),
                }),
                stats: StreamStats::of(end.stats, 0),
                structured_output: None,
            });
            eprintln!("{}", failure.console);
        }
    }
}

/// Prints a fatal error that happened before the agent ran (config, auth,
/// input), in the shape of the output format.
pub fn fatal_before_run(
    format: OutputFormat,
    session_id: &str,
    kind: &str,
    message: &str,
    code: ExitCode,
) {
    match format {
        OutputFormat::Text | OutputFormat::StreamJson => eprintln!("{message}"),
        OutputFormat::Json => {
            let body = JsonOutput {
                session_id: Some(session_id.to_string()),
                error: Some(JsonError {
                    kind: kind.to_string(),
                    message: message.to_string(),
                    code: Some(code.code()),
                    stop_reason: None,
                    limit: None,
                }),
                ..JsonOutput::default()
            };
            eprintln!("{}", pretty(&body, config_free_shape()));
        }
    }
}

/// The shape of output printed before the session (and its dialect) is
/// known: it carries no stats, so any dialect's.
fn config_free_shape() -> &'static HeadlessShape {
    gemini_rs_core::Dialect::default().headless()
}

/// `v` as the dialect's output (`shape`) holds it, pretty-printed.
fn pretty(v: &JsonOutput, shape: &HeadlessShape) -> String {
    let mut value = serde_json::to_value(v).unwrap_or_default();
    if let Some(stats) = value.get_mut("stats") {
        shaped_stats(stats, shape);
    }
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

/// Session stats (`SessionStats` JSON) without what the dialect's output
/// lacks: 0.27.4 had neither `errorsByType` nor `roles`.
fn shaped_stats(stats: &mut Value, shape: &HeadlessShape) {
    let models = stats.get_mut("models").and_then(Value::as_object_mut);
    for model in models.into_iter().flat_map(|m| m.values_mut()) {
        let Some(model) = model.as_object_mut() else {
            continue;
        };
        if !shape.roles {
            model.remove("roles");
        }
        if !shape.errors_by_type
            && let Some(api) = model.get_mut("api").and_then(Value::as_object_mut)
        {
            api.remove("errorsByType");
        }
    }
}

fn print_stdout(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{s}");
    let _ = out.flush();
}

/// The model servers answering on this machine, as lines to add to a
/// missing-credentials message (empty when none answers).
async fn local_servers_note(env: &gemini_rs_core::Env) -> String {
    let Ok(ports) = gemini_rs_core::probe_ports(env) else {
        return String::new();
    };
    let mut note = String::new();
    for server in gemini_rs_core::probe_local(&ports).await {
        let models = match server.models.is_empty() {
            true => "no models listed".to_string(),
            false => format!("models: {}", server.models.join(", ")),
        };
        note.push_str(&format!(
            "\nFound on this machine: {} at {} ({models}).",
            server.kind.label(),
            server.base_url
        ));
    }
    note
}
