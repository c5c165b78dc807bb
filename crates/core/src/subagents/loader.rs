//! Markdown agents: YAML front matter (`kind`, `name`, `description`,
//! `display_name`, `tools`, `model`, `temperature`, `max_turns`,
//! `timeout_mins`) and a body that is the system prompt; or, with
//! `kind: remote`, an A2A agent (`agent_card_url` or `agent_card_json`, see
//! [`super::remote`]). The agent takes one input, `query`.

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
    /// `kind` is neither `local` nor `remote`.
    #[error("kind `{0}` is not supported (local or remote)")]
    UnsupportedKind(String),
    /// A key of one kind of agent in the other's front matter.
    #[error("`{key}` is not a key of {kind} agents")]
    WrongKindKey {
        /// The key.
        key: &'static str,
        /// `local` or `remote`.
        kind: &'static str,
    },
    /// A remote agent without exactly one card.
    #[error("a remote agent needs exactly one of agent_card_url and agent_card_json")]
    NoCard,
    /// `agent_card_url` is no http(s) URL, or `agent_card_json` no JSON.
    #[error("{key}: {message}")]
    BadCard {
        /// The key.
        key: &'static str,
        /// What is wrong.
        message: String,
    },
    /// Remote agent authentication (`auth`) is not implemented.
    #[error(
        "auth is not supported by gemini-rs yet (remote agents are called without credentials)"
    )]
    RemoteAuth,
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
    agent_card_url: Option<String>,
    agent_card_json: Option<String>,
    auth: Option<serde_yaml_ng::Value>,
}

impl FrontMatter {
    /// The keys only local agents have, that this one sets.
    fn local_keys(&self) -> Option<&'static str> {
        [
            ("tools", self.tools.is_some()),
            ("model", self.model.is_some()),
            ("temperature", self.temperature.is_some()),
            ("max_turns", self.max_turns.is_some()),
            ("timeout_mins", self.timeout_mins.is_some()),
        ]
        .into_iter()
        .find_map(|(key, set)| set.then_some(key))
    }

    /// The keys only remote agents have, that this one sets.
    fn remote_keys(&self) -> Option<&'static str> {
        [
            ("agent_card_url", self.agent_card_url.is_some()),
            ("agent_card_json", self.agent_card_json.is_some()),
            ("auth", self.auth.is_some()),
        ]
        .into_iter()
        .find_map(|(key, set)| set.then_some(key))
    }
}

/// The one input every Markdown agent takes.
fn query_schema() -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The task for the agent."}
        },
        "required": []
    })
}

/// A remote agent (0.61: `kind: remote`, or a remote key without local
/// ones): its card by URL or inline, no body.
fn remote_agent(fm: FrontMatter, origin: AgentOrigin) -> Result<AgentDefinition, AgentFileError> {
    if let Some(key) = fm.local_keys() {
        return Err(AgentFileError::WrongKindKey {
            key,
            kind: "remote",
        });
    }
    if fm.auth.is_some() {
        return Err(AgentFileError::RemoteAuth);
    }
    let card = match (fm.agent_card_url, fm.agent_card_json) {
        (Some(url), None) => {
            let parsed = reqwest::Url::parse(&url).map_err(|e| AgentFileError::BadCard {
                key: "agent_card_url",
                message: format!("Invalid url ({e})"),
            })?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(AgentFileError::BadCard {
                    key: "agent_card_url",
                    message: "only http and https URLs are supported".into(),
                });
            }
            super::remote::CardSource::Url(url)
        }
        (None, Some(text)) => {
            if let Err(e) = serde_json::from_str::<serde_json::Value>(&text) {
                return Err(AgentFileError::BadCard {
                    key: "agent_card_json",
                    message: format!("agent_card_json must be valid JSON ({e})"),
                });
            }
            super::remote::CardSource::Json(text)
        }
        _ => return Err(AgentFileError::NoCard),
    };
    Ok(AgentDefinition {
        name: fm.name,
        display_name: fm.display_name,
        description: fm.description.unwrap_or_default(),
        input_schema: query_schema(),
        query: "${query}".into(),
        system_prompt: String::new(),
        output: AgentOutput::Result,
        tools: ToolSelection::Named(Vec::new()),
        model: None,
        temperature: None,
        max_turns: None,
        timeout_mins: 5.0,
        origin,
        remote: Some(super::remote::RemoteAgent { card }),
    })
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
    let remote = match fm.kind.as_deref() {
        Some("remote") => true,
        Some("local") => false,
        Some(other) => return Err(AgentFileError::UnsupportedKind(other.to_string())),
        None => fm.remote_keys().is_some() && fm.local_keys().is_none(),
    };
    if fm.name.is_empty()
        || !fm
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
    {
        return Err(AgentFileError::BadName(fm.name));
    }
    if remote {
        return remote_agent(fm, origin);
    }
    if let Some(key) = fm.remote_keys() {
        return Err(AgentFileError::WrongKindKey { key, kind: "local" });
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
        input_schema: query_schema(),
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
        remote: None,
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
