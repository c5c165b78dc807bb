//! Who decides whether a call runs: approval modes, the allow / deny / ask
//! rules with Gemini CLI's priorities, and which tools headless mode hides.

mod expansion;
mod plan;
mod redirection;
mod rules;
mod skill_limits;
mod toml;

pub mod shell_parse;

pub use redirection::has_redirection;
pub use rules::{PolicyRule, RuleMatch, stable_json};
pub use shell_parse::split_commands;
pub use skill_limits::{ActiveSkills, ToolLimit};
#[cfg(test)]
pub use toml::parse_policy;
pub use toml::{
    EXTENSION_TIER, PolicyFileError, load_policy_dir, load_policy_file, saved_rule_text,
};

use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::RwLock;

pub use gemini_rs_protocol::events::ApprovalMode;

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
    /// `tools.core` entries (its DENY of everything else sits 0.01 below).
    pub const TOOLS_CORE: f64 = 2.25;
    /// `tools.allowed` / `--allowed-tools`.
    pub const TOOLS_ALLOWED: f64 = 2.3;
    /// `tools.confirmationRequired`.
    pub const CONFIRMATION_REQUIRED: f64 = 2.35;
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
    saved_rules_file: Option<std::path::PathBuf>,
    /// MCP tools' annotations by policy name, for `toolAnnotations`.
    annotations: RwLock<HashMap<String, Map<String, Value>>>,
    /// The active skills' `allowed-tools`: calls outside them are denied.
    skills: std::sync::Arc<ActiveSkills>,
}

impl PolicyEngine {
    /// Whether someone can be asked (the terminal UI, an ACP client).
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// An engine with Gemini CLI's default rules and no others.
    pub fn new(interactive: bool) -> Self {
        let engine = PolicyEngine {
            rules: RwLock::new(Vec::new()),
            interactive,
            saved_rules_file: None,
            annotations: RwLock::default(),
            skills: std::sync::Arc::default(),
        };
        let plan = plan::plan_rules().into_iter().map(|r| r.sourced("Default"));
        for rule in rules::default_rules().into_iter().chain(plan) {
            engine.add_rule(rule);
        }
        engine
    }

    /// Adds the rules derived from `tools.allowed`, `tools.exclude` (and
    /// `--allowed-tools`) and `tools.core`. As in today's Gemini CLI,
    /// `tools.core` allows its entries (`run_shell_command(git)` only the
    /// commands starting with `git`, its other calls denied just below),
    /// outside plan mode; built-ins it leaves out are not registered.
    pub fn add_settings_rules(
        &self,
        allowed: &[String],
        excluded: &[String],
        core: Option<&[String]>,
    ) {
        for entry in allowed {
            let rule = rules::allowed_tool_rule(entry, priority::TOOLS_ALLOWED);
            self.add_rule(rule.sourced("Settings (Tools Allowed)"));
        }
        if let Some(core) = core {
            use ApprovalMode::{AutoEdit, Default, Yolo};
            for entry in core {
                let rule = rules::allowed_tool_rule(entry, priority::TOOLS_CORE)
                    .sourced("Settings (Core Tools)");
                self.add_rule(rule.in_modes(&[Default, AutoEdit, Yolo]));
                // `run_shell_command(git)`: the tool's other calls are
                // denied just below. Built-ins left out of the list are
                // not registered at all; MCP and discovered tools are not
                // core tools, so `tools.core` leaves them alone.
                if let Some((name, _)) = entry.split_once('(') {
                    let rest =
                        PolicyRule::tool(name.trim(), Decision::Deny, priority::TOOLS_CORE - 0.01)
                            .sourced("Settings (Core Tools)");
                    self.add_rule(rest.in_modes(&[Default, AutoEdit, Yolo]));
                }
            }
        }
        for name in excluded {
            let rule = PolicyRule::tool(name, Decision::Deny, priority::TOOLS_EXCLUDE);
            self.add_rule(rule.sourced("Settings (Tools Excluded)"));
        }
    }

    /// `tools.confirmationRequired`: these tools always ask (refused
    /// where nobody can be asked), above `tools.allowed` and `tools.core`.
    pub fn add_confirmation_rules(&self, tools: &[String]) {
        for entry in tools {
            let mut rule = rules::allowed_tool_rule(entry, priority::CONFIRMATION_REQUIRED);
            rule.decision = Decision::AskUser;
            self.add_rule(rule.sourced("Settings (Confirmation Required)"));
        }
    }

    /// The active skills whose `allowed-tools` limit what may be called
    /// (`activate_skill` adds to them; a new prompt clears them).
    pub fn active_skills(&self) -> std::sync::Arc<ActiveSkills> {
        self.skills.clone()
    }

    /// The rules, strongest first.
    pub fn rules(&self) -> Vec<PolicyRule> {
        self.rules.read().map(|r| r.clone()).unwrap_or_default()
    }

