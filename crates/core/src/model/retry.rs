//! Retry policy (exponential backoff with jitter, server retry hints) and the
//! mapping of HTTP error answers to [`ModelError`].

use super::error::{Failure, ModelError, snippet};
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

/// Server hints longer than this are not waited for: the error is returned.
const MAX_HONOURED_HINT: Duration = Duration::from_secs(600);

/// How failed model requests are retried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryConfig {
    /// Attempts in total, the first one included.
    pub max_attempts: u32,
    /// Delay before the second attempt, in milliseconds.
    pub initial_delay_ms: u64,
    /// Upper bound of the (pre-jitter) delay, in milliseconds.
    pub max_delay_ms: u64,
}

impl Default for RetryConfig {
    fn default() -> Self {
        RetryConfig {
            max_attempts: 5,
            initial_delay_ms: 1000,
            max_delay_ms: 30_000,
        }
    }
}

impl RetryConfig {
    /// Delay after failed attempt number `attempt` (1-based), without a server
    /// hint: `initial * 2^(attempt-1)` capped at `max_delay_ms`, scaled by
    /// `1 + jitter` where `jitter` is in `[-0.3, 0.3]`.
    pub fn backoff_delay(&self, attempt: u32, jitter: f64) -> Duration {
        let exp = attempt.saturating_sub(1).min(62);
        let base = self
            .initial_delay_ms
            .saturating_mul(1u64 << exp)
            .min(self.max_delay_ms);
        let factor = 1.0 + jitter.clamp(-0.3, 0.3);
        Duration::from_millis((base as f64 * factor).max(0.0).round() as u64)
    }

    /// The delay before the next attempt, or `None` when the caller should give
    /// up (attempts used up, error not retryable, or an excessive server hint).
    pub(crate) fn next_delay(&self, attempt: u32, failure: &Failure) -> Option<Duration> {
        if attempt >= self.max_attempts || !failure.error.is_retryable() {
            return None;
        }
        match failure.retry_after {
            Some(hint) if hint > MAX_HONOURED_HINT => None,
            Some(hint) => Some(hint),
            None => Some(self.backoff_delay(attempt, random_jitter())),
        }
    }
}

/// A random factor in `[-0.3, 0.3]`, drawn from a v4 UUID's random bits.
pub(crate) fn random_jitter() -> f64 {
    let bits = uuid::Uuid::new_v4().as_u128() & ((1u128 << 56) - 1);
    let unit = bits as f64 / (1u128 << 56) as f64;
    (unit * 2.0 - 1.0) * 0.3
}

/// Parses a duration like `2s`, `1.5s` or `250ms` (protobuf JSON style), or a
/// bare number of seconds (`Retry-After: 3`).
pub(crate) fn parse_delay(text: &str) -> Option<Duration> {
    let text = text.trim();
    let (number, scale) = if let Some(n) = text.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = text.strip_suffix('s') {
        (n, 1.0)
    } else {
        (text, 1.0)
    };
    let secs: f64 = number.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs * scale))
}

/// An API error body as far as its retry hint goes.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct ErrorDetails {
    error: DetailList,
}

/// `error.details`.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct DetailList {
    details: Vec<Detail>,
}

/// One detail; only `google.rpc.RetryInfo`'s `retryDelay` is read.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct Detail {
    #[serde(rename = "@type")]
    kind: Option<String>,
    #[serde(rename = "retryDelay")]
    retry_delay: Option<String>,
}

/// The `retryDelay` of a `google.rpc.RetryInfo` detail in an API error body.
pub(crate) fn retry_info_delay(body: &Value) -> Option<Duration> {
    let body = ErrorDetails::deserialize(body).ok()?;
    body.error
        .details
        .iter()
        .filter(|d| {
            d.kind
                .as_deref()
                .is_some_and(|t| t.ends_with("google.rpc.RetryInfo"))
        })
        .find_map(|d| d.retry_delay.as_deref().and_then(parse_delay))
}

