//! Log records with Gemini CLI's event names (`gemini_cli.user_prompt`,
//! `gemini_cli.api_request`, `gemini_cli.api_response`,
//! `gemini_cli.api_error`, `gemini_cli.tool_call`, `gemini_cli.agent.*`,
//! `gemini_cli.hook_call`)
//! and its attribute names, each tied to the span it happened in.

use gemini_rs_protocol::UsageMetadata;
use gemini_rs_protocol::events::{HookRun, ToolCallFinished};
use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _, Severity};
use opentelemetry::trace::Span as _;
use opentelemetry_sdk::logs::SdkLogger;
use opentelemetry_sdk::trace::Span;

/// What every record of a session shares.
pub(super) struct Logs<'a> {
    pub logger: &'a SdkLogger,
    pub session_id: &'a str,
    pub prompt_id: &'a str,
    pub log_prompts: bool,
}

type Attrs = Vec<(&'static str, AnyValue)>;

fn count(n: Option<u64>) -> AnyValue {
    AnyValue::Int(n.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX)))
}

fn millis(ms: u128) -> AnyValue {
    AnyValue::Int(i64::try_from(ms).unwrap_or(i64::MAX))
}

impl Logs<'_> {
    fn emit(&self, name: &'static str, body: String, attrs: Attrs, span: &Span) {
        let mut record = self.logger.create_log_record();
        let now = std::time::SystemTime::now();
        record.set_event_name(name);
        record.set_timestamp(now);
        record.set_observed_timestamp(now);
        record.set_severity_number(Severity::Info);
        record.set_body(AnyValue::from(body));
        record.add_attribute("session.id", self.session_id.to_string());
        record.add_attribute("event.name", name);
        record.add_attribute(
            "event.timestamp",
            chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        );
        for (key, value) in attrs {
            record.add_attribute(key, value);
        }
        let cx = span.span_context();
        record.set_trace_context(cx.trace_id(), cx.span_id(), Some(cx.trace_flags()));
        self.logger.emit(record);
    }

    pub(super) fn hook_call(&self, run: &HookRun, success: bool, span: &Span) {
        let mut attrs: Attrs = vec![
            ("hook_event_name", run.event.clone().into()),
            ("hook_name", run.hook_name.clone().into()),
            ("duration_ms", millis(run.duration.as_millis())),
            ("success", AnyValue::Boolean(success)),
        ];
        if let Some(code) = run.exit_code {
            attrs.push(("exit_code", AnyValue::Int(i64::from(code))));
        }
        if let Some(error) = &run.error {
            attrs.push(("error", error.clone().into()));
        }
        let body = format!(
            "Hook call {}. Success: {success}. Duration: {}ms.",
            run.hook_name,
            run.duration.as_millis()
        );
        self.emit("gemini_cli.hook_call", body, attrs, span);
    }

    pub(super) fn user_prompt(&self, text: &str, span: &Span) {
        let length = text.chars().count();
        let mut attrs: Attrs = vec![
            ("prompt_length", AnyValue::Int(length as i64)),
            ("prompt_id", self.prompt_id.to_string().into()),
        ];
        if self.log_prompts {
            attrs.push(("prompt", text.to_string().into()));
        }
        self.emit(
            "gemini_cli.user_prompt",
            format!("User prompt. Length: {length}."),
            attrs,
            span,
        );
    }

    pub(super) fn api_request(&self, model: &str, role: &'static str, span: &Span) {
        let attrs: Attrs = vec![
            ("model", model.to_string().into()),
            ("prompt_id", self.prompt_id.to_string().into()),
            ("role", role.into()),
        ];
        self.emit(
            "gemini_cli.api_request",
            format!("API request to {model}."),
            attrs,
            span,
        );
    }

    pub(super) fn api_response(&self, model: &str, usage: &UsageMetadata, ms: u128, span: &Span) {
        let attrs: Attrs = vec![
            ("model", model.to_string().into()),
            ("duration_ms", millis(ms)),
            ("input_token_count", count(usage.prompt_token_count)),
            ("output_token_count", count(usage.candidates_token_count)),
            (
                "cached_content_token_count",
                count(usage.cached_content_token_count),
            ),
            ("thoughts_token_count", count(usage.thoughts_token_count)),
            ("tool_token_count", count(usage.tool_use_prompt_token_count)),
            ("total_token_count", count(usage.total_token_count)),
            ("prompt_id", self.prompt_id.to_string().into()),
            ("status_code", AnyValue::Int(200)),
        ];
        self.emit(
            "gemini_cli.api_response",
            format!("API response from {model}. Status: 200. Duration: {ms}ms."),
            attrs,
            span,
        );
    }

    pub(super) fn api_error(&self, model: &str, error: &str, ms: u128, span: &Span) {
        let attrs: Attrs = vec![
            ("model", model.to_string().into()),
            ("error", error.to_string().into()),
            ("error.message", error.to_string().into()),
            ("duration_ms", millis(ms)),
            ("prompt_id", self.prompt_id.to_string().into()),
        ];
        self.emit(
            "gemini_cli.api_error",
            format!("API error for {model}. Error: {error}. Duration: {ms}ms."),
            attrs,
            span,
        );
    }

    pub(super) fn tool_call(&self, done: &ToolCallFinished, decision: &'static str, span: &Span) {
        let success = done.status == gemini_rs_protocol::events::ToolCallStatus::Success;
        let ms = done.duration.as_millis();
        let mut attrs: Attrs = vec![
            ("function_name", done.name.clone().into()),
            ("duration_ms", millis(ms)),
            ("success", AnyValue::Boolean(success)),
            ("decision", decision.into()),
            ("prompt_id", self.prompt_id.to_string().into()),
            ("tool_type", super::tool_type(&done.name).into()),
        ];
        if self.log_prompts {
            attrs.push(("function_args", done.args.to_string().into()));
        }
        if let Some(error) = &done.error {
            attrs.push(("error", error.message.clone().into()));
            let kind = serde_json::to_value(error.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            attrs.push(("error_type", kind.into()));
        }
        self.emit(
            "gemini_cli.tool_call",
            format!(
                "Tool call: {}. Decision: {decision}. Success: {success}. Duration: {ms}ms.",
                done.name
            ),
            attrs,
            span,
        );
    }

    pub(super) fn agent_start(&self, name: &str, id: &str, span: &Span) {
        let attrs: Attrs = vec![
            ("agent_id", id.to_string().into()),
            ("agent_name", name.to_string().into()),
        ];
        self.emit(
            "gemini_cli.agent.start",
            format!("Agent {name} started. ID: {id}"),
            attrs,
            span,
        );
    }

    pub(super) fn agent_finish(
        &self,
        name: &str,
        id: &str,
        reason: &'static str,
        ms: u128,
        turns: u64,
        span: &Span,
    ) {
        let attrs: Attrs = vec![
            ("agent_id", id.to_string().into()),
            ("agent_name", name.to_string().into()),
            ("duration_ms", millis(ms)),
            ("turn_count", count(Some(turns))),
            ("status", reason.into()),
        ];
        self.emit(
            "gemini_cli.agent.finish",
            format!("Agent {name} finished. Status: {reason}. Duration: {ms}ms. Turns: {turns}."),
            attrs,
            span,
        );
    }
}
