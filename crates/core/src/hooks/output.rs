//! Hook output: the common fields (§9.5) and how a command's exit code,
//! stdout and stderr become one (§9.4, v0.27.4 rules).

use crate::config::lenient::{from_object, wrong_type_as_none as lenient};
use serde::Deserialize;
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

/// Hook output as a hook writes it. Hooks are user scripts: a field of the
/// wrong type reads as absent and unknown fields are ignored, so one odd
/// field never discards the rest.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct WireOutput {
    #[serde(rename = "continue", deserialize_with = "lenient")]
    continue_: Option<bool>,
    #[serde(deserialize_with = "lenient")]
    stop_reason: Option<String>,
    #[serde(deserialize_with = "lenient")]
    suppress_output: Option<bool>,
    #[serde(deserialize_with = "lenient")]
    system_message: Option<String>,
    #[serde(deserialize_with = "lenient")]
    decision: Option<String>,
    #[serde(deserialize_with = "lenient")]
    reason: Option<String>,
    #[serde(deserialize_with = "lenient")]
    hook_specific_output: Option<Map<String, Value>>,
}

/// Claude Code's answer to PreToolUse, inside `hookSpecificOutput`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct ClaudePermission {
    /// `allow|deny|ask`.
    #[serde(deserialize_with = "lenient")]
    permission_decision: Option<String>,
    /// Why.
    #[serde(deserialize_with = "lenient")]
    permission_decision_reason: Option<String>,
}

/// A string field, treating `""` like JavaScript's falsy.
fn truthy(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

impl HookOutput {
    /// Reads the known fields of a parsed JSON value; any non-object value
    /// gives an output with no fields.
    pub fn from_value(v: &Value) -> HookOutput {
        let wire: WireOutput = from_object(v);
        // Claude Code hooks answer PreToolUse with
        // `hookSpecificOutput.permissionDecision` (`allow|deny|ask`) and
        // `permissionDecisionReason`; read them when no `decision` is given.
        let claude: ClaudePermission = wire
            .hook_specific_output
            .as_ref()
            .map(|h| from_object(&Value::Object(h.clone())))
            .unwrap_or_default();
        let claude_decision = claude
            .permission_decision
            .filter(|d| matches!(d.as_str(), "allow" | "deny"));
        let claude_reason = truthy(claude.permission_decision_reason);
        let reason = truthy(wire.reason);
        HookOutput {
            continue_: wire.continue_,
            stop_reason: truthy(wire.stop_reason),
            suppress_output: wire.suppress_output,
            system_message: truthy(wire.system_message),
            reason: if wire.decision.is_none() && claude_decision.is_some() {
                reason.or(claude_reason)
            } else {
                reason
            },
            decision: wire.decision.or(claude_decision),
            hook_specific: wire.hook_specific_output,
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
