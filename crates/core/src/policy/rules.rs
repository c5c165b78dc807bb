//! One policy rule, how it matches a call, and the default rule set of
//! Gemini CLI v0.27.4.

use super::{ApprovalMode, Decision};
use crate::catalogue::spec::DefaultPolicy;
use regex::Regex;
use serde_json::{Map, Value};

/// Which tool calls a rule covers, beyond the tool name.
#[derive(Debug, Clone, Default)]
pub struct ArgsMatch {
    /// Regex matched against the arguments as sorted-key JSON.
    pub args_pattern: Option<Regex>,
    /// Shell only: the command starts with one of these word sequences.
    pub command_prefixes: Vec<String>,
    /// Shell only: the whole command matches this regex.
    pub command_regex: Option<Regex>,
}

/// One rule: which tool, which calls, what decision, how strong.
#[derive(Debug, Clone)]
pub struct PolicyRule {
    /// Tool name; `*` matches all, `prefix*` a prefix (e.g. `server__*`).
    pub tool_name: String,
    /// Further restrictions on the arguments.
    pub args: ArgsMatch,
    /// The decision.
    pub decision: Decision,
    /// Higher wins (`tier + toml_priority / 1000`).
    pub priority: f64,
    /// Only in these modes (all when empty).
    pub modes: Vec<ApprovalMode>,
    /// An ALLOW that also covers commands with redirections.
    pub allow_redirection: bool,
    /// Where it comes from, as `/policies` shows it (`User: <file>`,
    /// `Settings (Tools Excluded)`, ...); empty when not told.
    pub source: String,
    /// Only where someone can (true) or cannot (false) be asked; both
    /// when unset.
    pub interactive: Option<bool>,
    /// A DENY's explanation, after `Tool execution denied by policy.`
    pub deny_message: Option<String>,
    /// Only tools whose MCP annotations hold every one of these values
    /// (`toolAnnotations = { readOnlyHint = true }`).
    pub tool_annotations: Option<Map<String, Value>>,
}

/// Whether a rule applies to a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleMatch {
    /// It applies.
    Yes,
    /// It does not.
    No,
}

impl PolicyRule {
    /// A rule for a whole tool.
    pub fn tool(name: &str, decision: Decision, priority: f64) -> Self {
        PolicyRule {
            tool_name: name.to_string(),
            args: ArgsMatch::default(),
            decision,
            priority,
            modes: Vec::new(),
            allow_redirection: false,
            source: String::new(),
            interactive: None,
            deny_message: None,
            tool_annotations: None,
        }
    }

    /// The same rule, only for tools annotated with these values.
    pub fn with_annotations(mut self, annotations: Map<String, Value>) -> Self {
        self.tool_annotations = Some(annotations);
        self
    }

    /// True when the rule's annotation conditions hold for a tool
    /// annotated `annotations` (always, without conditions).
    pub fn annotations_match(&self, annotations: Option<&Map<String, Value>>) -> bool {
        match (&self.tool_annotations, annotations) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(want), Some(have)) => want.iter().all(|(k, v)| have.get(k) == Some(v)),
        }
    }

    /// The same rule, saying where it comes from.
    pub fn sourced(mut self, source: &str) -> Self {
        self.source = source.to_string();
        self
    }

    /// The same rule, only where someone can (`true`) or cannot be asked.
    pub fn when_interactive(mut self, interactive: bool) -> Self {
        self.interactive = Some(interactive);
        self
    }

    /// The same rule with a DENY explanation.
    pub fn with_deny_message(mut self, message: &str) -> Self {
        self.deny_message = Some(message.to_string());
        self
    }

    /// True when the rule has conditions on the arguments.
    pub fn has_arg_conditions(&self) -> bool {
        self.args.args_pattern.is_some()
            || !self.args.command_prefixes.is_empty()
            || self.args.command_regex.is_some()
    }

    /// The same rule restricted to some approval modes.
    pub fn in_modes(mut self, modes: &[ApprovalMode]) -> Self {
        self.modes = modes.to_vec();
        self
    }

    /// The same rule for shell commands starting with `prefix`.
    pub fn with_command_prefix(mut self, prefix: &str) -> Self {
        self.args.command_prefixes.push(prefix.trim().to_string());
        self
    }

    /// True when the rule names the tool (ignoring arguments and modes):
    /// by its name or any other name it answers to (`grep_search`,
    /// `mcp_<server>_<tool>`, ...; see [`crate::catalogue::names`]).
    pub fn names_tool(&self, tool_name: &str) -> bool {
        // `mcpName = "*"` with a tool name: that tool of any server.
        if let Some(tool) = self.tool_name.strip_prefix("*__") {
            return tool_name
                .split_once("__")
                .is_some_and(|(server, t)| !server.is_empty() && t == tool);
        }
        let direct = match self.tool_name.strip_suffix('*') {
            Some(prefix) => tool_name.starts_with(prefix),
            None => self.tool_name == tool_name,
        };
        direct || crate::catalogue::names::selects(&self.tool_name, tool_name)
    }

    /// Whether this rule applies to `tool_name(args)` in `mode`. For the
    /// shell, `args.command` is one simple command (the engine splits
    /// compound commands first).
    pub fn matches(&self, tool_name: &str, args: &Value, mode: ApprovalMode) -> RuleMatch {
        if !self.modes.is_empty() && !self.modes.contains(&mode) {
            return RuleMatch::No;
        }
        if !self.names_tool(tool_name) {
            return RuleMatch::No;
        }
        if let Some(re) = &self.args.args_pattern
            && !re.is_match(&stable_json(args))
        {
            return RuleMatch::No;
        }
        let command = super::shell_command(args).unwrap_or("").trim();
        if self.args.command_prefixes.is_empty() && self.args.command_regex.is_none() {
            return RuleMatch::Yes;
        }
        // Gemini CLI 0.70: the text, and the top-level command's words as
        // the shell passes them (quotes and escapes removed).
        let argv = super::shell_parse::top_level_argv(command);
        let forms = [command, argv.as_str()];
        if !self.args.command_prefixes.is_empty()
            && !self
                .args
                .command_prefixes
                .iter()
                .any(|p| forms.iter().any(|f| starts_with_words(f, p)))
        {
            return RuleMatch::No;
        }
        if let Some(re) = &self.args.command_regex
            && !forms.iter().any(|f| re.is_match(f))
        {
            return RuleMatch::No;
        }
        RuleMatch::Yes
    }
}

