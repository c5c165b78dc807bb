//! Matchers (§9.2) and the execution plan of one event: the matching,
//! enabled, deduplicated hooks and whether they run sequentially.

use super::config::{CommandHook, HookConfig, HookDialect, HookEvent};
use super::mcp_call::McpCall;
use std::collections::HashSet;

/// What a matcher is tested against.
#[derive(Debug, Clone, Copy)]
pub enum MatchTarget<'a> {
    /// BeforeTool / AfterTool: every name of the tool called (the one the
    /// model used first; see [`call_names`]).
    Tool(&'a [String]),
    /// SessionStart / SessionEnd / PreCompress: the source, reason or trigger.
    Trigger(&'a str),
    /// Every other event: matchers are ignored.
    None,
}

/// True when `matcher` selects `target`.
pub fn matches(matcher: Option<&str>, target: MatchTarget<'_>) -> bool {
    let m = match matcher {
        None | Some("") | Some("*") => return true,
        Some(m) => m,
    };
    match target {
        MatchTarget::Tool(names) => match regex::Regex::new(m) {
            Ok(re) => names.iter().any(|n| re.is_match(n)),
            Err(_) => names.iter().any(|n| m == n),
        },
        MatchTarget::Trigger(t) => m == t,
        MatchTarget::None => true,
    }
}

/// The names a tool matcher is tested against: the name the model
/// called, then the tool's other names in both Gemini CLI dialects
/// (`grep_search` for `search_file_content`; for an MCP tool, from its
/// `mcp_context`, `<server>__<tool>`, `mcp__<server>__<tool>` and
/// `mcp_<server>_<tool>`).
pub fn call_names(called: &str, mcp_context: Option<&serde_json::Value>) -> Vec<String> {
    let server_tool =
        McpCall::of(mcp_context).map(|m| format!("{}__{}", m.server_name, m.tool_name));
    let mut names = vec![called.to_string()];
    let policy_name = server_tool.as_deref().unwrap_or(called);
    for n in crate::catalogue::names::forms(policy_name) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// True when an enabled Claude `PreToolUse` hook selects the built-in
/// tool `name` (by any of its names).
pub fn claude_pre_tool_use_selects(config: &HookConfig, name: &str) -> bool {
    let names = call_names(name, None);
    plan_for(
        config,
        HookEvent::BeforeTool,
        MatchTarget::Tool(&names),
        Some(HookDialect::Claude),
    )
    .is_some()
}

/// The hooks to run for one event firing.
#[derive(Debug, Clone, Default)]
pub struct ExecutionPlan {
    /// The hooks, in order.
    pub hooks: Vec<CommandHook>,
    /// True when any matching definition asked for sequential execution.
    pub sequential: bool,
}

/// True when `matcher`, read as hooks of `dialect` read it, selects
/// `target`.
pub fn matches_in(dialect: HookDialect, matcher: Option<&str>, target: MatchTarget<'_>) -> bool {
    match (dialect, target) {
        (HookDialect::Gemini, _) | (HookDialect::Claude, MatchTarget::None) => {
            matches(matcher, target)
        }
        (HookDialect::Claude, MatchTarget::Tool(names)) => {
            super::claude::matches(matcher, &super::claude::match_names(names))
        }
        (HookDialect::Claude, MatchTarget::Trigger(t)) => {
            super::claude::matches(matcher, &[t.to_string()])
        }
    }
}

/// Builds the plan: matching definitions, enabled hooks, identical hooks
/// (`name:command`) once. `None` when nothing is to run.
#[cfg(test)]
pub fn plan(
    config: &HookConfig,
    event: HookEvent,
    target: MatchTarget<'_>,
) -> Option<ExecutionPlan> {
    plan_for(config, event, target, None)
}

/// [`plan`] of the hooks of one dialect (`only`), or of all.
pub fn plan_for(
    config: &HookConfig,
    event: HookEvent,
    target: MatchTarget<'_>,
    only: Option<HookDialect>,
) -> Option<ExecutionPlan> {
    if !config.enabled {
        return None;
    }
    let defs = config.events.get(&event)?;
    let mut out = ExecutionPlan::default();
    let mut seen = HashSet::new();
    for def in defs
        .iter()
        .filter(|d| only.is_none_or(|o| o == d.dialect))
        .filter(|d| matches_in(d.dialect, d.matcher.as_deref(), target))
    {
        for hook in &def.hooks {
            if config.is_disabled(hook) {
                continue;
            }
            out.sequential |= def.sequential;
            if !seen.insert((hook.dialect, hook.key())) {
                tracing::debug!("Deduplicated hook: {}", hook.key());
                continue;
            }
            out.hooks.push(hook.clone());
        }
    }
    (!out.hooks.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_matchers_are_unanchored_regexes() {
        let names = call_names("write_file", None);
        let t = MatchTarget::Tool(&names);
        assert!(matches(None, t));
        assert!(matches(Some(""), t));
        assert!(matches(Some("*"), t));
        assert!(matches(Some("write"), t));
        assert!(matches(Some(".*"), t));
        assert!(matches(Some("write_file|replace"), t));
        assert!(!matches(Some("^read"), t));
        // invalid regex -> exact equality
        let one = |n: &str| vec![n.to_string()];
        assert!(matches(Some("do(it"), MatchTarget::Tool(&one("do(it"))));
        assert!(!matches(Some("do(it"), MatchTarget::Tool(&one("do(it2"))));
        assert!(matches(Some("do.it_"), MatchTarget::Tool(&one("do.it_"))));
    }

    #[test]
    fn tool_matchers_see_every_dialect() {
        let grep = call_names("search_file_content", None);
        assert!(matches(Some("^grep_search$"), MatchTarget::Tool(&grep)));
        let grep = call_names("grep_search", None);
        assert!(matches(
            Some("^search_file_content$"),
            MatchTarget::Tool(&grep)
        ));
        let ctx = json!({"server_name": "files", "tool_name": "read-it"});
        let mcp = call_names("read-it", Some(&ctx));
        for m in [
            "^mcp_files_read-it$",
            "mcp__files__read-it",
            "files__read-it",
            "^mcp_",
        ] {
            assert!(matches(Some(m), MatchTarget::Tool(&mcp)), "{m}");
        }
        assert!(!matches(Some("^mcp_other_"), MatchTarget::Tool(&mcp)));
    }

    #[test]
    fn trigger_matchers_are_exact() {
        assert!(matches(Some("startup"), MatchTarget::Trigger("startup")));
        assert!(!matches(Some("start"), MatchTarget::Trigger("startup")));
        assert!(!matches(
            Some("startup|resume"),
            MatchTarget::Trigger("startup")
        ));
        assert!(matches(Some("whatever"), MatchTarget::None));
    }

    #[test]
    fn plan_dedups_disables_and_goes_sequential() {
        let v = json!({
            "hooksConfig": {"disabled": ["named", "cmd-off"]},
            "hooks": {"BeforeTool": [
                {"matcher": "write", "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "x", "name": "named"}]},
                {"matcher": ".*", "sequential": true, "hooks": [{"type": "command", "command": "a"}, {"type": "command", "command": "cmd-off"}]},
                {"matcher": "^read", "hooks": [{"type": "command", "command": "r"}]}
            ]}
        });
        let c = HookConfig::from_value(&v, "project");
        let p = plan(
            &c,
            HookEvent::BeforeTool,
            MatchTarget::Tool(&call_names("write_file", None)),
        )
        .unwrap();
        assert!(p.sequential);
        let cmds: Vec<_> = p.hooks.iter().map(|h| h.command.as_str()).collect();
        assert_eq!(cmds, vec!["a"]);
        let p = plan(
            &c,
            HookEvent::BeforeTool,
            MatchTarget::Tool(&call_names("read_file", None)),
        )
        .unwrap();
        let cmds: Vec<_> = p.hooks.iter().map(|h| h.command.as_str()).collect();
        assert_eq!(cmds, vec!["a", "r"]);
        assert!(
            plan(
                &c,
                HookEvent::AfterTool,
                MatchTarget::Tool(&call_names("read_file", None))
            )
            .is_none()
        );
    }
}
