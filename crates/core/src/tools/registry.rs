//! The tool registry: every known tool in registration order, which of them
//! are active, their declarations, and lookup with Gemini CLI's not-found
//! suggestions.

use super::validate::{ArgsValidator, validate_params_object};
use super::{Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation};
use crate::catalogue::dialect::Dialect;
use crate::catalogue::params::converted_params_schema;
use crate::policy::ApprovalMode;
use gemini_rs_protocol::FunctionDeclaration;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::sync::{Arc, RwLock};

/// A registered tool with its compiled argument schema.
pub struct RegisteredTool {
    /// The tool.
    pub tool: Arc<dyn Tool>,
    validator: ArgsValidator,
    /// The types of the parameters it converts (`start_line`), checked
    /// before the conversion.
    converted: Option<ArgsValidator>,
    /// Every name it answers to ([`super::names::tool_forms`]).
    names: Vec<String>,
}

/// A call that passed lookup and validation.
pub struct BuiltCall {
    /// The tool.
    pub tool: Arc<dyn Tool>,
    /// The validated invocation.
    pub invocation: Box<dyn ToolInvocation>,
    /// The arguments after alias normalisation (what was validated).
    pub args: Map<String, Value>,
}

/// All tools of a session.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<RegisteredTool>,
    excluded: HashSet<String>,
    mode_excluded: Vec<(ApprovalMode, String)>,
    aliases: Vec<(String, String)>,
    dialect: Dialect,
    /// Declarations cut to their first sentences (the lean profile).
    short: bool,
}

impl ToolRegistry {
    /// An empty registry, declaring its tools as 0.27.4 named them until
    /// [`Self::with_dialect`] says otherwise (a session always says).
    pub fn new() -> Self {
        ToolRegistry {
            dialect: Dialect::V027,
            ..ToolRegistry::default()
        }
    }

    /// The same registry declaring its tools as `dialect` names them.
    pub fn with_dialect(mut self, dialect: Dialect) -> Self {
        self.dialect = dialect;
        self
    }

    /// The same registry declaring each tool with the first sentence of
    /// its description and of each parameter's (the lean profile of small
    /// local models).
    pub fn with_short_declarations(mut self) -> Self {
        self.short = true;
        self
    }

    /// The dialect the registry declares its tools in.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The name the model knows `tool` by in this registry's dialect:
    /// `grep_search` or `search_file_content`, `mcp_<server>_<tool>` or
    /// the MCP tool's registry name.
    pub fn declared_name(&self, tool: &dyn Tool) -> String {
        if let Some(spec) = tool.spec() {
            return self.dialect.builtin_name(spec).to_string();
        }
        if let Some(server) = tool.server_name() {
            let policy_name = tool.policy_name();
            let server_tool = policy_name
                .strip_prefix(server)
                .and_then(|rest| rest.strip_prefix("__"))
                .unwrap_or(tool.name());
            return self.dialect.mcp_name(server, server_tool, tool.name());
        }
        tool.name().to_string()
    }

    /// Whether the dialect declares `tool` (today's has no
    /// `read_many_files` or `save_memory`).
    fn declares(&self, tool: &dyn Tool) -> bool {
        tool.spec().is_none_or(|spec| self.dialect.declares(spec))
    }

    /// Adds a tool (and the aliases its spec declares, e.g. `grep_search`);
    /// a tool with the same name is replaced in place.
    pub fn register(&mut self, tool: Arc<dyn Tool>) {
        if let Some(spec) = tool.spec() {
            self.add_aliases(
                spec.aliases
                    .iter()
                    .map(|alias| (alias.to_string(), spec.name.to_string())),
            );
        }
        let validator = ArgsValidator::new(tool.parameter_schema());
        let converted = tool
            .spec()
            .and_then(|spec| converted_params_schema(spec.name))
            .map(|schema| ArgsValidator::new(&schema));
        let names = super::names::tool_forms(tool.as_ref());
        let entry = RegisteredTool {
            tool,
            validator,
            converted,
            names,
        };
        match self
            .tools
            .iter_mut()
            .find(|t| t.tool.name() == entry.tool.name())
        {
            Some(existing) => {
                tracing::warn!(
                    "tool {} registered twice; keeping the later one",
                    entry.tool.name()
                );
                *existing = entry;
            }
            None => self.tools.push(entry),
        }
    }

    /// Marks tools as excluded: not declared and not found. A name selects
    /// every tool answering to it ([`super::names::pattern_selects`]:
    /// aliases, MCP name forms, a trailing `*`).
    pub fn exclude<I: IntoIterator<Item = String>>(&mut self, names: I) {
        self.excluded.extend(names);
    }

    /// Marks tools as excluded in one approval mode only (headless mode
    /// hides the tools it could only ask about, per mode).
    pub fn exclude_in<I: IntoIterator<Item = String>>(&mut self, mode: ApprovalMode, names: I) {
        self.mode_excluded
            .extend(names.into_iter().map(|n| (mode, n)));
    }

    /// Takes over `other`'s per-mode exclusions (a sub-agent's registry).
    pub fn exclude_like(&mut self, other: &ToolRegistry) {
        self.mode_excluded
            .extend(other.mode_excluded.iter().cloned());
        self.dialect = other.dialect;
    }

