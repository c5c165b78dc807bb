//! Policy files: `[[rule]]` tables in TOML (`~/.gemini/policies/*.toml`,
//! `--policy FILE`, the system policies), turned into [`PolicyRule`]s.

use super::rules::{ArgsMatch, PolicyRule, is_shell_tool};
use super::{ApprovalMode, Decision};
use regex::Regex;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// A policy file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyFileError {
    /// Not a regular file, or too large.
    #[error("Error reading policy file: {0}")]
    Input(#[from] crate::config::input_file::InputFileError),
    /// The file is not valid TOML or a rule is malformed.
    #[error("Invalid policy file {path}{}: {message}", line.map(|l| format!(" at line {l}")).unwrap_or_default())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// Rules lack `priority`: Gemini CLI (0.27.4 and 0.61 alike) skips
    /// the whole file with this message (after its tier's label).
    #[error(
        "Policy file error in {file}:\n  Schema validation failed\nInvalid policy rule (rule #1):\n{fields}\n  Suggestion: Ensure all required fields (decision, priority) are present with correct types"
    )]
    MissingPriority {
        /// The file's name.
        file: String,
        /// A `  - Field "rule.N.priority": priority is required` line for
        /// each such rule (`N` counts from 0).
        fields: String,
    },
}

impl PolicyFileError {
    /// The start-up note of a file skipped for this error, labelled with
    /// its tier as Gemini CLI labels it (`[USER] Policy file error in
    /// ...`); `None` for an error that stops the start-up.
    pub fn skip_note(&self, tier: u8) -> Option<String> {
        let label = match tier {
            1 => "DEFAULT",
            2 => "USER",
            EXTENSION_TIER => "EXTENSION",
            _ => "ADMIN",
        };
        match self {
            PolicyFileError::MissingPriority { .. } => Some(format!("[{label}] {self}")),
            PolicyFileError::Input(_) | PolicyFileError::Invalid { .. } => None,
        }
    }
}

#[derive(Debug, Deserialize)]
struct PolicyFile {
    #[serde(default)]
    rule: Vec<RawRule>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    /// A label (Gemini CLI's own files name some rules): accepted, not used.
    #[serde(default, rename = "name")]
    _name: Option<String>,
    #[serde(rename = "toolName")]
    tool_name: Option<OneOrMany>,
    #[serde(rename = "mcpName")]
    mcp_name: Option<String>,
    #[serde(rename = "argsPattern")]
    args_pattern: Option<String>,
    #[serde(rename = "commandPrefix")]
    command_prefix: Option<OneOrMany>,
    #[serde(rename = "commandRegex")]
    command_regex: Option<String>,
    decision: String,
    #[serde(default)]
    priority: Option<i64>,
    #[serde(default)]
    modes: Vec<String>,
    #[serde(default, alias = "allowRedirection")]
    allow_redirection: bool,
    #[serde(default)]
    interactive: Option<bool>,
    #[serde(default, rename = "denyMessage", alias = "deny_message")]
    deny_message: Option<String>,
    #[serde(default, rename = "toolAnnotations")]
    tool_annotations: Option<toml::Table>,
}

/// The tier of an extension's `policies/*.toml` (0.61's tier 2): above
/// every default rule, below every user rule (see [`rule_priority`]).
pub const EXTENSION_TIER: u8 = 4;

/// A rule's priority: `tier + priority / 1000`; an extension's rules fill
/// the band between the default tier's highest (1.999) and the user tier,
/// their own order kept.
fn rule_priority(tier: u8, prio: i64) -> f64 {
    if tier == EXTENSION_TIER {
        1.9995 + prio as f64 / 2_000_000.0
    } else {
        f64::from(tier) + prio as f64 / 1000.0
    }
}

