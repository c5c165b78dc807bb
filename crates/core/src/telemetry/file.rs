//! `outfile`: spans and log records (metrics: [`super::metric_file`]) appended as JSON lines, one object per
//! line, with the field names Gemini CLI's file exporters write
//! (`_spanContext`, `parentSpanContext`, `startTime` as `[seconds, nanos]`,
//! `hrTime`, `_body`, `resource._rawAttributes`, ...).

use opentelemetry::logs::AnyValue;
use opentelemetry::trace::{SpanContext, Status};
use opentelemetry::{Array, KeyValue, Value};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::logs::{LogBatch, LogExporter};
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use serde_json::{Map, Value as Json, json};
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// The outfile, shared by the span and the log exporter.
#[derive(Debug, Clone)]
pub(super) struct Outfile(Arc<Mutex<File>>);

impl Outfile {
    /// Opens `path` for appending, creating it `0600` (it holds prompts
    /// and answers). Opened without blocking: a FIFO, a device or a
    /// socket is refused (it would hold or eat the session's records).
    pub(super) fn open(path: &Path) -> std::io::Result<Outfile> {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                // A FIFO nobody reads.
                Some(libc::ENXIO) => std::io::Error::other("it is not a regular file (a FIFO)"),
                _ => e,
            })?;
        let kind = file.metadata()?.file_type();
        if !kind.is_file() {
            let what = if kind.is_fifo() {
                "a FIFO"
            } else if kind.is_char_device() || kind.is_block_device() {
                "a device"
            } else {
                "not a regular file"
            };
            return Err(std::io::Error::other(format!(
                "it is not a regular file ({what})"
            )));
        }
        Ok(Outfile(Arc::new(Mutex::new(file))))
    }

    pub(super) fn write_lines(&self, lines: &[Json]) -> OTelSdkResult {
        let mut text = String::new();
        for line in lines {
            text.push_str(&line.to_string());
            text.push('\n');
        }
        let mut file = self
            .0
            .lock()
            .map_err(|_| OTelSdkError::InternalFailure("outfile lock poisoned".into()))?;
        file.write_all(text.as_bytes())
            .map_err(|e| OTelSdkError::InternalFailure(format!("writing the outfile: {e}")))
    }
}

pub(super) fn hr_time(at: SystemTime) -> Json {
    hr_duration(at.duration_since(UNIX_EPOCH).unwrap_or_default())
}

fn hr_duration(d: Duration) -> Json {
    json!([d.as_secs(), d.subsec_nanos()])
}

fn value(v: &Value) -> Json {
    match v {
        Value::Bool(b) => json!(b),
        Value::I64(i) => json!(i),
        Value::F64(f) => json!(f),
        Value::String(s) => json!(s.as_str()),
        Value::Array(Array::Bool(a)) => json!(a),
        Value::Array(Array::I64(a)) => json!(a),
        Value::Array(Array::F64(a)) => json!(a),
        Value::Array(Array::String(a)) => json!(
            a.iter()
                .map(opentelemetry::StringValue::as_str)
                .collect::<Vec<_>>()
        ),
        other => json!(other.to_string()),
    }
}

fn any_value(v: &AnyValue) -> Json {
    match v {
        AnyValue::Int(i) => json!(i),
        AnyValue::Double(f) => json!(f),
        AnyValue::String(s) => json!(s.as_str()),
        AnyValue::Boolean(b) => json!(b),
        AnyValue::ListAny(items) => Json::Array(items.iter().map(any_value).collect()),
        AnyValue::Map(map) => Json::Object(
            map.iter()
                .map(|(k, v)| (k.to_string(), any_value(v)))
                .collect(),
        ),
        AnyValue::Bytes(bytes) => json!(bytes.as_slice()),
        other => json!(format!("{other:?}")),
    }
}

pub(super) fn attributes<'a>(kvs: impl Iterator<Item = &'a KeyValue>) -> Json {
    Json::Object(
        kvs.map(|kv| (kv.key.to_string(), value(&kv.value)))
            .collect::<Map<_, _>>(),
    )
}

fn span_context(cx: &SpanContext) -> Json {
    json!({
        "traceId": cx.trace_id().to_string(),
        "spanId": cx.span_id().to_string(),
        "traceFlags": cx.trace_flags().to_u8(),
    })
}

