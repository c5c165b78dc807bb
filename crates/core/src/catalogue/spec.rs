//! What a built-in tool declares about itself: its names (both Gemini CLI
//! eras and its Claude Code twin), its kind,
//! its default policy, whether headless mode declares it and whether
//! agents may use it. Policy defaults, headless rules, agent tool lists, the
//! registry's aliases and ACP kinds derive from these declarations
//! ([`super::builtins`]), so a new tool is described once.

use gemini_rs_protocol::events::{ApprovalMode, ToolKind};

/// Pairs of parameter names, `(from, to)`.
pub type ParamMap = &'static [(&'static str, &'static str)];

/// One built-in tool's declaration.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The name the model calls it by (v0.27.4's).
    pub name: &'static str,
    /// Its human name (`ReadFile`).
    pub display_name: &'static str,
    /// Other call names that find it (later Gemini CLI releases' names).
    pub aliases: &'static [&'static str],
    /// Parameter names accepted in place of the canonical ones, as
    /// `(alias, canonical)`: renamed before schema validation.
    pub param_aliases: ParamMap,
    /// The Claude Code tool doing the same job, when there is one.
    pub claude: Option<ClaudeTwin>,
    /// What it does, as ACP and the scheduler see it.
    pub kind: ToolKind,
    /// The default policy decision per approval mode.
    pub policy: DefaultPolicy,
    /// Whether headless mode declares it.
    pub headless: Headless,
    /// Which agents may be given it.
    pub agents: AgentUse,
    /// Whether it needs the model (left out where there is none).
    pub model: ModelUse,
}

/// The default rule of v0.27.4's TOML policies for a tool (yolo allows
/// everything above these, a rule of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultPolicy {
    /// Runs without asking (`read-only.toml`, priority 50).
    Allow,
    /// Asks (`write.toml`, priority 10).
    Ask,
    /// Asks, except in `auto_edit` (`write.toml`, priorities 10 and 15).
    AskUnlessAutoEdit,
    /// No default rule: a call is asked about unless another rule decides
    /// (so refused where nobody can be asked).
    Unruled,
}

/// Whether a non-interactive session declares a tool (unless the user
/// allowed it): v0.27.4 hides the tools it could only ask about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headless {
    /// Declared in every mode.
    Declared,
    /// Hidden in `default`, declared from `auto_edit` on.
    FromAutoEdit,
    /// Declared in `yolo` only.
    YoloOnly,
}

impl Headless {
    /// True when headless mode hides the tool in `mode`. Plan mode hides
    /// nothing here: its own rules refuse every change but a plan, with
    /// a refusal that says so.
    pub fn hidden_in(self, mode: ApprovalMode) -> bool {
        use ApprovalMode::{AutoEdit, Default, Plan, Yolo};
        match self {
            Headless::Declared => false,
            Headless::FromAutoEdit => match mode {
                Default => true,
                AutoEdit | Yolo | Plan => false,
            },
            Headless::YoloOnly => match mode {
                Default | AutoEdit => true,
                Yolo | Plan => false,
            },
        }
    }
}

/// Which agents may be given a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentUse {
    /// Any agent: Markdown agents may list it in `tools:`.
    Any,
    /// Only the built-in agents that name it.
    BuiltInAgentsOnly,
}

/// Whether a tool needs the model client to work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelUse {
    /// It works without one.
    None,
    /// It asks the model itself and is left out where there is none
    /// (`mcp serve`).
    Required,
}

/// A tool's Claude Code twin: its name and how its parameters map to ours.
/// Values pass unchanged; only names are mapped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaudeTwin {
    /// Claude Code's tool name (`Read`).
    pub name: &'static str,
    /// `(claude, ours)` parameter names, one to one.
    pub params: ParamMap,
}

impl ClaudeTwin {
    /// Our name for Claude's parameter `claude`.
    pub fn ours_for(&self, claude: &str) -> Option<&'static str> {
        self.params
            .iter()
            .find(|(c, _)| *c == claude)
            .map(|(_, ours)| *ours)
    }

    /// Claude's name for our parameter `ours`.
    pub fn claude_for(&self, ours: &str) -> Option<&'static str> {
        self.params
            .iter()
            .find(|(_, o)| *o == ours)
            .map(|(claude, _)| *claude)
    }
}

impl ToolSpec {
    /// True when `name` is this tool's name or one of its aliases.
    pub fn answers_to(&self, name: &str) -> bool {
        self.name == name || self.aliases.contains(&name)
    }

    /// Claude Code's name for this tool, when it has a twin.
    pub fn claude_name(&self) -> Option<&'static str> {
        self.claude.map(|c| c.name)
    }

    /// Every optional declaration at its most common value, for specs to
    /// start from (`..ToolSpec::BASE`): no aliases, no Claude twin, kind
    /// other, no default rule, declared headless, for any agent,
    /// no model needed.
    pub const BASE: ToolSpec = ToolSpec {
        name: "",
        display_name: "",
        aliases: &[],
        param_aliases: &[],
        claude: None,
        kind: ToolKind::Other,
        policy: DefaultPolicy::Unruled,
        headless: Headless::Declared,
        agents: AgentUse::Any,
        model: ModelUse::None,
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use ApprovalMode::{AutoEdit, Default, Plan, Yolo};

    #[test]
    fn headless_visibility_per_mode() {
        let hidden = |h: Headless| {
            [Default, Plan, AutoEdit, Yolo]
                .into_iter()
                .filter(|m| h.hidden_in(*m))
                .collect::<Vec<_>>()
        };
        assert!(hidden(Headless::Declared).is_empty());
        assert_eq!(hidden(Headless::FromAutoEdit), [Default]);
        assert_eq!(hidden(Headless::YoloOnly), [Default, AutoEdit]);
    }
}
