//! What a key does: line editing, completion, history, Ctrl-C / Esc, the
//! approval-mode cycle, and answering the open confirmation dialog; Enter
//! hands the line to `handlers::submit`.

use crate::ui::control::App;
use crate::ui::handlers::submit::submit;
use crate::ui::input::{complete, vim};
use crate::ui::state::UiState;
use gemini_rs_protocol::events::{ApprovalMode, Op};
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use std::time::{Duration, Instant};

pub fn on_term_event(app: &mut App, ev: Event) {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => on_key(app, k),
        Event::Paste(text)
            if app.state.confirm.is_none()
                && app.state.elicit.is_none()
                && app.state.ask_user.is_none()
                && app.state.dialog.is_none() =>
        {
            app.state.input.insert_str(&text);
            refresh_completion(app);
        }
        _ => {}
    }
}

fn on_key(app: &mut App, key: KeyEvent) {
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    if !(ctrl && key.code == KeyCode::Char('c')) {
        app.state.notice = None;
    }
    if dialog_key(app, key) {
        return;
    }
    let Some(key) = vim_key(app, key, ctrl || alt) else {
        return;
    };
    let s = &mut app.state;
    match key.code {
        KeyCode::Char('c') if ctrl => ctrl_c(app),
        KeyCode::Char('d') if ctrl => {
            if s.input.is_empty() {
                app.quit = true;
            } else {
                s.input.delete();
            }
        }
        KeyCode::Char('l') if ctrl => app.clear_requested = true,
        KeyCode::Char('o') if ctrl => s.toggle_nested(),
        KeyCode::Char('j') if ctrl => s.input.insert('\n'),
        KeyCode::Enter if alt || key.modifiers.contains(KeyModifiers::SHIFT) => {
            s.input.insert('\n');
        }
        KeyCode::Enter => {
            enter(app);
            return;
        }
        KeyCode::Esc => {
            if s.completion.is_some() {
                s.completion = None;
            } else if app.busy() {
                app.cancel_running();
            } else {
                double_esc(app);
            }
            return;
        }
        KeyCode::Char('y') if ctrl => {
            // Ctrl+Y toggles yolo, as in Gemini CLI.
            let next = if s.mode == ApprovalMode::Yolo {
                ApprovalMode::Default
            } else {
                ApprovalMode::Yolo
            };
            s.mode = next;
            app.ctx.ops.submit(Op::SetApprovalMode { mode: next });
            return;
        }
        KeyCode::BackTab => {
            let next = s.next_mode();
            s.mode = next;
            app.ctx.ops.submit(Op::SetApprovalMode { mode: next });
            return;
        }
        KeyCode::Tab => {
            accept_completion(app);
            return;
        }
        KeyCode::Up | KeyCode::Char('p') if key.code == KeyCode::Up || ctrl => {
            return step_up(s);
        }
        KeyCode::Down | KeyCode::Char('n') if key.code == KeyCode::Down || ctrl => {
            return step_down(s);
        }
        KeyCode::Char('a') if ctrl => s.input.home(),
        KeyCode::Char('e') if ctrl => s.input.end(),
        KeyCode::Char('u') if ctrl => s.input.kill_to_start(),
        KeyCode::Char('k') if ctrl => s.input.kill_to_end(),
        KeyCode::Char('w') if ctrl => s.input.delete_word(),
        KeyCode::Char('b') if ctrl => s.input.left(),
        KeyCode::Char('f') if ctrl => s.input.right(),
        KeyCode::Char('b') if alt => s.input.word_left(),
        KeyCode::Char('f') if alt => s.input.word_right(),
        KeyCode::Backspace if alt || ctrl => s.input.delete_word(),
        KeyCode::Char(c) if !ctrl => s.input.insert(c),
        KeyCode::Backspace => s.input.backspace(),
        KeyCode::Delete => s.input.delete(),
        KeyCode::Left if ctrl || alt => s.input.word_left(),
        KeyCode::Right if ctrl || alt => s.input.word_right(),
        KeyCode::Left => s.input.left(),
        KeyCode::Right => s.input.right(),
        KeyCode::Home => s.input.home(),
        KeyCode::End => s.input.end(),
        _ => return,
    }
    app.state.history.reset();
    refresh_completion(app);
}

/// Gives the key to an open form or dialog (a question form, an
/// elicitation form, a panel dialog, a confirmation); false when none is
/// open.
fn dialog_key(app: &mut App, key: KeyEvent) -> bool {
    if let Some(form) = app.state.ask_user.as_mut() {
        if let Some(reply) = form.on_key(key) {
            let id = form.id;
            app.state.ask_user = None;
            app.ctx.ops.submit(Op::AnswerQuestions { id, reply });
        }
        return true;
    }
    if let Some(form) = app.state.elicit.as_mut() {
        if let Some(reply) = form.on_key(key) {
            let id = form.id;
            app.state.elicit = None;
            app.ctx.ops.submit(Op::AnswerElicitation { id, reply });
        }
        return true;
    }
    if app.state.confirm.is_none() && app.state.dialog.is_some() {
        crate::ui::handlers::dialog::on_key(app, key);
        return true;
    }
    if let Some(dialog) = app.state.confirm.as_mut() {
        if let Some(outcome) = dialog.on_key(key) {
            app.answer(outcome);
        }
        return true;
    }
    false
}