/// JSON with object keys sorted at every level, as `argsPattern` sees it.
pub fn stable_json(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", Value::String(k.clone()), stable_json(&map[k])))
                .collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(stable_json).collect();
            format!("[{}]", inner.join(","))
        }
        other => other.to_string(),
    }
}

/// `run_shell_command(echo)` allows `echo ...`; any other name allows the
/// whole tool.
pub(super) fn allowed_tool_rule(entry: &str, priority: f64) -> PolicyRule {
    let entry = entry.trim();
    if let Some((name, inner)) = entry.strip_suffix(')').and_then(|e| e.split_once('('))
        && is_shell_tool(name)
    {
        return PolicyRule::tool("run_shell_command", Decision::Allow, priority)
            .with_command_prefix(inner);
    }
    let name = if is_shell_tool(entry) {
        "run_shell_command"
    } else {
        entry
    };
    PolicyRule::tool(name, Decision::Allow, priority)
}

/// The names Gemini CLI accepts for the shell tool in settings.
pub(super) fn is_shell_tool(name: &str) -> bool {
    matches!(name, "run_shell_command" | "ShellTool")
}

/// True when `command` starts with the words of `prefix` (whole words).
fn starts_with_words(command: &str, prefix: &str) -> bool {
    match command.strip_prefix(prefix) {
        Some(rest) => {
            rest.is_empty() || rest.starts_with(char::is_whitespace) || prefix.ends_with(' ')
        }
        None => false,
    }
}

/// The default rules of a spec's [`DefaultPolicy`] (the `read-only.toml`
/// and `write.toml` of v0.27.4), as `(decision, priority, modes)`; empty
/// modes mean every mode.
fn spec_rules(policy: DefaultPolicy) -> &'static [(Decision, f64, &'static [ApprovalMode])] {
    match policy {
        DefaultPolicy::Allow => &[(Decision::Allow, 1.050, &[])],
        DefaultPolicy::Ask => &[(Decision::AskUser, 1.010, &[])],
        DefaultPolicy::AskUnlessAutoEdit => &[
            (Decision::AskUser, 1.010, &[]),
            (Decision::Allow, 1.015, &[ApprovalMode::AutoEdit]),
        ],
        DefaultPolicy::Unruled => &[],
    }
}

/// The default TOML policies of v0.27.4 (read-only, write, discovered,
/// yolo): each built-in tool's rules come from its spec. Plan mode's
/// defaults are `plan::plan_rules`.
pub(super) fn default_rules() -> Vec<PolicyRule> {
    let mut rules = Vec::new();
    for spec in crate::catalogue::builtins::specs() {
        for (decision, priority, modes) in spec_rules(spec.policy) {
            rules.push(PolicyRule::tool(spec.name, *decision, *priority).in_modes(modes));
        }
    }
    rules.push(PolicyRule::tool(
        "discovered_tool_*",
        Decision::AskUser,
        1.010,
    ));
    let mut yolo = PolicyRule::tool("*", Decision::Allow, 1.998).in_modes(&[ApprovalMode::Yolo]);
    yolo.allow_redirection = true;
    rules.push(yolo);
    rules.into_iter().map(|r| r.sourced("Default")).collect()
}
