//! Sub-agents: specialised agents the model delegates to through a tool of
//! the agent's name. A definition is plain data: the prompts, the tools it
//! may use, its model and limits, and what it must hand back through
//! `complete_task`. Built-in agents (`codebase_investigator`, `cli_help`)
//! always exist; with `experimental.enableAgents`, Markdown agents come from
//! `~/.gemini/agents/` and, once acknowledged, the project's
//! `.gemini/agents/` (a later one of the same name wins). The executor that
//! runs them lives in `agent::subagent`.

mod acknowledged;
mod builtin;
mod loader;
mod output;
pub mod remote;

pub use acknowledged::Acknowledgements;
pub use builtin::INTERNAL_DOCS_TOOL;
pub use loader::load_dir;
#[cfg(test)]
pub use loader::parse_markdown;
pub use output::{OutputError, validate_output};

use crate::config::Settings;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The tool every sub-agent must call to finish.
pub const COMPLETE_TASK: &str = "complete_task";

/// Why a sub-agent stopped (Gemini CLI's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TerminateReason {
    /// It called `complete_task` with a valid output.
    Goal,
    /// Its time ran out.
    Timeout,
    /// It used its turns.
    MaxTurns,
    /// The user cancelled.
    Aborted,
    /// It stopped calling tools without `complete_task`.
    NoCompleteTask,
}

impl TerminateReason {
    /// The name the result text carries.
    pub fn as_str(self) -> &'static str {
        match self {
            TerminateReason::Goal => "GOAL",
            TerminateReason::Timeout => "TIMEOUT",
            TerminateReason::MaxTurns => "MAX_TURNS",
            TerminateReason::Aborted => "ABORTED",
            TerminateReason::NoCompleteTask => "ERROR_NO_COMPLETE_TASK_CALL",
        }
    }
}

/// One agent the model can delegate to.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentDefinition {
    /// Its name: the tool's name.
    pub name: String,
    /// The name shown to the user.
    pub display_name: Option<String>,
    /// The tool's declared description.
    pub description: String,
    /// JSON schema of the tool's parameters (the agent's inputs).
    pub input_schema: Value,
    /// The first message, a template over the inputs (`${name}`).
    pub query: String,
    /// The system prompt, a template over the inputs.
    pub system_prompt: String,
    /// What `complete_task` takes.
    pub output: AgentOutput,
    /// The tools it may call (besides `complete_task`).
    pub tools: ToolSelection,
    /// Its model; `None` inherits the session's.
    pub model: Option<String>,
    /// Its sampling temperature; `None` keeps the model's default.
    pub temperature: Option<f64>,
    /// Model turns before the grace turn; `None` for no limit.
    pub max_turns: Option<u32>,
    /// Minutes before the grace turn.
    pub timeout_mins: f64,
    /// Where it was defined.
    pub origin: AgentOrigin,
    /// Set for a remote agent (`kind: remote`): called over A2A instead of
    /// run here.
    pub remote: Option<remote::RemoteAgent>,
}

impl AgentDefinition {
    /// The name shown to the user.
    pub fn shown_name(&self) -> &str {
        self.display_name.as_deref().unwrap_or(&self.name)
    }
}

/// What an agent hands back through `complete_task`.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentOutput {
    /// A `result` string.
    Result,
    /// A `report` object checked against `schema`, handed back as JSON
    /// indented by two spaces.
    Report {
        /// The report's JSON schema.
        schema: Value,
        /// The parameter's description.
        description: String,
    },
}

/// The tools an agent may call.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolSelection {
    /// Every tool of the session, but no agent.
    All,
    /// These tools, by name (MCP tools as `<server>__<tool>`).
    Named(Vec<String>),
}

/// Where a definition comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentOrigin {
    /// Compiled in.
    BuiltIn,
    /// `~/.gemini/agents/<file>.md`.
    User(PathBuf),
    /// The project's `.gemini/agents/<file>.md`, with its content's SHA-256
    /// (what acknowledgement remembers).
    Project {
        /// The file.
        path: PathBuf,
        /// Hex SHA-256 of its content.
        hash: String,
    },
}

/// The agents of a session, and what the user should hear about.
#[derive(Debug, Default, Clone)]
pub struct AgentSet {
    /// The enabled agents, in declaration order.
    pub agents: Vec<AgentDefinition>,
    /// Project agents waiting for the user's acknowledgement.
    pub unacknowledged: Vec<AgentDefinition>,
    /// One line per file that could not be used.
    pub errors: Vec<String>,
}

