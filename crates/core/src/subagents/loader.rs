//! Markdown agents: YAML front matter (`name`, `description`,
//! `display_name`, `tools`, `model`, `temperature`, `max_turns`,
//! `timeout_mins`) and a body that is the system prompt. The agent takes
//! one input, `query`.

use super::{AgentDefinition, AgentOrigin, AgentOutput, ToolSelection};
use crate::config::input_file::{MAX_INPUT_BYTES, MAX_NESTING, check_nesting, read_input};
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest, Sha256};
use std::fmt;
use std::path::{Path, PathBuf};

/// A file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// The file (or folder).
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Failed to load agent from {}: {}",
            self.path.display(),
            self.message
        )
    }
}

/// Why a Markdown agent file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum AgentFileError {
    /// No front matter.
    #[error(
        "Missing mandatory YAML front matter: {0}. Agent files start with front matter between --- lines (name, description, ...)."
    )]
    NoFrontMatter(#[from] crate::skills::FrontMatterError),
    /// The front matter is not the expected YAML.
    #[error("Invalid front matter: {0}")]
    InvalidFrontMatter(#[from] serde_yaml_ng::Error),
    /// The front matter nests too deep for the YAML parser.
    #[error("Invalid front matter: {0}")]
    TooDeep(#[from] crate::config::input_file::TooDeep),
    /// `kind` is not `local`.
    #[error("kind `{0}` is not supported (only local agents are)")]
    UnsupportedKind(String),
    /// `name` is not a slug.
    #[error("name `{0}` must be a slug (lower-case letters, digits, - and _)")]
    BadName(String),
    /// `description` is missing or blank.
    #[error("description is required")]
    NoDescription,
    /// A limit does not fit 32 bits.
    #[error("{key} is too large")]
    TooLarge {
        /// `max_turns` or `timeout_mins`.
        key: &'static str,
    },
    /// A limit is zero or negative.
    #[error("{key} must be a positive integer (got {value})")]
    NotPositive {
        /// `max_turns` or `timeout_mins`.
        key: &'static str,
        /// The value given.
        value: i64,
    },
    /// `tools` lists something that is no tool name.
    #[error("tools: `{0}` is not a tool name")]
    BadTool(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    kind: Option<String>,
    name: String,
    description: Option<String>,
    display_name: Option<String>,
    tools: Option<Vec<String>>,
    model: Option<String>,
    temperature: Option<f64>,
    max_turns: Option<i64>,
    timeout_mins: Option<i64>,
    #[allow(dead_code)]
    agent_card_url: Option<String>,
}

/// The agents of the `*.md` files directly in `dir` (not those starting
/// with `_`), sorted by file name, and the files that failed. A missing
/// folder has none. `project` marks them as project agents (with their
/// content's hash, for acknowledgement).
pub fn load_dir(dir: &Path, project: bool) -> (Vec<AgentDefinition>, Vec<LoadError>) {
    let mut agents = Vec::new();
    let mut errors = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (agents, errors),
        Err(e) => {
            errors.push(LoadError {
                path: dir.to_path_buf(),
                message: format!("Could not list directory: {e}"),
            });
            return (agents, errors);
        }
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        // Symlinks and special files too: the read refuses them by name.
        .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
        .map(|e| e.path())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            !name.starts_with('_') && name.ends_with(".md")
        })
        .collect();
    files.sort();
    for path in files {
        let text = match read_input(&path, Some(dir), MAX_INPUT_BYTES) {
            Ok(t) => t,
            Err(e) => {
                errors.push(LoadError {
                    path,
                    message: format!("Could not read file: {e}"),
                });
                continue;
            }
        };
        let origin = if project {
            AgentOrigin::Project {
                path: path.clone(),
                hash: hex_sha256(&text),
            }
        } else {
            AgentOrigin::User(path.clone())
        };
        match parse_markdown(&text, origin) {
            Ok(agent) => agents.push(agent),
            Err(e) => errors.push(LoadError {
                path,
                message: e.to_string(),
            }),
        }
    }
    (agents, errors)
}

/// An agent from a Markdown file's text; the error says what is wrong.
pub fn parse_markdown(text: &str, origin: AgentOrigin) -> Result<AgentDefinition, AgentFileError> {
    let (yaml, body) = crate::skills::split_front_matter(text)?;
    check_nesting(yaml, MAX_NESTING)?;
    let fm: FrontMatter = serde_yaml_ng::from_str(yaml)?;
    if fm.kind.as_deref().is_some_and(|k| k != "local") {
        return Err(AgentFileError::UnsupportedKind(fm.kind.unwrap_or_default()));
    }
    if fm.name.is_empty()
        || !fm
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return Err(AgentFileError::BadName(fm.name));
    }
    let description = fm.description.unwrap_or_default();
    if description.trim().is_empty() {
        return Err(AgentFileError::NoDescription);
    }
    let positive = |v: Option<i64>, key: &'static str| -> Result<Option<u32>, AgentFileError> {
        match v {
            None => Ok(None),
            Some(n) if n > 0 => u32::try_from(n)
                .map(Some)
                .map_err(|_| AgentFileError::TooLarge { key }),
            Some(value) => Err(AgentFileError::NotPositive { key, value }),
        }
    };
    let max_turns = positive(fm.max_turns, "max_turns")?;
    let timeout = positive(fm.timeout_mins, "timeout_mins")?;
    if let Some(tools) = &fm.tools
        && let Some(bad) = tools.iter().find(|t| !valid_tool_name(t))
    {
        return Err(AgentFileError::BadTool(bad.clone()));
    }
    Ok(AgentDefinition {
        name: fm.name,
        display_name: fm.display_name,
        description,
        input_schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "The task for the agent."}
            },
            "required": []
        }),
        query: "${query}".into(),
        system_prompt: body.trim().to_string(),
        output: AgentOutput::Result,
        tools: fm
            .tools
            .map(ToolSelection::Named)
            .unwrap_or(ToolSelection::All),
        model: fm.model.filter(|m| m != "inherit"),
        temperature: fm.temperature,
        max_turns,
        timeout_mins: f64::from(timeout.unwrap_or(5)),
        origin,
    })
}

/// A built-in tool any agent may use (by its name or an alias such as
/// `grep_search`), a discovered tool, or an MCP tool as `<server>__<tool>`,
/// `mcp__<server>__<tool>` or `mcp_<server>_<tool>`.
fn valid_tool_name(name: &str) -> bool {
    let listable = crate::catalogue::builtins::specs()
        .any(|s| s.answers_to(name) && s.agents == crate::catalogue::spec::AgentUse::Any);
    if listable || name.starts_with("discovered_tool_") {
        return true;
    }
    let slug = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    let name = name.strip_prefix("mcp__").unwrap_or(name);
    match name.split_once("__") {
        Some((server, tool)) => slug(server) && slug(tool) && !tool.contains("__"),
        None => name.strip_prefix("mcp_").is_some_and(|rest| {
            rest.split_once('_')
                .is_some_and(|(server, tool)| slug(server) && !tool.is_empty())
        }),
    }
}

/// Lower-case hex SHA-256 of `text`.
fn hex_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