/// The human message of an API error body, falling back to the raw text.
fn error_message(status: u16, body: &str, json: Option<&Value>) -> String {
    let from_json = json
        .and_then(|v| v.pointer("/error/message"))
        .and_then(Value::as_str)
        .map(str::to_string);
    match from_json {
        Some(m) if !m.is_empty() => m,
        _ if !body.trim().is_empty() => snippet(body, 500),
        _ => reqwest::StatusCode::from_u16(status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("no details")
            .to_string(),
    }
}

/// Maps an HTTP error answer to a [`Failure`], taking the retry hint from the
/// `Retry-After` header (`header_hint`) or the body's `RetryInfo`.
pub(crate) fn status_failure(
    status: u16,
    body: &str,
    model: &str,
    header_hint: Option<Duration>,
) -> Failure {
    let json: Option<Value> = serde_json::from_str(body).ok();
    let message = error_message(status, body, json.as_ref());
    let retry_after = header_hint.or_else(|| json.as_ref().and_then(retry_info_delay));
    Failure {
        error: error_for_status(status, message, model),
        retry_after,
    }
}

/// The [`ModelError`] variant for an HTTP status.
pub(crate) fn error_for_status(status: u16, message: String, model: &str) -> ModelError {
    match status {
        400 => ModelError::BadRequest { message },
        401 | 403 => ModelError::Auth { status, message },
        404 => ModelError::ModelNotFound {
            model: model.to_string(),
            message,
        },
        429 => ModelError::RateLimited { message },
        _ => ModelError::Api { status, message },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> RetryConfig {
        RetryConfig::default()
    }

    #[test]
    fn backoff_doubles_and_caps() {
        let c = cfg();
        assert_eq!(c.backoff_delay(1, 0.0), Duration::from_millis(1000));
        assert_eq!(c.backoff_delay(2, 0.0), Duration::from_millis(2000));
        assert_eq!(c.backoff_delay(3, 0.0), Duration::from_millis(4000));
        assert_eq!(c.backoff_delay(6, 0.0), Duration::from_millis(30_000));
        assert_eq!(c.backoff_delay(100, 0.0), Duration::from_millis(30_000));
    }

    #[test]
    fn jitter_is_bounded() {
        let c = cfg();
        assert_eq!(c.backoff_delay(1, 0.3), Duration::from_millis(1300));
        assert_eq!(c.backoff_delay(1, -0.3), Duration::from_millis(700));
        assert_eq!(c.backoff_delay(1, 5.0), Duration::from_millis(1300));
        for _ in 0..200 {
            let j = random_jitter();
            assert!((-0.3..=0.3).contains(&j), "{j}");
        }
    }

    #[test]
    fn next_delay_respects_attempts_and_hints() {
        let c = cfg();
        let retryable = || {
            Failure::from(ModelError::Api {
                status: 503,
                message: "x".into(),
            })
        };
        let d = c.next_delay(1, &retryable()).unwrap();
        assert!(d >= Duration::from_millis(700) && d <= Duration::from_millis(1300));
        assert!(c.next_delay(5, &retryable()).is_none());
        let bad = Failure::from(ModelError::BadRequest {
            message: "x".into(),
        });
        assert!(c.next_delay(1, &bad).is_none());
        let mut hinted = retryable();
        hinted.retry_after = Some(Duration::from_secs(2));
        assert_eq!(c.next_delay(1, &hinted), Some(Duration::from_secs(2)));
        hinted.retry_after = Some(Duration::from_secs(3600));
        assert_eq!(c.next_delay(1, &hinted), None);
    }

    #[test]
    fn parses_delays() {
        assert_eq!(parse_delay("2s"), Some(Duration::from_secs(2)));
        assert_eq!(parse_delay("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_delay("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse_delay(" 3 "), Some(Duration::from_secs(3)));
        assert_eq!(parse_delay("soon"), None);
        assert_eq!(parse_delay("-1"), None);
    }

    #[test]
    fn maps_error_bodies() {
        let body = r#"{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED",
            "details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1.5s"}]}}"#;
        let f = status_failure(429, body, "m", None);
        assert_eq!(f.retry_after, Some(Duration::from_millis(1500)));
        assert!(f.error.to_string().contains("Quota exceeded"));
        let f = status_failure(429, body, "m", Some(Duration::from_secs(7)));
        assert_eq!(f.retry_after, Some(Duration::from_secs(7)));

        let f = status_failure(404, "", "gemini-9", None);
        let text = f.error.to_string();
        assert!(text.contains("`gemini-9` was not found"), "{text}");
        assert!(text.contains("Not Found"), "{text}");

        let f = status_failure(
            403,
            r#"{"error":{"message":"API key not valid"}}"#,
            "m",
            None,
        );
        let text = f.error.to_string();
        assert!(text.contains("API key not valid") && text.contains("GEMINI_API_KEY"));
        assert!(!f.error.is_retryable());

        let f = status_failure(502, "<html>bad gateway</html>", "m", None);
        assert_eq!(f.error.status(), Some(502));
        assert!(f.error.is_retryable());
        assert!(
            f.error
                .to_string()
                .contains("HTTP 502: <html>bad gateway</html>")
        );
    }
}
