//! How each dialect lets policy and headless mode shape the tool set, as
//! data: one [`ToolRules`] per dialect, recorded from its release
//! (`e2e/reference/record.sh`: the `deny-modes`, `echo-redirect`,
//! `plan-shell` and `headless-ask` scenarios). The session's tool set and
//! the scheduler read them here. Both dialects refuse the same calls; they
//! differ only in whether the model is told "not found" or "denied".

use super::dialect::Dialect;

/// What a call gets when a rule asks about it and nobody can be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeadlessAsk {
    /// `Tool execution for "<Display name>" requires user confirmation,
    /// which is not supported in non-interactive mode.` (0.61).
    ConfirmationError,
    /// `Tool execution denied by policy.` (0.27.4).
    Denied,
}

/// One dialect's rules for the tools policy and headless mode touch.
#[derive(Debug)]
pub struct ToolRules {
    /// A tool whose strongest rule in a mode denies it outright (plan
    /// mode's shell, a deny with `modes`) is removed in that mode (0.61);
    /// otherwise it stays declared and its calls are refused (0.27.4).
    pub remove_denied_in_mode: bool,
    /// Whether a policy allow rule naming a tool headless mode hides keeps
    /// it declared (0.61); otherwise only `tools.allowed` and
    /// `--allowed-tools` do (0.27.4).
    pub headless_allow_rule_declares: bool,
    /// Whether headless plan mode hides what headless default mode hides
    /// (0.27.4: the shell, edit, write and fetch tools); otherwise plan
    /// mode's own rules decide (0.61).
    pub headless_plan_hides_as_default: bool,
    /// What a headless call a rule asks about gets.
    pub headless_ask: HeadlessAsk,
}

/// Gemini CLI 0.61's rules.
static TODAY: ToolRules = ToolRules {
    remove_denied_in_mode: true,
    headless_allow_rule_declares: true,
    headless_plan_hides_as_default: false,
    headless_ask: HeadlessAsk::ConfirmationError,
};

/// Gemini CLI 0.27.4's rules.
static V027: ToolRules = ToolRules {
    remove_denied_in_mode: false,
    headless_allow_rule_declares: false,
    headless_plan_hides_as_default: true,
    headless_ask: HeadlessAsk::Denied,
};

impl Dialect {
    /// The dialect's rules for the tools policy and headless mode touch.
    pub fn rules(self) -> &'static ToolRules {
        match self {
            Dialect::Today => &TODAY,
            Dialect::V027 => &V027,
        }
    }
}