pub(super) fn resource(resource: &Resource) -> Json {
    json!({
        "_rawAttributes": resource
            .iter()
            .map(|(k, v)| json!([k.as_str(), value(v)]))
            .collect::<Vec<_>>(),
    })
}

fn span_line(span: &SpanData, resource: &Json) -> Json {
    let status = match &span.status {
        Status::Unset => json!({"code": 0}),
        Status::Ok => json!({"code": 1}),
        Status::Error { description } => json!({"code": 2, "message": description.as_ref()}),
    };
    let mut line = Map::new();
    line.insert("_spanContext".into(), span_context(&span.span_context));
    line.insert("kind".into(), json!(0));
    if span.parent_span_id != opentelemetry::trace::SpanId::INVALID {
        line.insert(
            "parentSpanContext".into(),
            json!({
                "traceId": span.span_context.trace_id().to_string(),
                "spanId": span.parent_span_id.to_string(),
                "traceFlags": span.span_context.trace_flags().to_u8(),
            }),
        );
    }
    line.insert("attributes".into(), attributes(span.attributes.iter()));
    line.insert("links".into(), json!([]));
    let events: Vec<Json> = span
        .events
        .iter()
        .map(|e| {
            json!({
                "name": e.name.as_ref(),
                "attributes": attributes(e.attributes.iter()),
                "time": hr_time(e.timestamp),
            })
        })
        .collect();
    line.insert("events".into(), Json::Array(events));
    line.insert("startTime".into(), hr_time(span.start_time));
    line.insert("resource".into(), resource.clone());
    line.insert(
        "instrumentationScope".into(),
        json!({"name": span.instrumentation_scope.name(), "version": span.instrumentation_scope.version()}),
    );
    line.insert("name".into(), json!(span.name.as_ref()));
    line.insert("status".into(), status);
    line.insert("endTime".into(), hr_time(span.end_time));
    line.insert("_ended".into(), json!(true));
    let took = span
        .end_time
        .duration_since(span.start_time)
        .unwrap_or_default();
    line.insert("_duration".into(), hr_duration(took));
    Json::Object(line)
}

/// Spans to the outfile.
#[derive(Debug)]
pub(super) struct SpanFile {
    out: Outfile,
    resource: Json,
}

impl SpanFile {
    pub(super) fn new(out: Outfile, resource: Resource) -> SpanFile {
        SpanFile {
            out,
            resource: self::resource(&resource),
        }
    }
}

impl SpanExporter for SpanFile {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let lines: Vec<Json> = batch.iter().map(|s| span_line(s, &self.resource)).collect();
        self.out.write_lines(&lines)
    }
}

/// Log records to the outfile.
#[derive(Debug)]
pub(super) struct LogFile {
    out: Outfile,
    resource: Json,
}

impl LogFile {
    pub(super) fn new(out: Outfile, resource: Resource) -> LogFile {
        LogFile {
            out,
            resource: self::resource(&resource),
        }
    }
}

impl LogExporter for LogFile {
    async fn export(&self, batch: LogBatch<'_>) -> OTelSdkResult {
        let lines: Vec<Json> = batch
            .iter()
            .map(|(record, scope)| {
                let at = record.timestamp().unwrap_or_else(SystemTime::now);
                let mut line = Map::new();
                line.insert("hrTime".into(), hr_time(at));
                line.insert(
                    "hrTimeObserved".into(),
                    hr_time(record.observed_timestamp().unwrap_or(at)),
                );
                if let Some(cx) = record.trace_context() {
                    line.insert(
                        "spanContext".into(),
                        json!({
                            "traceId": cx.trace_id.to_string(),
                            "spanId": cx.span_id.to_string(),
                            "traceFlags": cx.trace_flags.map_or(1, opentelemetry::TraceFlags::to_u8),
                        }),
                    );
                }
                line.insert("resource".into(), self.resource.clone());
                line.insert("instrumentationScope".into(), json!({"name": scope.name()}));
                let attrs: Map<String, Json> = record
                    .attributes_iter()
                    .map(|(k, v)| (k.to_string(), any_value(v)))
                    .collect();
                line.insert("attributes".into(), Json::Object(attrs));
                line.insert("_body".into(), record.body().map_or(Json::Null, any_value));
                Json::Object(line)
            })
            .collect();
        self.out.write_lines(&lines)
    }
}
