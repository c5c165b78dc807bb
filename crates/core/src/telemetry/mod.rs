//! OpenTelemetry export (Gemini CLI's `telemetry` settings): spans, logs
//! with Gemini CLI's event names and metrics, made from the session's event
//! stream ([`observe`]) and sent by the SDK's batch processors on their own
//! threads, so a turn never waits for an export. Nothing here is set up
//! while telemetry is off.
//!
//! Child processes (shell commands, hooks, MCP stdio servers) get a
//! `TRACEPARENT` of their own span: a tool call's span id is derived from
//! the trace id and the call id ([`ids`]), so the shell tool knows it
//! without waiting for the observer. Layer 1: it knows the settings and
//! the protocol's events, nothing of tools or the agent.

pub mod config;
mod file;
mod hook_span;
mod http;
mod ids;
mod logs;
mod metric_file;
mod metrics;
mod observer;

pub use config::{Sink, TelemetryConfig, resolve};
pub use hook_span::HookSpan;
pub use observer::observe;

use crate::config::Env;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::{SpanContext, SpanId, TraceContextExt, TraceId, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_otlp::{WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::logs::{SdkLogger, SdkLoggerProvider};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use std::collections::HashMap;
use std::sync::{OnceLock, RwLock};
use std::time::Duration;

/// The longest the flush at the end of a session may take, even when the
/// endpoint does not answer.
pub const FLUSH_BOUND: Duration = Duration::from_millis(200);

/// The instrumentation scope of every span, log and metric.
const SCOPE: &str = "gemini-cli";

/// Why telemetry could not start (the session runs without it).
#[derive(Debug, thiserror::Error)]
pub enum TelemetryStartError {
    /// The OTLP exporter refused its configuration (a bad endpoint URL).
    #[error("could not set up the OTLP exporter for {endpoint}: {message}")]
    Exporter {
        /// The endpoint.
        endpoint: String,
        /// What the exporter said.
        message: String,
    },
    /// The outfile cannot be opened for appending.
    #[error("could not open the telemetry outfile {path}: {source}")]
    Outfile {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The HTTP client could not be built.
    #[error(transparent)]
    Client(#[from] crate::model::http::ClientBuildError),
}

/// The process's exporters (one per process, as in Gemini CLI).
pub(crate) struct Exporters {
    tracer: SdkTracer,
    logger: SdkLogger,
    traces: SdkTracerProvider,
    logs: SdkLoggerProvider,
    metrics: Option<SdkMeterProvider>,
    log_prompts: bool,
}

static EXPORTERS: OnceLock<Exporters> = OnceLock::new();

/// The session span child processes hang under (the last session started).
#[derive(Debug, Clone, Copy)]
struct Link {
    trace_id: TraceId,
    session_span: SpanId,
}

static LINK: RwLock<Option<Link>> = RwLock::new(None);

fn traceparent(trace_id: TraceId, span_id: SpanId) -> String {
    format!("00-{trace_id}-{span_id}-01")
}

/// `TRACEPARENT` for a tool call's child process (the shell tool); `None`
/// while telemetry is off.
pub fn tool_traceparent(call_id: &str) -> Option<String> {
    let link = (*LINK.read().ok()?)?;
    Some(traceparent(
        link.trace_id,
        ids::tool_span_id(link.trace_id, call_id),
    ))
}

/// `TRACEPARENT` for a process that lives as long as the session (an MCP
/// stdio server): the session span's.
pub fn session_traceparent() -> Option<String> {
    let link = (*LINK.read().ok()?)?;
    Some(traceparent(link.trace_id, link.session_span))
}

/// The caller's span from `TRACEPARENT` / `TRACESTATE`, if valid.
fn caller_context(env: &Env) -> Option<SpanContext> {
    let mut carrier = HashMap::new();
    carrier.insert("traceparent".to_string(), env.var("TRACEPARENT")?);
    if let Some(state) = env.var("TRACESTATE") {
        carrier.insert("tracestate".to_string(), state);
    }
    let cx = TraceContextPropagator::new().extract(&carrier);
    let span = cx.span().span_context().clone();
    span.is_valid().then_some(span)
}

/// Sets up the exporters once per process (later calls reuse them).
fn exporters(
    config: &TelemetryConfig,
    session_id: &str,
) -> Result<&'static Exporters, TelemetryStartError> {
    if let Some(e) = EXPORTERS.get() {
        return Ok(e);
    }
    let resource = Resource::builder_empty()
        .with_service_name(SCOPE)
        .with_attributes([
            KeyValue::new("service.version", env!("CARGO_PKG_VERSION")),
            KeyValue::new("session.id", session_id.to_string()),
            KeyValue::new("process.pid", i64::from(std::process::id())),
        ])
        .build();
    let traces = SdkTracerProvider::builder()
        .with_resource(resource.clone())
        .with_id_generator(ids::Ids);
    let logs = SdkLoggerProvider::builder().with_resource(resource.clone());
    let (traces, logs, metrics) = match &config.sink {
        Sink::File(path) => {
            let out = file::Outfile::open(path).map_err(|source| TelemetryStartError::Outfile {
                path: path.clone(),
                source,
            })?;
            let reader = PeriodicReader::builder(metric_file::MetricFile::new(out.clone()))
                .with_interval(Duration::from_secs(10))
                .build();
            let meters = SdkMeterProvider::builder()
                .with_resource(resource.clone())
                .with_reader(reader)
                .build();
            (
                traces.with_batch_exporter(file::SpanFile::new(out.clone(), resource.clone())),
                logs.with_batch_exporter(file::LogFile::new(out, resource)),
                Some(meters),
            )
        }
        Sink::Otlp(endpoint) => {
            let client = http::Client::new()?;
            let url = |signal: &str| format!("{}/v1/{signal}", endpoint.trim_end_matches('/'));
            let bad = |e: opentelemetry_otlp::ExporterBuildError| TelemetryStartError::Exporter {
                endpoint: endpoint.clone(),
                message: e.to_string(),
            };
            let spans = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_http_client(client.clone())
                .with_endpoint(url("traces"))
                .build()
                .map_err(bad)?;
            let records = opentelemetry_otlp::LogExporter::builder()
                .with_http()
                .with_http_client(client.clone())
                .with_endpoint(url("logs"))
                .build()
                .map_err(bad)?;
            let points = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_http_client(client)
                .with_endpoint(url("metrics"))
                .build()
                .map_err(bad)?;
            let reader = PeriodicReader::builder(points)
                .with_interval(Duration::from_secs(10))
                .build();
            let meters = SdkMeterProvider::builder()
                .with_resource(resource)
                .with_reader(reader)
                .build();
            (
                traces.with_batch_exporter(spans),
                logs.with_batch_exporter(records),
                Some(meters),
            )
        }
    };
    let traces = traces.build();
    let logs = logs.build();
    use opentelemetry::logs::LoggerProvider as _;
    use opentelemetry::trace::TracerProvider as _;
    let built = Exporters {
        tracer: traces.tracer(SCOPE),
        logger: logs.logger(SCOPE),
        traces,
        logs,
        metrics,
        log_prompts: config.log_prompts,
    };
    Ok(EXPORTERS.get_or_init(|| built))
}

/// A session's telemetry: the exporters and its session span.
pub(crate) struct SessionTelemetry {
    exporters: &'static Exporters,
    session: opentelemetry_sdk::trace::Span,
    session_cx: Context,
}

/// Starts the session span (a child of the caller's `TRACEPARENT` span
/// when there is one) and makes it the parent of child processes.
pub(crate) fn start(
    config: &TelemetryConfig,
    session_id: &str,
    env: &Env,
) -> Result<SessionTelemetry, TelemetryStartError> {
    let exporters = exporters(config, session_id)?;
    let parent = match caller_context(env) {
        Some(span) => Context::new().with_remote_span_context(span),
        None => Context::new(),
    };
    let session = exporters.tracer.build_with_context(
        exporters.tracer.span_builder("session").with_attributes([
            KeyValue::new("session.id", session_id.to_string()),
            KeyValue::new("gen_ai.conversation.id", session_id.to_string()),
            KeyValue::new("gen_ai.agent.name", "gemini-rs"),
        ]),
        &parent,
    );
    use opentelemetry::trace::Span as _;
    let span_context = session.span_context().clone();
    if let Ok(mut link) = LINK.write() {
        *link = Some(Link {
            trace_id: span_context.trace_id(),
            session_span: span_context.span_id(),
        });
    }
    let session_cx = Context::new().with_remote_span_context(span_context);
    Ok(SessionTelemetry {
        exporters,
        session,
        session_cx,
    })
}

impl Exporters {
    /// Exports what is buffered, waiting at most [`FLUSH_BOUND`]; the
    /// export goes on in the background when the endpoint is slow.
    async fn flush(&'static self) {
        let (done, wait) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("otel-flush".into())
            .spawn(move || {
                let _ = self.traces.force_flush();
                let _ = self.logs.force_flush();
                if let Some(metrics) = &self.metrics {
                    let _ = metrics.force_flush();
                }
                let _ = done.send(());
            });
        if spawned.is_ok() {
            let _ = tokio::time::timeout(FLUSH_BOUND, wait).await;
        }
    }
}

/// `gen_ai.provider.name` of a model id.
fn provider_of(model: &str) -> &'static str {
    let m = model.to_ascii_lowercase();
    if m.starts_with("gpt") || m.starts_with("o1") || m.starts_with("o3") || m.starts_with("o4") {
        "openai"
    } else if m.starts_with("claude") {
        "anthropic"
    } else if m.starts_with("gemini") || m.starts_with("gemma") {
        "gcp.gen_ai"
    } else {
        "other"
    }
}

/// `tool_type`: `mcp` for an MCP server's tool (`server__tool`), else `native`.
fn tool_type(name: &str) -> &'static str {
    if name.contains("__") { "mcp" } else { "native" }
}

/// Model and token attributes of an `llm_call` span.
fn usage_attributes(model: &str, usage: &gemini_rs_protocol::UsageMetadata) -> Vec<KeyValue> {
    let n = |v: Option<u64>| i64::try_from(v.unwrap_or(0)).unwrap_or(i64::MAX);
    vec![
        KeyValue::new("gen_ai.response.model", model.to_string()),
        KeyValue::new("gen_ai.usage.input_tokens", n(usage.prompt_token_count)),
        KeyValue::new(
            "gen_ai.usage.output_tokens",
            n(usage.candidates_token_count),
        ),
        KeyValue::new(
            "gen_ai.usage.cached_tokens",
            n(usage.cached_content_token_count),
        ),
        KeyValue::new(
            "gen_ai.usage.thoughts_tokens",
            n(usage.thoughts_token_count),
        ),
        KeyValue::new("gen_ai.usage.total_tokens", n(usage.total_token_count)),
    ]
}

/// The `outcome` of a turn that failed.
fn error_kind(error: &gemini_rs_protocol::events::AgentError) -> &'static str {
    use gemini_rs_protocol::events::AgentError as E;
    match error {
        E::TurnLimit => "turn_limit",
        E::Model { .. } => "model_error",
        E::Cancelled => "cancelled",
        E::FatalTool { .. } => "fatal_tool_error",
        E::BudgetExceeded { .. } => "budget_exceeded",
        E::StructuredOutput { .. } => "structured_output_invalid",
        E::Command { .. } => "command_error",
        E::ResourceLimit { .. } => "resource_limit",
    }
}
