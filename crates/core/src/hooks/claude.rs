//! Claude Code's hook contract for the hooks written for it (declared
//! under a Claude Code event name, or read from `.claude/settings.json`):
//! matchers over Claude's tool names, Claude's input fields with
//! `tool_input` in Claude's parameter names, and Claude's outputs and exit
//! codes turned into the [`HookOutput`] the rest of the hook system reads.
//!
//! The tool and parameter names come from the tools' own specs
//! ([`crate::catalogue::claude`]), the table `hooks migrate
//! --from-claude` uses too.

use super::config::HookEvent;
use super::event::ExitTwo;
use super::output::HookOutput;
use crate::catalogue::claude::{call_from_claude, call_to_claude, claude_name};
use crate::config::lenient::wrong_type_as_none as lenient;
use crate::policy::ApprovalMode;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::time::Instant;

/// What Claude Code's inputs carry from one event to the next: the id of
/// the prompt being answered (`prompt_id`, from UserPromptSubmit on) and
/// when each call's PreToolUse hooks let it go (`duration_ms`).
#[derive(Debug, Default)]
pub struct ClaudeState {
    prompt_id: Option<String>,
    started: HashMap<String, Instant>,
}

impl ClaudeState {
    /// A new prompt begins: it gets a fresh `prompt_id`.
    pub fn new_prompt(&mut self) {
        self.prompt_id = Some(uuid::Uuid::new_v4().to_string());
    }

    /// The current prompt's id (none before the first prompt).
    pub fn prompt_id(&self) -> Option<&str> {
        self.prompt_id.as_deref()
    }

    /// The call `id` starts now.
    pub fn call_started(&mut self, id: &str) {
        self.started.insert(id.to_string(), Instant::now());
    }

    /// Milliseconds since the call `id` started (0 when unknown).
    pub fn call_ended(&mut self, id: &str) -> u64 {
        self.started.remove(id).map_or(0, |t| {
            u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX)
        })
    }
}

/// Gemini input fields Claude Code's hooks do not get (each event's
/// Claude twin is given in [`input`] instead).
const GEMINI_ONLY: [&str; 5] = [
    "timestamp",
    "mcp_context",
    "original_request_name",
    "prompt_response",
    "details",
];

/// Claude Code's `permission_mode` for an approval mode.
pub fn permission_mode(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::Default => "default",
        ApprovalMode::AutoEdit => "acceptEdits",
        ApprovalMode::Yolo => "bypassPermissions",
        ApprovalMode::Plan => "plan",
    }
}

/// Claude Code's name for a call: the built-in's twin (`Write`), an MCP
/// tool as `mcp__<server>__<tool>`, any other tool as it is called.
pub fn tool_name(called: &str, mcp_context: Option<&Value>) -> String {
    if let Some(m) = super::mcp_call::McpCall::of(mcp_context) {
        return format!("mcp__{}__{}", m.server_name, m.tool_name);
    }
    claude_name(called).unwrap_or(called).to_string()
}

/// True when a Claude Code `matcher` selects one of `names`: empty or `*`
/// selects everything; letters, digits, `_` and `|` alone are exact names
/// (`Write|Edit`); anything else is a regular expression searched in the
/// name (an invalid one selects nothing).
pub fn matches(matcher: Option<&str>, names: &[String]) -> bool {
    let m = match matcher.map(str::trim) {
        None | Some("") | Some("*") => return true,
        Some(m) => m,
    };
    if m.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
    {
        return m.split('|').any(|w| names.iter().any(|n| n == w));
    }
    match regex::Regex::new(m) {
        Ok(re) => names.iter().any(|n| re.is_match(n)),
        Err(e) => {
            tracing::warn!("Invalid hook matcher {m:?}: {e}");
            false
        }
    }
}

/// The names a Claude hook's tool matcher is tested against: Claude's
/// name for a built-in first, then every name the call has here (an MCP
/// tool's include `mcp__<server>__<tool>`; a matcher on `write_file`
/// selects it too).
pub fn match_names(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len() + 1);
    for n in names {
        if let Some(c) = claude_name(n).filter(|c| !out.iter().any(|o| o == c)) {
            out.push(c.to_string());
        }
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}

/// The fields of a tool event's Gemini input (absent from other events);
/// a field of another shape reads as absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(crate) struct CallFields {
    /// The name the model called.
    #[serde(deserialize_with = "lenient")]
    pub tool_name: Option<String>,
    /// The call's arguments.
    #[serde(deserialize_with = "lenient")]
    pub tool_input: Option<Map<String, Value>>,
    /// An MCP tool's context.
    pub mcp_context: Option<Value>,
}

impl CallFields {
    /// The call fields of an event's Gemini input.
    pub(crate) fn of(gemini: &Map<String, Value>) -> Self {
        CallFields::deserialize(gemini).unwrap_or_default()
    }
}

