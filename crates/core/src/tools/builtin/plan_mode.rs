//! `enter_plan_mode {reason}` and `exit_plan_mode {plan_filename}`: the
//! model switches itself into read-only planning, and presents the plan it
//! wrote (a Markdown file in the plans folder) for approval, with Gemini
//! CLI 0.61's parameters and result texts. Approval leaves plan mode into
//! `auto_edit` or `default`; feedback keeps planning. Where nobody can
//! approve (headless), the run ends with the plan.

use super::common::parse_params;
use super::{Builtin, Make};
use crate::catalogue::builtins::{PLAN_MODE_ENTER as ENTER_SPEC, PLAN_MODE_EXIT as EXIT_SPEC};
use crate::policy::ApprovalMode;
use crate::tools::spec::identity_from_spec;
use crate::tools::{ConfirmationDetails, Tool, ToolContext, ToolError, ToolInvocation, ToolResult};
use futures::future::BoxFuture;
use gemini_rs_protocol::events::{ConfirmationOutcome, ConfirmationResponse};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use tokio_util::sync::CancellationToken;

/// `enter_plan_mode`.
pub struct EnterPlanMode;

/// `exit_plan_mode`.
pub struct ExitPlanMode;

/// Registration of `enter_plan_mode` (every session).
pub(super) const ENTER_BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(EnterPlanMode)),
};

/// Registration of `exit_plan_mode` (every session).
pub(super) const EXIT_BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(ExitPlanMode)),
};

fn enter_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "type": "object",
            "properties": {
                "reason": {
                    "type": "string",
                    "description": "Why planning first is worth it here, in one short sentence."
                }
            }
        })
    })
}

fn exit_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        json!({
            "type": "object",
            "required": ["plan_filename"],
            "properties": {
                "plan_filename": {
                    "type": "string",
                    "description": "File name of the finished plan in the plans folder (for example \"feature-x.md\"), not an absolute path."
                }
            }
        })
    })
}

impl Tool for EnterPlanMode {
    identity_from_spec!(ENTER_SPEC);
    fn description(&self) -> &str {
        "Switches the session to Plan Mode: research and design a larger or unclear change with read-only tools, write the plan as Markdown in the plans folder, then present it with exit_plan_mode."
    }
    fn parameter_schema(&self) -> &Value {
        enter_schema()
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        #[derive(Deserialize)]
        struct Params {
            reason: Option<String>,
        }
        let params: Params = parse_params(args, &[])?;
        Ok(Box::new(EnterCall {
            reason: params.reason.filter(|r| !r.trim().is_empty()),
        }))
    }
}

struct EnterCall {
    reason: Option<String>,
}

impl ToolInvocation for EnterCall {
    fn description(&self) -> String {
        self.reason
            .clone()
            .unwrap_or_else(|| "Initiating Plan Mode".to_string())
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async {
            Some(ConfirmationDetails::Info {
                title: "Enter Plan Mode".to_string(),
                prompt:
                    "This will restrict the agent to read-only tools to allow for safe planning."
                        .to_string(),
                urls: Vec::new(),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            ctx.plan.set_mode(ApprovalMode::Plan);
            ctx.plan.ensure_dir();
            let display = match &self.reason {
                Some(r) => format!("Switching to Plan mode: {r}"),
                None => "Switching to Plan mode".to_string(),
            };
            ToolResult::text("Switching to Plan mode.", display)
        })
    }
}

impl Tool for ExitPlanMode {
    identity_from_spec!(EXIT_SPEC);
    fn description(&self) -> &str {
        "Presents the finished plan (a Markdown file in the plans folder) for the user's approval and, once approved, leaves Plan Mode so the implementation can start. Agree on the approach with the user in the chat before calling it; source files can only be edited after it."
    }
    fn parameter_schema(&self) -> &Value {
        exit_schema()
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        #[derive(Deserialize)]
        struct Params {
            plan_filename: String,
        }
        let params: Params = parse_params(args, &[])?;
        if params.plan_filename.trim().is_empty() {
            return Err(ToolError::invalid_params("plan_filename is required."));
        }
        let path = ctx
            .plan
            .resolve(&params.plan_filename)
            .map_err(|e| ToolError::invalid_params(e.to_string()))?;
        Ok(Box::new(ExitCall {
            given: params.plan_filename,
            path,
            answer: Mutex::new(None),
        }))
    }
}

struct ExitCall {
    given: String,
    path: PathBuf,
    answer: Mutex<Option<ConfirmationResponse>>,
}

/// How an approval leaves plan mode, in the words the model is told.
fn mode_description(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::AutoEdit => "Auto-Edit mode (edits will be applied automatically)",
        ApprovalMode::Default => "Default mode (edits will require confirmation)",
        ApprovalMode::Plan => "Plan mode (read-only planning)",
        ApprovalMode::Yolo => "YOLO mode (all tool calls auto-approved)",
    }
}