/// Parses the rules of one policy file; `tier` is 1 (default), 2 (user),
/// 3 (admin) or [`EXTENSION_TIER`], and a rule's priority is
/// `tier + priority / 1000`.
pub fn parse_policy(path: &Path, text: &str, tier: u8) -> Result<Vec<PolicyRule>, PolicyFileError> {
    let invalid = |line: Option<usize>, message: String| PolicyFileError::Invalid {
        path: path.to_path_buf(),
        line,
        message,
    };
    let file = parse_file(path, text)?;
    let mut rules = Vec::new();
    for (i, raw) in file.rule.into_iter().enumerate() {
        let n = i + 1;
        let decision = match raw.decision.as_str() {
            "allow" => Decision::Allow,
            "deny" => Decision::Deny,
            "ask_user" => Decision::AskUser,
            other => {
                return Err(invalid(
                    None,
                    format!("rule {n}: unknown decision \"{other}\" (allow, deny or ask_user)"),
                ));
            }
        };
        let prio = raw.priority.unwrap_or(0);
        if !(0..=999).contains(&prio) {
            return Err(invalid(
                None,
                format!("rule {n}: priority {prio} is outside 0..=999"),
            ));
        }
        let mut modes = Vec::new();
        for m in &raw.modes {
            match ApprovalMode::parse(m) {
                Some(mode) => modes.push(mode),
                None => return Err(invalid(None, format!("rule {n}: unknown mode \"{m}\""))),
            }
        }
        let regex = |s: &Option<String>, what: &str| -> Result<Option<Regex>, PolicyFileError> {
            s.as_deref()
                .map(Regex::new)
                .transpose()
                .map_err(|e| invalid(None, format!("rule {n}: invalid {what}: {e}")))
        };
        let args = ArgsMatch {
            args_pattern: regex(&raw.args_pattern, "argsPattern")?,
            command_prefixes: raw
                .command_prefix
                .map(OneOrMany::into_vec)
                .unwrap_or_default(),
            command_regex: regex(&raw.command_regex, "commandRegex")?,
        };
        let tool_annotations = raw
            .tool_annotations
            .map(|t| serde_json::to_value(t).map_err(|e| e.to_string()))
            .transpose()
            .map_err(|e| invalid(None, format!("rule {n}: invalid toolAnnotations: {e}")))?
            .and_then(|v| match v {
                serde_json::Value::Object(map) => Some(map),
                _ => None,
            });
        let names = match (raw.tool_name, &raw.mcp_name) {
            // Any server: every MCP tool, or the named tool of any server.
            (tools, Some(server)) if server == "*" => tools
                .map(OneOrMany::into_vec)
                .unwrap_or_else(|| vec!["*".to_string()])
                .into_iter()
                .map(|t| {
                    if t == "*" {
                        "mcp_*".to_string()
                    } else {
                        format!("*__{t}")
                    }
                })
                .collect(),
            // A name already in today's `mcp_<server>_<tool>` form stays.
            (Some(t), Some(server)) => t
                .into_vec()
                .into_iter()
                .map(|t| {
                    if t.starts_with(&format!("mcp_{server}_")) {
                        t
                    } else {
                        format!("{server}__{t}")
                    }
                })
                .collect(),
            (None, Some(server)) => vec![format!("{server}__*")],
            (Some(t), None) => t.into_vec(),
            (None, None) => vec!["*".to_string()],
        };
        let shell_only = !args.command_prefixes.is_empty() || args.command_regex.is_some();
        for name in names {
            if shell_only && !is_shell_tool(&name) {
                return Err(invalid(
                    None,
                    format!(
                        "rule {n}: commandPrefix and commandRegex apply only to run_shell_command"
                    ),
                ));
            }
            let name = if is_shell_tool(&name) {
                "run_shell_command".to_string()
            } else {
                name
            };
            rules.push(PolicyRule {
                tool_name: name,
                args: args.clone(),
                decision,
                priority: rule_priority(tier, prio),
                modes: modes.clone(),
                allow_redirection: raw.allow_redirection,
                source: format!("{}: {}", tier_name(tier), path.display()),
                interactive: raw.interactive,
                deny_message: raw.deny_message.clone(),
                tool_annotations: tool_annotations.clone(),
            });
        }
    }
    Ok(rules)
}

/// The `[[rule]]` tables of a policy file, each with its `priority`.
fn parse_file(path: &Path, text: &str) -> Result<PolicyFile, PolicyFileError> {
    let file: PolicyFile = toml::from_str(text).map_err(|e| PolicyFileError::Invalid {
        path: path.to_path_buf(),
        line: e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
        message: e.message().to_string(),
    })?;
    check_priorities(path, &file.rule)?;
    Ok(file)
}