    /// How many rules there are: rules are only ever added, so a change
    /// of the rules changes the count.
    pub(crate) fn rule_count(&self) -> usize {
        self.rules.read().map(|r| r.len()).unwrap_or(0)
    }

    /// Adds one rule.
    pub fn add_rule(&self, rule: PolicyRule) {
        if let Ok(mut rules) = self.rules.write() {
            rules.push(rule);
            rules.sort_by(|a, b| b.priority.total_cmp(&a.priority));
        }
    }

    /// Where "always allow and save" appends rules
    /// (`~/.gemini/policies/auto-saved.toml`).
    pub fn with_saved_rules_file(mut self, path: std::path::PathBuf) -> Self {
        self.saved_rules_file = Some(path);
        self
    }

    /// Appends `rule` to the saved-rules file; failures are logged.
    pub fn save_rule(&self, rule: &PolicyRule) {
        let Some(path) = &self.saved_rules_file else {
            return;
        };
        let text = saved_rule_text(
            &rule.tool_name,
            rule.args.command_prefixes.first().map(String::as_str),
        );
        let result = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                use std::io::Write;
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)?
                    .write_all(text.as_bytes())
            });
        if let Err(e) = result {
            tracing::warn!("could not save policy rule to {}: {e}", path.display());
        }
    }

    /// Adds rules loaded from policy files.
    pub fn add_rules(&self, rules: Vec<PolicyRule>) {
        for rule in rules {
            self.add_rule(rule);
        }
    }

    /// The decision for `tool_name` called with `args` in `mode`. Without a
    /// user to ask, `AskUser` becomes `Deny`. A compound shell command is
    /// decided per sub-command: any DENY wins, and it is allowed only when
    /// every part is.
    pub fn check(&self, tool_name: &str, args: &Value, mode: ApprovalMode) -> Decision {
        match (self.decide(tool_name, args, mode), self.interactive) {
            (Decision::AskUser, false) => Decision::Deny,
            (d, _) => d,
        }
    }

    /// As [`PolicyEngine::check`], but `AskUser` stays `AskUser` without a
    /// user to ask (for callers that explain a refusal themselves).
    pub fn decide(&self, tool_name: &str, args: &Value, mode: ApprovalMode) -> Decision {
        // An active skill's `allowed-tools` outrank every rule.
        if self.skills.refusal(tool_name, args).is_some() {
            return Decision::Deny;
        }
        match shell_parts(tool_name, args) {
            Some(parts) if parts.len() > 1 => {
                let decisions: Vec<Decision> = parts
                    .iter()
                    .map(|part| {
                        let mut one = args.clone();
                        one["command"] = Value::String(part.clone());
                        self.check_one(tool_name, &one, mode)
                    })
                    .collect();
                if decisions.contains(&Decision::Deny) {
                    Decision::Deny
                } else if decisions.iter().all(|d| *d == Decision::Allow) {
                    Decision::Allow
                } else {
                    Decision::AskUser
                }
            }
            _ => self.check_one(tool_name, args, mode),
        }
    }

    /// The annotations of the registered MCP tools, by policy name
    /// (`<server>__<tool>`), replacing the last ones: what rules with
    /// `toolAnnotations` see.
    pub fn set_tool_annotations(&self, tools: Vec<(String, Map<String, Value>)>) {
        if let Ok(mut map) = self.annotations.write() {
            *map = tools.into_iter().collect();
        }
    }

    /// The first rule deciding `tool_name(args)` in `mode`, where this
    /// engine runs (interactive or not).
    fn first_match(&self, tool_name: &str, args: &Value, mode: ApprovalMode) -> Option<PolicyRule> {
        let rules = self.rules.read().ok()?;
        let annotations = self.annotations.read().ok()?;
        let annotated = annotations.get(tool_name);
        rules
            .iter()
            .filter(|r| r.interactive.is_none_or(|i| i == self.interactive))
            .find(|r| {
                r.matches(tool_name, args, mode) == RuleMatch::Yes && r.annotations_match(annotated)
            })
            .cloned()
    }

    /// The explanation of the rule that denies `tool_name(args)` in
    /// `mode`, when it has one (plan mode's rules do).
    pub fn deny_message(
        &self,
        tool_name: &str,
        args: &Value,
        mode: ApprovalMode,
    ) -> Option<String> {
        if let Some(why) = self.skills.refusal(tool_name, args) {
            return Some(why);
        }
        self.first_match(tool_name, args, mode)
            .filter(|r| r.decision == Decision::Deny)
            .and_then(|r| r.deny_message)
    }

    /// True when every call of `tool_name` is denied in `mode` by a rule
    /// of any tier (such a tool is not declared in that mode, though a
    /// call still gets the rule's refusal).
    pub fn hides(&self, tool_name: &str, mode: ApprovalMode) -> bool {
        let (Ok(rules), Ok(annotations)) = (self.rules.read(), self.annotations.read()) else {
            return false;
        };
        let annotated = annotations.get(tool_name);
        rules
            .iter()
            .filter(|r| r.interactive.is_none_or(|i| i == self.interactive))
            .filter(|r| r.annotations_match(annotated))
            .find(|r| r.names_tool(tool_name) && (r.modes.is_empty() || r.modes.contains(&mode)))
            .is_some_and(|r| r.decision == Decision::Deny && !r.has_arg_conditions())
    }

    fn check_one(&self, tool_name: &str, args: &Value, mode: ApprovalMode) -> Decision {
        let Some(rule) = self.first_match(tool_name, args, mode) else {
            return Decision::AskUser;
        };
        let command = shell_command(args);
        let shell = tool_name == "run_shell_command";
        let redirects = shell && command.is_some_and(has_redirection);
        let lenient_mode = matches!(mode, ApprovalMode::AutoEdit | ApprovalMode::Yolo);
        // Gemini CLI 0.70: a variable the environment does not set makes
        // the command unknown until it runs, so it asks (not in yolo).
        let unresolved = shell
            && mode != ApprovalMode::Yolo
            && command.is_some_and(|c| {
                !expansion::unresolved_variables(c, &|name| std::env::var_os(name).is_some())
                    .is_empty()
            });
        match rule.decision {
            Decision::Allow if redirects && !rule.allow_redirection && !lenient_mode => {
                Decision::AskUser
            }
            Decision::Allow if unresolved => Decision::AskUser,
            d => d,
        }
    }

    /// True when a rule above the default tier allows at least some calls
    /// of `tool_name` (such a tool stays declared in headless mode).
    pub fn allows_somewhere(&self, tool_name: &str) -> bool {
        self.rules.read().is_ok_and(|rules| {
            rules.iter().any(|r| {
                r.priority >= 2.0
                    && r.decision == Decision::Allow
                    && r.tool_name != "*"
                    && r.names_tool(tool_name)
            })
        })
    }

    /// True when a rule above the default tier denies every call of
    /// `tool_name` in `mode` (such a tool is not declared at all).
    pub fn denies_always(&self, tool_name: &str, mode: ApprovalMode) -> bool {
        self.first_rule_denies(tool_name, mode, 2.0)
    }

    /// True when the strongest rule for `tool_name` in `mode`, of any tier,
    /// denies every call: today's Gemini CLI then removes the tool in that
    /// mode (plan mode's shell, a deny with `modes`).
    pub fn denies_outright(&self, tool_name: &str, mode: ApprovalMode) -> bool {
        self.first_rule_denies(tool_name, mode, f64::MIN)
    }

    /// True when the first rule for `tool_name` in `mode` is a deny of
    /// every call at `min_priority` or above.
    fn first_rule_denies(&self, tool_name: &str, mode: ApprovalMode, min_priority: f64) -> bool {
        let (Ok(rules), Ok(annotations)) = (self.rules.read(), self.annotations.read()) else {
            return false;
        };
        let annotated = annotations.get(tool_name);
        let first = rules.iter().find(|r| {
            r.interactive.is_none_or(|i| i == self.interactive)
                && r.annotations_match(annotated)
                && r.names_tool(tool_name)
                && (r.modes.is_empty() || r.modes.contains(&mode))
        });
        first.is_some_and(|r| {
            r.priority >= min_priority
                && r.decision == Decision::Deny
                && r.args.args_pattern.is_none()
                && r.args.command_prefixes.is_empty()
                && r.args.command_regex.is_none()
        })
    }
}