/// Finds the session's agents: the built-ins, then (with
/// `experimental.enableAgents`) the user's, in a trusted folder the
/// acknowledged project agents, and the extensions' (`extension_dirs`); `agents.overrides.<name>` switches them
/// on or off and changes their limits and model.
pub fn discover(
    settings: &Settings,
    gemini_dir: &Path,
    project: Option<&Path>,
    extension_dirs: &[PathBuf],
) -> AgentSet {
    let typed = settings.typed();
    let overrides = &typed.agents.overrides;
    let mut found: Vec<AgentDefinition> = builtin::agents();
    let mut set = AgentSet::default();
    if typed.experimental.enable_agents == Some(true) {
        let (user, errors) = load_dir(&gemini_dir.join("agents"), false);
        found.extend(user);
        set.errors.extend(errors.iter().map(ToString::to_string));
        if let Some(root) = project {
            let (local, errors) = load_dir(&root.join(".gemini").join("agents"), true);
            set.errors.extend(errors.iter().map(ToString::to_string));
            let acks = Acknowledgements::load(gemini_dir);
            for agent in local {
                if acks.is_acknowledged(root, &agent) {
                    found.push(agent);
                } else {
                    set.unacknowledged.push(agent);
                }
            }
        }
        // Active extensions' `agents/` folders come last.
        for dir in extension_dirs {
            let (agents, errors) = load_dir(dir, false);
            found.extend(agents);
            set.errors.extend(errors.iter().map(ToString::to_string));
        }
    }
    let allowed = settings.tools_allowed();
    for mut agent in found {
        let o = overrides.get(&agent.name);
        if o.and_then(|o| o.enabled) == Some(false) {
            continue;
        }
        if !allowed.is_empty() && !allowed.contains(&agent.name) {
            continue;
        }
        if let Some(o) = o {
            if let Some(turns) = o.run_config.max_turns {
                agent.max_turns = Some(turns);
            }
            if let Some(minutes) = o.run_config.max_time_minutes {
                agent.timeout_mins = minutes;
            }
            if let Some(model) = o.model_config.model.clone().filter(|m| m != "inherit") {
                agent.model = Some(model);
            }
        }
        match set.agents.iter_mut().find(|a| a.name == agent.name) {
            Some(existing) => *existing = agent,
            None => set.agents.push(agent),
        }
    }
    set
}

/// The inputs a template may name besides the call's arguments.
pub fn runtime_inputs(args: &Map<String, Value>, active_model: &str) -> Map<String, Value> {
    let mut inputs = args.clone();
    inputs.insert(
        "cliVersion".into(),
        Value::String(env!("CARGO_PKG_VERSION").into()),
    );
    inputs.insert("activeModel".into(), Value::String(active_model.into()));
    inputs.insert(
        "today".into(),
        Value::String(chrono::Local::now().format("%-m/%-d/%Y").to_string()),
    );
    inputs
}

/// A template placeholder without an input (Gemini CLI's message names the
/// missing and available ones).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Template validation failed: Missing required input parameters: {}. Available inputs: {}",
    missing.join(", "),
    available.join(", ")
)]
pub struct TemplateError {
    /// The placeholders without an input, in order of appearance.
    pub missing: Vec<String>,
    /// The inputs there are.
    pub available: Vec<String>,
}

/// Fills `${name}` placeholders from `inputs`; every placeholder must have
/// an input.
pub fn fill_template(template: &str, inputs: &Map<String, Value>) -> Result<String, TemplateError> {
    let mut out = String::with_capacity(template.len());
    let mut missing: Vec<&str> = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let end = after.find('}');
        let key = end.map(|e| &after[..e]);
        match key.filter(|k| !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_')) {
            Some(key) => {
                out.push_str(&rest[..start]);
                match inputs.get(key) {
                    Some(Value::String(s)) => out.push_str(s),
                    Some(v) => out.push_str(&v.to_string()),
                    None => {
                        if !missing.contains(&key) {
                            missing.push(key);
                        }
                    }
                }
                rest = &after[key.len() + 1..];
            }
            None => {
                out.push_str(&rest[..start + 2]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    if missing.is_empty() {
        return Ok(out);
    }
    Err(TemplateError {
        missing: missing.into_iter().map(str::to_string).collect(),
        available: inputs.keys().cloned().collect(),
    })
}

#[cfg(test)]
mod tests;
