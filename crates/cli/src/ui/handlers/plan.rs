//! `/plan [goal]`: switches the session to plan mode (read-only research,
//! the plan written as Markdown in the plans folder, then approved), and
//! sends the goal, when given, as the first prompt of the plan, or shows
//! the approved plan again; `/plan copy` copies that plan. Ctrl+G in the
//! plan dialog is `external_editor`'s.

use crate::trust::name_of;
use crate::ui::commands::args::Args;
use crate::ui::control::App;
use gemini_rs_protocol::events::{ApprovalMode, Op};

/// Runs `/plan [goal]` or `/plan copy`.
pub fn command(app: &mut App, a: &Args) {
    if is_copy(a) {
        copy(app);
    } else {
        run(app, a.rest_opt());
    }
}

/// True for `/plan copy` (a goal may start with "copy").
pub fn is_copy(a: &Args) -> bool {
    a.sub() == Some("copy") && a.arg().is_empty()
}

/// Plan mode, then the goal as a prompt (or the approved plan shown).
fn run(app: &mut App, goal: Option<String>) {
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
fn copy(app: &mut App) {
    let Some(path) = app.approved_plan.clone() else {
        app.state.warn("No approved plan found to copy.");
        return;
    };
    match std::fs::read_to_string(&path) {
        Ok(plan) => {
            app.osc = Some(crate::ui::term::osc52_copy(&plan));
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