/// The fields of Claude Code's own input that take a place among the
/// shared ones.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct ClaudeFields {
    prompt_id: Option<Value>,
    permission_mode: Option<Value>,
}

/// SessionEnd's `reason`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct EndFields {
    #[serde(deserialize_with = "lenient")]
    reason: Option<String>,
}

impl EndFields {
    fn of(input: &Map<String, Value>) -> Self {
        EndFields::deserialize(input).unwrap_or_default()
    }
}

/// The input a Claude hook gets: the event's Gemini input with Claude's
/// event name, tool name and parameter names, without the Gemini-only
/// fields, plus `extra` (the fields only Claude Code has, which win).
pub fn input(
    event: HookEvent,
    gemini: &Map<String, Value>,
    extra: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for key in ["session_id", "transcript_path", "cwd"] {
        if let Some(v) = gemini.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    // Claude Code sends no permission mode at the session's edges, when
    // a prompt failed, when a sub-agent starts nor around compaction.
    let edge = !event.spec().permission_mode;
    let claude = ClaudeFields::deserialize(extra).unwrap_or_default();
    if let Some(id) = claude.prompt_id {
        out.insert("prompt_id".into(), id);
    }
    if let Some(mode) = claude.permission_mode.filter(|_| !edge) {
        out.insert("permission_mode".into(), mode);
    }
    out.insert(
        "hook_event_name".into(),
        Value::String(event.name_in(super::HookDialect::Claude).into()),
    );
    let call = CallFields::of(gemini);
    if let Some(called) = call.tool_name.as_deref() {
        let mcp = call.mcp_context.as_ref();
        out.insert("tool_name".into(), Value::String(tool_name(called, mcp)));
        let args = call.tool_input.unwrap_or_default();
        let args = match call_to_claude(called, &args) {
            Some(("Edit", mut translated)) => {
                // Claude's Edit has no `instruction` and always says
                // whether it replaces every occurrence.
                translated.remove("instruction");
                translated
                    .entry("replace_all")
                    .or_insert(Value::Bool(false));
                translated
            }
            Some((_, translated)) => translated,
            None => args,
        };
        out.insert("tool_input".into(), Value::Object(args));
    }
    for (key, value) in gemini {
        let skip = GEMINI_ONLY.contains(&key.as_str())
            || out.contains_key(key)
            || (event == HookEvent::AfterAgent && key == "prompt");
        if !skip {
            out.insert(key.clone(), value.clone());
        }
    }
    for (key, value) in extra {
        if key != "permission_mode" && key != "prompt_id" {
            out.insert(key.clone(), value.clone());
        }
    }
    match event {
        // The end of a `-p` run (and of any session not ended by the user
        // at the prompt) is `other` to Claude Code.
        HookEvent::SessionEnd if EndFields::of(&out).reason.as_deref() == Some("exit") => {
            out.insert("reason".into(), Value::String("other".into()));
        }
        // SessionStart's context reaches the model beside the prompt, not
        // in it.
        HookEvent::BeforeAgent => {
            if let Some(Value::String(prompt)) = out.get_mut("prompt")
                && let Some(rest) = strip_session_context(prompt)
            {
                *prompt = rest;
            }
        }
        _ => {}
    }
    out
}

pub use crate::catalogue::claude::shell_failure;

/// What a `StopFailure` hook reads of a model error, as Claude Code says
/// it: the `error` kind (`rate_limit`, `authentication_failed`,
/// `server_error`, `invalid_request`, else `unknown`) and the message it
/// shows (`API Error: <status> <message>`) as `last_assistant_message`.
pub fn stop_failure(error: &gemini_rs_protocol::events::ModelError) -> (&'static str, String) {
    use gemini_rs_protocol::events::ModelError as E;
    let status_message = |status: u16, message: &str| {
        let kind = match status {
            429 => "rate_limit",
            401 | 403 => "authentication_failed",
            500..=599 => "server_error",
            _ => "unknown",
        };
        (kind, format!("API Error: {status} {message}"))
    };
    match error {
        E::AtProvider { error, .. } | E::RetriesExhausted { last: error, .. } => {
            stop_failure(error)
        }
        E::BadRequest { message } => status_message(400, message),
        E::Auth { status, message }
        | E::Api { status, message }
        | E::Provider {
            status, message, ..
        } => status_message(*status, message),
        E::ModelNotFound { message, .. } => status_message(404, message),
        E::RateLimited { message } => status_message(429, message),
        E::ContextTooLong { .. } => ("invalid_request", error.to_string()),
        other => ("unknown", other.to_string()),
    }
}

/// `prompt` without the `<hook_context>` SessionStart's hooks put in
/// front of the first prompt.
fn strip_session_context(prompt: &str) -> Option<String> {
    let rest = prompt.strip_prefix("<hook_context>")?;
    let (_, after) = rest.split_once("</hook_context>\n\n")?;
    Some(after.to_string())
}

/// What a Claude hook's exit code, stdout and stderr mean, as the output
/// the hook system acts on. `called` is the tool's name here (tool events),
/// for turning `updatedInput` back into our parameter names.
pub fn parse_output(
    event: HookEvent,
    exit_code: Option<i32>,
    stdout: &str,
    stderr: &str,
    called: Option<&str>,
) -> Option<HookOutput> {
    match exit_code.unwrap_or(1) {
        0 => {
            let text = stdout.trim();
            if text.is_empty() {
                return None;
            }
            match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => Some(from_json(event, &v, called)),
                _ if matches!(event, HookEvent::BeforeAgent | HookEvent::SessionStart) => {
                    // Plain stdout of these two events is context for the model.
                    Some(context_output(text.to_string()))
                }
                _ => {
                    tracing::debug!("Claude hook stdout (not JSON) for {event}: {text}");
                    None
                }
            }
        }
        2 => Some(exit_two(event, stderr.trim())),
        _ => {
            let err = stderr.trim();
            (!err.is_empty()).then(|| HookOutput {
                decision: Some("allow".into()),
                system_message: Some(format!("Warning: {err}")),
                ..HookOutput::default()
            })
        }
    }
}

