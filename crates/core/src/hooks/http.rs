//! Claude Code's `http` hooks: the event's input is POSTed as JSON to the
//! hook's URL; a 2xx answer's body is read as a command hook's stdout at
//! exit code 0, any other status as a non-blocking error (exit code 1, the
//! status and body as its stderr); an unreachable server or a timeout is a
//! failed run, as Claude Code treats them.

use super::config::{CommandHook, HttpHook};
use super::output::parse_command_output;
use super::runner::{HookRunError, HookRunResult};
use std::time::{Duration, Instant};

/// POSTs `input` to the hook's URL and reads the answer.
pub(super) async fn post(hook: &CommandHook, http: &HttpHook, input: &[u8]) -> HookRunResult {
    let start = Instant::now();
    let mut result = HookRunResult {
        hook: hook.clone(),
        success: false,
        output: None,
        exit_code: None,
        stdout: String::new(),
        stderr: String::new(),
        error: None,
        duration: Duration::ZERO,
    };
    match send(hook, http, input).await {
        Ok((status, body)) if status.is_success() => {
            result.exit_code = Some(0);
            result.success = true;
            result.stdout = body;
        }
        Ok((status, body)) => {
            result.exit_code = Some(1);
            result.stderr = format!("HTTP {status} from {}: {body}", hook.command);
        }
        Err(e) if e.is_timeout() => {
            result.error = Some(HookRunError::TimedOut {
                ms: hook.timeout_ms,
            });
        }
        Err(e) => result.error = Some(HookRunError::Http(e.to_string())),
    }
    if result.error.is_none() {
        result.output = parse_command_output(result.exit_code, &result.stdout, &result.stderr);
    }
    result.duration = start.elapsed();
    result
}

/// The request and its answer's status and body.
async fn send(
    hook: &CommandHook,
    http: &HttpHook,
    input: &[u8],
) -> Result<(reqwest::StatusCode, String), reqwest::Error> {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_millis(hook.timeout_ms))
        .build()?;
    let mut request = client
        .post(&hook.command)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(input.to_vec());
    for (name, value) in &http.headers {
        let value = interpolate(value, &http.allowed_env_vars, |v| std::env::var(v).ok());
        request = request.header(name, value);
    }
    let response = request.send().await?;
    let status = response.status();
    let body = response.text().await?;
    Ok((status, body))
}

/// `$VAR` and `${VAR}` in a header replaced by the variable's value when
/// `allowed` names it, else by nothing, as Claude Code's `allowedEnvVars`.
pub(super) fn interpolate(
    value: &str,
    allowed: &[String],
    var: impl Fn(&str) -> Option<String>,
) -> String {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, tail) = match after.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) => (&inner[..end], &inner[end + 1..]),
                None => ("", after),
            },
            None => {
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        if allowed.iter().any(|a| a == name) {
            out.push_str(&var(name).unwrap_or_default());
        }
        rest = tail;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::interpolate;

    #[test]
    fn headers_name_only_the_allowed_variables() {
        let allowed = vec!["TOKEN".to_string()];
        let var = |n: &str| (n == "TOKEN" || n == "SECRET").then(|| format!("<{n}>"));
        assert_eq!(
            interpolate("Bearer $TOKEN", &allowed, var),
            "Bearer <TOKEN>"
        );
        assert_eq!(interpolate("${TOKEN}-x", &allowed, var), "<TOKEN>-x");
        assert_eq!(interpolate("a $SECRET b", &allowed, var), "a  b");
        assert_eq!(interpolate("cost: 5$", &allowed, var), "cost: 5$");
        assert_eq!(interpolate("${TOKEN", &allowed, var), "${TOKEN");
    }
}
