//! The interactive session's loop: keys and session events in, drawing
//! when something changed. It only dispatches: keys go to
//! `handlers::keys`, events to the screen state, a finished op lets the
//! next queued prompt go. The session (core) owns the conversation; the
//! UI only submits ops and shows events.

use crate::exit::ExitCode;
use crate::ui::control::App;
use crate::ui::handlers::external_editor::run_editor;
use crate::ui::handlers::keys::on_term_event;
use crate::ui::handlers::submit::submit;
use crate::ui::render::live_lines;
use crate::ui::term::Tui;
use gemini_rs_protocol::events::{AgentError, AgentEvent, Finished, Op};
use ratatui::crossterm::event::Event;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// Runs until the user quits or a signal arrives, then shuts the
/// session down (cancelling what runs) and waits for its end. Returns the
/// exit code of the signal that ended it, if one did.
pub async fn run(
    app: &mut App,
    tui: &mut Tui,
    mut events: mpsc::Receiver<AgentEvent>,
    mut keys: mpsc::Receiver<Event>,
    initial: Option<String>,
) -> std::io::Result<Option<ExitCode>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate())?;
    let mut hup = signal(SignalKind::hangup())?;
    let mut int = signal(SignalKind::interrupt())?;
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // Background shells are counted once a second for the footer.
    let mut shells = tokio::time::interval(Duration::from_secs(1));
    shells.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    if let Some(p) = initial.filter(|p| !p.trim().is_empty()) {
        submit(app, p);
    }
    let mut ended = false;
    let mut signalled = None;
    loop {
        if let Some(dialog) = app.editor_request.take() {
            run_editor(app, tui, dialog)?;
        }
        if let Some(picker) = app.picker_request.take() {
            crate::ui::handlers::model::run(app, tui, picker).await?;
        }
        if let Err(e) = frame(app, tui) {
            // A terminal that went away ends the session as its hangup
            // does; any other drawing error is reported.
            if !terminal_gone(&e) {
                return Err(e);
            }
            signalled = Some(ExitCode::HungUp);
            break;
        }
        if app.quit {
            break;
        }
        tokio::select! {
            ev = keys.recv() => match ev {
                Some(ev) => on_term_event(app, ev),
                // The key reader stops only when the terminal is gone
                // (EOF, EIO, hangup): the same as SIGHUP.
                None => {
                    signalled = Some(ExitCode::HungUp);
                    break;
                }
            },
            ev = events.recv() => {
                let Some(ev) = ev else {
                    ended = true;
                    break;
                };
                // Apply a burst of events before drawing once.
                ended = on_event(app, ev);
                while !ended && let Ok(ev) = events.try_recv() {
                    ended = on_event(app, ev);
                }
                if ended {
                    break;
                }
            }
            _ = tick.tick(), if app.state.animating() => {}
            _ = shells.tick() => count_shells(app),
            _ = term.recv() => {
                signalled = Some(ExitCode::Terminated);
                break;
            }
            _ = hup.recv() => {
                signalled = Some(ExitCode::HungUp);
                break;
            }
            // SIGINT from outside (the terminal's own Ctrl+C arrives as a
            // key in raw mode) does what the key does.
            _ = int.recv() => on_term_event(app, ctrl_c_key()),
        }
    }
    app.ctx.ops.submit(Op::Cancel);
    app.ctx.ops.submit(Op::Shutdown);
    if !ended {
        let drain = async {
            while let Some(ev) = events.recv().await {
                match ev {
                    AgentEvent::SessionEnded => break,
                    // The last counts, for the summary printed on leaving.
                    AgentEvent::Stats(stats) => app.state.stats = *stats,
                    _ => {}
                }
            }
        };
        // After a signal, part of the grace only: the process still ends
        // what is left of its children before it exits within it.
        let wait = if signalled.is_some() {
            crate::signals::SESSION_GRACE
        } else {
            crate::signals::GRACE
        };
        let _ = tokio::time::timeout(wait, drain).await;
    }
    Ok(signalled)
}

/// Counts the background shells still running (the footer shows them).
fn count_shells(app: &mut App) {
    app.state.background_running = app
        .ctx
        .info
        .background_processes(0)
        .iter()
        .filter(|p| p.status == gemini_rs_protocol::events::BackgroundStatus::Running)
        .count();
}

/// The key event of Ctrl+C.
fn ctrl_c_key() -> Event {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL))
}

/// Whether a terminal write failed because the terminal is gone (closed
/// window, ended tmux session, revoked tty).
fn terminal_gone(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EIO | libc::ENXIO | libc::EBADF | libc::ENOTTY | libc::EPIPE)
    ) || e.kind() == std::io::ErrorKind::BrokenPipe
}

