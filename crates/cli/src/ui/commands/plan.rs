//! `/plan [goal]`: switches the session to plan mode (read-only research,
//! the plan written as Markdown in the plans folder, then approved), and
//! sends the goal, when given, as the first prompt of the plan.

use crate::ui::control::App;
use gemini_rs_protocol::events::{ApprovalMode, Op};

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
    if let Some(goal) = goal {
        app.send_prompt(goal);
    }
}
