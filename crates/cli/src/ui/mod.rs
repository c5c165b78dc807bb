//! The interactive terminal UI: an inline ratatui viewport under the
//! terminal's own scrollback, where finished answers, tool cards and notes
//! are pushed as they complete.

mod app;
mod cards;
mod chat;
mod commands;
mod complete;
mod confirm;
mod editor;
mod highlight;
mod history;
mod input;
mod keys;
mod markdown;
mod panels;
mod render;
mod shell;
mod slash;
mod state;
mod term;
mod wrap;

#[cfg(test)]
mod panel_tests;
#[cfg(test)]
mod tests;

use crate::args::Args;
use crate::setup;
use gemini_rs_core::config::{GeminiPaths, Settings};
use ratatui::crossterm::event;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::path::Path;
use std::time::Instant;

/// Builds the session and runs the interactive UI; returns the exit code.
pub fn start(
    args: &Args,
    settings: Settings,
    paths: &GeminiPaths,
    root: &Path,
    trusted: bool,
    session_id: String,
    initial: Option<String>,
) -> i32 {
    let mode = setup::approval_mode(args, trusted);
    let ui_settings = std::sync::Arc::new(settings.clone());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let code = runtime.block_on(async {
        let session = match setup::build(setup::SetupInput {
            args,
            settings,
            paths,
            root,
            trusted,
            interactive: true,
            session_id: session_id.clone(),
        })
        .await
        {
            Ok(s) => s,
            Err(e) => {
                crate::headless::fatal_before_run(
                    args.output_format,
                    &session_id,
                    e.kind,
                    &e.message,
                    e.code,
                );
                return e.code;
            }
        };
        let mcp = session.mcp.clone();
        let code = run(session, paths.clone(), ui_settings, mode, initial).await;
        if let Some(mcp) = mcp {
            mcp.shutdown().await;
        }
        code
    });
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    code
}

fn home_relative(p: &Path, home: &Path) -> String {
    match p.strip_prefix(home) {
        Ok(rest) if !home.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => p.display().to_string(),
    }
}

async fn run(
    session: setup::Session,
    paths: GeminiPaths,
    settings: std::sync::Arc<Settings>,
    mode: gemini_rs_core::policy::ApprovalMode,
    initial: Option<String>,
) -> i32 {
    let setup::Session {
        agent,
        events,
        confirmations,
        session_id,
        model,
        stats,
        hooks,
        resumed,
        workspace,
        approval_mode,
        tools,
        mcp,
        checkpointer,
        ..
    } = session;
    let mut notes = Vec::new();
    let mut hook_context = None;
    if let Some(h) = &hooks {
        let start = h
            .session_start(if resumed { "resume" } else { "startup" })
            .await;
        if let Some(msg) = start.system_message {
            notes.push(msg);
        }
        hook_context = start.additional_context;
    }
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_default();
    let label = home_relative(workspace.target_dir(), &home);
    let history = history::History::load(workspace.project_temp_dir().join("input_history.jsonl"));
    let mut state = state::UiState::new(model.clone(), label, mode, history);
    state.mcp_status = mcp
        .as_ref()
        .map(|m| (m.connections().len(), m.failures().len()));
    let keys = std::sync::Arc::new(editor::KeyGate::default());
    state.push_lines(banner(&model, resumed, &session_id));
    for n in notes {
        state.info(&n);
    }
    let ctx = app::Ctx {
        session_id,
        stats,
        workspace,
        paths,
        confirmations,
        // Shared with the scheduler once `Session` exposes them.
        mode: Some(approval_mode),
        tools: Some(tools),
        started: Instant::now(),
        hook_context,
        mcp,
        hooks: hooks.clone(),
        checkpointer,
        settings,
        keys: keys.clone(),
    };

    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        term::restore();
        prev(info);
    }));
    let mut tui = match term::Tui::start() {
        Ok(t) => t,
        Err(e) => {
            term::restore();
            eprintln!("Cannot start the terminal UI: {e}");
            return 1;
        }
    };
    let (key_tx, key_rx) = tokio::sync::mpsc::unbounded_channel();
    let gate = keys;
    std::thread::spawn(move || {
        loop {
            if key_tx.is_closed() {
                break;
            }
            if gate.hold() {
                std::thread::sleep(std::time::Duration::from_millis(10));
                continue;
            }
            match event::poll(std::time::Duration::from_millis(50)) {
                Ok(false) => continue,
                Ok(true) => {}
                Err(_) => break,
            }
            let Ok(ev) = event::read() else { break };
            if key_tx.send(ev).is_err() {
                break;
            }
        }
    });
    let app = app::App::new(state, ctx, agent);
    let result = app.run(&mut tui, events, key_rx, initial).await;
    tui.finish();
    if let Some(h) = &hooks {
        h.session_end("exit").await;
    }
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Terminal error: {e}");
            1
        }
    }
}

fn banner(model: &str, resumed: bool, session_id: &str) -> Vec<Line<'static>> {
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
