//! The scheduler: runs one model turn's batch of function calls through
//! lookup, validation, policy, confirmation, hooks and execution, and
//! returns the function responses in request order.
//!
//! Consecutive read-only calls run concurrently (approved one at a time)
//! unless one asks to `wait_for_previous`; others run alone, in order.

mod execute;
mod gate;
pub mod hooks;
#[cfg(test)]
mod live_tests;
mod modify;
mod response;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub use hooks::tool_response_json;
pub use response::function_response_parts;

use crate::catalogue::rules::HeadlessAsk;
use crate::checkpoint::Checkpointer;
use crate::events::stats::{Decision as StatsDecision, SessionStats};
use crate::events::{
    AgentEvent, ConfirmationOutcome, ConfirmationResponse, EventSender, ToolCallFinished,
    ToolCallStatus,
};
use crate::hooks::{HookPermission, Hooks};
use crate::policy::{ApprovalMode, Decision, PolicyEngine, PolicyRule, priority};
use crate::tools::{
    BuiltCall, ConfirmationDetails, LiveRegistry, ToolContext, ToolErrorKind, ToolKind,
    ToolRegistry, ToolResult,
};
use gemini_rs_protocol::{Content, Part};
use serde_json::Value;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// One function call as the model asked for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallRequest {
    /// The model's id, or a generated `<name>-<ms>-<hex>`.
    pub call_id: String,
    /// The name as called.
    pub name: String,
    /// Arguments as sent.
    pub args: Value,
}

/// A finished call with the parts to send back.
#[derive(Debug, Clone)]
pub struct CompletedCall {
    /// The request.
    pub request: ToolCallRequest,
    /// How it ended.
    pub status: ToolCallStatus,
    /// The tool's result (or the error that replaced it).
    pub result: ToolResult,
    /// functionResponse part(s) for the model.
    pub parts: Vec<Part>,
    /// The validated call's one-line description (`None` when the call
    /// never validated), as the session file records it.
    pub description: Option<String>,
}

impl CompletedCall {
    /// The same call, with the description of its validated invocation.
    fn described(mut self, built: &BuiltCall) -> Self {
        self.description = Some(built.invocation.description());
        self
    }

    /// The reason, when a hook asked to stop the agent.
    pub fn stop_reason(&self) -> Option<&str> {
        self.result
            .error
            .as_ref()
            .filter(|e| e.kind == ToolErrorKind::StopExecution)
            .map(|e| e.message.as_str())
    }
}

/// Everything the scheduler needs, shared for the session.
pub struct Scheduler {
    registry: LiveRegistry,
    policy: Arc<PolicyEngine>,
    hooks: Arc<dyn Hooks>,
    ctx: ToolContext,
    mode: Arc<RwLock<ApprovalMode>>,
    trusted: bool,
    events: EventSender,
    confirmations: SharedConfirmations,
    stats: Arc<Mutex<SessionStats>>,
    checkpointer: Option<Checkpointer>,
}

/// The receiving end of confirmation answers, shared by a session's
/// schedulers.
pub type SharedConfirmations = Arc<tokio::sync::Mutex<mpsc::Receiver<ConfirmationResponse>>>;

/// Shares `rx` between schedulers.
pub fn shared_confirmations(rx: mpsc::Receiver<ConfirmationResponse>) -> SharedConfirmations {
    Arc::new(tokio::sync::Mutex::new(rx))
}

/// The parts of a session the scheduler works with.
pub struct SchedulerParts {
    /// The tools (the session's grow as MCP servers connect).
    pub registry: LiveRegistry,
    /// The rules.
    pub policy: Arc<PolicyEngine>,
    /// Hooks around execution.
    pub hooks: Arc<dyn Hooks>,
    /// What tools get.
    pub ctx: ToolContext,
    /// The approval mode (shared: "always allow" on an edit switches it).
    pub mode: Arc<RwLock<ApprovalMode>>,
    /// Whether the folder is trusted: in one that is not, "always allow"
    /// on an edit allows that tool for the session instead of switching to
    /// auto_edit (an untrusted folder stays in default or plan mode).
    pub trusted: bool,
    /// Where events go.
    pub events: EventSender,
    /// Where confirmation answers come from (shared with the schedulers
    /// of sub-agents, which ask while the delegating call runs).
    pub confirmations: SharedConfirmations,
    /// Session metrics.
    pub stats: Arc<Mutex<SessionStats>>,
    /// Snapshots before file edits (`general.checkpointing.enabled`).
    pub checkpointer: Option<Checkpointer>,
}

/// The registry, the mode and the policy's rules as one request saw them.
pub(crate) struct DeclarationsKey {
    registry: Arc<ToolRegistry>,
    mode: ApprovalMode,
    rules: usize,
}

