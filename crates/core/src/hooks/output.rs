//! Hook output: the common fields (§9.5) and how a command's exit code,
//! stdout and stderr become one (§9.4, v0.27.4 rules).

use serde_json::{Map, Value};

/// The output object of one hook (or the aggregate of several).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutput {
    /// `continue` as given (`Some(false)` stops the agent).
    pub continue_: Option<bool>,
    /// `stopReason`.
    pub stop_reason: Option<String>,
    /// `suppressOutput`.
    pub suppress_output: Option<bool>,
    /// `systemMessage`.
    pub system_message: Option<String>,
    /// `decision` (`allow|approve|block|deny|ask`).
    pub decision: Option<String>,
    /// `reason`.
    pub reason: Option<String>,
    /// `hookSpecificOutput`.
    pub hook_specific: Option<Map<String, Value>>,
}

/// A string field, treating `""` like JavaScript's falsy.
fn truthy_str(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        _ => None,
    }
}

impl HookOutput {
    /// Reads the known fields of a parsed JSON value; any non-object value
    /// gives an output with no fields.
    pub fn from_value(v: &Value) -> HookOutput {
        let Some(o) = v.as_object() else {
            return HookOutput::default();
        };
        let hook_specific = o.get("hookSpecificOutput").and_then(Value::as_object);
        // Claude Code hooks answer PreToolUse with
        // `hookSpecificOutput.permissionDecision` (`allow|deny|ask`) and
        // `permissionDecisionReason`; read them when no `decision` is given.
        let claude_decision = hook_specific
            .and_then(|h| h.get("permissionDecision"))
            .and_then(Value::as_str)
            .filter(|d| matches!(*d, "allow" | "deny"));
        let claude_reason =
            hook_specific.and_then(|h| truthy_str(h.get("permissionDecisionReason")));
        let decision = o
            .get("decision")
            .and_then(Value::as_str)
            .map(str::to_string);
        let reason = truthy_str(o.get("reason"));
        HookOutput {
            continue_: o.get("continue").and_then(Value::as_bool),
            stop_reason: truthy_str(o.get("stopReason")),
            suppress_output: o.get("suppressOutput").and_then(Value::as_bool),
            system_message: truthy_str(o.get("systemMessage")),
            reason: if decision.is_none() && claude_decision.is_some() {
                reason.or(claude_reason)
            } else {
                reason
            },
            decision: decision.or(claude_decision.map(str::to_string)),
            hook_specific: hook_specific.cloned(),
        }
    }

    /// `decision` is `block` or `deny`.
    pub fn is_blocking(&self) -> bool {
        matches!(self.decision.as_deref(), Some("block" | "deny"))
    }

    /// `continue: false`.
    pub fn should_stop(&self) -> bool {
        self.continue_ == Some(false)
    }

    /// `stopReason || reason || "No reason provided"`.
    pub fn effective_reason(&self) -> String {
        self.stop_reason
            .clone()
            .or_else(|| self.reason.clone())
            .unwrap_or_else(|| "No reason provided".to_string())
    }

    /// `suppressOutput` is true.
    pub fn suppressed(&self) -> bool {
        self.suppress_output == Some(true)
    }

    /// A `hookSpecificOutput` field.
    pub fn specific(&self, key: &str) -> Option<&Value> {
        self.hook_specific.as_ref()?.get(key)
    }

    /// `hookSpecificOutput.additionalContext`, with `<` and `>` escaped.
    pub fn additional_context(&self) -> Option<String> {
        let ctx = self.specific("additionalContext")?.as_str()?;
        Some(sanitize_context(ctx))
    }

    /// `hookSpecificOutput.clearContext === true`.
    pub fn clear_context(&self) -> bool {
        self.specific("clearContext") == Some(&Value::Bool(true))
    }
}

/// Escapes `<` and `>` so a context cannot close or open tags.
pub fn sanitize_context(ctx: &str) -> String {
    ctx.replace('<', "&lt;").replace('>', "&gt;")
}