/// Why the plan cannot be approved yet: what the model must fix first.
#[derive(Debug, thiserror::Error)]
enum PlanUnready {
    /// The plan file holds only whitespace.
    #[error(
        "Plan file is empty. You must write content to the plan file before requesting approval."
    )]
    Empty,
    /// The plan file is missing (its path as the model gave it).
    #[error(
        "Plan file does not exist: {0}. You must create the plan file before requesting approval."
    )]
    Missing(String),
    /// The plan file cannot be read.
    #[error("Failed to read plan file: {0}")]
    Unreadable(std::io::Error),
}

impl ExitCall {
    /// The plan's text, or what the model must fix first.
    fn read_plan(&self) -> Result<String, PlanUnready> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) if text.trim().is_empty() => Err(PlanUnready::Empty),
            Ok(text) => Ok(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(PlanUnready::Missing(self.given.clone()))
            }
            Err(e) => Err(PlanUnready::Unreadable(e)),
        }
    }

    fn approve(&self, ctx: &ToolContext, mode: ApprovalMode) -> ToolResult {
        ctx.plan.set_mode(mode);
        let path = self.path.display();
        ToolResult::text(
            format!(
                "Plan approved. Switching to {}.\n\nThe approved implementation plan is stored at: {path}\nRead and follow the plan strictly during implementation.",
                mode_description(mode)
            ),
            format!("Plan approved: {path}"),
        )
    }
}

