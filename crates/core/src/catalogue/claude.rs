//! Claude Code's names for the built-in tools and their parameters, read
//! from the tools' own specs: one table for converting hook payloads and
//! for migrating Claude Code hook settings (`hooks migrate --from-claude`).
//!
//! Only names are mapped; values pass unchanged. Parameters without a
//! twin keep their names.

use super::builtins::specs;
use super::spec::ToolSpec;
use serde_json::{Map, Value};

/// Every built-in tool with a Claude Code twin, as (Claude's name, ours).
pub fn twins() -> impl Iterator<Item = (&'static str, &'static str)> {
    specs().filter_map(|s| s.claude.map(|c| (c.name, s.name)))
}

/// The built-in tool whose Claude Code twin is called `claude` (`Read`).
pub fn by_claude_name(claude: &str) -> Option<&'static ToolSpec> {
    specs().find(|s| s.claude.is_some_and(|c| c.name == claude))
}

/// Claude Code's name for the built-in tool called `name` (or an alias).
pub fn claude_name(name: &str) -> Option<&'static str> {
    super::builtins::spec(name).and_then(ToolSpec::claude_name)
}

/// A Claude Code call (`Edit` with `replace_all`) as ours (`replace` with
/// `allow_multiple`); `None` when the tool has no twin here.
pub fn call_from_claude(
    claude: &str,
    input: &Map<String, Value>,
) -> Option<(&'static str, Map<String, Value>)> {
    let spec = by_claude_name(claude)?;
    let twin = spec.claude?;
    let args = rename(input, |k| twin.ours_for(k));
    Some((spec.name, args))
}

/// One of our calls (by name or alias) as Claude Code's; `None` when the
/// tool has no twin.
pub fn call_to_claude(
    name: &str,
    args: &Map<String, Value>,
) -> Option<(&'static str, Map<String, Value>)> {
    let twin = super::builtins::spec(name)?.claude?;
    Some((twin.name, rename(args, |k| twin.claude_for(k))))
}

/// `map` with each key renamed where `to` names it; a renamed key wins
/// over an unmapped key of the same name.
fn rename(
    map: &Map<String, Value>,
    to: impl Fn(&str) -> Option<&'static str>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (key, value) in map {
        if to(key).is_none() && !out.contains_key(key) {
            out.insert(key.clone(), value.clone());
        }
    }
    for (key, value) in map {
        if let Some(new) = to(key) {
            out.insert(new.to_string(), value.clone());
        }
    }
    out
}

/// Claude Code's `error` for a shell command that exited non-zero, read
/// from the shell tool's result (`Output: …\nExit Code: n\n…`): Claude
/// Code counts such a command as failed (`PostToolUseFailure`); `None`
/// when it exited 0.
pub fn shell_failure(result_text: &str) -> Option<String> {
    let (before, after) = result_text.split_once("\nExit Code: ")?;
    let code: i64 = after.lines().next()?.trim().parse().ok()?;
    let output = before
        .rsplit_once("Output: ")
        .map_or(before, |(_, o)| o)
        .trim();
    Some(match output {
        "" | "(empty)" => format!("Exit code {code}"),
        out => format!("Exit code {code}\n{out}"),
    })
}
