//! The request profile (`model.profile`): `full` sends gemini-rs's whole
//! system prompt and every tool; `lean` a short system prompt, the core
//! file and shell tools and a short directory overview, so a small local
//! model's window holds the request with room for the conversation.
//! Unset, `lean` is chosen when the model's known context window (declared,
//! asked of its local server, or well known) is too small for the full
//! request.

use super::config::StartupNote;
use super::tool_set::ToolLayer;
use crate::model::estimate::parts_tokens;
use crate::model::provider::ContextWindows;
use crate::policy::{ApprovalMode, PolicyEngine};
use crate::tools::ToolRegistry;
use gemini_rs_protocol::Part;

/// Entries of the directory overview in a lean request's first turn.
pub(super) const LEAN_TREE_LIMIT: usize = 20;

/// Which request the session sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Profile {
    /// The whole system prompt and every tool.
    Full,
    /// A short system prompt and the core tools.
    Lean,
}

impl Profile {
    /// How many entries of the folder tree the first message lists.
    pub(super) fn tree_limit(self) -> usize {
        match self {
            Profile::Lean => LEAN_TREE_LIMIT,
            Profile::Full => crate::agent::TREE_LIMIT,
        }
    }
}

/// A lean request's system prompt.
pub(super) fn lean_prompt() -> String {
    "You are a command-line agent that helps with software engineering work in the user's project.
Use the tools: read_file to read a file, list_directory and glob to find files, write_file and replace to change files, run_shell_command to run a command. Call a tool whenever the request needs a file's content or a change; do not guess what a file says.
Answer briefly in plain text."
        .to_string()
}

/// The estimated tokens of the fixed part of a full request: its system
/// prompt and the declarations of the tools active in `mode`.
fn full_tokens(system: &str, registry: &ToolRegistry, mode: ApprovalMode) -> u64 {
    let declarations = registry.declarations_in(mode, |_| false);
    parts_tokens(&[Part::text(system)]) + crate::model::estimate::json_tokens(&declarations) as u64
}

/// The profile `model.profile` names, or (unset) the one the model's known
/// window calls for: `lean` when the full request's fixed part would take
/// more than `threshold` (the compression threshold's share) of it. When
/// `lean` is chosen, `tools` is rebuilt with the core tools only, and a
/// note says why.
pub(super) fn choose(
    setting: Option<&str>,
    (windows, model): (&ContextWindows, &str),
    (tools, policy, mode): (&mut ToolLayer, &PolicyEngine, ApprovalMode),
    (full_system, threshold): (&str, f64),
    notes: &mut Vec<StartupNote>,
) -> Profile {
    let profile = match setting {
        Some("full") => Profile::Full,
        Some("lean") => Profile::Lean,
        other => {
            if let Some(value) = other {
                notes.push(StartupNote {
                    text: format!(
                        "Setting 'model.profile' has the value \"{value}\", which is not one of full or lean; the profile is chosen by the model's context window."
                    ),
                    warning: true,
                });
            }
            let Some(window) = windows.known(model) else {
                return Profile::Full;
            };
            let full = full_tokens(full_system, &tools.registry, mode);
            if (full as f64) <= window as f64 * threshold {
                return Profile::Full;
            }
            notes.push(StartupNote {
                text: format!(
                    "{model}'s context window ({window} tokens) is too small for the full request (about {full} tokens of system prompt and tools): using the lean profile, a short system prompt and the core tools only. Set model.profile to \"full\" or \"lean\" to choose."
                ),
                warning: false,
            });
            Profile::Lean
        }
    };
    if profile == Profile::Lean {
        tools.recipe.lean = true;
        tools.registry = tools.recipe.build(policy, tools.mcp.as_ref());
    }
    profile
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::tool_set::LEAN_TOOLS;

    #[test]
    fn the_lean_prompt_names_only_lean_tools() {
        let prompt = lean_prompt();
        for tool in LEAN_TOOLS {
            assert!(prompt.contains(tool), "{tool}");
        }
        assert!(parts_tokens(&[Part::text(&prompt)]) < 150);
    }
}