impl PartialEq for DeclarationsKey {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.registry, &other.registry)
            && self.mode == other.mode
            && self.rules == other.rules
    }
}

enum Approval {
    Run(StatsDecision),
    Refused(ToolResult, ToolCallStatus, Option<StatsDecision>),
    CancelBatch,
}

impl Scheduler {
    /// The context its tools run with.
    pub fn ctx(&self) -> &ToolContext {
        &self.ctx
    }

    /// A scheduler over the given parts.
    pub fn new(parts: SchedulerParts) -> Self {
        Scheduler {
            registry: parts.registry,
            policy: parts.policy,
            hooks: parts.hooks,
            ctx: parts.ctx,
            mode: parts.mode,
            trusted: parts.trusted,
            events: parts.events,
            confirmations: parts.confirmations,
            stats: parts.stats,
            checkpointer: parts.checkpointer,
        }
    }

    /// The tool registry as it stands now.
    pub fn registry(&self) -> Arc<ToolRegistry> {
        self.registry.snapshot()
    }

    /// The declarations for the next request, in the current mode: less
    /// the tools policy denies outright there, `enter_plan_mode` only
    /// outside plan mode and `exit_plan_mode` only in it; while planning,
    /// `write_file` and `replace` say they write plans only.
    pub fn declarations(&self) -> Vec<gemini_rs_protocol::FunctionDeclaration> {
        let mode = self.mode();
        let planning = mode == ApprovalMode::Plan;
        let registry = self.registry.snapshot();
        // A deny for this mode hides the tool where the dialect says (0.61).
        let removes = registry.dialect().rules().remove_denied_in_mode;
        let mut decls = registry.declarations_in(mode, |tool| {
            let name = tool.name();
            (name == "enter_plan_mode" && planning)
                || (name == "exit_plan_mode" && !planning)
                || (removes && self.policy.hides(&tool.policy_name(), mode))
        });
        if planning {
            let dir = self.ctx.plan.plans_dir().display().to_string();
            for d in decls
                .iter_mut()
                .filter(|d| matches!(d.name.as_str(), "write_file" | "replace"))
            {
                let base = d.description.take().unwrap_or_default();
                d.description = Some(format!(
                    "For plans only, while in Plan Mode: {base} Use it only to write or update Markdown (.md) plans in the plans folder {dir}/ ; source files cannot be changed until the plan is approved."
                ));
            }
        }
        decls
    }

    /// What [`Scheduler::declarations`] depends on, `None` in plan mode
    /// (whose declarations name the plans folder): equal keys, equal
    /// declarations, so a request can reuse the last one's.
    pub(crate) fn declarations_key(&self) -> Option<DeclarationsKey> {
        let mode = self.mode();
        (mode != ApprovalMode::Plan).then(|| DeclarationsKey {
            registry: self.registry.snapshot(),
            mode,
            rules: self.policy.rule_count(),
        })
    }

    fn mode(&self) -> ApprovalMode {
        self.mode
            .read()
            .map(|m| *m)
            .unwrap_or(ApprovalMode::Default)
    }

    async fn emit(&self, event: AgentEvent) {
        self.events.emit(event).await;
    }

    /// Runs a batch and returns one completed call per request, in order.
    pub async fn run_batch(
        &self,
        requests: Vec<ToolCallRequest>,
        cancel: &CancellationToken,
    ) -> Vec<CompletedCall> {
        self.run_batch_with_history(requests, cancel, &[]).await
    }

