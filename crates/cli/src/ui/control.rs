//! The running UI's data, [`App`]: the screen state, the session's op
//! sender and the loop's flags, with the few actions every handler shares
//! (start an op, cancel, answer the open dialog). It calls no handler and
//! not the loop, so handlers and the loop can both build on it.

use crate::ui::key_gate::KeyGate;
use crate::ui::state::UiState;
use crate::ui::view::cards::CardStatus;
use crate::ui::view::confirm::ConfirmDialog;
use gemini_rs_core::setting_defaults::VIM_MODE;
use gemini_rs_core::{OpSender, SessionView};
use gemini_rs_protocol::events::ApprovalMode;
use gemini_rs_protocol::events::ConfirmationDetails;
use gemini_rs_protocol::events::{ConfirmationOutcome, ConfirmationResponse, Op};
use std::sync::Arc;
use std::time::Instant;

/// Everything the loop works with besides the screen state.
pub struct Ctx {
    /// What the session is made of.
    pub info: Arc<SessionView>,
    /// Where ops go.
    pub ops: OpSender,
    /// When the session started.
    pub started: Instant,
    /// Pauses the key reader while an editor runs.
    pub keys: Arc<KeyGate>,
}

/// The running session as the UI sees it.
pub struct App {
    /// Screen state.
    pub state: UiState,
    /// The session and what it is made of.
    pub ctx: Ctx,
    /// Ops submitted that wait for their `Finished` event.
    pub pending: usize,
    /// When Ctrl-C was last pressed on an empty prompt (twice quits).
    pub last_ctrl_c: Option<Instant>,
    /// When Esc was last pressed while idle (twice clears or rewinds).
    pub last_esc: Option<Instant>,
    /// Set when the user asked to quit.
    pub quit: bool,
    /// Set when the next frame must clear the screen first.
    pub clear_requested: bool,
    /// An escape sequence (OSC 52 copy) to write with the next frame.
    pub osc: Option<String>,
    /// A dialog whose proposal the loop opens in the external editor.
    pub editor_request: Option<ConfirmDialog>,
    /// The editor chosen with `/editor` (`general.preferredEditor`).
    pub preferred_editor: Option<String>,
    /// A picker (`/model`, `/auth`) the loop opens.
    pub picker_request: Option<Picker>,
    /// The recorded session `/resume` switches to when this one ends.
    pub resume_request: Option<String>,
    /// The plan last approved in the plan dialog (`/plan` shows it).
    pub approved_plan: Option<std::path::PathBuf>,
}

impl App {
    /// A new session loop.
    pub fn new(mut state: UiState, ctx: Ctx) -> Self {
        let settings = ctx.info.settings();
        let general = &settings.typed().general;
        state.vim.set_enabled(general.vim_mode.unwrap_or(VIM_MODE));
        let preferred_editor = general.preferred_editor.clone();
        App {
            state,
            ctx,
            pending: 0,
            last_ctrl_c: None,
            last_esc: None,
            quit: false,
            clear_requested: false,
            osc: None,
            editor_request: None,
            preferred_editor,
            picker_request: None,
            resume_request: None,
            approved_plan: None,
        }
    }

    /// True while an op that has the conversation to itself runs.
    pub fn busy(&self) -> bool {
        self.pending > 0
    }

    /// Cancels what runs and drops the prompts queued behind it.
    pub fn cancel_running(&mut self) {
        self.ctx.ops.submit(Op::Cancel);
        self.state.queued.clear();
    }

    /// Answers the open dialog (the editor choice is left to the loop,
    /// which hands the terminal over) and opens the next one.
    pub fn answer(&mut self, outcome: ConfirmationOutcome) {
        let Some(dialog) = self.state.confirm.take() else {
            return;
        };
        if outcome == ConfirmationOutcome::ModifyWithEditor {
            self.editor_request = Some(dialog);
            return;
        }
        let response = match &dialog.feedback {
            // The plan dialog's "keep planning" with the user's feedback.
            Some(text) => ConfirmationResponse::plan_feedback(dialog.call_id.clone(), text.trim()),
            None => ConfirmationResponse::new(dialog.call_id.clone(), outcome),
        };
        self.ctx.ops.submit(Op::Confirm(response));
        if let ConfirmationDetails::ExitPlanMode { plan_path, .. } = &dialog.details
            && dialog.feedback.is_none()
            && matches!(
                outcome,
                ConfirmationOutcome::ProceedOnce | ConfirmationOutcome::ProceedAlways
            )
        {
            self.approved_plan = Some(plan_path.clone());
        }
        let edits = match dialog.details {
            ConfirmationDetails::Edit { .. } => true,
            ConfirmationDetails::Exec { .. }
            | ConfirmationDetails::Mcp { .. }
            | ConfirmationDetails::Info { .. }
            | ConfirmationDetails::ExitPlanMode { .. } => false,
        };
        if outcome == ConfirmationOutcome::ProceedAlways && edits {
            self.state.mode = ApprovalMode::AutoEdit;
        }
        if let Some(card) = self
            .state
            .cards
            .iter_mut()
            .find(|c| c.call_id == dialog.call_id)
            && card.status == CardStatus::AwaitingApproval
        {
            card.status = CardStatus::Pending;
        }
        self.state.confirm = self.state.confirm_queue.pop_front();
    }

    /// Submits an op that has the conversation to itself, with a busy label.
    pub fn start_op(&mut self, op: Op, label: &str) {
        self.pending += 1;
        self.state.start_busy(label, Instant::now());
        self.ctx.ops.submit(op);
    }

    /// Sends a prompt without echoing it (`/init`'s).
    pub fn send_prompt(&mut self, text: String) {
        self.start_op(Op::prompt(text), "Thinking");
    }
}

/// A picker the loop opens with the terminal handed over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Picker {
    /// `/model` alone: Gemini's and the configured providers' models.
    Model,
    /// `/auth`: the provider picker.
    Auth,
}
