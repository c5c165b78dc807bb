//! Who decides whether a call runs: approval modes, the allow / deny / ask
//! rules with Gemini CLI's priorities, and which tools headless mode hides.

mod rules;

pub use rules::{PolicyRule, RuleMatch};

use serde_json::Value;
use std::sync::RwLock;

/// The session's approval mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApprovalMode {
    /// Ask before anything that changes something.
    Default,
    /// File edits run without asking.
    AutoEdit,
    /// Everything runs without asking.
    Yolo,
    /// Read-only planning.
    Plan,
}

impl ApprovalMode {
    /// Parses `default`, `auto_edit` (or `autoEdit`), `yolo`, `plan`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "default" => Some(ApprovalMode::Default),
            "auto_edit" | "autoEdit" => Some(ApprovalMode::AutoEdit),
            "yolo" => Some(ApprovalMode::Yolo),
            "plan" => Some(ApprovalMode::Plan),
            _ => None,
        }
    }

    /// The spelling of `--approval-mode`.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalMode::Default => "default",
            ApprovalMode::AutoEdit => "auto_edit",
            ApprovalMode::Yolo => "yolo",
            ApprovalMode::Plan => "plan",
        }
    }
}

/// What policy says about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Run without asking.
    Allow,
    /// Refuse: `Tool execution denied by policy.`
    Deny,
    /// Ask the user (refused when nobody can be asked).
    AskUser,
}

/// Tiers of rule priority (`tier + toml_priority / 1000`).
pub mod priority {
    /// `mcp.allowed`.
    pub const MCP_ALLOWED: f64 = 2.1;
    /// A trusted MCP server.
    pub const TRUSTED_MCP_SERVER: f64 = 2.2;
    /// `tools.allowed` / `--allowed-tools`.
    pub const TOOLS_ALLOWED: f64 = 2.3;
    /// `tools.exclude`.
    pub const TOOLS_EXCLUDE: f64 = 2.4;
    /// `mcp.excluded`.
    pub const MCP_EXCLUDED: f64 = 2.9;
    /// "Always allow" answers during the session.
    pub const SESSION_ALWAYS: f64 = 2.95;
}

/// The rule set of a session.
pub struct PolicyEngine {
    rules: RwLock<Vec<PolicyRule>>,
    interactive: bool,
}

impl PolicyEngine {
    /// An engine with Gemini CLI's default rules and no others.
    pub fn new(interactive: bool) -> Self {
        let engine = PolicyEngine {
            rules: RwLock::new(Vec::new()),
            interactive,
        };
        for rule in rules::default_rules() {
            engine.add_rule(rule);
        }
        engine
    }

    /// Adds the rules derived from `tools.allowed`, `tools.exclude` (and
    /// `--allowed-tools`).
    pub fn add_settings_rules(&self, allowed: &[String], excluded: &[String]) {
        for entry in allowed {
            self.add_rule(rules::allowed_tool_rule(entry));
        }
        for name in excluded {
            self.add_rule(PolicyRule::tool(name, Decision::Deny, priority::TOOLS_EXCLUDE));
        }
    }

    /// Adds one rule.
    pub fn add_rule(&self, rule: PolicyRule) {
        if let Ok(mut rules) = self.rules.write() {
            rules.push(rule);
            rules.sort_by(|a, b| b.priority.total_cmp(&a.priority));
        }
    }

    /// The decision for `tool_name` called with `args` in `mode`. Without a
    /// user to ask, `AskUser` becomes `Deny`.
    pub fn check(&self, tool_name: &str, args: &Value, mode: ApprovalMode) -> Decision {
        let decision = self
            .rules
            .read()
            .ok()
            .and_then(|rules| {
                rules
                    .iter()
                    .find(|r| r.matches(tool_name, args, mode) == RuleMatch::Yes)
                    .map(|r| r.decision)
            })
            .unwrap_or(Decision::AskUser);
        match (decision, self.interactive) {
            (Decision::AskUser, false) => Decision::Deny,
            (d, _) => d,
        }
    }
}

/// Tools headless mode neither declares nor finds, as v0.27.4 decides them:
/// in `default`/`plan` the shell, edit and fetch tools, in `auto_edit` the
/// shell; a tool named in `allowed` stays.
pub fn headless_excluded_tools(mode: ApprovalMode, allowed: &[String]) -> Vec<String> {
    let candidates: &[&str] = match mode {
        ApprovalMode::Default | ApprovalMode::Plan => {
            &["run_shell_command", "replace", "write_file", "web_fetch"]
        }
        ApprovalMode::AutoEdit => &["run_shell_command"],
        ApprovalMode::Yolo => &[],
    };
    candidates
        .iter()
        .filter(|name| {
            let listed = |a: &String| a == *name || a.starts_with(&format!("{name}("));
            !allowed.iter().any(listed)
        })
        .map(|s| s.to_string())
        .collect()
}

#[cfg(test)]
mod tests;