    /// [`Scheduler::run_batch`], snapshotting the project and `history`
    /// before each approved file edit when checkpointing is on.
    pub async fn run_batch_with_history(
        &self,
        requests: Vec<ToolCallRequest>,
        cancel: &CancellationToken,
        history: &[Content],
    ) -> Vec<CompletedCall> {
        let mut done: Vec<Option<CompletedCall>> = Vec::with_capacity(requests.len());
        let mut pending: Vec<(usize, ToolCallRequest, BuiltCall)> = Vec::new();
        for (i, req) in requests.into_iter().enumerate() {
            self.emit(AgentEvent::ToolCallRequested {
                call_id: req.call_id.clone(),
                name: req.name.clone(),
                args: req.args.clone(),
            })
            .await;
            match self.registry.snapshot().build_in(
                Some(self.mode()),
                &req.name,
                &req.args,
                &self.ctx,
            ) {
                Ok(built) => {
                    done.push(None);
                    pending.push((i, req, built));
                }
                Err(err) => {
                    let result = ToolResult::from_error(err);
                    done.push(Some(
                        self.finish(req, result, ToolCallStatus::Error, Duration::ZERO, None)
                            .await,
                    ));
                }
            }
        }
        let mut waves: Vec<Vec<(usize, ToolCallRequest, BuiltCall)>> = Vec::new();
        for item in pending {
            let read_only = execute::may_join_a_wave(&item.2);
            match waves.last_mut() {
                Some(wave) if read_only && wave.iter().all(|w| w.2.tool.kind().is_read_only()) => {
                    wave.push(item)
                }
                _ => waves.push(vec![item]),
            }
        }
        let mut cancelled_all = false;
        for wave in waves {
            let mut approved = Vec::new();
            for (i, req, mut built) in wave {
                if cancelled_all || cancel.is_cancelled() {
                    let reason = if cancelled_all {
                        "User cancelled operation"
                    } else {
                        "Operation cancelled"
                    };
                    done[i] = Some(self.cancelled(req, reason).await);
                    continue;
                }
                let gate = match self.pre_tool_use(&req, &mut built).await {
                    Ok(gate) => gate,
                    Err(result) => {
                        let status = ToolCallStatus::Error;
                        let reject = Some(StatsDecision::Reject);
                        let call = self
                            .finish(req, *result, status, Duration::ZERO, reject)
                            .await;
                        done[i] = Some(call.described(&built));
                        continue;
                    }
                };
                match self.approve(&req, &mut built, &gate, cancel).await {
                    Approval::Run(decision) => {
                        if built.tool.kind() == ToolKind::Edit {
                            self.checkpoint(&req, history).await;
                        }
                        approved.push((i, req, built, decision, gate.notes))
                    }
                    Approval::Refused(result, status, decision) => {
                        let call = self
                            .finish(req, result, status, Duration::ZERO, decision)
                            .await;
                        done[i] = Some(call.described(&built));
                    }
                    Approval::CancelBatch => {
                        done[i] = Some(self.cancelled(req, "User denied execution.").await);
                        cancelled_all = true;
                    }
                }
            }
            let runs = approved
                .into_iter()
                .map(|(i, req, built, decision, notes)| async move {
                    let started = std::time::Instant::now();
                    let description = built.invocation.description();
                    let (result, status) = self.execute(&req, built, notes, cancel).await;
                    let mut call = self
                        .finish(req, result, status, started.elapsed(), Some(decision))
                        .await;
                    call.description = Some(description);
                    (i, call)
                });
            let before = self.mode();
            for (i, call) in futures::future::join_all(runs).await {
                done[i] = Some(call);
            }
            // A plan tool switched the mode: front ends show it.
            let after = self.mode();
            if after != before {
                self.emit(AgentEvent::ApprovalModeChanged { mode: after })
                    .await;
            }
        }
        done.into_iter().flatten().collect()
    }

