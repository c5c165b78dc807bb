//! The two dialects of Gemini CLI a session speaks (`general.dialect`,
//! overridden by `GEMINI_RS_DIALECT`): today's (Gemini CLI 0.61, the
//! default) and 0.27.4's (the seeds'). A dialect decides what the model
//! and scripts see: the names tools are declared under, which built-ins
//! are declared, and the texts that differ. Calls, policies and hook
//! matchers written in either dialect's names work in both
//! ([`super::names`]).

use super::spec::ToolSpec;
use gemini_rs_mcp::naming::mcp_prefixed_name;
use std::fmt;

/// A Gemini CLI release whose outputs a session matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dialect {
    /// Today's Gemini CLI (0.61).
    #[default]
    Today,
    /// Gemini CLI 0.27.4, the release the seeds describe.
    V027,
}

/// Built-in tools today's Gemini CLI no longer declares (`read_many_files`
/// is only used for `@path`; `save_memory` is gone from 0.61's tool set).
const GONE_TODAY: &[&str] = &["read_many_files", "save_memory"];

/// Built-in tools Gemini CLI 0.27.4 did not declare (recorded by the
/// `tool-errors` scenario): the background-shell tools came later, and
/// `enter_plan_mode` needed `experimental.plan`.
const NEW_SINCE_027: &[&str] = &[
    "list_background_processes",
    "read_background_output",
    "enter_plan_mode",
];

/// The environment variable that overrides `general.dialect`.
pub const DIALECT_ENV: &str = "GEMINI_RS_DIALECT";

impl Dialect {
    /// The dialect a setting or `GEMINI_RS_DIALECT` names: `today` (or
    /// `0.61`), `0.27` (or `0.27.4`); `None` for anything else.
    pub fn parse(value: &str) -> Option<Dialect> {
        match value.trim() {
            "today" | "0.61" | "0.61.0" => Some(Dialect::Today),
            "0.27" | "0.27.4" => Some(Dialect::V027),
            _ => None,
        }
    }

    /// Its setting value: `today` or `0.27`.
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Today => "today",
            Dialect::V027 => "0.27",
        }
    }

    /// The name a built-in tool is declared under: today's name (its
    /// first alias, `grep_search`) or 0.27.4's.
    pub fn builtin_name(self, spec: &ToolSpec) -> &'static str {
        match self {
            Dialect::Today => spec.aliases.first().copied().unwrap_or(spec.name),
            Dialect::V027 => spec.name,
        }
    }

    /// Whether the dialect declares this built-in tool to the model.
    pub fn declares(self, spec: &ToolSpec) -> bool {
        match self {
            Dialect::Today => !GONE_TODAY.contains(&spec.name),
            Dialect::V027 => !NEW_SINCE_027.contains(&spec.name),
        }
    }

    /// The name an MCP tool is declared under, given the name 0.27.4 gives
    /// it (`registry_name`: the tool's valid name, or `<server>__<tool>` on
    /// a clash): today's `mcp_<server>_<tool>`, or `registry_name`.
    pub fn mcp_name(self, server: &str, tool: &str, registry_name: &str) -> String {
        match self {
            Dialect::Today => mcp_prefixed_name(server, tool),
            Dialect::V027 => registry_name.to_string(),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::builtins::spec;

    #[test]
    fn names_per_dialect() {
        let grep = spec("grep_search").expect("grep");
        assert_eq!(Dialect::Today.builtin_name(grep), "grep_search");
        assert_eq!(Dialect::V027.builtin_name(grep), "search_file_content");
        let rmf = spec("read_many_files").expect("rmf");
        assert!(!Dialect::Today.declares(rmf) && Dialect::V027.declares(rmf));
        let bg = spec("list_background_processes").expect("bg");
        assert!(Dialect::Today.declares(bg) && !Dialect::V027.declares(bg));
        assert_eq!(
            Dialect::Today.mcp_name("security", "find", "find"),
            "mcp_security_find"
        );
        assert_eq!(Dialect::V027.mcp_name("security", "find", "find"), "find");
    }

    #[test]
    fn parses_settings_and_environment_values() {
        assert_eq!(Dialect::parse("today"), Some(Dialect::Today));
        assert_eq!(Dialect::parse("0.27"), Some(Dialect::V027));
        assert_eq!(Dialect::parse("0.27.4"), Some(Dialect::V027));
        assert_eq!(Dialect::parse("0.30"), None);
    }
}
