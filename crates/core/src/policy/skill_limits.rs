//! `allowed-tools` enforced: while a skill that lists tools is active (from
//! its `activate_skill` call to the end of the user's prompt), the policy
//! engine refuses every call no active skill lists. Listing a tool does
//! not pre-approve it: its calls still go through the usual rules and
//! confirmations.
//!
//! Entries are Gemini CLI tool names (`read_file`, `run_shell_command(git)`:
//! commands starting with the words `git`) or Claude Code's (`Read`,
//! `Bash(git:*)`: commands starting with `git`; `Bash(npm test)`: that
//! command; `*` matches anything in a command; `Read(src/**)`: a path
//! argument matching the glob, relative as the model wrote it or absolute
//! with `//`). MCP tools answer to every form of their name
//! (`mcp__server__tool`, `server__tool`, `mcp_server_tool`), and a trailing
//! `*` selects by prefix.

use super::{shell_command, split_commands};
use crate::catalogue::claude::by_claude_name;
use crate::catalogue::names::{forms, pattern_selects};
use serde_json::Value;
use std::sync::RwLock;

/// The path arguments a path specifier is matched against.
const PATH_ARGS: [&str; 4] = ["file_path", "absolute_path", "dir_path", "path"];

/// What an entry's `(specifier)` says about a call.
#[derive(Debug, Clone)]
enum Specifier {
    /// No specifier: every call of the tool.
    Any,
    /// Shell commands starting with these words.
    Prefix(String),
    /// Shell commands matching this (a whole command, `*` for anything).
    Command(regex::Regex),
    /// A path argument matching this glob.
    Path(globset::GlobMatcher),
}

/// One `allowed-tools` entry.
#[derive(Debug, Clone)]
struct Entry {
    /// The name pattern, Claude Code's names turned into ours.
    name: String,
    specifier: Specifier,
}

/// The tools one active skill allows.
#[derive(Debug, Clone)]
pub struct ToolLimit {
    skill: String,
    written: Vec<String>,
    entries: Vec<Entry>,
}

impl ToolLimit {
    /// The limit of skill `skill` listing `allowed`.
    pub fn new(skill: &str, allowed: &[String]) -> Self {
        ToolLimit {
            skill: skill.to_string(),
            written: allowed.to_vec(),
            entries: allowed.iter().filter_map(|e| entry(e)).collect(),
        }
    }

    fn allows(&self, tool: &str, names: &[String], args: &Value) -> bool {
        self.entries
            .iter()
            .any(|e| pattern_selects(&e.name, names) && specifier_allows(&e.specifier, tool, args))
    }
}

/// Parses an entry; `None` for one that can never match (an invalid
/// pattern), which then allows nothing.
fn entry(text: &str) -> Option<Entry> {
    let text = text.trim();
    let (name, spec) = match text.strip_suffix(')').and_then(|t| t.split_once('(')) {
        Some((name, spec)) => (name.trim(), Some(spec.trim())),
        None => (text, None),
    };
    let claude = by_claude_name(name).map(|s| s.name);
    let ours = match name {
        "ShellTool" => "run_shell_command",
        _ => claude.unwrap_or(name),
    };
    let specifier = match spec {
        None | Some("*") | Some("") => Specifier::Any,
        Some(spec) if ours == "run_shell_command" => shell_specifier(spec, claude.is_some())?,
        Some(spec) => {
            let glob = match spec.strip_prefix("//") {
                Some(abs) => format!("/{abs}"),
                None => spec.strip_prefix("./").unwrap_or(spec).to_string(),
            };
            Specifier::Path(globset::Glob::new(&glob).ok()?.compile_matcher())
        }
    };
    Some(Entry {
        name: ours.to_string(),
        specifier,
    })
}

/// Claude Code's `git:*` (and Gemini CLI's `git`) are prefixes; Claude
/// Code's other specifiers are whole commands with `*` wildcards.
fn shell_specifier(spec: &str, claude: bool) -> Option<Specifier> {
    if let Some(prefix) = spec.strip_suffix(":*") {
        return Some(Specifier::Prefix(prefix.trim().to_string()));
    }
    if !claude {
        return Some(Specifier::Prefix(spec.to_string()));
    }
    let pattern: Vec<String> = spec.split('*').map(regex::escape).collect();
    regex::Regex::new(&format!("^{}$", pattern.join(".*")))
        .ok()
        .map(Specifier::Command)
}

