//! Claude Code's `http` hooks: the event's input is POSTed as JSON to the
//! hook's URL; a 2xx answer's body is read as a command hook's stdout at
//! exit code 0, any other status as a non-blocking error (exit code 1, the
//! status and body as its stderr); an unreachable server or a timeout is a
//! failed run, as Claude Code treats them.

use super::config::{CommandHook, HttpHook};
use std::time::Duration;

/// How an http hook's request ended.
pub(super) enum Answer {
    /// An answer, as a command's exit code, stdout and stderr.
    Exited {
        /// 0 for a 2xx status, else 1.
        code: i32,
        /// A 2xx answer's body.
        stdout: String,
        /// Another status and its body.
        stderr: String,
    },
    /// No answer within the hook's timeout.
    TimedOut,
    /// No answer: why.
    Failed(String),
}

/// POSTs `input` to the hook's URL and reads the answer.
pub(super) async fn post(hook: &CommandHook, http: &HttpHook, input: &[u8]) -> Answer {
    match send(hook, http, input).await {
        Ok((status, body)) if status.is_success() => Answer::Exited {
            code: 0,
            stdout: body,
            stderr: String::new(),
        },
        Ok((status, body)) => Answer::Exited {
            code: 1,
            stdout: String::new(),
            stderr: format!("HTTP {status} from {}: {body}", hook.command),
        },
        Err(e) if e.is_timeout() => Answer::TimedOut,
        Err(e) => Answer::Failed(e.to_string()),
    }
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
    use crate::hooks::{HookConfig, HookEvent};
    use serde_json::json;

    #[test]
    fn http_hooks_come_from_the_users_claude_settings_only() {
        let hooks = json!({"PreToolUse": [{"hooks": [
            {"type": "http", "url": "http://127.0.0.1:9/h", "timeout": 2,
             "headers": {"Authorization": "Bearer $T"}, "allowedEnvVars": ["T"]},
            {"type": "agent", "prompt": "judge"}]}]});
        let hooks = hooks.as_object().cloned().unwrap_or_default();
        let mut user = HookConfig::default();
        user.add_claude_user_hooks(&hooks, "user");
        let hook = &user.events[&HookEvent::BeforeTool][0].hooks[0];
        assert_eq!(hook.command, "http://127.0.0.1:9/h");
        assert_eq!(hook.timeout_ms, 2_000);
        let http = hook.http.as_ref().expect("an http hook");
        assert_eq!(
            http.headers,
            vec![("Authorization".into(), "Bearer $T".into())]
        );
        assert_eq!(http.allowed_env_vars, vec!["T".to_string()]);
        assert_eq!(user.events[&HookEvent::BeforeTool][0].hooks.len(), 1);
        assert!(user.warnings[0].starts_with("A Claude Code \"agent\" hook does not run here"));
        let mut project = HookConfig::default();
        project.add_claude_hooks(&hooks, "project");
        assert!(project.events[&HookEvent::BeforeTool][0].hooks.is_empty());
        assert!(project.warnings[0].starts_with("An http hook runs only from the user's"));
    }

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