/// Applies one session event; true when the session ended.
fn on_event(app: &mut App, ev: AgentEvent) -> bool {
    match ev {
        AgentEvent::Finished { finished, .. } => on_finished(app, finished),
        AgentEvent::SessionEnded => return true,
        ev @ (AgentEvent::Content { .. }
        | AgentEvent::Thought { .. }
        | AgentEvent::ToolCallRequested { .. }
        | AgentEvent::ToolAwaitingApproval { .. }
        | AgentEvent::ToolRunning { .. }
        | AgentEvent::ToolOutput { .. }
        | AgentEvent::ToolFinished(_)
        | AgentEvent::Nested { .. }
        | AgentEvent::ElicitationRequested { .. }
        | AgentEvent::QuestionsAsked { .. }
        | AgentEvent::Usage { .. }
        | AgentEvent::Warning { .. }
        | AgentEvent::Info { .. }
        | AgentEvent::Error { .. }
        | AgentEvent::HookMessage { .. }
        | AgentEvent::Stats(_)
        | AgentEvent::HookRan(_)
        | AgentEvent::ModelTurnFinished
        | AgentEvent::ModelRetry { .. }
        | AgentEvent::SessionStarted { .. }
        | AgentEvent::PromptStarted { .. }
        | AgentEvent::ApprovalModeChanged { .. }
        | AgentEvent::ModelChanged { .. }
        | AgentEvent::HistoryReplaced { .. }
        | AgentEvent::McpServersChanged { .. }
        | AgentEvent::Acknowledged { .. }) => app.state.on_agent_event(ev, Instant::now()),
    }
    false
}

fn frame(app: &mut App, tui: &mut Tui) -> std::io::Result<()> {
    tui.begin_sync()?;
    let r = frame_inner(app, tui);
    tui.end_sync()?;
    r
}

fn frame_inner(app: &mut App, tui: &mut Tui) -> std::io::Result<()> {
    if tui.check_resize()? {
        app.state.out.push(ratatui::text::Line::default());
    }
    let (w, h) = tui.size();
    app.state.width = w;
    app.state.height = h;
    if app.clear_requested {
        app.clear_requested = false;
        tui.clear_screen()?;
    }
    if let Some(osc) = app.osc.take() {
        tui.write_raw(&osc)?;
    }
    let out = std::mem::take(&mut app.state.out);
    if !out.is_empty() {
        tui.insert(out)?;
    }
    let (lines, cursor) = live_lines(&app.state, w, h, Instant::now());
    tui.draw(lines, cursor)
}

/// The conversation after a `/rewind`: the screen is cleared and drawn
/// again as the conversation now is (the banner, then what is left), as
/// Gemini CLI 0.61 draws it; lines queued since the last frame follow.
fn show_rewound(app: &mut App, history: &[gemini_rs_protocol::Content]) {
    app.clear_requested = true;
    let pending = std::mem::take(&mut app.state.out);
    let summary = app.ctx.info.summary();
    let banner = super::banner(&app.state.model, summary.resumed, &summary.session_id);
    app.state.push_lines(banner);
    super::resume::push_history(&mut app.state, history);
    app.state.out.extend(pending);
}

fn on_finished(app: &mut App, finished: Finished) {
    app.pending = app.pending.saturating_sub(1);
    if app.pending == 0 {
        app.state.end_busy(Instant::now());
    }
    match finished {
        Finished::Prompt(Ok(outcome)) => {
            if !outcome.last_turn_text.is_empty() {
                app.state.last_answer = outcome.last_turn_text;
            }
            if let Some(reason) = outcome.stopped {
                app.state
                    .warn(&format!("Agent execution stopped: {reason}"));
            }
        }
        Finished::Prompt(Err(AgentError::Cancelled)) => app.state.warn("Request cancelled."),
        Finished::Prompt(Err(AgentError::Model { error: e })) => app
            .state
            .error(&format!("Error when talking to {}: {e}", e.api())),
        Finished::Prompt(Err(
            e @ (AgentError::TurnLimit
            | AgentError::FatalTool { .. }
            | AgentError::Command { .. }
            | AgentError::BudgetExceeded { .. }
            | AgentError::StructuredOutput { .. }
            | AgentError::ResourceLimit { .. }),
        )) => app.state.error(&e.to_string()),
        Finished::Compress { compressed: false } => {
            app.state.warn("The conversation was not compressed.")
        }
        Finished::Rewound { history, warnings } => {
            show_rewound(app, &history);
            for w in warnings {
                app.state.warn(&w);
            }
        }
        Finished::Compress { compressed: true }
        | Finished::Clear
        | Finished::Command
        | Finished::Tool { .. } => {}
    }
    if !app.busy()
        && let Some(next) = app.state.queued.pop_front()
    {
        submit(app, next);
    }
}
