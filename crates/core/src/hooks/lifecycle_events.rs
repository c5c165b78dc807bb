//! The hook events of the session's life: its start and end, a failed
//! stop, compression and notifications.

use super::matcher::MatchTarget;
use super::outcomes::SessionStartOutcome;
use super::{HookDialect, HookEvent, HookSystem};
use serde_json::Value;

impl HookSystem {
    /// SessionStart (`startup|resume|clear`).
    pub async fn session_start(&self, source: &str) -> SessionStartOutcome {
        let out = self
            .run_event(
                HookEvent::SessionStart,
                MatchTarget::Trigger(source),
                || vec![("source", Value::String(source.into()))],
            )
            .await;
        match out {
            Some(o) => SessionStartOutcome {
                system_message: o.system_message.clone(),
                additional_context: o.additional_context(),
            },
            None => SessionStartOutcome::default(),
        }
    }

    /// SessionEnd (`exit|clear|logout|prompt_input_exit|other`). Advisory.
    pub async fn session_end(&self, reason: &str) {
        self.run_event(HookEvent::SessionEnd, MatchTarget::Trigger(reason), || {
            vec![("reason", Value::String(reason.into()))]
        })
        .await;
    }

    /// StopFailure (Claude hooks only), when a prompt ends on a model
    /// error: matchers select the `error` kind. Advisory: Claude Code
    /// ignores what such a hook answers.
    pub async fn stop_failure(&self, error: &str, message: &str) {
        self.run_event_with(
            HookEvent::StopFailure,
            MatchTarget::Trigger(error),
            Some(HookDialect::Claude),
            Vec::new,
            || {
                vec![
                    ("error", Value::String(error.into())),
                    ("last_assistant_message", Value::String(message.into())),
                ]
            },
        )
        .await;
    }

    /// PreCompress (`manual|auto`). Advisory.
    pub async fn pre_compress(&self, trigger: &str) {
        self.pre_compress_of(trigger, None).await;
    }

    /// The PreCompress Gemini CLI fires before each model call once there
    /// is history: Gemini-format hooks only (Claude's PreCompact fires
    /// only when history is compacted).
    pub async fn turn_pre_compress(&self) {
        self.pre_compress_of("auto", Some(HookDialect::Gemini))
            .await;
    }

    /// PreCompress for the hooks of `only` (or all).
    async fn pre_compress_of(&self, trigger: &str, only: Option<HookDialect>) {
        self.run_event_with(
            HookEvent::PreCompress,
            MatchTarget::Trigger(trigger),
            only,
            || vec![("trigger", Value::String(trigger.into()))],
            // `/compress` takes no instructions: Claude Code's bare
            // `/compact` sends null.
            || vec![("custom_instructions", Value::Null)],
        )
        .await;
    }

    /// PostCompact (Claude hooks only), after the history was compressed
    /// (`trigger`: `manual|auto`) into `summary`. Advisory.
    pub async fn post_compact(&self, trigger: &str, summary: &str) {
        self.run_event_with(
            HookEvent::PostCompact,
            MatchTarget::Trigger(trigger),
            Some(HookDialect::Claude),
            Vec::new,
            || {
                vec![
                    ("trigger", Value::String(trigger.into())),
                    ("compact_summary", Value::String(summary.into())),
                ]
            },
        )
        .await;
    }

    /// Notification of type `ToolPermission` with `message` (`Tool <title>
    /// requires …`) and the serialisable confirmation `details`. Advisory.
    /// Claude hooks get Claude's `permission_prompt` type.
    pub async fn notification(&self, message: &str, details: &Value) {
        self.run_event_with(
            HookEvent::Notification,
            MatchTarget::None,
            None,
            || {
                vec![
                    ("notification_type", Value::String("ToolPermission".into())),
                    ("message", Value::String(message.into())),
                    ("details", details.clone()),
                ]
            },
            || {
                vec![(
                    "notification_type",
                    Value::String("permission_prompt".into()),
                )]
            },
        )
        .await;
    }
}
