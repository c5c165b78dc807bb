//! The interactive terminal UI: an inline ratatui viewport under the
//! terminal's own scrollback, where finished answers, tool cards and notes
//! are pushed as they complete.
//!
//! Modules import only downwards (no cycles):
//! - `app`: the loop; dispatches keys and events to the ones below.
//! - `handlers`: what keys, an entered line, slash commands and "modify
//!   with editor" do, as free functions over `control::App`.
//! - `control`: `App` (screen state, op sender, flags) and shared actions.
//! - `render` (the live area from `state`), `term` (the terminal).
//! - `state`: the screen state, updated by session events.
//! - `input` (line editor, history, completion), `commands` (slash command
//!   table, parser and screens), `view` (wrapping, Markdown, cards, the
//!   confirmation dialog), `key_gate`: plain data and drawing.

mod app;
mod commands;
mod control;
mod handlers;
mod input;
mod key_gate;
mod leave;
mod render;
mod resume;
mod size;
mod state;
mod state_events;
mod term;
pub mod theme;
mod view;

pub use view::cards::set_screen_reader;

#[cfg(test)]
mod panel_tests;
#[cfg(test)]
mod tests;

use crate::args::OutputFormat;
use crate::exit::ExitCode;
use gemini_rs_core::{Session, SessionConfig, StartErrorKind};
use ratatui::crossterm::event;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::path::Path;
use std::time::Instant;

/// How many terminal events the UI holds unread before the thread that
/// reads the terminal waits.
const KEY_QUEUE_CAPACITY: usize = 256;

/// How the UI ended.
pub enum Ended {
    /// The session ran (or could not start): the exit code.
    Exit(ExitCode),
    /// It found no credentials and the user chose a provider (saved in the
    /// settings): start again with the settings read anew.
    Chosen(commands::auth::Chosen),
}

