//! Asking the user, and "modify with editor": the front end sends the
//! arguments the user changed; the call is rebuilt with them (marked
//! `modified_by_user`, so write_file and replace tell the model what the
//! user wrote) and the user is asked again with the new proposal, as
//! Gemini CLI does.

use super::{Approval, Scheduler, ToolCallRequest, always_rules};
use crate::events::ToolCallStatus;
use crate::events::stats::Decision as StatsDecision;
use crate::events::{AgentEvent, ConfirmationOutcome};
use crate::policy::ApprovalMode;
use crate::tools::{BuiltCall, ConfirmationDetails, ToolError, ToolKind, ToolResult};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

impl Scheduler {
    /// Shows the confirmation and waits for the answer; a modification
    /// rebuilds the call and asks again. `forced` (a hook asked) asks
    /// about a call whose tool has no confirmation of its own too.
    pub(super) async fn ask_user(
        &self,
        req: &ToolCallRequest,
        built: &mut BuiltCall,
        forced: bool,
        cancel: &CancellationToken,
    ) -> Approval {
        let mut modified = false;
        loop {
            let details = match built.invocation.confirmation(&self.ctx).await {
                Some(details) => Some(details),
                None if forced => Some(ConfirmationDetails::Info {
                    title: format!("Confirm {}", built.tool.display_name()),
                    prompt: built.invocation.description(),
                    urls: Vec::new(),
                }),
                None => None,
            };
            let Some(details) = details else {
                return Approval::Run(if modified {
                    StatsDecision::Modify
                } else {
                    StatsDecision::Accept
                });
            };
            self.emit(AgentEvent::ToolAwaitingApproval {
                call_id: req.call_id.clone(),
                name: req.name.clone(),
                details: details.clone(),
            })
            .await;
            self.hooks
                .notification(&details.notification_message(), &details.to_json())
                .await;
            let answer = self.wait_for_answer(&req.call_id, cancel).await;
            if answer.outcome == ConfirmationOutcome::ModifyWithEditor {
                if let Some(changes) = answer.modified_args {
                    match self.rebuild_modified(req, built, changes) {
                        Ok(()) => modified = true,
                        Err(e) => {
                            return Approval::Refused(
                                ToolResult::from_error(e),
                                ToolCallStatus::Error,
                                Some(StatsDecision::Modify),
                            );
                        }
                    }
                }
                continue;
            }
            built.invocation.answered(&answer);
            if answer.outcome == ConfirmationOutcome::Cancel && answer.feedback.is_some() {
                // Keep planning: the call answers the model with the feedback.
                return Approval::Run(StatsDecision::Reject);
            }
            return match self.apply_outcome(answer.outcome, built, &details).await {
                Approval::Run(_) if modified => Approval::Run(StatsDecision::Modify),
                other => other,
            };
        }
    }

    /// Merges the user's changes into the call's arguments, adds
    /// `modified_by_user: true` and rebuilds the invocation.
    fn rebuild_modified(
        &self,
        req: &ToolCallRequest,
        built: &mut BuiltCall,
        changes: Map<String, Value>,
    ) -> Result<(), ToolError> {
        let mut args = built.args.clone();
        args.extend(changes);
        args.insert("modified_by_user".to_string(), Value::Bool(true));
        *built = self
            .registry
            .snapshot()
            .build(&req.name, &Value::Object(args), &self.ctx)?;
        Ok(())
    }
}

impl Scheduler {
    /// Asks the user about a shell command that a prompt runs (a custom
    /// command's `!{...}`), shown as a `run_shell_command` call that
    /// `call_id` names; true when allowed. "Always" answers add the rules
    /// they add for the shell tool.
    pub async fn confirm_command(
        &self,
        call_id: &str,
        command: &str,
        cancel: &CancellationToken,
    ) -> bool {
        let details = crate::tools::ConfirmationDetails::Exec {
            title: "Confirm Shell Command".to_string(),
            command: command.to_string(),
            root_commands: crate::tools::builtin::shell::root_commands(
                &crate::tools::builtin::shell::strip_shell_wrapper(command),
            ),
        };
        self.emit(AgentEvent::ToolAwaitingApproval {
            call_id: call_id.to_string(),
            name: "run_shell_command".to_string(),
            details: details.clone(),
        })
        .await;
        let answer = self.wait_for_answer(call_id, cancel).await;
        match answer.outcome {
            ConfirmationOutcome::Cancel | ConfirmationOutcome::ModifyWithEditor => false,
            ConfirmationOutcome::ProceedOnce => true,
            outcome @ (ConfirmationOutcome::ProceedAlways
            | ConfirmationOutcome::ProceedAlwaysAndSave
            | ConfirmationOutcome::ProceedAlwaysServer
            | ConfirmationOutcome::ProceedAlwaysTool) => {
                for rule in super::always_rules("run_shell_command", &details, outcome) {
                    if outcome == ConfirmationOutcome::ProceedAlwaysAndSave {
                        self.policy.save_rule(&rule);
                    }
                    self.policy.add_rule(rule);
                }
                true
            }
        }
    }
}

impl Scheduler {
    /// "Always allow": an edit in a trusted folder switches to
    /// `auto_edit`; anything else adds (and with `save` keeps) its rules.
    async fn remember(
        &self,
        save: bool,
        built: &BuiltCall,
        details: &ConfirmationDetails,
        outcome: ConfirmationOutcome,
    ) {
        if built.tool.kind() == ToolKind::Edit && self.trusted {
            if let Ok(mut mode) = self.mode.write() {
                *mode = ApprovalMode::AutoEdit;
            }
            self.emit(AgentEvent::ApprovalModeChanged {
                mode: ApprovalMode::AutoEdit,
            })
            .await;
            return;
        }
        for rule in always_rules(&built.tool.policy_name(), details, outcome) {
            if save {
                self.policy.save_rule(&rule);
            }
            self.policy.add_rule(rule);
        }
    }

    pub(super) async fn apply_outcome(
        &self,
        outcome: ConfirmationOutcome,
        built: &BuiltCall,
        details: &ConfirmationDetails,
    ) -> Approval {
        if matches!(details, ConfirmationDetails::ExitPlanMode { .. }) {
            // The plan tool reads the choice itself; nothing to remember.
            return match outcome {
                ConfirmationOutcome::Cancel => Approval::CancelBatch,
                _ => Approval::Run(StatsDecision::Accept),
            };
        }
        match outcome {
            ConfirmationOutcome::Cancel => Approval::CancelBatch,
            ConfirmationOutcome::ProceedOnce => Approval::Run(StatsDecision::Accept),
            // Handled (and asked again) before; a late one runs as is.
            ConfirmationOutcome::ModifyWithEditor => Approval::Run(StatsDecision::Modify),
            ConfirmationOutcome::ProceedAlwaysAndSave => {
                self.remember(true, built, details, outcome).await;
                Approval::Run(StatsDecision::Accept)
            }
            ConfirmationOutcome::ProceedAlways
            | ConfirmationOutcome::ProceedAlwaysServer
            | ConfirmationOutcome::ProceedAlwaysTool => {
                self.remember(false, built, details, outcome).await;
                Approval::Run(StatsDecision::Accept)
            }
        }
    }
}
