//! A hook run's span and its `gemini_cli.hook_call` record: the hook
//! process gets the span's `TRACEPARENT`.

use super::{EXPORTERS, LINK, traceparent};
use opentelemetry::logs::{AnyValue, LogRecord as _, Logger as _};
use opentelemetry::trace::{
    Span as _, SpanContext, Status, TraceContextExt, TraceFlags, TraceState, Tracer,
};
use opentelemetry::{Context, KeyValue};
use std::time::Duration;

/// The span of one hook run (only while telemetry is on).
pub struct HookSpan {
    span: opentelemetry_sdk::trace::Span,
    name: String,
}

impl HookSpan {
    /// Opens the span of hook `name` under the session span; `None` while
    /// telemetry is off.
    pub fn start(name: &str) -> Option<HookSpan> {
        let exporters = EXPORTERS.get()?;
        let link = (*LINK.read().ok()?)?;
        let parent = Context::new().with_remote_span_context(SpanContext::new(
            link.trace_id,
            link.session_span,
            TraceFlags::SAMPLED,
            false,
            TraceState::default(),
        ));
        let builder = exporters.tracer.span_builder("hook_call").with_attributes([
            KeyValue::new("hook_name", name.to_string()),
            KeyValue::new("hook_type", "command"),
        ]);
        Some(HookSpan {
            span: exporters.tracer.build_with_context(builder, &parent),
            name: name.to_string(),
        })
    }

    /// `TRACEPARENT` for the hook's process.
    pub fn traceparent(&self) -> String {
        let cx = self.span.span_context();
        traceparent(cx.trace_id(), cx.span_id())
    }

    /// Ends the span with how the hook ended.
    pub fn end(mut self, exit_code: Option<i32>, took: Duration, error: Option<String>) {
        let success = exit_code == Some(0) && error.is_none();
        let ms = i64::try_from(took.as_millis()).unwrap_or(i64::MAX);
        self.span.set_attributes([
            KeyValue::new("exit_code", i64::from(exit_code.unwrap_or(-1))),
            KeyValue::new("success", success),
            KeyValue::new("duration_ms", ms),
        ]);
        if let Some(error) = &error {
            self.span.set_status(Status::error(error.clone()));
        }
        if let Some(exporters) = EXPORTERS.get() {
            let mut record = exporters.logger.create_log_record();
            record.set_event_name("gemini_cli.hook_call");
            record.set_timestamp(std::time::SystemTime::now());
            record.set_body(AnyValue::from(format!(
                "Hook call {}. Success: {success}. Duration: {ms}ms.",
                self.name
            )));
            record.add_attribute("event.name", "gemini_cli.hook_call");
            record.add_attribute("hook_name", self.name.clone());
            record.add_attribute("duration_ms", ms);
            record.add_attribute("success", success);
            if let Some(code) = exit_code {
                record.add_attribute("exit_code", i64::from(code));
            }
            if let Some(error) = error {
                record.add_attribute("error", error);
            }
            let cx = self.span.span_context();
            record.set_trace_context(cx.trace_id(), cx.span_id(), Some(cx.trace_flags()));
            exporters.logger.emit(record);
        }
        self.span.end();
    }
}
