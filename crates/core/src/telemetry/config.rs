//! Which telemetry a run exports: Gemini CLI's `telemetry` settings and its
//! `GEMINI_TELEMETRY_*` variables (a variable wins over the settings, as
//! there), resolved once at start-up.

use crate::config::{Env, Settings};
use serde::Deserialize;

/// Gemini CLI's default OTLP endpoint (its gRPC port).
const GEMINI_DEFAULT_ENDPOINT: &str = "http://localhost:4317";
/// The OTLP/HTTP port every collector listens on.
const HTTP_DEFAULT_ENDPOINT: &str = "http://localhost:4318";

/// The `telemetry` object of settings.json.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TelemetrySettings {
    enabled: Option<bool>,
    target: Option<String>,
    otlp_endpoint: Option<String>,
    otlp_protocol: Option<String>,
    outfile: Option<String>,
    log_prompts: Option<bool>,
}

/// A telemetry setting or variable with a value Gemini CLI refuses too.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TelemetryConfigError {
    /// `telemetry` is not an object of the documented keys.
    #[error("Invalid telemetry settings: {0}")]
    Settings(String),
    /// `target` / `GEMINI_TELEMETRY_TARGET` is neither local nor gcp.
    #[error("Invalid telemetry target: {0}. Valid values are: local, gcp")]
    Target(String),
    /// `otlpProtocol` / `GEMINI_TELEMETRY_OTLP_PROTOCOL` is neither grpc nor http.
    #[error("Invalid telemetry OTLP protocol: {0}. Valid values are: grpc, http")]
    Protocol(String),
}

/// Where spans, logs and metrics go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sink {
    /// OTLP over HTTP with protobuf bodies; the base URL (`/v1/traces`,
    /// `/v1/logs` and `/v1/metrics` are appended).
    Otlp(String),
    /// JSON lines appended to this file (`outfile`; it wins over the
    /// endpoint, as in Gemini CLI).
    File(std::path::PathBuf),
}

/// The resolved configuration of an enabled telemetry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TelemetryConfig {
    /// Where it goes.
    pub sink: Sink,
    /// Prompts, arguments and responses go into logs and spans.
    pub log_prompts: bool,
    /// Lines for the user (an unsupported target or protocol).
    pub warnings: Vec<String>,
}

fn flag(env: &Env, name: &str) -> Option<bool> {
    env.var(name).map(|v| v == "true" || v == "1")
}

/// The merged settings as far as `telemetry` goes.
#[derive(Debug, Default, Deserialize)]
struct WithTelemetry {
    #[serde(default)]
    telemetry: Option<TelemetrySettings>,
}

