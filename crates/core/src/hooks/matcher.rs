//! Matchers (§9.2) and the execution plan of one event: the matching,
//! enabled, deduplicated hooks and whether they run sequentially.

use super::config::{CommandHook, HookConfig, HookEvent};
use std::collections::HashSet;

/// What a matcher is tested against.
#[derive(Debug, Clone, Copy)]
pub enum MatchTarget<'a> {
    /// BeforeTool / AfterTool: the tool name the model called.
    Tool(&'a str),
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
        MatchTarget::Tool(name) => match regex::Regex::new(m) {
            Ok(re) => re.is_match(name),
            Err(_) => m == name,
        },
        MatchTarget::Trigger(t) => m == t,
        MatchTarget::None => true,
    }
}

/// The hooks to run for one event firing.
#[derive(Debug, Clone, Default)]
pub struct ExecutionPlan {
    /// The hooks, in order.
    pub hooks: Vec<CommandHook>,
    /// True when any matching definition asked for sequential execution.
    pub sequential: bool,
}

/// Builds the plan: matching definitions, enabled hooks, identical hooks
/// (`name:command`) once. `None` when nothing is to run.
pub fn plan(
    config: &HookConfig,
    event: HookEvent,
    target: MatchTarget<'_>,
) -> Option<ExecutionPlan> {
    if !config.enabled {
        return None;
    }
    let defs = config.events.get(&event)?;
    let mut out = ExecutionPlan::default();
    let mut seen = HashSet::new();
    for def in defs
        .iter()
        .filter(|d| matches(d.matcher.as_deref(), target))
    {
        for hook in &def.hooks {
            if config.is_disabled(hook) {
                continue;
            }
            out.sequential |= def.sequential;
            if !seen.insert(hook.key()) {
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
        let t = MatchTarget::Tool("write_file");
        assert!(matches(None, t));
        assert!(matches(Some(""), t));
        assert!(matches(Some("*"), t));
        assert!(matches(Some("write"), t));
        assert!(matches(Some(".*"), t));
        assert!(matches(Some("write_file|replace"), t));
        assert!(!matches(Some("^read"), t));
        // invalid regex -> exact equality
        assert!(matches(Some("do(it"), MatchTarget::Tool("do(it")));
        assert!(!matches(Some("do(it"), MatchTarget::Tool("do(it2")));
        assert!(matches(Some("do.it_"), MatchTarget::Tool("do.it_")));
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
        let p = plan(&c, HookEvent::BeforeTool, MatchTarget::Tool("write_file")).unwrap();
        assert!(p.sequential);
        let cmds: Vec<_> = p.hooks.iter().map(|h| h.command.as_str()).collect();
        assert_eq!(cmds, vec!["a"]);
        let p = plan(&c, HookEvent::BeforeTool, MatchTarget::Tool("read_file")).unwrap();
        let cmds: Vec<_> = p.hooks.iter().map(|h| h.command.as_str()).collect();
        assert_eq!(cmds, vec!["a", "r"]);
        assert!(plan(&c, HookEvent::AfterTool, MatchTarget::Tool("read_file")).is_none());
    }
}