    /// True when a tool of that name is registered (active or not).
    pub fn is_registered(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.tool.name() == name)
    }

    fn active(&self) -> impl Iterator<Item = &RegisteredTool> {
        self.active_in(None)
    }

    /// The tools not excluded, and in `mode` not excluded for that mode.
    fn active_in(&self, mode: Option<ApprovalMode>) -> impl Iterator<Item = &RegisteredTool> {
        self.tools.iter().filter(move |t| {
            let selects = |e: &String| super::names::pattern_selects(e, &t.names);
            !self.excluded.iter().any(selects)
                && !self
                    .mode_excluded
                    .iter()
                    .any(|(m, e)| Some(*m) == mode && selects(e))
        })
    }

    /// Extra call names resolving to a registered tool when the exact name
    /// misses: `<server>__<tool>` for MCP tools (built-ins bring their own
    /// aliases when registered).
    pub fn add_aliases<I: IntoIterator<Item = (String, String)>>(&mut self, aliases: I) {
        self.aliases.extend(aliases);
    }

    /// True when [`Self::get`] finds a tool for `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The active tool called `name`, or the one an alias names, or the
    /// one answering to `name` in another dialect (`grep_search`,
    /// `mcp_<server>_<tool>`, `mcp__<server>__<tool>`).
    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.get_in(None, name)
    }

    /// [`ToolRegistry::get`] among the tools active in `mode`.
    pub fn get_in(&self, mode: Option<ApprovalMode>, name: &str) -> Option<&RegisteredTool> {
        self.active_in(mode)
            .find(|t| t.tool.name() == name)
            .or_else(|| {
                let target = self.aliases.iter().find(|(alias, _)| alias == name)?;
                self.active_in(mode).find(|t| t.tool.name() == target.1)
            })
            .or_else(|| {
                self.active_in(mode)
                    .find(|t| t.names.iter().any(|n| n == name))
            })
    }

    /// The active tools' policy names, in registration order.
    pub fn active_policy_names(&self) -> Vec<String> {
        self.active().map(|t| t.tool.policy_name()).collect()
    }

    /// Names of the active tools, in registration order.
    pub fn active_names(&self) -> Vec<String> {
        self.active().map(|t| t.tool.name().to_string()).collect()
    }

    /// The declarations of the tools active in `mode`, in registration
    /// order, less those `hidden` names.
    pub fn declarations_in(
        &self,
        mode: ApprovalMode,
        hidden: impl Fn(&dyn Tool) -> bool,
    ) -> Vec<FunctionDeclaration> {
        self.active_in(Some(mode))
            .filter(|t| self.declares(t.tool.as_ref()) && !hidden(t.tool.as_ref()))
            .map(|t| {
                let mut declaration = t.tool.declaration();
                declaration.name = self.declared_name(t.tool.as_ref());
                if let (Some(spec), Some(schema)) =
                    (t.tool.spec(), declaration.parameters_json_schema.as_mut())
                {
                    *schema = self.dialect.declared_schema(spec.name, schema);
                }
                if self.short {
                    shorten(&mut declaration);
                }
                declaration
            })
            .collect()
    }

    /// `Tool "x" not found.` plus up to three suggestions by edit distance.
    #[cfg(test)]
    pub fn not_found_message(&self, name: &str) -> String {
        self.not_found_in(None, name)
    }

    /// [`ToolRegistry::not_found_message`] among the tools active in `mode`.
    fn not_found_in(&self, mode: Option<ApprovalMode>, name: &str) -> String {
        let mut scored: Vec<(usize, String)> = self
            .active_in(mode)
            .filter(|t| self.declares(t.tool.as_ref()))
            .map(|t| self.declared_name(t.tool.as_ref()))
            .map(|n| (levenshtein(name, &n), n))
            .collect();
        scored.sort_by_key(|(d, _)| *d);
        let top: Vec<String> = scored
            .into_iter()
            .take(3)
            .map(|(_, n)| format!("\"{n}\""))
            .collect();
        let suggestion = match top.len() {
            0 => String::new(),
            1 => format!(" Did you mean {}?", top[0]),
            _ => format!(" Did you mean one of: {}?", top.join(", ")),
        };
        format!("Tool \"{name}\" not found.{suggestion}")
    }

    /// Lookup, alias normalisation, schema validation and the tool's own
    /// checks: everything before policy.
    pub fn build(
        &self,
        name: &str,
        args: &Value,
        ctx: &ToolContext,
    ) -> Result<BuiltCall, ToolError> {
        self.build_in(None, name, args, ctx)
    }

    /// [`ToolRegistry::build`] among the tools active in `mode`.
    pub fn build_in(
        &self,
        mode: Option<ApprovalMode>,
        name: &str,
        args: &Value,
        ctx: &ToolContext,
    ) -> Result<BuiltCall, ToolError> {
        // Today's Gemini CLI finds an MCP tool by its `mcp_` name only,
        // and has no built-in it does not declare (`read_many_files`).
        let entry = self.get_in(mode, name).filter(|t| {
            self.dialect != Dialect::Today
                || (self.declares(t.tool.as_ref())
                    && (t.tool.server_name().is_none()
                        || self.declared_name(t.tool.as_ref()) == name))
        });
        let Some(entry) = entry else {
            if name == super::builtin::INVOKE_AGENT {
                let (agent, mapped) = super::builtin::invoke_agent(args, |agent| {
                    self.get_in(mode, agent)
                        .filter(|t| t.tool.is_agent())
                        .map(|t| t.tool.parameter_schema().clone())
                })?;
                let mut built = self.build_in(mode, &agent, &mapped, ctx)?;
                // Hooks and recordings see the call as the model made it.
                built.args = args.as_object().cloned().unwrap_or_default();
                return Ok(built);
            }
            return Err(ToolError::new(
                ToolErrorKind::ToolNotRegistered,
                self.not_found_in(mode, name),
            ));
        };
        let mut args = match args {
            Value::Null => Map::new(),
            // A wire hands on arguments that were not JSON as their text.
            Value::String(text) => return Err(ToolError::invalid_params(not_json(name, text))),
            other => {
                validate_params_object(other)
                    .map_err(|e| ToolError::invalid_params(e.to_string()))?;
                other.as_object().cloned().unwrap_or_default()
            }
        };
        if let Some(converted) = &entry.converted {
            converted
                .validate(&Value::Object(args.clone()))
                .map_err(|e| ToolError::invalid_params(e.to_string()))?;
        }
        if let Some(spec) = entry.tool.spec() {
            super::builtin::common::move_aliases(&mut args, spec.param_aliases);
        }
        entry.tool.normalize_args(&mut args);
        let args = Value::Object(args);
        entry
            .validator
            .validate(&args)
            .map_err(|e| ToolError::invalid_params(e.to_string()))?;
        let Value::Object(args) = args else {
            return Err(ToolError::invalid_params(
                "Value of params must be an object",
            ));
        };
        let invocation = entry.tool.build(&args, ctx)?;
        Ok(BuiltCall {
            tool: entry.tool.clone(),
            invocation,
            args,
        })
    }
}

