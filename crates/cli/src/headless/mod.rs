//! Headless mode: run one prompt and report it as text, JSON or
//! stream-JSON on stdout, with messages on stderr and Gemini CLI's exit
//! codes.

mod printer;

use crate::args::OutputFormat;
use crate::setup::Session;
use gemini_rs_core::agent::AgentError;
use gemini_rs_core::agent::expand_at_paths;
use printer::{Printer, iso_now};
use serde_json::json;
use std::io::Write;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// Runs `prompt` (after `@path` expansion and SessionStart hooks) and
/// returns the exit code.
pub async fn run(session: Session, prompt: String, format: OutputFormat, raw_output: bool) -> i32 {
    let Session {
        mut agent,
        events,
        session_id,
        model,
        stats,
        hooks,
        resumed,
        workspace,
        confirmations: _confirmations,
        mcp: _mcp,
        approval_mode: _approval_mode,
        tools: _tools,
        checkpointer: _checkpointer,
    } = session;
    let mut prompt_text = prompt;
    if let Some(h) = &hooks {
        let start = h
            .session_start(if resumed { "resume" } else { "startup" })
            .await;
        if let Some(msg) = &start.system_message {
            eprintln!("{msg}");
        }
        if let Some(ctx) = &start.additional_context {
            prompt_text = format!("<hook_context>{ctx}</hook_context>\n\n{prompt_text}");
        }
    }
    let expanded = expand_at_paths(&prompt_text, &workspace);
    for note in &expanded.notes {
        tracing::debug!("{note}");
    }
    let parts = expanded.parts;
    let started = Instant::now();
    let mut printer = Printer::new(format, raw_output);
    if format == OutputFormat::StreamJson {
        printer.json_line(json!({"type": "init", "timestamp": iso_now(), "session_id": session_id, "model": model}));
        printer.json_line(json!({"type": "message", "timestamp": iso_now(), "role": "user", "content": prompt_text}));
    }
    let consumer = tokio::spawn(printer.consume(events));

    let cancel = CancellationToken::new();
    let ctrl_c = {
        let cancel = cancel.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                cancel.cancel();
            }
        })
    };
    let outcome = agent.run_prompt(parts, &cancel).await;
    ctrl_c.abort();
    if let Some(h) = &hooks {
        h.session_end("exit").await;
    }
    drop(agent);
    let printer = match consumer.await {
        Ok(p) => p,
        Err(_) => Printer::new(format, raw_output),
    };
    let stats = stats.lock().map(|s| s.clone()).unwrap_or_default();
    let duration_ms = started.elapsed().as_millis() as u64;
    match outcome {
        Ok(outcome) => {
            if let Some(reason) = &outcome.stopped {
                eprintln!("Agent execution stopped: {reason}");
            }
            match format {
                OutputFormat::Text => printer.finish_text(),
                OutputFormat::Json => {
                    let body = json!({"session_id": session_id, "response": outcome.last_turn_text, "stats": stats.to_json()});
                    print_stdout(&pretty(&body));
                }
                OutputFormat::StreamJson => {
                    let mut p = printer;
                    p.json_line(
                        json!({"type": "result", "timestamp": iso_now(), "status": "success",
                        "stats": printer::stream_stats(&stats, duration_ms)}),
                    );
                }
            }
            0
        }
        Err(err) => {
            let code = err.exit_code();
            report_error(&err, code, format, &session_id, printer, &stats);
            code
        }
    }
}

fn error_type(err: &AgentError) -> &'static str {
    match err {
        AgentError::TurnLimit => "FatalTurnLimitedError",
        AgentError::Cancelled => "FatalCancellationError",
        AgentError::FatalTool(_) => "FatalToolExecutionError",
        AgentError::Model(_) => "ApiError",
    }
}

fn report_error(
    err: &AgentError,
    code: i32,
    format: OutputFormat,
    session_id: &str,
    printer: Printer,
    stats: &gemini_rs_core::agent::stats::SessionStats,
) {
    let message = match err {
        AgentError::Model(e) => format!("Error when talking to Gemini API: {e}"),
        other => other.to_string(),
    };
    match format {
        OutputFormat::Text => {
            printer.finish_text();
            eprintln!("{message}");
        }
        OutputFormat::Json => {
            let body = json!({"session_id": session_id,
                "error": {"type": error_type(err), "message": err.to_string(), "code": code}});
            eprintln!("{}", pretty(&body));
        }
        OutputFormat::StreamJson => {
            let mut p = printer;
            if matches!(err, AgentError::TurnLimit) {
                p.json_line(
                    json!({"type": "error", "timestamp": iso_now(), "severity": "error",
                    "message": "Maximum session turns exceeded"}),
                );
            }
            p.json_line(
                json!({"type": "result", "timestamp": iso_now(), "status": "error",
                "error": {"type": error_type(err), "message": err.to_string()},
                "stats": printer::stream_stats(stats, 0)}),
            );
            eprintln!("{message}");
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
    code: i32,
) {
    match format {
        OutputFormat::Text | OutputFormat::StreamJson => eprintln!("{message}"),
        OutputFormat::Json => {
            let body = json!({"session_id": session_id, "error": {"type": kind, "message": message, "code": code}});
            eprintln!("{}", pretty(&body));
        }
    }
}

fn pretty(v: &serde_json::Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

fn print_stdout(s: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{s}");
    let _ = out.flush();
}
