//! What an entered line does: a `/command` runs, `!cmd` goes to the
//! session's shell, anything else is a prompt; while a request runs,
//! prompts and commands that need the conversation wait in a queue.

use crate::ui::control::App;
use crate::ui::handlers::registry::{command, waits};
use gemini_rs_protocol::events::Op;

/// Sends a prompt, runs a command or a shell command (or queues it).
pub fn submit(app: &mut App, text: String) {
    let trimmed = text.trim();
    let waits = app.busy() && (!trimmed.starts_with('/') || waits(trimmed));
    if waits {
        app.state
            .info("Queued; it will be sent when the current request ends.");
        app.state.queued.push_back(text);
    } else if trimmed.starts_with('/') {
        app.state.echo_prompt(trimmed);
        command(app, trimmed);
    } else if let Some(cmd) = trimmed.strip_prefix('!') {
        app.state.echo_prompt(trimmed);
        app.start_op(
            Op::Shell {
                command: cmd.trim().to_string(),
            },
            "Running shell command",
        );
    } else {
        app.state.echo_prompt(&text);
        app.send_prompt(text);
    }
}