/// The sub-commands of a shell call, when `tool_name` is the shell.
fn shell_parts(tool_name: &str, args: &Value) -> Option<Vec<String>> {
    if tool_name != "run_shell_command" {
        return None;
    }
    shell_command(args).map(split_commands)
}

/// The `command` argument of a shell call (of the shell tool's own
/// parameters); `None` when absent or not a string.
pub(crate) fn shell_command(args: &Value) -> Option<&str> {
    #[derive(serde::Deserialize)]
    struct ShellArgs<'a> {
        #[serde(borrow, default)]
        command: Option<&'a str>,
    }
    ShellArgs::deserialize(args).ok()?.command
}

/// Tools headless mode neither declares nor finds, as v0.27.4 decides them
/// (each built-in tool's spec says in which modes: the shell, edit and
/// fetch tools in `default`/`plan`, the shell in `auto_edit`); a tool named
/// in `allowed` stays.
pub fn headless_excluded_tools(mode: ApprovalMode, allowed: &[String]) -> Vec<String> {
    crate::catalogue::builtins::specs()
        .filter(|spec| spec.headless.hidden_in(mode))
        .map(|spec| spec.name)
        .filter(|name| {
            let names = crate::catalogue::names::forms(name);
            !allowed
                .iter()
                .any(|a| crate::catalogue::names::entry_names(a, &names))
        })
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_070;