impl ToolInvocation for ExitCall {
    fn description(&self) -> String {
        format!("Requesting plan approval for: {}", self.path.display())
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            // A missing or empty plan is answered without asking.
            let plan = self.read_plan().ok()?;
            Some(ConfirmationDetails::ExitPlanMode {
                title: "Plan Approval".to_string(),
                plan_path: self.path.clone(),
                plan,
            })
        })
    }

    fn answered(&self, answer: &ConfirmationResponse) {
        if let Ok(mut a) = self.answer.lock() {
            *a = Some(answer.clone());
        }
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            if !ctx.plan.active() {
                return ToolResult::text(
                    "You are not currently in Plan Mode. Use enter_plan_mode first to design a plan.",
                    "Not in Plan Mode",
                );
            }
            let plan = match self.read_plan() {
                Ok(plan) => plan,
                Err(why) => return ToolResult::text(why.to_string(), "Error: Invalid plan"),
            };
            let answer = self.answer.lock().ok().and_then(|a| a.clone());
            let path = self.path.display();
            match answer {
                Some(a) if a.outcome == ConfirmationOutcome::Cancel => {
                    match a
                        .feedback
                        .as_deref()
                        .map(str::trim)
                        .filter(|f| !f.is_empty())
                    {
                        Some(f) => ToolResult::text(
                            format!(
                                "Plan rejected. User feedback: {f}\n\nThe plan is stored at: {path}\nRevise the plan based on the feedback."
                            ),
                            format!("Feedback: {f}"),
                        ),
                        None => ToolResult::text(
                            format!(
                                "Plan rejected. No feedback provided.\n\nThe plan is stored at: {path}\nAsk the user for specific feedback on how to improve the plan."
                            ),
                            "Rejected (no feedback)",
                        ),
                    }
                }
                Some(a) if a.outcome == ConfirmationOutcome::ProceedOnce => {
                    self.approve(ctx, ApprovalMode::Default)
                }
                Some(_) => self.approve(ctx, ApprovalMode::AutoEdit),
                None if ctx.plan.interactive() => self.approve(ctx, ApprovalMode::Default),
                None => {
                    // Nobody can approve: the run ends here, with the plan.
                    ctx.plan.finish_with(plan);
                    ToolResult::text(
                        format!(
                            "The plan is stored at: {path}\nNobody can approve it in this non-interactive session, so the session ends here with the plan; nothing was changed."
                        ),
                        format!("Plan ready for review: {path}"),
                    )
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;
    use crate::tools::plan::PlanMode;
    use crate::workspace::Workspace;
    use std::sync::RwLock;

    fn ctx(dir: &std::path::Path, interactive: bool) -> ToolContext {
        let ws = Workspace::new(dir.join("proj"), Vec::new(), dir.join("tmp"));
        let mut ctx = ToolContext::new(Arc::new(ws), Arc::new(Settings::default()), "m");
        ctx.plan = Arc::new(PlanMode::new(
            dir.join("tmp/sid/plans"),
            dir.join("proj"),
            Arc::new(RwLock::new(ApprovalMode::Default)),
            interactive,
        ));
        ctx
    }

    async fn run(tool: &dyn Tool, ctx: &ToolContext, args: Value) -> String {
        let call = tool.build(args.as_object().unwrap(), ctx).unwrap();
        let r = call.execute(ctx, CancellationToken::new()).await;
        r.llm_content[0].text.clone().unwrap()
    }

    #[tokio::test]
    async fn enter_then_approve_into_auto_edit() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = ctx(tmp.path(), true);
        let out = run(&EnterPlanMode, &ctx, json!({"reason": "big"})).await;
        assert_eq!(out, "Switching to Plan mode.");
        assert_eq!(ctx.plan.mode(), ApprovalMode::Plan);
        assert!(ctx.plan.plans_dir().is_dir());
        let args = json!({"plan_filename": "x.md"});
        let missing = run(&ExitPlanMode, &ctx, args.clone()).await;
        assert!(
            missing.starts_with("Plan file does not exist: x.md."),
            "{missing}"
        );
        std::fs::write(ctx.plan.plans_dir().join("x.md"), "# Plan\n").unwrap();
        let call = ExitPlanMode.build(args.as_object().unwrap(), &ctx).unwrap();
        assert!(matches!(
            call.confirmation(&ctx).await,
            Some(ConfirmationDetails::ExitPlanMode { ref plan, .. }) if plan == "# Plan\n"
        ));
        call.answered(&ConfirmationResponse::new(
            "c",
            ConfirmationOutcome::ProceedAlways,
        ));
        let r = call.execute(&ctx, CancellationToken::new()).await;
        let text = r.llm_content[0].text.clone().unwrap();
        assert!(
            text.starts_with("Plan approved. Switching to Auto-Edit mode"),
            "{text}"
        );
        assert_eq!(ctx.plan.mode(), ApprovalMode::AutoEdit);
    }

    #[tokio::test]
    async fn feedback_keeps_planning_and_headless_ends_with_the_plan() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = ctx(tmp.path(), false);
        ctx.plan.set_mode(ApprovalMode::Plan);
        ctx.plan.ensure_dir();
        std::fs::write(ctx.plan.plans_dir().join("p.md"), "steps").unwrap();
        let args = json!({"plan_filename": "p.md"});
        let call = ExitPlanMode.build(args.as_object().unwrap(), &ctx).unwrap();
        call.answered(&ConfirmationResponse::plan_feedback("c", "add tests"));
        let r = call.execute(&ctx, CancellationToken::new()).await;
        let text = r.llm_content[0].text.clone().unwrap();
        assert!(
            text.starts_with("Plan rejected. User feedback: add tests"),
            "{text}"
        );
        assert_eq!(ctx.plan.mode(), ApprovalMode::Plan);
        run(&ExitPlanMode, &ctx, args).await;
        assert_eq!(ctx.plan.take_final_plan().as_deref(), Some("steps"));
        let outside = ExitPlanMode
            .build(
                json!({"plan_filename": "../x.md"}).as_object().unwrap(),
                &ctx,
            )
            .err()
            .unwrap();
        assert!(
            outside
                .message
                .starts_with("Access denied: plan path (../x.md)")
        );
    }
}