/// Starts the session and runs the interactive UI. Without credentials the
/// provider picker opens first.
pub fn start(config: SessionConfig, format: OutputFormat, initial: Option<String>) -> Ended {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return Ended::Exit(ExitCode::Error);
        }
    };
    let ended = runtime.block_on(async {
        let mut config = config;
        let mut initial = initial;
        // `/resume` leaves one session for another with the same flags.
        loop {
            let session_id = config.session_id.clone();
            let (config_paths, config_env) = (config.paths.clone(), config.env.clone());
            let handle = match Session::start(config.clone()).await {
                Ok(h) => h,
                Err(e) => {
                    for note in &e.notes {
                        eprintln!("{note}");
                    }
                    if e.kind == StartErrorKind::Auth {
                        let why = Some(e.message.as_str());
                        match commands::auth::choose(&config_paths, &config_env, why).await {
                            Ok(Some(chosen)) => return Ended::Chosen(chosen),
                            Ok(None) => {}
                            Err(err) => eprintln!("{err}"),
                        }
                    }
                    let code = ExitCode::of_start_error(e.kind);
                    crate::headless::fatal_before_run(
                        format,
                        &session_id,
                        e.class,
                        &e.message,
                        code,
                    );
                    return Ended::Exit(code);
                }
            };
            match run(handle, initial.take()).await {
                (_, Some(next)) => config.resume = Some(next),
                (code, None) => return Ended::Exit(code),
            }
        }
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    ended
}

/// The theme: `NO_COLOR` wins, then `ui.theme` (an unknown name is
/// warned about), then the default for the terminal's background.
fn choose_theme(
    state: &mut state::UiState,
    configured: Option<&str>,
    no_color: bool,
    background: Option<theme::Kind>,
) -> theme::Theme {
    let default = theme::default_for(background.unwrap_or(theme::Kind::Dark));
    if no_color {
        return theme::by_name("NoColor").unwrap_or(default);
    }
    match configured {
        None => default,
        Some(name) => theme::by_name(name).unwrap_or_else(|| {
            state.warn(&format!(
                "Unknown theme \"{name}\" in ui.theme; using \"{}\". Known themes: {}.",
                default.name,
                theme::Theme::names().join(", ")
            ));
            default
        }),
    }
}

fn home_relative(p: &Path, home: &Path) -> String {
    match p.strip_prefix(home) {
        Ok(rest) if !home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => p.display().to_string(),
    }
}

/// Runs one session's UI; returns its exit code and, when `/resume` chose
/// another session, that session's id.
async fn run(
    handle: gemini_rs_core::SessionHandle,
    initial: Option<String>,
) -> (ExitCode, Option<String>) {
    let notes = handle.notes.clone();
    let (ops, events, info, task) = handle.into_parts();
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let label = home_relative(info.root(), &home);
    let history =
        input::history::History::load(info.project_temp_dir().join("input_history.jsonl"));
    let summary = info.summary().clone();
    let mut state =
        state::UiState::new(summary.model.clone(), label, summary.approval_mode, history);
    state.context_window = info.context_window(&summary.model);
    state.set_mcp_status(&info.mcp_servers());
    let keys = std::sync::Arc::new(key_gate::KeyGate::default());
    // A resumed session is drawn at the window's width, not the default.
    if let Ok((w, h)) = size::terminal_size() {
        state.width = w;
        state.height = h;
    }
    state.push_lines(banner(&summary.model, summary.resumed, &summary.session_id));
    if summary.resumed
        && let Ok((_, history)) =
            gemini_rs_core::session_history(info.paths(), info.root(), &summary.session_id)
    {
        resume::push_history(&mut state, &history);
    }
    for n in notes {
        // Notes written as warnings (the project-hooks one, in Gemini CLI's
        // words) show as warnings too.
        match n.text.strip_prefix("WARNING: ") {
            Some(text) => state.warn(text),
            None if n.warning => state.warn(&n.text),
            None => state.info(&n.text),
        }
    }
    let ctx = control::Ctx {
        info,
        ops,
        started: Instant::now(),
        keys: keys.clone(),
    };

    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        term::restore();
        prev(info);
    }));
    let configured_theme = ctx.info.settings().typed().ui.theme.clone();
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let mut tui = match term::Tui::start(!no_color && configured_theme.is_none()) {
        Ok(t) => t,
        Err(e) => {
            term::restore();
            eprintln!("Cannot start the terminal UI: {e}");
            ctx.ops.submit(gemini_rs_protocol::events::Op::Shutdown);
            let _ = task.await;
            return (ExitCode::Error, None);
        }
    };
    theme::set(choose_theme(
        &mut state,
        configured_theme.as_deref(),
        no_color,
        tui.background,
    ));
    // Bounded: a busy UI makes the reader thread wait; the terminal keeps
    // the keys not read yet.
    let (key_tx, key_rx) = tokio::sync::mpsc::channel(KEY_QUEUE_CAPACITY);
    let gate = keys;
    let stdin_tty = std::io::IsTerminal::is_terminal(&std::io::stdin());
    std::thread::spawn(move || {
        loop {
            if key_tx.is_closed() {
                break;
            }
            if gate.hold() {
                std::thread::sleep(std::time::Duration::from_millis(10));
                continue;
            }
            // Ending the loop drops the sender: the UI takes that as the
            // terminal's hangup.
            match event::poll(std::time::Duration::from_millis(50)) {
                Ok(false) if stdin_tty && term::input_closed() => break,
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => break,
            }
            let Ok(ev) = event::read() else { break };
            if key_tx.blocking_send(ev).is_err() {
                break;
            }
        }
    });
    let mut app = control::App::new(state, ctx);
    let result = app::run(&mut app, &mut tui, events, key_rx, initial).await;
    tui.finish();
    let wait = match result {
        Ok(Some(_)) => crate::signals::TASK_GRACE,
        _ => crate::signals::GRACE,
    };
    let _ = tokio::time::timeout(wait, task).await;
    let next = app.resume_request.take();
    match result {
        Ok(Some(signalled)) => (signalled, None),
        Ok(None) => {
            if next.is_none() {
                let stats = &app.state.stats;
                let resumable = summary.resumed || !stats.models.is_empty();
                let id = app.ctx.info.session_id();
                print!(
                    "{}",
                    leave::summary(stats, app.ctx.started.elapsed(), id, resumable)
                );
            }
            (ExitCode::Ok, next)
        }
        Err(e) => {
            eprintln!("Terminal error: {e}");
            (ExitCode::Error, None)
        }
    }
}

/// The lines a session starts with (and a rewound one is drawn under).
pub(crate) fn banner(model: &str, resumed: bool, session_id: &str) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(vec![
        Span::styled(
            "✦ gemini-rs ",
            Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("{} · {model}", env!("CARGO_PKG_VERSION")),
            Style::new().fg(Color::DarkGray),
        ),
    ])];
    out.push(Line::from(Span::styled(
        "Tips: /help for commands, @path to add a file, !cmd for the shell, Shift+Tab to change the approval mode.",
        Style::new().fg(Color::DarkGray),
    )));
    if resumed {
        out.push(Line::from(Span::styled(
            format!("Resumed session {session_id}."),
            Style::new().fg(Color::DarkGray),
        )));
    }
    out
}
