//! One policy rule and the default rule set of Gemini CLI v0.27.4.

use super::{ApprovalMode, Decision, priority};
use serde_json::Value;

/// How a rule restricts a shell command.
#[derive(Debug, Clone, PartialEq)]
enum CommandMatch {
    /// Any arguments.
    Any,
    /// `run_shell_command(<prefix>)`: the command is one simple command
    /// starting with this word sequence.
    Prefix(String),
}

/// One rule: which tool, which calls, what decision, how strong.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyRule {
    /// Tool name; `*` matches all, `prefix*` a prefix (e.g. `server__*`).
    pub tool_name: String,
    command: CommandMatch,
    /// The decision.
    pub decision: Decision,
    /// Higher wins.
    pub priority: f64,
    /// Only in these modes (all when empty).
    pub modes: Vec<ApprovalMode>,
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
            command: CommandMatch::Any,
            decision,
            priority,
            modes: Vec::new(),
        }
    }

    /// The same rule restricted to some approval modes.
    pub fn in_modes(mut self, modes: &[ApprovalMode]) -> Self {
        self.modes = modes.to_vec();
        self
    }

    /// Whether this rule applies to `tool_name(args)` in `mode`.
    pub fn matches(&self, tool_name: &str, args: &Value, mode: ApprovalMode) -> RuleMatch {
        if !self.modes.is_empty() && !self.modes.contains(&mode) {
            return RuleMatch::No;
        }
        let name_ok = match self.tool_name.strip_suffix('*') {
            Some(prefix) => tool_name.starts_with(prefix),
            None => self.tool_name == tool_name,
        };
        if !name_ok {
            return RuleMatch::No;
        }
        match &self.command {
            CommandMatch::Any => RuleMatch::Yes,
            CommandMatch::Prefix(prefix) => {
                let command = args.get("command").and_then(Value::as_str).unwrap_or("");
                if is_simple_command(command) && starts_with_words(command.trim(), prefix) {
                    RuleMatch::Yes
                } else {
                    RuleMatch::No
                }
            }
        }
    }
}

/// `run_shell_command(echo)` allows `echo ...`; any other name allows the
/// whole tool.
pub(super) fn allowed_tool_rule(entry: &str) -> PolicyRule {
    let entry = entry.trim();
    if let Some(inner) = entry
        .strip_suffix(')')
        .and_then(|e| e.split_once('('))
        .filter(|(name, _)| is_shell_tool(name))
        .map(|(_, inner)| inner.trim().to_string())
    {
        return PolicyRule {
            tool_name: "run_shell_command".to_string(),
            command: CommandMatch::Prefix(inner),
            decision: Decision::Allow,
            priority: priority::TOOLS_ALLOWED,
            modes: Vec::new(),
        };
    }
    let name = if is_shell_tool(entry) {
        "run_shell_command"
    } else {
        entry
    };
    PolicyRule::tool(name, Decision::Allow, priority::TOOLS_ALLOWED)
}

fn is_shell_tool(name: &str) -> bool {
    matches!(name, "run_shell_command" | "ShellTool")
}

/// True when `command` starts with the words of `prefix` (whole words).
fn starts_with_words(command: &str, prefix: &str) -> bool {
    match command.strip_prefix(prefix) {
        Some(rest) => rest.is_empty() || rest.starts_with(char::is_whitespace),
        None => false,
    }
}

/// A command without chaining, pipes, substitution or redirection: only
/// such a command can be allowed by a prefix rule here. Compound commands
/// fall through to the next rule (asking, or refusing headless).
fn is_simple_command(command: &str) -> bool {
    const OPERATORS: [&str; 9] = ["&&", "||", ";", "|", "`", "$(", ">", "<", "&"];
    !command.contains('\n') && !OPERATORS.iter().any(|op| command.contains(op))
}

/// The default TOML policies of v0.27.4 (read-only, write, discovered, yolo).
pub(super) fn default_rules() -> Vec<PolicyRule> {
    let mut rules = Vec::new();
    for name in [
        "glob",
        "search_file_content",
        "list_directory",
        "read_file",
        "read_many_files",
        "google_web_search",
    ] {
        rules.push(PolicyRule::tool(name, Decision::Allow, 1.050));
    }
    for name in [
        "replace",
        "save_memory",
        "run_shell_command",
        "write_file",
        "web_fetch",
    ] {
        rules.push(PolicyRule::tool(name, Decision::AskUser, 1.010));
    }
    for name in ["replace", "write_file"] {
        rules.push(
            PolicyRule::tool(name, Decision::Allow, 1.015).in_modes(&[ApprovalMode::AutoEdit]),
        );
    }
    rules.push(PolicyRule::tool(
        "discovered_tool_*",
        Decision::AskUser,
        1.010,
    ));
    rules.push(PolicyRule::tool("*", Decision::Allow, 1.999).in_modes(&[ApprovalMode::Yolo]));
    rules
}
