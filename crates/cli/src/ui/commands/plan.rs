//! `/plan [goal]`: switches the session to plan mode (read-only research,
//! the plan written as Markdown in the plans folder, then approved), and
//! sends the goal, when given, as the first prompt of the plan, or shows
//! the approved plan again; `/plan copy` copies that plan; and
//! Ctrl+G in the plan dialog, which edits the plan in the external editor.

use crate::trust::name_of;
use crate::ui::control::App;
use crate::ui::handlers::external_editor::edit_in_place;
use crate::ui::term::Tui;
use crate::ui::view::confirm::ConfirmDialog;
use gemini_rs_protocol::events::{ApprovalMode, ConfirmationResponse, Op};
use std::path::Path;

/// What the model hears after the user edited the plan (Ctrl+G).
const EDITED: &str = "I edited the plan file (or annotated it with feedback). Review it, revise it where needed, and present it again for approval.";

/// Runs `/plan`.
pub fn run(app: &mut App, goal: Option<String>) {
    if app.state.mode != ApprovalMode::Plan {
        app.state.mode = ApprovalMode::Plan;
        if !app.ctx.ops.submit(Op::SetApprovalMode {
            mode: ApprovalMode::Plan,
        }) {
            app.state.error("The session has ended.");
            return;
        }
        app.state.info("Switched to Plan Mode.");
    }
    match goal {
        Some(goal) => app.send_prompt(goal),
        None => show_approved(app),
    }
}

/// The approved plan, shown again (nothing before one is approved).
fn show_approved(app: &mut App) {
    let Some(path) = app.approved_plan.clone() else {
        return;
    };
    match std::fs::read_to_string(&path) {
        Ok(plan) => {
            app.state
                .info(&format!("Approved Plan: {}", name_of(&path)));
            let width = usize::from(app.state.width);
            app.state
                .push_lines(crate::ui::view::confirm::plan::body(&plan, width));
        }
        Err(e) => app
            .state
            .error(&format!("Cannot read the plan {}: {e}", path.display())),
    }
}

/// `/plan copy`: the approved plan to the clipboard (OSC 52).
pub fn copy(app: &mut App) {
    let Some(path) = app.approved_plan.clone() else {
        app.state.warn("No approved plan found to copy.");
        return;
    };
    match std::fs::read_to_string(&path) {
        Ok(plan) => {
            app.osc = Some(crate::ui::handlers::slash::osc52_copy(&plan));
            app.state.info(&format!(
                "Plan copied to the clipboard ({}, OSC 52).",
                name_of(&path)
            ));
        }
        Err(e) => app
            .state
            .error(&format!("Failed to copy the plan {}: {e}", path.display())),
    }
}

/// Ctrl+G in the plan dialog: the plan file opens in the external editor
/// (the terminal handed over meanwhile); afterwards the model is asked to
/// review the edited plan. A failing editor reopens the dialog.
pub fn edit_plan(
    app: &mut App,
    tui: &mut Tui,
    dialog: ConfirmDialog,
    path: &Path,
) -> std::io::Result<()> {
    let gate = app.ctx.keys.clone();
    gate.pause();
    tui.finish();
    let edited = edit_in_place(path, app.preferred_editor.as_deref());
    let restarted = Tui::start(false);
    gate.resume();
    *tui = restarted?;
    app.clear_requested = false;
    match edited {
        Ok(()) => {
            app.ctx
                .ops
                .submit(Op::Confirm(ConfirmationResponse::plan_feedback(
                    dialog.call_id,
                    EDITED,
                )));
            app.state
                .info(&format!("Edited the plan {}.", path.display()));
            app.state.confirm = app.state.confirm_queue.pop_front();
        }
        Err(e) => {
            app.state.error(&e);
            app.state.confirm = Some(dialog);
        }
    }
    Ok(())
}
