//! A hook run's span and its `gemini_cli.hook_call` record. The runner
//! picks the span's id before the hook starts, so the hook's process gets
//! its `TRACEPARENT`; when the hook has ended it reports a [`HookRun`]
//! through the event stream, and the observer records the span under the
//! step that fired it (the tool call, the model call, the turn).

use super::logs::Logs;
use super::{EXPORTERS, Exporters, LINK, ids, traceparent};
use gemini_rs_protocol::events::HookRun;
use opentelemetry::trace::{Span as _, SpanId, Status, TraceId, Tracer};
use opentelemetry::{Context, KeyValue};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A hook run in progress (only while telemetry is on).
pub struct HookSpan {
    trace_id: TraceId,
    span_id: SpanId,
    started: SystemTime,
    name: String,
}

impl HookSpan {
    /// Picks the span id of hook `name`'s run; `None` while telemetry is off.
    pub fn start(name: &str) -> Option<HookSpan> {
        EXPORTERS.get()?;
        let link = (*LINK.read().ok()?)?;
        Some(HookSpan {
            trace_id: link.trace_id,
            span_id: ids::random_span_id(),
            started: SystemTime::now(),
            name: name.to_string(),
        })
    }

    /// `TRACEPARENT` for the hook's process.
    pub fn traceparent(&self) -> String {
        traceparent(self.trace_id, self.span_id)
    }

    /// What to report when the hook of `event` (fired by call `call_id`) ended.
    pub fn finish(
        self,
        event: &str,
        call_id: Option<&str>,
        exit_code: Option<i32>,
        took: Duration,
        error: Option<String>,
    ) -> HookRun {
        let since = self.started.duration_since(UNIX_EPOCH).unwrap_or_default();
        HookRun {
            event: event.to_string(),
            hook_name: self.name,
            call_id: call_id.map(str::to_string),
            span_id: self.span_id.to_string(),
            started_unix_us: u64::try_from(since.as_micros()).unwrap_or(u64::MAX),
            duration: took,
            exit_code,
            error,
        }
    }
}

/// Records `run` as a `hook_call` span under `parent`, with its log record.
pub(super) fn record(ex: &Exporters, logs: &Logs<'_>, parent: &Context, run: &HookRun) {
    let Ok(span_id) = SpanId::from_hex(&run.span_id) else {
        return;
    };
    let started = UNIX_EPOCH + Duration::from_micros(run.started_unix_us);
    let success = run.exit_code == Some(0) && run.error.is_none();
    let ms = i64::try_from(run.duration.as_millis()).unwrap_or(i64::MAX);
    let builder = ex
        .tracer
        .span_builder("hook_call")
        .with_start_time(started)
        .with_attributes([
            KeyValue::new("hook_name", run.hook_name.clone()),
            KeyValue::new("hook_event_name", run.event.clone()),
            KeyValue::new("hook_type", "command"),
            KeyValue::new("exit_code", i64::from(run.exit_code.unwrap_or(-1))),
            KeyValue::new("success", success),
            KeyValue::new("duration_ms", ms),
        ]);
    let mut span = ids::with_span_id(span_id, || ex.tracer.build_with_context(builder, parent));
    if let Some(error) = &run.error {
        span.set_status(Status::error(error.clone()));
    }
    logs.hook_call(run, success, &span);
    span.end_with_timestamp(started + run.duration);
}