/// Resolves the settings and variables; `Ok(None)` when telemetry is off
/// (the default), so nothing is initialised.
pub fn resolve(
    settings: &Settings,
    env: &Env,
) -> Result<Option<TelemetryConfig>, TelemetryConfigError> {
    let file = WithTelemetry::deserialize(settings.as_value())
        .map_err(|e| TelemetryConfigError::Settings(e.to_string()))?
        .telemetry
        .unwrap_or_default();
    let enabled = flag(env, "GEMINI_TELEMETRY_ENABLED")
        .or(file.enabled)
        .unwrap_or(false);
    let target = env.var("GEMINI_TELEMETRY_TARGET").or(file.target);
    let mut warnings = Vec::new();
    match target.as_deref() {
        None | Some("local") => {}
        Some("gcp") if enabled => warnings.push(
            "Telemetry target \"gcp\" is not supported by gemini-rs (it needs Google Cloud's \
             own exporters); export to an OpenTelemetry Collector with its Google Cloud \
             exporter instead. Using the local target."
                .to_string(),
        ),
        Some("gcp") => {}
        Some(other) => return Err(TelemetryConfigError::Target(other.to_string())),
    }
    let protocol = env
        .var("GEMINI_TELEMETRY_OTLP_PROTOCOL")
        .or(file.otlp_protocol);
    if let Some(p) = protocol.as_deref()
        && p != "grpc"
        && p != "http"
    {
        return Err(TelemetryConfigError::Protocol(p.to_string()));
    }
    if !enabled {
        return Ok(None);
    }
    let log_prompts = flag(env, "GEMINI_TELEMETRY_LOG_PROMPTS")
        .or(file.log_prompts)
        .unwrap_or(true);
    let outfile = env.var("GEMINI_TELEMETRY_OUTFILE").or(file.outfile);
    if let Some(path) = outfile {
        return Ok(Some(TelemetryConfig {
            sink: Sink::File(path.into()),
            log_prompts,
            warnings,
        }));
    }
    let endpoint = env
        .var("GEMINI_TELEMETRY_OTLP_ENDPOINT")
        .or_else(|| env.var("OTEL_EXPORTER_OTLP_ENDPOINT"))
        .or(file.otlp_endpoint)
        .map(|e| e.trim_matches(|c| c == '"' || c == '\'').to_string());
    if protocol.as_deref() == Some("grpc") {
        warnings.push(format!(
            "Telemetry OTLP protocol \"grpc\" is not supported by gemini-rs (it keeps one HTTP \
             stack); sending OTLP over HTTP to {} instead.",
            endpoint.as_deref().unwrap_or(HTTP_DEFAULT_ENDPOINT)
        ));
    }
    // Gemini CLI's default endpoint is its gRPC port: over HTTP the
    // collector's HTTP port is the one that answers.
    let endpoint = endpoint
        .filter(|e| e != GEMINI_DEFAULT_ENDPOINT)
        .unwrap_or_else(|| HTTP_DEFAULT_ENDPOINT.to_string());
    Ok(Some(TelemetryConfig {
        sink: Sink::Otlp(endpoint),
        log_prompts,
        warnings,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(
        settings: serde_json::Value,
        vars: &[(&str, &str)],
    ) -> Result<Option<TelemetryConfig>, TelemetryConfigError> {
        resolve(
            &Settings::from_value(settings),
            &Env::from_pairs(vars.iter().copied()),
        )
    }

    #[test]
    fn off_unless_enabled() {
        assert_eq!(run(json!({}), &[]), Ok(None));
        assert_eq!(
            run(
                json!({"telemetry": {"enabled": true}}),
                &[("GEMINI_TELEMETRY_ENABLED", "false")]
            ),
            Ok(None)
        );
    }

    #[test]
    fn variables_win_and_outfile_wins_over_endpoint() {
        let c = run(
            json!({"telemetry": {"enabled": true, "otlpEndpoint": "http://a:1", "outfile": "/x"}}),
            &[
                ("GEMINI_TELEMETRY_OUTFILE", "/y"),
                ("GEMINI_TELEMETRY_LOG_PROMPTS", "false"),
            ],
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.sink, Sink::File("/y".into()));
        assert!(!c.log_prompts);
        let c = run(
            json!({"telemetry": {"enabled": true, "otlpEndpoint": "'http://a:1'"}}),
            &[],
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.sink, Sink::Otlp("http://a:1".into()));
    }

    #[test]
    fn gcp_and_grpc_warn_bad_values_fail() {
        let c = run(
            json!({"telemetry": {"enabled": true, "target": "gcp", "otlpProtocol": "grpc"}}),
            &[],
        )
        .unwrap()
        .unwrap();
        assert_eq!(c.warnings.len(), 2);
        assert_eq!(c.sink, Sink::Otlp(HTTP_DEFAULT_ENDPOINT.into()));
        assert_eq!(
            run(json!({}), &[("GEMINI_TELEMETRY_TARGET", "aws")]),
            Err(TelemetryConfigError::Target("aws".into()))
        );
        assert_eq!(
            run(json!({"telemetry": {"otlpProtocol": "udp"}}), &[]),
            Err(TelemetryConfigError::Protocol("udp".into()))
        );
        assert!(matches!(
            run(json!({"telemetry": {"enabled": "yes"}}), &[]),
            Err(TelemetryConfigError::Settings(_))
        ));
    }
}
