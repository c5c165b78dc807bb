//! Hooks (§9 of the v0.27.4 spec): user commands run on agent events with
//! JSON on stdin, whose JSON (or plain text) output can block, stop or
//! rewrite what the agent does.
//!
//! [`HookConfig`] parses the settings, [`HookSystem`] runs the hooks of one
//! event ([`runner`]), merges their outputs ([`aggregate`]) and turns them
//! into a typed outcome per event ([`events`]). Messages for the user are
//! sent to the [`HookMessageSink`] given to [`HookSystem::new`].

pub mod aggregate;
mod api;
pub mod claude;
pub mod claude_settings;
pub mod claude_transcript;
pub mod config;
pub mod event;
pub mod events;
mod http;
mod lifecycle_events;
pub mod matcher;
mod mcp_call;
mod outcomes;
pub mod output;
pub mod prompt;
pub mod runner;
pub mod trusted;

#[cfg(test)]
mod tests;

pub use api::{HookToolCall, Hooks, NoHooks};
pub use config::{HookConfig, HookDialect, HookEvent};
pub use matcher::claude_pre_tool_use_selects;
#[cfg(test)]
pub use outcomes::SessionStartOutcome;
pub use outcomes::{
    AfterModelOutcome, AfterToolOutcome, AgentHookOutcome, AgentStop, BeforeModelOutcome,
    BeforeToolOutcome, HookPermission,
};
pub use output::HookOutput;
pub use runner::{HookEnv, HookRunResult};
pub use trusted::project_hooks_warning;

use matcher::MatchTarget;
use serde_json::{Map, Value};
use std::sync::Arc;

pub use crate::events::HookMessageKind;

/// A message for the user produced while running hooks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookMessage {
    /// How to show it.
    pub kind: HookMessageKind,
    /// The text, without prefix or trailing newline.
    pub text: String,
}

/// Receives [`HookMessage`]s as they happen (before the outcome is returned).
pub type HookMessageSink = Arc<dyn Fn(HookMessage) + Send + Sync>;

/// Runs the configured hooks of a session.
pub struct HookSystem {
    config: HookConfig,
    env: HookEnv,
    sink: HookMessageSink,
    claude: std::sync::Mutex<claude::ClaudeState>,
}

impl std::fmt::Debug for HookSystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HookSystem")
            .field("config", &self.config)
            .field("env", &self.env)
            .finish_non_exhaustive()
    }
}

impl HookSystem {
    /// A hook system for one session.
    pub fn new(config: HookConfig, env: HookEnv, sink: HookMessageSink) -> Self {
        HookSystem {
            config,
            env,
            sink,
            claude: std::sync::Mutex::default(),
        }
    }

    /// What Claude Code's inputs carry across events.
    fn claude_state(&self) -> std::sync::MutexGuard<'_, claude::ClaudeState> {
        self.claude
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// True when `event` has at least one enabled hook configured (cheap;
    /// lets callers skip building inputs).
    pub fn has_hooks(&self, event: HookEvent) -> bool {
        self.config.has_event(event)
    }

    /// True when `event` has an enabled Claude hook.
    pub fn has_claude_hooks(&self, event: HookEvent) -> bool {
        self.config.has_claude(event)
    }

    fn emit(&self, kind: HookMessageKind, text: String) {
        (self.sink)(HookMessage { kind, text });
    }