    /// Snapshots the project before an edit; a failure warns and the edit
    /// still runs.
    async fn checkpoint(&self, req: &ToolCallRequest, history: &[Content]) {
        let Some(cp) = self.checkpointer.clone() else {
            return;
        };
        let call = crate::checkpoint::CheckpointCall::new(&req.name, serde_json::json!(req.args));
        let history = history.to_vec();
        match tokio::task::spawn_blocking(move || cp.snapshot(&call, &history)).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                self.emit(AgentEvent::Warning {
                    message: format!("Failed to create checkpoint: {e}"),
                })
                .await
            }
            Err(e) => {
                self.emit(AgentEvent::Warning {
                    message: format!("Failed to create checkpoint: {e}"),
                })
                .await
            }
        }
    }

    /// Policy and, when it says to ask, the user's confirmation (asked
    /// again after the user modified the proposal in an editor). A
    /// PreToolUse hook's `permission` turns an ask into an allow and an
    /// allow into an ask; a deny rule refuses whatever it said. Without a
    /// user to ask, an ask is refused: as today's Gemini CLI says it
    /// (confirmation not supported) or as a deny (0.27.4).
    async fn approve(
        &self,
        req: &ToolCallRequest,
        built: &mut BuiltCall,
        gate: &gate::Gate,
        cancel: &CancellationToken,
    ) -> Approval {
        let permission = gate.permission;
        let args = Value::Object(built.args.clone());
        let name = built.tool.policy_name();
        let decision = match (self.policy.decide(&name, &args, self.mode()), permission) {
            (Decision::AskUser, Some(HookPermission::Allow)) => {
                return Approval::Run(StatsDecision::AutoAccept);
            }
            (Decision::Allow, Some(HookPermission::Ask)) => Decision::AskUser,
            (decision, _) => decision,
        };
        match decision {
            Decision::Allow => Approval::Run(StatsDecision::Accept),
            Decision::AskUser if self.policy.interactive() => {
                let forced = permission == Some(HookPermission::Ask);
                self.ask_user(req, built, forced, cancel).await
            }
            Decision::AskUser
                if self.registry.snapshot().dialect().rules().headless_ask
                    == HeadlessAsk::ConfirmationError =>
            {
                Approval::Refused(
                    ToolResult::from_error(crate::tools::ToolError::new(
                        ToolErrorKind::PolicyViolation,
                        format!(
                            "Tool execution for \"{}\" requires user confirmation, which is not supported in non-interactive mode.",
                            built.tool.display_name()
                        ),
                    )),
                    ToolCallStatus::Error,
                    Some(StatsDecision::Reject),
                )
            }
            Decision::Deny | Decision::AskUser => Approval::Refused(
                ToolResult::from_error(crate::tools::ToolError::new(
                    ToolErrorKind::PolicyViolation,
                    // A hook's `ask` with no one to ask: the model reads
                    // the hook's reason, as under Claude Code.
                    match (decision, permission, gate.permission_reason.as_deref()) {
                        (Decision::AskUser, Some(HookPermission::Ask), Some(why)) => {
                            format!("Tool execution denied by policy. {why}")
                        }
                        _ => match self.policy.deny_message(&name, &args, self.mode()) {
                            Some(why) => format!("Tool execution denied by policy. {why}"),
                            None => "Tool execution denied by policy.".to_string(),
                        },
                    },
                )),
                ToolCallStatus::Error,
                Some(StatsDecision::Reject),
            ),
        }
    }

    async fn wait_for_answer(
        &self,
        call_id: &str,
        cancel: &CancellationToken,
    ) -> ConfirmationResponse {
        let cancelled = || ConfirmationResponse::new(call_id, ConfirmationOutcome::Cancel);
        let mut rx = self.confirmations.lock().await;
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return cancelled(),
                answer = rx.recv() => match answer {
                    Some(a) if a.call_id == call_id => return a,
                    Some(_) => continue,
                    None => return cancelled(),
                },
            }
        }
    }

    async fn cancelled(&self, req: ToolCallRequest, reason: &str) -> CompletedCall {
        let result = ToolResult::error(
            ToolErrorKind::ExecutionFailed,
            format!("[Operation Cancelled] Reason: {reason}"),
            reason,
        );
        self.finish(req, result, ToolCallStatus::Cancelled, Duration::ZERO, None)
            .await
    }

    async fn finish(
        &self,
        request: ToolCallRequest,
        result: ToolResult,
        status: ToolCallStatus,
        duration: Duration,
        decision: Option<StatsDecision>,
    ) -> CompletedCall {
        let status = match (status, &result.error) {
            (ToolCallStatus::Success, Some(_)) => ToolCallStatus::Error,
            (s, _) => s,
        };
        if let Ok(mut stats) = self.stats.lock() {
            stats.record_tool(
                &request.name,
                status == ToolCallStatus::Success,
                duration,
                decision,
            );
            if let (crate::tools::ToolDisplay::FileDiff(diff), None) =
                (&result.display, &result.error)
            {
                let old = diff.original_content.as_deref().unwrap_or("");
                let (added, removed) = crate::tools::diff::line_changes(old, &diff.new_content);
                stats.record_lines(added, removed);
            }
        }
        let parts =
            function_response_parts(&request.name, &request.call_id, &result, &self.ctx.model);
        self.emit(AgentEvent::ToolFinished(ToolCallFinished {
            call_id: request.call_id.clone(),
            name: request.name.clone(),
            args: request.args.clone(),
            status,
            display: result.display.clone(),
            error: result.error.clone(),
            duration,
        }))
        .await;
        CompletedCall {
            request,
            status,
            result,
            parts,
            description: None,
        }
    }
}

/// The session rules an "always allow" answer adds: per root command for
/// the shell, per server or tool for MCP, else for the whole tool.
pub(super) fn always_rules(
    tool_name: &str,
    details: &ConfirmationDetails,
    outcome: ConfirmationOutcome,
) -> Vec<PolicyRule> {
    let allow = |name: &str| {
        PolicyRule::tool(name, Decision::Allow, priority::SESSION_ALWAYS)
            .sourced("Session (allowed always)")
    };
    match details {
        ConfirmationDetails::Exec { root_commands, .. } if !root_commands.is_empty() => {
            root_commands
                .iter()
                .map(|root| allow(tool_name).with_command_prefix(root))
                .collect()
        }
        ConfirmationDetails::Mcp { server_name, .. }
            if outcome == ConfirmationOutcome::ProceedAlwaysServer =>
        {
            vec![allow(&format!("{server_name}__*"))]
        }
        ConfirmationDetails::Exec { .. }
        | ConfirmationDetails::Mcp { .. }
        | ConfirmationDetails::Edit { .. }
        | ConfirmationDetails::Info { .. }
        | ConfirmationDetails::ExitPlanMode { .. } => vec![allow(tool_name)],
    }
}