/// An output that only adds context for the model.
fn context_output(ctx: String) -> HookOutput {
    let mut spec = Map::new();
    spec.insert("additionalContext".into(), Value::String(ctx));
    HookOutput {
        hook_specific: Some(spec),
        ..HookOutput::default()
    }
}

/// Exit code 2: a blocking error whose stderr goes where the event sends
/// it: the model (PreToolUse, PostToolUse, PostToolUseFailure, Stop,
/// SubagentStop) or the user (UserPromptSubmit blocks the prompt; the
/// other events only show it).
fn exit_two(event: HookEvent, err: &str) -> HookOutput {
    let reason = if err.is_empty() {
        "Blocked by a hook (exit code 2).".to_string()
    } else {
        err.to_string()
    };
    match event.spec().exit_two {
        ExitTwo::Context => context_output(reason),
        ExitTwo::Block => HookOutput {
            decision: Some("block".into()),
            reason: Some(reason),
            ..HookOutput::default()
        },
        ExitTwo::Warn => HookOutput {
            decision: Some("allow".into()),
            system_message: Some(format!("Warning: {reason}")),
            ..HookOutput::default()
        },
    }
}

/// Claude's JSON output: the common fields as Gemini's, `updatedInput`
/// as `tool_input` in our parameter names, and PostToolUse's `decision:
/// "block"` (the tool already ran) as feedback for the model.
fn from_json(event: HookEvent, v: &Value, called: Option<&str>) -> HookOutput {
    let mut out = HookOutput::from_value(v);
    if out.decision.as_deref() == Some("approve") {
        out.decision = Some("allow".into());
    }
    match event {
        HookEvent::BeforeTool => {
            // The older `decision: "approve"` (or "allow") is a permission
            // decision too; `permissionDecision` wins when both are given.
            if out.decision.as_deref() == Some("allow")
                && out.specific("permissionDecision").is_none()
            {
                out.hook_specific
                    .get_or_insert_with(Map::new)
                    .insert("permissionDecision".into(), Value::String("allow".into()));
            }
            let updated = out
                .specific("updatedInput")
                .and_then(Value::as_object)
                .cloned();
            if let (Some(updated), Some(spec)) = (updated, out.hook_specific.as_mut()) {
                let ours = called
                    .and_then(claude_name)
                    .and_then(|c| call_from_claude(c, &updated))
                    .map_or(updated, |(_, args)| args);
                spec.insert("tool_input".into(), Value::Object(ours));
            }
        }
        HookEvent::AfterTool | HookEvent::AfterToolFailure if out.is_blocking() => {
            let reason = out.reason.take().unwrap_or_default();
            out.decision = None;
            let joined = match out.specific("additionalContext").and_then(Value::as_str) {
                Some(ctx) if !reason.is_empty() => format!("{reason}\n{ctx}"),
                Some(ctx) => ctx.to_string(),
                None => reason,
            };
            if !joined.is_empty() {
                out.hook_specific
                    .get_or_insert_with(Map::new)
                    .insert("additionalContext".into(), Value::String(joined));
            }
        }
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn matchers_read_claude_names_exactly_or_as_regexes() {
        let write = match_names(&names(&["write_file"]));
        assert_eq!(write, names(&["Write", "write_file"]));
        assert!(matches(Some("Write|Edit"), &write));
        assert!(matches(Some("write_file"), &write));
        assert!(matches(Some("Wr.*"), &write));
        assert!(!matches(Some("Edit"), &write));
        assert!(!matches(Some("Writ"), &write), "plain names are exact");
        let edit = match_names(&names(&["replace"]));
        assert!(matches(Some("Write|Edit"), &edit));
        assert!(!matches(Some("MultiEdit"), &edit));
        let ls = match_names(&names(&["list_directory"]));
        assert!(matches(Some("LS"), &ls));
        let ctx = json!({"server_name": "files", "tool_name": "read-it"});
        let mcp = match_names(&crate::hooks::matcher::call_names("read-it", Some(&ctx)));
        assert!(matches(Some("mcp__files__read-it"), &mcp));
        assert!(matches(Some("mcp__files__.*"), &mcp));
        assert_eq!(tool_name("read-it", Some(&ctx)), "mcp__files__read-it");
        assert!(!matches(Some("do(it"), &names(&["do(it"])));
    }

    #[test]
    fn input_speaks_claude() {
        let gemini = json!({"session_id": "s", "transcript_path": "t", "cwd": "/w",
            "hook_event_name": "BeforeTool", "timestamp": "x",
            "tool_name": "replace",
            "tool_input": {"file_path": "a", "old_string": "o", "new_string": "n", "allow_multiple": true}});
        let extra = json!({"permission_mode": "default", "tool_use_id": "c1"});
        let got = input(
            HookEvent::BeforeTool,
            gemini.as_object().unwrap(),
            extra.as_object().unwrap(),
        );
        assert_eq!(
            Value::Object(got),
            json!({"session_id": "s", "transcript_path": "t", "cwd": "/w",
                "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Edit",
                "tool_input": {"file_path": "a", "old_string": "o", "new_string": "n", "replace_all": true},
                "tool_use_id": "c1"})
        );
        let stop = json!({"session_id": "s", "prompt": "go", "prompt_response": "a\nb",
            "stop_hook_active": true});
        let extra = json!({"last_assistant_message": "b"});
        let got = input(
            HookEvent::AfterAgent,
            stop.as_object().unwrap(),
            extra.as_object().unwrap(),
        );
        assert_eq!(
            Value::Object(got),
            json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": true,
                "last_assistant_message": "b"})
        );
    }

    #[test]
    fn outputs_and_exit_codes() {
        let out = parse_output(
            HookEvent::BeforeTool,
            Some(0),
            r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                "updatedInput": {"file_path": "b", "old_string": "o", "new_string": "n", "replace_all": false}}}"#,
            "",
            Some("replace"),
        )
        .unwrap();
        assert!(!out.is_blocking());
        assert_eq!(
            out.specific("tool_input"),
            Some(
                &json!({"file_path": "b", "old_string": "o", "new_string": "n", "allow_multiple": false})
            )
        );
        let approve = parse_output(
            HookEvent::BeforeTool,
            Some(0),
            r#"{"decision": "approve"}"#,
            "",
            None,
        )
        .unwrap();
        assert_eq!(
            approve.specific("permissionDecision"),
            Some(&json!("allow"))
        );
        let ask = r#"{"hookSpecificOutput": {"permissionDecision": "ask"}}"#;
        let ask = parse_output(HookEvent::BeforeTool, Some(0), ask, "", None).unwrap();
        assert!(!ask.is_blocking());
        assert_eq!(ask.specific("permissionDecision"), Some(&json!("ask")));
        let two = parse_output(HookEvent::BeforeTool, Some(2), "{}", "no\n", None).unwrap();
        assert!(two.is_blocking());
        assert_eq!(two.effective_reason(), "no");
        let empty = parse_output(HookEvent::AfterAgent, Some(2), "", "", None).unwrap();
        assert!(empty.is_blocking());
        let post = parse_output(HookEvent::AfterTool, Some(2), "", "lint failed", None).unwrap();
        assert!(!post.is_blocking());
        assert_eq!(post.additional_context().as_deref(), Some("lint failed"));
        let block = parse_output(
            HookEvent::AfterTool,
            Some(0),
            r#"{"decision": "block", "reason": "fix it"}"#,
            "",
            None,
        )
        .unwrap();
        assert!(!block.is_blocking());
        assert_eq!(block.additional_context().as_deref(), Some("fix it"));
        let ctx = parse_output(HookEvent::BeforeAgent, Some(0), "remember x", "", None).unwrap();
        assert_eq!(ctx.additional_context().as_deref(), Some("remember x"));
        assert_eq!(
            parse_output(HookEvent::BeforeTool, Some(0), "plain", "", None),
            None
        );
        let warn = parse_output(HookEvent::BeforeTool, Some(1), "", "oops", None).unwrap();
        assert!(!warn.is_blocking());
        assert_eq!(warn.system_message.as_deref(), Some("Warning: oops"));
    }
}
