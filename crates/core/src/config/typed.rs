//! The settings as typed structs, read once from the merged layers.
//!
//! Every key the engine reads has a field here, named as in Gemini CLI's
//! `settings.json` (camelCase). Every struct has `#[serde(default)]` (a
//! missing key is its default, `None` for optional values) and keeps the
//! keys it does not know in `extra`, so settings of newer Gemini CLI
//! versions and extensions survive. A value of the wrong type for a known
//! key is dropped and reported (see [`super::InvalidSetting`]); it never
//! stops the other keys from being read.
//!
//! `hooks` and `mcpServers` stay JSON objects here: their entries are read
//! by `hooks::config` and `tools::mcp::config`, which report their own
//! problems entry by entry.

use super::defaults as d;
pub use super::typed_admin::AdminSettings;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// The whole settings tree.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct TypedSettings {
    /// `general.*`.
    pub general: GeneralSettings,
    /// `model.*`.
    pub model: ModelSettings,
    /// `context.*`.
    pub context: ContextSettings,
    /// `tools.*`.
    pub tools: ToolsSettings,
    /// `security.*`.
    pub security: SecuritySettings,
    /// `mcp.*`.
    pub mcp: McpSettings,
    /// `mcpServers`: server name -> its configuration object.
    pub mcp_servers: Map<String, Value>,
    /// `admin.*`.
    pub admin: AdminSettings,
    /// `hooks`: event name -> hook definitions (plus `enabled`,
    /// `disabled`, `notifications` switches of some versions).
    pub hooks: Map<String, Value>,
    /// `hooksConfig.*`.
    pub hooks_config: HooksConfigSettings,
    /// `advanced.*`.
    pub advanced: AdvancedSettings,
    /// `useWriteTodos`: declare `write_todos` (default true).
    #[schemars(extend("x-editable" = true, "x-label" = "Todo list tool (write_todos)", "default" = d::USE_WRITE_TODOS))]
    pub use_write_todos: Option<bool>,
    /// `skills.*`.
    pub skills: SkillsSettings,
    /// `experimental.*`.
    pub experimental: ExperimentalSettings,
    /// `agents.*`.
    pub agents: AgentsSettings,
    /// `modelConfigs.*` (today's Gemini CLI).
    pub model_configs: super::today::ModelConfigsSettings,
    /// `ui.*`.
    pub ui: super::typed_ui::UiSettings,
    /// `limits.*`.
    pub limits: super::typed_limits::LimitsSettings,
    /// Top-level keys not listed above, kept as they are.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `general.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct GeneralSettings {
    /// `general.defaultApprovalMode` (today's Gemini CLI; v0.27.4's
    /// `tools.approvalMode` is moved here): `default`, `auto_edit` or
    /// `plan`, used when no flag names a mode.
    #[schemars(extend("x-editable" = true, "x-label" = "Default approval mode", "default" = d::DEFAULT_APPROVAL_MODE, "enum" = ["default", "auto_edit", "plan"]))]
    pub default_approval_mode: Option<String>,
    /// `general.checkpointing`.
    pub checkpointing: CheckpointingSettings,
    /// `general.vimMode`: vim key bindings in the prompt.
    #[schemars(extend("x-editable" = true, "x-label" = "Vim key bindings", "default" = d::VIM_MODE))]
    pub vim_mode: Option<bool>,
    /// `general.preferredEditor`: the editor `/editor` and Ctrl+X open.
    #[schemars(extend("x-editable" = true, "x-label" = "Preferred editor"))]
    pub preferred_editor: Option<String>,
    /// `general.sessionRetention`.
    pub session_retention: Option<SessionRetentionSettings>,
    /// `general.plan` (plan mode).
    pub plan: PlanSettings,
    /// `general.dialect`: `today` (the default) or `0.27`, the Gemini CLI
    /// release whose names and texts the model and scripts see
    /// ([`crate::catalogue::dialect`]); `GEMINI_RS_DIALECT` overrides it.
    pub dialect: Option<String>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `general.plan.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct PlanSettings {
    /// `general.plan.directory`: the plans folder, relative to the
    /// project root (inside it); the session's temp folder when unset.
    #[schemars(extend("x-editable" = true, "x-label" = "Plans folder (relative to the project)"))]
    pub directory: Option<String>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `general.checkpointing.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct CheckpointingSettings {
    /// `general.checkpointing.enabled`: snapshots before file edits
    /// (`/restore`, `/rewind`).
    #[schemars(extend("x-editable" = true, "x-label" = "Checkpoints before file edits (/restore, /rewind)", "default" = d::CHECKPOINTING))]
    pub enabled: Option<bool>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `general.sessionRetention.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct SessionRetentionSettings {
    /// `enabled`.
    pub enabled: Option<bool>,
    /// `maxAge`, e.g. `30d`.
    pub max_age: Option<String>,
    /// `maxCount`.
    pub max_count: Option<i64>,
    /// `minRetention`, e.g. `1d`.
    pub min_retention: Option<String>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `model.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelSettings {
    /// `model.name`.
    #[schemars(extend("x-editable" = true, "x-label" = "Model"))]
    pub name: Option<String>,
    /// `model.maxSessionTurns` (-1 = unlimited).
    #[schemars(extend("x-editable" = true, "x-label" = "Max session turns (-1: no limit)", "default" = d::MAX_SESSION_TURNS))]
    pub max_session_turns: Option<i64>,
    /// `model.retry`.
    pub retry: RetrySettings,
    /// `model.disableLoopDetection`.
    #[schemars(extend("x-editable" = true, "x-label" = "Disable loop detection", "default" = d::DISABLE_LOOP_DETECTION))]
    pub disable_loop_detection: Option<bool>,
    /// `model.compressionThreshold` (fraction of the context window).
    #[schemars(extend("x-editable" = true, "x-label" = "Compression threshold (share of the context window)", "default" = d::COMPRESSION_THRESHOLD))]
    pub compression_threshold: Option<f64>,
    /// `model.profile`: `full` (the whole system prompt and every tool) or
    /// `lean` (a short system prompt and the core tools, for small local
    /// models); unset, `lean` is chosen when the model's known context
    /// window is too small for the full request.
    #[schemars(extend("enum" = ["full", "lean"]))]
    pub profile: Option<String>,
    /// `model.providers`: provider id -> how to reach it (`-m <id>/<model>`).
    pub providers: std::collections::BTreeMap<String, ProviderSettings>,
    /// `model.connectTimeoutSeconds`: connect timeout of model calls to
    /// other hosts (loopback servers get at most 2 s).
    pub connect_timeout_seconds: Option<u64>,
    /// `model.streamIdleTimeoutSeconds`: a model call with no byte for this
    /// long ends with an error.
    pub stream_idle_timeout_seconds: Option<u64>,
    /// `model.maxStreamMegabytes`: the most one streamed answer may take.
    pub max_stream_megabytes: Option<u64>,
    /// `model.logprobs`: ask the model server for each answer token's
    /// logprob and id, recorded in the session file and the trajectory.
    pub logprobs: Option<bool>,
    /// `model.prices`: provider id -> model -> price (US dollars per
    /// million tokens), over the built-in list prices.
    pub prices:
        std::collections::BTreeMap<String, std::collections::BTreeMap<String, PriceSettings>>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `skills.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct SkillsSettings {
    /// `skills.disabled`: skill names switched off.
    pub disabled: Vec<String>,
    /// `skills.enabled` (default true; v0.27.4's `experimental.skills` is
    /// moved here): false switches every skill off.
    #[schemars(extend("x-editable" = true, "x-label" = "Agent skills", "default" = d::SKILLS_ENABLED))]
    pub enabled: Option<bool>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `experimental.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ExperimentalSettings {
    /// `experimental.enableAgents`: load the user's and project's agents.
    #[schemars(extend("x-editable" = true, "x-label" = "User and project sub-agents", "default" = d::ENABLE_AGENTS))]
    pub enable_agents: Option<bool>,
    /// `experimental.extensionConfig`: read and list the values extensions
    /// ask for (unset: the dialect's default, on in 0.61, off in 0.27.4).
    pub extension_config: Option<bool>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `agents.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentsSettings {
    /// `agents.overrides`: agent name -> what to change.
    pub overrides: std::collections::BTreeMap<String, AgentOverride>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `agents.overrides.<name>`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentOverride {
    /// Switches the agent on or off.
    pub enabled: Option<bool>,
    /// `runConfig`: its limits.
    pub run_config: AgentRunOverride,
    /// `modelConfig`: its model.
    pub model_config: AgentModelOverride,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `agents.overrides.<name>.runConfig`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentRunOverride {
    /// `maxTurns`.
    pub max_turns: Option<u32>,
    /// `maxTimeMinutes`.
    pub max_time_minutes: Option<f64>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `agents.overrides.<name>.modelConfig`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AgentModelOverride {
    /// `model` (`inherit` keeps the session's).
    pub model: Option<String>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `model.providers.<id>`: a model provider the user declares.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ProviderSettings {
    /// `type`: the wire, `openai`, `anthropic` or `gemini`.
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `baseUrl`: the API root (with `/v1` for `openai`, without for
    /// `anthropic`).
    pub base_url: Option<String>,
    /// `apiKeyEnv`: the environment variable holding the key.
    pub api_key_env: Option<String>,
    /// `headers`: sent with every request.
    pub headers: std::collections::BTreeMap<String, String>,
    /// `models`: per-model limits.
    pub models: std::collections::BTreeMap<String, ModelLimitSettings>,
}

/// `model.prices.<provider>.<model>`, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct PriceSettings {
    /// `input`: prompt tokens.
    pub input: Option<f64>,
    /// `output`: answer and thinking tokens.
    pub output: Option<f64>,
    /// `cachedInput`: prompt tokens read from a cache (default: `input`).
    pub cached_input: Option<f64>,
}

/// `model.providers.<id>.models.<model>`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ModelLimitSettings {
    /// `contextWindow`, in tokens.
    pub context_window: Option<u64>,
    /// `maxOutputTokens`.
    pub max_output_tokens: Option<u64>,
}

/// `model.retry.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct RetrySettings {
    /// `model.retry.initialDelayMs`.
    pub initial_delay_ms: Option<u64>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `context.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ContextSettings {
    /// `context.fileName`: one name or a list of names.
    #[serde(deserialize_with = "one_or_many")]
    #[schemars(schema_with = "one_or_many_schema", extend("default" = d::CONTEXT_FILE_NAME))]
    pub file_name: Option<Vec<String>>,
    /// `context.includeDirectories`.
    pub include_directories: Vec<String>,
    /// `context.discoveryMaxDirs`.
    #[schemars(extend("x-editable" = true, "x-label" = "Context file search: most directories"))]
    pub discovery_max_dirs: Option<u64>,
    /// `context.agentsMd`: false keeps `AGENTS.md` out of the context
    /// (it is read by default in trusted folders).
    pub agents_md: Option<bool>,
    /// `context.fileFiltering`.
    pub file_filtering: FileFilteringSettings,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `context.fileFiltering.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct FileFilteringSettings {
    /// `respectGitIgnore`: file tools skip what `.gitignore` lists.
    #[schemars(extend("x-editable" = true, "x-label" = "Respect .gitignore", "default" = d::RESPECT_GIT_IGNORE))]
    pub respect_git_ignore: Option<bool>,
    /// `respectGeminiIgnore`: file tools skip what `.geminiignore` lists.
    #[schemars(extend("x-editable" = true, "x-label" = "Respect .geminiignore", "default" = d::RESPECT_GEMINI_IGNORE))]
    pub respect_gemini_ignore: Option<bool>,
    /// `customIgnoreFilePaths`.
    pub custom_ignore_file_paths: Vec<String>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tools.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ToolsSettings {
    /// `tools.allowed`: tools that run without asking.
    pub allowed: Vec<String>,
    /// `tools.exclude`: tools neither declared nor callable.
    pub exclude: Vec<String>,
    /// `tools.core`: when set, only these built-ins are registered.
    pub core: Option<Vec<String>>,
    /// `tools.confirmationRequired`: tools that always ask (today's Gemini
    /// CLI), above `tools.allowed` and `tools.core`.
    pub confirmation_required: Vec<String>,
    /// `tools.sandbox`: `true`/`false` or a sandbox name; any other JSON
    /// value is kept so the sandbox set-up can refuse it.
    pub sandbox: Option<SandboxSetting>,
    /// `tools.sandboxNetwork`: `true` (or `"true"`) lets sandboxed
    /// commands use the network.
    pub sandbox_network: Option<BoolOrText>,
    /// `tools.discoveryCommand`.
    pub discovery_command: Option<String>,
    /// `tools.callCommand`.
    pub call_command: Option<String>,
    /// `tools.enableHooks` (default true).
    pub enable_hooks: Option<bool>,
    /// `tools.enableToolOutputTruncation` (default true).
    pub enable_tool_output_truncation: Option<bool>,
    /// `tools.truncateToolOutputThreshold` (characters).
    pub truncate_tool_output_threshold: Option<f64>,
    /// `tools.truncateToolOutputLines`.
    pub truncate_tool_output_lines: Option<f64>,
    /// `tools.shell`.
    pub shell: ShellSettings,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tools.shell.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ShellSettings {
    /// `tools.shell.inactivityTimeout` (seconds).
    pub inactivity_timeout: Option<f64>,
    /// `tools.shell.timeout` (seconds).
    pub timeout: Option<f64>,
    /// `tools.shell.pager`: `PAGER` of shell commands.
    #[schemars(extend("x-editable" = true, "x-label" = "Shell pager", "default" = d::SHELL_PAGER))]
    pub pager: Option<String>,
    /// `tools.shell.backgroundCompletionBehavior`: `silent` (default),
    /// `inject` or `notify`.
    #[schemars(extend("x-editable" = true, "x-label" = "When a background shell command ends", "default" = d::BACKGROUND_COMPLETION, "enum" = ["silent", "inject", "notify"]))]
    pub background_completion_behavior: Option<String>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tools.sandbox` as written.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum SandboxSetting {
    /// `true` / `false`.
    Flag(bool),
    /// A name: `native`, `docker`, ...
    Name(String),
    /// Anything else (refused when the sandbox is set up).
    Other(Value),
}

/// A switch written as a boolean or as the text `"true"`/`"false"`.
#[derive(Debug, Clone, PartialEq)]
pub enum BoolOrText {
    /// A JSON boolean.
    Bool(bool),
    /// A JSON string.
    Text(String),
}

impl<'de> Deserialize<'de> for BoolOrText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Value::deserialize(d)? {
            Value::Bool(b) => Ok(BoolOrText::Bool(b)),
            Value::String(s) => Ok(BoolOrText::Text(s)),
            other => Err(invalid_type(&other, "a boolean or a string")),
        }
    }
}

/// `security.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct SecuritySettings {
    /// `security.folderTrust`.
    pub folder_trust: FolderTrustSettings,
    /// `security.auth`.
    pub auth: AuthSettings,
    /// `security.allowWorkspaceCredentials` (gemini-rs): the workspace's
    /// settings and extensions may use credentials. Read from the user's
    /// and the system's files only (see `config::credentials`).
    pub allow_workspace_credentials: Option<bool>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `security.folderTrust.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct FolderTrustSettings {
    /// `security.folderTrust.enabled`: ask whether to trust a folder.
    #[schemars(extend("x-editable" = true, "x-label" = "Folder trust", "default" = d::FOLDER_TRUST))]
    pub enabled: Option<bool>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `security.auth.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AuthSettings {
    /// `security.auth.selectedType`.
    pub selected_type: Option<String>,
    /// `security.auth.enforcedType`.
    pub enforced_type: Option<String>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `mcp.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct McpSettings {
    /// `mcp.allowed`: when non-empty, only these servers.
    pub allowed: Vec<String>,
    /// `mcp.excluded`: never these servers.
    pub excluded: Vec<String>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `hooksConfig.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct HooksConfigSettings {
    /// `hooksConfig.enabled`: hooks run.
    #[schemars(extend("x-editable" = true, "x-label" = "Hooks", "default" = d::HOOKS_ENABLED))]
    pub enabled: Option<bool>,
    /// `hooksConfig.disabled`: hook names, or commands of unnamed hooks.
    pub disabled: Vec<String>,
    /// `hooksConfig.claudeCompat`: the hooks of `.claude/settings.json`
    /// (the user's, and the project's in a trusted folder) run too.
    #[schemars(extend("x-editable" = true, "x-label" = "Claude Code hooks (.claude/settings.json) too", "default" = d::CLAUDE_COMPAT))]
    pub claude_compat: Option<bool>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `advanced.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AdvancedSettings {
    /// `advanced.excludedEnvVars`: variables `.env` files may not set.
    pub excluded_env_vars: Vec<String>,
    /// `advanced.bugCommand`: where `/bug` sends its report.
    pub bug_command: Option<BugCommandSettings>,
    /// Keys not listed above.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `advanced.bugCommand.*`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct BugCommandSettings {
    /// `advanced.bugCommand.urlTemplate`: the URL `/bug` opens, with
    /// `{title}` and `{info}` filled in.
    pub url_template: Option<String>,
}

impl JsonSchema for BoolOrText {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BoolOrText".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": ["boolean", "string"]})
    }
}

/// The schema of [`one_or_many`]'s values.
fn one_or_many_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]
    })
}

/// `"a"` or `["a", "b"]` as a list.
fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(vec![s])),
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(invalid_type(&other, "a string")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        other => Err(invalid_type(&other, "a string or a list of strings")),
    }
}

/// serde's "invalid type: X, expected Y" for a JSON value.
fn invalid_type<E: serde::de::Error>(value: &Value, expected: &str) -> E {
    use serde::de::Unexpected;
    let unexpected = match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Unexpected::Signed(i),
            (_, Some(u), _) => Unexpected::Unsigned(u),
            (_, _, Some(f)) => Unexpected::Float(f),
            _ => Unexpected::Other("number"),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    };
    E::invalid_type(unexpected, &expected)
}
