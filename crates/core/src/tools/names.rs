//! The names a registered tool answers to; the rules are the catalogue's
//! ([`crate::catalogue::names`]), re-exported here for the tools.

pub use crate::catalogue::names::*;

use super::Tool;

/// The names of `tool`: its registry name and the [`forms`] of its
/// policy name.
pub fn tool_forms(tool: &dyn Tool) -> Vec<String> {
    let mut out = forms(&tool.policy_name());
    if !out.iter().any(|n| n == tool.name()) {
        out.push(tool.name().to_string());
    }
    out
}