/// The output of a finished command (v0.27.4 rules). `exit_code` is `None`
/// when the process died of a signal (treated like exit 1).
pub fn parse_command_output(
    exit_code: Option<i32>,
    stdout: &str,
    stderr: &str,
) -> Option<HookOutput> {
    let code = exit_code.unwrap_or(1);
    if code == 0 {
        let text = stdout.trim();
        if text.is_empty() {
            return None;
        }
        return match parse_json_twice(text) {
            Ok(v) if is_truthy(&v) => Some(HookOutput::from_value(&v)),
            Ok(_) => None,
            Err(()) => Some(HookOutput {
                decision: Some("allow".into()),
                system_message: Some(text.to_string()),
                ..HookOutput::default()
            }),
        };
    }
    let err = stderr.trim();
    if err.is_empty() {
        return None;
    }
    if code == 2 {
        Some(HookOutput {
            decision: Some("deny".into()),
            reason: Some(err.to_string()),
            ..HookOutput::default()
        })
    } else {
        Some(HookOutput {
            decision: Some("allow".into()),
            system_message: Some(format!("Warning: {err}")),
            ..HookOutput::default()
        })
    }
}

/// `JSON.parse`, applied again when the first result is a string.
fn parse_json_twice(text: &str) -> Result<Value, ()> {
    let v: Value = serde_json::from_str(text).map_err(|_| ())?;
    match v {
        Value::String(s) => serde_json::from_str(&s).map_err(|_| ()),
        other => Ok(other),
    }
}

/// JavaScript truthiness of a JSON value.
fn is_truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_code_table() {
        // exit 0 + JSON
        let o = parse_command_output(
            Some(0),
            "{\"decision\":\"deny\",\"reason\":\"nope\"}\n",
            "ignored",
        )
        .unwrap();
        assert!(o.is_blocking());
        assert_eq!(o.reason.as_deref(), Some("nope"));
        // exit 0 + JSON encoded as a string
        let o = parse_command_output(Some(0), r#""{\"decision\":\"block\"}""#, "").unwrap();
        assert_eq!(o.decision.as_deref(), Some("block"));
        // exit 0 + plain text
        let o = parse_command_output(Some(0), "plain text out\n", "").unwrap();
        assert_eq!(o.decision.as_deref(), Some("allow"));
        assert_eq!(o.system_message.as_deref(), Some("plain text out"));
        // exit 0, empty stdout, stderr ignored
        assert_eq!(parse_command_output(Some(0), "  \n", "err"), None);
        // falsy JSON
        assert_eq!(parse_command_output(Some(0), "null", ""), None);
        // exit 2 + stderr: deny
        let o = parse_command_output(Some(2), "{\"decision\":\"allow\"}", "nope-stderr\n").unwrap();
        assert_eq!(o.decision.as_deref(), Some("deny"));
        assert_eq!(o.reason.as_deref(), Some("nope-stderr"));
        // exit 2 + JSON on stdout, empty stderr: nothing
        assert_eq!(
            parse_command_output(Some(2), "{\"decision\":\"deny\"}", ""),
            None
        );
        // exit 1 / 3 + stderr: warning
        for code in [1, 3] {
            let o = parse_command_output(Some(code), "", "warn-text\n").unwrap();
            assert_eq!(o.decision.as_deref(), Some("allow"));
            assert_eq!(o.system_message.as_deref(), Some("Warning: warn-text"));
        }
    }

    #[test]
    fn fields() {
        let o = HookOutput::from_value(&serde_json::json!({
            "continue": false, "stopReason": "", "reason": "r",
            "hookSpecificOutput": {"additionalContext": "<x> ctx", "clearContext": true}
        }));
        assert!(o.should_stop());
        assert_eq!(o.effective_reason(), "r");
        assert_eq!(o.additional_context().as_deref(), Some("&lt;x&gt; ctx"));
        assert!(o.clear_context());
        assert_eq!(
            HookOutput::default().effective_reason(),
            "No reason provided"
        );
    }

    #[test]
    fn claude_permission_decisions_are_read() {
        let out = HookOutput::from_value(&serde_json::json!({"hookSpecificOutput": {
            "hookEventName": "PreToolUse", "permissionDecision": "deny",
            "permissionDecisionReason": "no writes here"}}));
        assert!(out.is_blocking());
        assert_eq!(out.effective_reason(), "no writes here");
        let ask = HookOutput::from_value(
            &serde_json::json!({"hookSpecificOutput": {"permissionDecision": "ask"}}),
        );
        assert_eq!(ask.decision, None);
        let explicit = HookOutput::from_value(&serde_json::json!({"decision": "allow",
            "hookSpecificOutput": {"permissionDecision": "deny"}}));
        assert!(!explicit.is_blocking());
    }
}