/// Up: the previous suggestion, the line above, or the previous prompt.
fn step_up(s: &mut UiState) {
    if let Some(c) = s.completion.as_mut() {
        c.step(false);
    } else if !s.input.up() {
        let cur = s.input.text().to_string();
        if let Some(t) = s.history.prev(&cur) {
            let t = t.to_string();
            s.input.set(&t);
        }
    }
}

/// Down: the next suggestion, the line below, or the next prompt.
fn step_down(s: &mut UiState) {
    if let Some(c) = s.completion.as_mut() {
        c.step(true);
    } else if !s.input.down()
        && let Some(t) = s.history.next()
    {
        let t = t.to_string();
        s.input.set(&t);
    }
}

/// Lets vim mode see a key first: `None` when it handled the key, else
/// the key to handle as usual (`j` in normal mode comes back as Down).
fn vim_key(app: &mut App, key: KeyEvent, modified: bool) -> Option<KeyEvent> {
    let busy = app.busy();
    let s = &mut app.state;
    if modified || !s.vim.enabled || (key.code == KeyCode::Esc && s.completion.is_some()) {
        return Some(key);
    }
    match s.vim.on_key(&mut s.input, key, busy) {
        vim::Outcome::Key(key) => Some(key),
        vim::Outcome::Handled => {
            s.completion = None;
            None
        }
    }
}

fn refresh_completion(app: &mut App) {
    let prev = app.state.completion.take();
    // Commands are gathered after a `/`, MCP resources after an `@` (not
    // on every key).
    let token = app.state.input.token_at_cursor().1;
    let (slash, at) = (token.starts_with('/'), token.starts_with('@'));
    let view = app.ctx.info.clone();
    let resources = if at {
        view.mcp_resource_references()
    } else {
        Vec::new()
    };
    let commands = if slash { view.commands() } else { Vec::new() };
    let list_dir = |dir: &str, prefix: &str| view.path_entries(dir, prefix, 50);
    let builtin = super::registry::listed();
    let mut next = complete::compute(
        &app.state.input,
        Some(&list_dir),
        (&builtin, &commands),
        &resources,
    );
    if let (Some(p), Some(n)) = (&prev, &mut next)
        && p.token == n.token
    {
        n.selected = p.selected.min(n.items.len().saturating_sub(1));
    }
    app.state.completion = next;
}

/// Accepts the highlighted suggestion; true when one was accepted.
fn accept_completion(app: &mut App) -> bool {
    let Some(c) = app.state.completion.take() else {
        return false;
    };
    let Some(item) = c.current() else {
        return false;
    };
    let value = if item.value.ends_with('/') {
        item.value.clone()
    } else {
        format!("{} ", item.value)
    };
    app.state.input.replace_before_cursor(c.start, &value);
    if item.value.ends_with('/') {
        refresh_completion(app);
    }
    true
}

fn enter(app: &mut App) {
    let s = &mut app.state;
    if let Some(c) = &s.completion
        && let Some(item) = c.current()
        && item.value != c.token
    {
        let is_command = item.value.starts_with('/');
        accept_completion(app);
        if !is_command {
            return;
        }
    }
    let s = &mut app.state;
    if s.input.text()[..s.input.cursor()].ends_with('\\') {
        s.input.backspace();
        s.input.insert('\n');
        return;
    }
    let text = s.input.take();
    s.completion = None;
    if text.trim().is_empty() {
        return;
    }
    s.history.push(text.trim_end());
    submit(app, text);
}

fn ctrl_c(app: &mut App) {
    let now = Instant::now();
    if app.busy() {
        app.cancel_running();
        return;
    }
    if !app.state.input.is_empty() {
        app.state.input.take();
        app.state.completion = None;
        return;
    }
    if app
        .last_ctrl_c
        .is_some_and(|t| now.duration_since(t) < Duration::from_secs(2))
    {
        app.quit = true;
        return;
    }
    app.last_ctrl_c = Some(now);
    app.state.notice = Some(("Press Ctrl-C again to exit.".into(), now));
}

/// Esc twice within half a second while idle: clears the prompt, or on an
/// empty prompt opens `/rewind`, as in Gemini CLI.
fn double_esc(app: &mut App) {
    let now = Instant::now();
    let twice = app
        .last_esc
        .is_some_and(|t| now.duration_since(t) < Duration::from_millis(500));
    app.last_esc = (!twice).then_some(now);
    if !twice {
        return;
    }
    if app.state.input.is_empty() {
        super::registry::command(app, "/rewind");
    } else {
        app.state.input.set("");
    }
}