/// A session's registry as it stands: MCP servers that connect after the
/// start (the terminal UI does not wait for them) replace it with a larger
/// one. Readers take a snapshot, so a turn sees one consistent set.
#[derive(Clone)]
pub struct LiveRegistry(Arc<RwLock<Arc<ToolRegistry>>>);

impl LiveRegistry {
    /// A live registry starting as `registry`.
    pub fn new(registry: Arc<ToolRegistry>) -> Self {
        LiveRegistry(Arc::new(RwLock::new(registry)))
    }

    /// The registry as it stands now.
    pub fn snapshot(&self) -> Arc<ToolRegistry> {
        match self.0.read() {
            Ok(guard) => guard.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Puts `registry` in place for every later snapshot.
    pub fn replace(&self, registry: Arc<ToolRegistry>) {
        match self.0.write() {
            Ok(mut guard) => *guard = registry,
            Err(poisoned) => *poisoned.into_inner() = registry,
        }
    }
}

impl From<Arc<ToolRegistry>> for LiveRegistry {
    fn from(registry: Arc<ToolRegistry>) -> Self {
        LiveRegistry::new(registry)
    }
}

/// Levenshtein distance over chars.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.chars().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// What the model is told when its arguments for `name` were not JSON
/// (truncated, or not JSON at all).
fn not_json(name: &str, text: &str) -> String {
    let why = match serde_json::from_str::<Value>(text) {
        Err(e) if e.is_eof() => format!("they end before the JSON is complete ({e})"),
        Err(e) => format!("they are not valid JSON ({e})"),
        Ok(_) => "they are not a JSON object".to_string(),
    };
    let shown: String = text.chars().take(200).collect();
    let more = if shown.len() < text.len() { "..." } else { "" };
    format!(
        "The arguments of this call to `{name}` could not be read: {why}. They were: {shown}{more} \
         Call the tool again with its arguments as one complete JSON object."
    )
}

/// The first sentence of `text` (to the first `. ` or line end).
fn first_sentence(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or("");
    match line.find(". ") {
        Some(at) => line[..=at].to_string(),
        None => line.to_string(),
    }
}

/// Cuts `declaration`'s description and every parameter description in
/// its schema to their first sentences.
fn shorten(declaration: &mut FunctionDeclaration) {
    fn walk(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    match v {
                        serde_json::Value::String(s) if key == "description" => {
                            *s = first_sentence(s);
                        }
                        other => walk(other),
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    if let Some(d) = declaration.description.as_mut() {
        *d = first_sentence(d);
    }
    for schema in [
        declaration.parameters_json_schema.as_mut(),
        declaration.parameters.as_mut(),
    ]
    .into_iter()
    .flatten()
    {
        walk(schema);
    }
}

#[cfg(test)]
mod tests {
    use super::levenshtein;

    #[test]
    fn distance() {
        assert_eq!(levenshtein("raed_file", "read_file"), 2);
        assert_eq!(levenshtein("", "abc"), 3);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
    }
}
