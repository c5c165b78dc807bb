//! Every name a tool answers to, in both Gemini CLI dialects, and how a
//! name written by a user (a policy's `toolName`, a hook matcher,
//! `tools.exclude`, `tools.core`, an agent's tool list) selects tools.
//!
//! A built-in tool answers to its name and its [`ToolSpec`] aliases
//! (`search_file_content` and `grep_search`). An MCP tool, whose policy
//! name is `<server>__<tool>`, answers to that, to its registry name, to
//! `<server>__<validName(tool)>`, to Claude Code's `mcp__<server>__<tool>`
//! and to today's `mcp_<server>_<tool>` (sanitised and shortened as Gemini
//! CLI 0.61 does). Lists of names are never kept elsewhere: the aliases
//! come from the specs and the MCP forms from the policy name.
//!
//! [`ToolSpec`]: super::spec::ToolSpec

use gemini_rs_mcp::naming::{mcp_prefixed_name, qualified_name};

/// The names of the tool whose policy name is `policy_name`: itself, a
/// built-in's aliases, or an MCP tool's other forms.
pub fn forms(policy_name: &str) -> Vec<String> {
    let mut out = vec![policy_name.to_string()];
    if let Some(spec) = super::builtins::spec(policy_name) {
        out.extend(
            std::iter::once(spec.name)
                .chain(spec.aliases.iter().copied())
                .map(str::to_string),
        );
    } else if let Some((server, tool)) = mcp_parts(policy_name) {
        out.push(format!("mcp__{server}__{tool}"));
        out.push(qualified_name(server, tool));
        out.push(mcp_prefixed_name(server, tool));
    }
    out.dedup();
    out
}

/// `(server, tool)` of an MCP policy name `<server>__<tool>`.
fn mcp_parts(policy_name: &str) -> Option<(&str, &str)> {
    let (server, tool) = policy_name.split_once("__")?;
    (!server.is_empty() && !tool.is_empty()).then_some((server, tool))
}

/// True when the user-written `pattern` selects a tool with these names:
/// it equals one of them, or it ends in `*` and one starts with the rest
/// (`*`, `mcp_*`, `mcp_<server>_*`, `<server>__*`, `mcp__<server>__*`).
pub fn pattern_selects(pattern: &str, names: &[String]) -> bool {
    names.iter().any(|n| selects_name(pattern, n))
}

/// True when `pattern` equals `name`, or ends in `*` and `name` starts
/// with the rest.
fn selects_name(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => name == pattern,
    }
}

/// [`pattern_selects`] over the [`forms`] of `policy_name`, without
/// building them for a built-in (policy checks every rule against every
/// tool of a registry, once per session).
pub fn selects(pattern: &str, policy_name: &str) -> bool {
    let matches = |name: &str| selects_name(pattern, name);
    if matches(policy_name) {
        return true;
    }
    match super::builtins::spec(policy_name) {
        Some(spec) => matches(spec.name) || spec.aliases.iter().any(|a| matches(a)),
        None => mcp_parts(policy_name).is_some() && pattern_selects(pattern, &forms(policy_name)),
    }
}

/// True when a `tools.core`/`--allowed-tools` style entry (`name` or
/// `name(args)`) names a tool with these names.
pub fn entry_names(entry: &str, names: &[String]) -> bool {
    let name = match entry.split_once('(') {
        Some((name, _)) if entry.ends_with(')') => name,
        _ => entry,
    };
    pattern_selects(name.trim(), names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_is_pattern_selects_over_the_forms() {
        let names = [
            "read_file",
            "search_file_content",
            "grep_search",
            "docs__lookup",
            "x",
        ];
        let patterns = [
            "read_file",
            "grep_search",
            "search_file_content",
            "*",
            "mcp_*",
            "mcp_docs_*",
            "docs__*",
            "mcp__docs__lookup",
            "mcp_docs_lookup",
            "grep*",
            "x",
            "y",
        ];
        for name in names {
            for pattern in patterns {
                assert_eq!(
                    selects(pattern, name),
                    pattern_selects(pattern, &forms(name)),
                    "{pattern} / {name}"
                );
            }
        }
    }

    #[test]
    fn builtins_answer_to_their_aliases() {
        let f = forms("search_file_content");
        assert!(pattern_selects("grep_search", &f));
        assert!(pattern_selects("search_file_content", &f));
        assert!(!pattern_selects("mcp_*", &f));
        assert_eq!(forms("read_file"), ["read_file"]);
    }

    #[test]
    fn mcp_tools_answer_to_every_dialect() {
        let f = forms("my-srv__do.it!");
        for p in [
            "my-srv__do.it!",
            "my-srv__do.it_",
            "mcp__my-srv__do.it!",
            "mcp_my-srv_do.it_",
            "mcp_*",
            "mcp_my-srv_*",
            "my-srv__*",
            "mcp__my-srv__*",
            "*",
        ] {
            assert!(pattern_selects(p, &f), "{p}");
        }
        for p in ["mcp_other_*", "do.it!", "other__*"] {
            assert!(!pattern_selects(p, &f), "{p}");
        }
    }

    #[test]
    fn entries_with_arguments() {
        let f = forms("run_shell_command");
        assert!(entry_names("run_shell_command(git status)", &f));
        assert!(entry_names("run_shell_command", &f));
        assert!(!entry_names("run_shell(git)", &f));
        assert!(entry_names("grep_search", &forms("search_file_content")));
    }
}