fn specifier_allows(spec: &Specifier, tool: &str, args: &Value) -> bool {
    match spec {
        Specifier::Any => true,
        Specifier::Prefix(_) | Specifier::Command(_) if tool != "run_shell_command" => false,
        Specifier::Prefix(prefix) => {
            let command = shell_command(args).unwrap_or("").trim();
            command == prefix
                || command
                    .strip_prefix(prefix.as_str())
                    .is_some_and(|rest| rest.starts_with(char::is_whitespace))
        }
        Specifier::Command(re) => shell_command(args).is_some_and(|c| re.is_match(c.trim())),
        Specifier::Path(glob) => PATH_ARGS
            .iter()
            .filter_map(|k| args.get(*k).and_then(Value::as_str))
            .any(|p| glob.is_match(p.strip_prefix("./").unwrap_or(p))),
    }
}

/// The limits of the skills active in a session, shared by its
/// `activate_skill` tool (which adds them) and its policy engine (which
/// enforces them).
#[derive(Debug, Default)]
pub struct ActiveSkills {
    limits: RwLock<Vec<ToolLimit>>,
}

impl ActiveSkills {
    /// A skill listing `allowed-tools` became active.
    pub fn activate(&self, limit: ToolLimit) {
        if let Ok(mut limits) = self.limits.write() {
            limits.retain(|l| l.skill != limit.skill);
            limits.push(limit);
        }
    }

    /// The user's next prompt: no skill is active any more.
    pub fn clear(&self) {
        if let Ok(mut limits) = self.limits.write() {
            limits.clear();
        }
    }

    /// Why a call of the tool whose policy name is `tool` is refused while
    /// the active skills limit the tools (`None`: it may go on). Every
    /// part of a compound shell command must be allowed.
    pub fn refusal(&self, tool: &str, args: &Value) -> Option<String> {
        let limits = self.limits.read().ok()?;
        if limits.is_empty() {
            return None;
        }
        let names = forms(tool);
        let allowed = |args: &Value| limits.iter().any(|l| l.allows(tool, &names, args));
        let ok = match shell_command(args) {
            Some(command) if tool == "run_shell_command" => {
                let parts = split_commands(command);
                !parts.is_empty()
                    && parts.iter().all(|part| {
                        let mut one = args.clone();
                        one["command"] = Value::String(part.clone());
                        allowed(&one)
                    })
            }
            _ => allowed(args),
        };
        if ok {
            return None;
        }
        let listed: Vec<String> = limits
            .iter()
            .map(|l| format!("`{}` allows {}", l.skill, l.written.join(" ")))
            .collect();
        Some(format!(
            "The active skill's allowed-tools do not include this call ({}).",
            listed.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn active(allowed: &[&str]) -> ActiveSkills {
        let skills = ActiveSkills::default();
        let allowed: Vec<String> = allowed.iter().map(ToString::to_string).collect();
        skills.activate(ToolLimit::new("git-log", &allowed));
        skills
    }

    #[test]
    fn claude_names_and_patterns_limit_calls() {
        let skills = active(&["Bash(git log:*)", "Read", "grep_search", "mcp__docs__*"]);
        let shell = |c: &str| skills.refusal("run_shell_command", &json!({"command": c}));
        assert!(shell("git log --oneline").is_none());
        assert!(shell("git log && git status").is_some());
        assert!(shell("rm -rf /").is_some());
        assert!(
            skills
                .refusal("read_file", &json!({"file_path": "a"}))
                .is_none()
        );
        assert!(skills.refusal("search_file_content", &json!({})).is_none());
        assert!(skills.refusal("docs__lookup", &json!({})).is_none());
        assert!(skills.refusal("write_file", &json!({})).is_some());
        skills.clear();
        assert!(skills.refusal("write_file", &json!({})).is_none());
    }

    #[test]
    fn gemini_prefixes_exact_commands_and_paths() {
        let skills = active(&["run_shell_command(npm)", "Bash(make test)", "Edit(docs/**)"]);
        let shell = |c: &str| skills.refusal("run_shell_command", &json!({"command": c}));
        assert!(shell("npm run build").is_none());
        assert!(shell("npx x").is_some());
        assert!(shell("make test").is_none());
        assert!(shell("make test-all").is_some());
        let edit = |p: &str| skills.refusal("replace", &json!({"file_path": p}));
        assert!(edit("docs/a.md").is_none());
        assert!(edit("src/a.rs").is_some());
    }
}