    /// The base input fields (§9.7).
    fn base_input(&self, event: HookEvent) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert(
            "session_id".into(),
            Value::String(self.env.session_id.clone()),
        );
        m.insert(
            "transcript_path".into(),
            Value::String(self.env.transcript_path.clone()),
        );
        m.insert(
            "cwd".into(),
            Value::String(self.env.project_dir.to_string_lossy().into_owned()),
        );
        m.insert(
            "hook_event_name".into(),
            Value::String(event.as_str().into()),
        );
        let ts = chrono::Utc::now()
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        m.insert("timestamp".into(), Value::String(ts));
        // While planning (a mode v0.27.4's hooks never saw, so its inputs
        // stay byte for byte in the other modes).
        if self
            .env
            .approval_mode
            .as_ref()
            .and_then(|m| m.read().ok())
            .is_some_and(|m| *m == crate::policy::ApprovalMode::Plan)
        {
            m.insert("approval_mode".into(), Value::String("plan".to_string()));
        }
        m
    }

    /// Runs the hooks of `event` that match `target` with the base input plus
    /// `fields`; emits the common messages and returns the merged output
    /// (`None` when no hook ran or none produced output). `fields` is only
    /// built when some hook will run.
    pub async fn run_event(
        &self,
        event: HookEvent,
        target: MatchTarget<'_>,
        fields: impl FnOnce() -> Vec<(&'static str, Value)>,
    ) -> Option<HookOutput> {
        self.run_event_with(event, target, None, fields, Vec::new)
            .await
    }

    /// [`Self::run_event`] of the hooks of one dialect (`only`) or all,
    /// with `claude`: the fields only Claude hooks get (built only when one
    /// of them runs).
    pub async fn run_event_with(
        &self,
        event: HookEvent,
        target: MatchTarget<'_>,
        only: Option<HookDialect>,
        fields: impl FnOnce() -> Vec<(&'static str, Value)>,
        claude: impl FnOnce() -> Vec<(&'static str, Value)>,
    ) -> Option<HookOutput> {
        self.run_event_for(event, target, None, only, fields, claude)
            .await
    }

    /// [`Self::run_event_with`] for the hooks a tool call (`call_id`)
    /// fires, whose telemetry spans hang under the call's.
    pub async fn run_event_for(
        &self,
        event: HookEvent,
        target: MatchTarget<'_>,
        call_id: Option<&str>,
        only: Option<HookDialect>,
        fields: impl FnOnce() -> Vec<(&'static str, Value)>,
        claude: impl FnOnce() -> Vec<(&'static str, Value)>,
    ) -> Option<HookOutput> {
        let plan = matcher::plan_for(&self.config, event, target, only)?;
        let mut gemini = self.base_input(event);
        for (k, v) in fields() {
            gemini.insert(k.into(), v);
        }
        let mut claude_fields = Map::new();
        if plan.hooks.iter().any(|h| h.dialect == HookDialect::Claude) {
            claude_fields.insert(
                "permission_mode".into(),
                Value::String(self.env.permission_mode().into()),
            );
            if let Some(id) = self.claude_state().prompt_id() {
                claude_fields.insert("prompt_id".into(), Value::String(id.into()));
            }
            for (k, v) in claude() {
                claude_fields.insert(k.into(), v);
            }
        }
        let input = runner::EventInput {
            event,
            gemini,
            claude: claude_fields,
            call_id: call_id.filter(|id| !id.is_empty()).map(str::to_string),
        };
        let results = if plan.sequential {
            tracing::debug!(
                "Created execution plan for {event}: {} hook(s) to execute sequentially",
                plan.hooks.len()
            );
            runner::run_sequential(&plan.hooks, &input, &self.env).await
        } else {
            tracing::debug!(
                "Created execution plan for {event}: {} hook(s) to execute in parallel",
                plan.hooks.len()
            );
            runner::run_parallel(&plan.hooks, &input, &self.env).await
        };
        let outputs: Vec<&HookOutput> = results.iter().filter_map(|r| r.output.as_ref()).collect();
        let merged = aggregate::aggregate(event, &outputs);
        if let Some(out) = &merged {
            if let Some(msg) = out.system_message.as_ref().filter(|_| !out.suppressed()) {
                self.emit(
                    HookMessageKind::SystemMessage,
                    format!("Hook system message: {msg}"),
                );
            }
            if out.should_stop() {
                self.emit(
                    HookMessageKind::Info,
                    format!(
                        "Hook requested to stop execution: {}",
                        out.effective_reason()
                    ),
                );
            }
        }
        self.report_failures(event, &results);
        merged
    }

    /// The failure lines of §9.4 when any hook failed.
    fn report_failures(&self, event: HookEvent, results: &[HookRunResult]) {
        let total: u128 = results.iter().map(|r| r.duration.as_millis()).sum();
        let failed: Vec<&HookRunResult> = results.iter().filter(|r| !r.success).collect();
        for r in &failed {
            if let Some(e) = &r.error {
                tracing::warn!("Hook execution error (non-fatal): {e}");
            }
        }
        if failed.is_empty() {
            tracing::debug!(
                "Hook execution for {event}: {} hooks executed successfully, total duration: {total}ms",
                results.len()
            );
            return;
        }
        let names: Vec<&str> = failed.iter().map(|r| r.hook.display_name()).collect();
        let names = names.join(", ");
        self.emit(
            HookMessageKind::Info,
            format!(
                "Hook execution for {event}: {} succeeded, {} failed ({names}), total duration: {total}ms",
                results.len() - failed.len(),
                failed.len()
            ),
        );
        let warning = format!(
            "Hook(s) [{names}] failed for event {event}. Press F12 to see the debug drawer for more details."
        );
        self.emit(HookMessageKind::Info, warning.clone());
        self.emit(HookMessageKind::Warning, warning);
    }
}