/// [`PolicyFileError::MissingPriority`] when a rule lacks `priority`.
fn check_priorities(path: &Path, rules: &[RawRule]) -> Result<(), PolicyFileError> {
    let lacking: Vec<String> = (rules.iter().enumerate())
        .filter(|(_, raw)| raw.priority.is_none())
        .map(|(i, _)| format!("  - Field \"rule.{i}.priority\": priority is required"))
        .collect();
    if lacking.is_empty() {
        return Ok(());
    }
    Err(PolicyFileError::MissingPriority {
        file: path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        fields: lacking.join("\n"),
    })
}

/// The name of a tier, as rule sources show it.
fn tier_name(tier: u8) -> &'static str {
    match tier {
        1 => "Default",
        2 => "User",
        EXTENSION_TIER => "Extension",
        _ => "Admin",
    }
}

/// Reads and parses one policy file.
pub fn load_policy_file(path: &Path, tier: u8) -> Result<Vec<PolicyRule>, PolicyFileError> {
    use crate::config::input_file::{MAX_INPUT_BYTES, MAX_NESTING, check_nesting, read_input};
    let text = read_input(path, None, MAX_INPUT_BYTES)?;
    check_nesting(&text, MAX_NESTING).map_err(|e| PolicyFileError::Invalid {
        path: path.to_path_buf(),
        line: None,
        message: e.to_string(),
    })?;
    parse_policy(path, &text, tier)
}

/// Every `*.toml` in `dir` (sorted by name); a missing dir has none. A
/// file that is not regular or is too large, or whose rules lack
/// `priority`, is skipped, its reason in `skipped`; one that does not
/// parse is an error.
pub fn load_policy_dir(
    dir: &Path,
    tier: u8,
    skipped: &mut Vec<String>,
) -> Result<Vec<PolicyRule>, PolicyFileError> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml") && p.is_file())
        .collect();
    files.sort();
    let mut rules = Vec::new();
    for f in files {
        match load_policy_file(&f, tier) {
            Ok(more) => rules.extend(more),
            Err(PolicyFileError::Input(why)) => {
                skipped.push(format!("Skipping policy file: {why}."));
            }
            Err(e) => match e.skip_note(tier) {
                Some(note) => skipped.push(note),
                None => return Err(e),
            },
        }
    }
    Ok(rules)
}

/// The `[[rule]]` text "always allow and save" appends to
/// `~/.gemini/policies/auto-saved.toml`.
pub fn saved_rule_text(tool_name: &str, command_prefix: Option<&str>) -> String {
    let quote = |s: &str| toml_string(s);
    let mut text = format!("\n[[rule]]\ntoolName = {}\n", quote(tool_name));
    if let Some(p) = command_prefix {
        text.push_str(&format!("commandPrefix = {}\n", quote(p)));
    }
    text.push_str("decision = \"allow\"\npriority = 100\n");
    text
}

fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_annotations_and_any_server_as_gemini_cli_0_61_writes_them() {
        let text = "[[rule]]\nname = \"read-only MCP\"\ntoolName = \"*\"\nmcpName = \"*\"\ntoolAnnotations = { readOnlyHint = true }\ndecision = \"allow\"\npriority = 100\n\n[[rule]]\nmcpName = \"*\"\ntoolName = \"search\"\ndecision = \"deny\"\npriority = 0\n";
        let rules = parse_policy(Path::new("p.toml"), text, 2).unwrap();
        assert_eq!(rules[0].tool_name, "mcp_*");
        let want = serde_json::json!({"readOnlyHint": true});
        assert_eq!(rules[0].tool_annotations.as_ref(), want.as_object());
        assert!(rules[0].names_tool("docs__lookup"));
        assert!(!rules[0].names_tool("read_file"));
        assert!(rules[1].names_tool("docs__search") && rules[1].names_tool("web__search"));
        assert!(!rules[1].names_tool("docs__lookup") && !rules[1].names_tool("search"));
        let engine = crate::policy::PolicyEngine::new(false);
        for r in rules {
            engine.add_rule(r);
        }
        let read_only = want.as_object().cloned().unwrap();
        let writes = serde_json::json!({"readOnlyHint": false});
        engine.set_tool_annotations(vec![
            ("docs__lookup".into(), read_only),
            ("docs__edit".into(), writes.as_object().cloned().unwrap()),
        ]);
        let args = serde_json::json!({});
        use crate::policy::ApprovalMode::Default as D;
        assert_eq!(engine.decide("docs__lookup", &args, D), Decision::Allow);
        assert_eq!(engine.decide("docs__edit", &args, D), Decision::AskUser);
        assert_eq!(engine.decide("docs__other", &args, D), Decision::AskUser);
        assert_eq!(engine.decide("docs__search", &args, D), Decision::Deny);
    }

    #[test]
    fn a_file_with_a_rule_lacking_priority_is_refused_whole() {
        let text = "[[rule]]\ntoolName = \"glob\"\ndecision = \"deny\"\npriority = 1\n\n[[rule]]\ntoolName = \"ls\"\ndecision = \"deny\"\n";
        let err = parse_policy(Path::new("/x/p.toml"), text, 2).unwrap_err();
        assert_eq!(
            err.skip_note(2).unwrap(),
            "[USER] Policy file error in p.toml:\n  Schema validation failed\nInvalid policy rule (rule #1):\n  - Field \"rule.1.priority\": priority is required\n  Suggestion: Ensure all required fields (decision, priority) are present with correct types"
        );
        let bad = parse_policy(
            Path::new("p.toml"),
            "[[rule]]\ndecision = \"maybe\"\npriority = 1\n",
            2,
        );
        assert!(bad.unwrap_err().skip_note(2).is_none());
    }

    #[test]
    fn parses_rules_with_tiers() {
        let text = "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"echo\"\ndecision = \"deny\"\npriority = 100\n\n[[rule]]\nmcpName = \"srv\"\ndecision = \"allow\"\nmodes = [\"yolo\", \"autoEdit\"]\npriority = 0\n";
        let rules = parse_policy(Path::new("p.toml"), text, 2).unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].decision, Decision::Deny);
        assert!((rules[0].priority - 2.1).abs() < 1e-9);
        assert_eq!(rules[1].tool_name, "srv__*");
        assert_eq!(
            rules[1].modes,
            vec![ApprovalMode::Yolo, ApprovalMode::AutoEdit]
        );
    }

    #[test]
    fn mcp_names_of_both_dialects() {
        let text = "[[rule]]\nmcpName = \"srv\"\ntoolName = [\"echo\", \"mcp_srv_add\"]\ndecision = \"deny\"\npriority = 0\n\n[[rule]]\ntoolName = \"mcp_srv_*\"\ndecision = \"allow\"\npriority = 0\n";
        let rules = parse_policy(Path::new("p.toml"), text, 2).unwrap();
        let names: Vec<&str> = rules.iter().map(|r| r.tool_name.as_str()).collect();
        assert_eq!(names, ["srv__echo", "mcp_srv_add", "mcp_srv_*"]);
        assert!(rules[0].names_tool("srv__echo"));
        assert!(rules[1].names_tool("srv__add"));
        assert!(rules[2].names_tool("srv__anything"));
        assert!(!rules[2].names_tool("other__anything"));
        assert!(!rules[2].names_tool("read_file"));
    }

    #[test]
    fn errors_name_file_and_line() {
        let err = parse_policy(
            Path::new("/x/p.toml"),
            "[[rule]]\ntoolName = \"a\"\ndecision = \n",
            2,
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("Invalid policy file /x/p.toml at line 3"),
            "{text}"
        );
        let err = parse_policy(
            Path::new("p.toml"),
            "[[rule]]\ntoolName = \"a\"\ndecision = \"maybe\"\npriority = 0\n",
            2,
        )
        .unwrap_err();
        assert!(err.to_string().contains("unknown decision \"maybe\""));
        let err = parse_policy(
            Path::new("p.toml"),
            "[[rule]]\ntoolName = \"read_file\"\ncommandPrefix = \"x\"\ndecision = \"allow\"\npriority = 0\n",
            2,
        )
        .unwrap_err();
        assert!(err.to_string().contains("only to run_shell_command"));
    }

    #[test]
    fn saved_rule_round_trips() {
        let text = saved_rule_text("run_shell_command", Some("git \"x\""));
        let rules = parse_policy(Path::new("a.toml"), &text, 2).unwrap();
        assert_eq!(
            rules[0].args.command_prefixes,
            vec!["git \"x\"".to_string()]
        );
    }
}
