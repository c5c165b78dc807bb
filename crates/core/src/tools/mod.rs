//! The tool contract: what every tool (built-in, discovered or MCP) offers
//! the scheduler, and what it returns.

pub mod background;
pub mod builtin;
mod client_fs;
pub mod diff;
pub mod discovered;
pub mod mcp;
#[cfg(test)]
mod modifiable_tests;
pub mod names;
pub mod plan;
pub mod registry;
pub mod spec;
pub mod validate;

pub use client_fs::{ClientFs, ClientFsError};
pub use gemini_rs_protocol::events::{
    ConfirmationDetails, FileDiff, Modifiable, TodoItem, TodoStatus, ToolDisplay, ToolError,
    ToolErrorKind, ToolKind, ToolResult,
};
pub use registry::{BuiltCall, LiveRegistry, ToolRegistry};
pub use spec::ToolSpec;

use crate::config::Settings;
use crate::model::ContentGenerator;
use crate::workspace::Workspace;
use futures::future::BoxFuture;
use gemini_rs_protocol::FunctionDeclaration;
use serde_json::{Map, Value};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Everything a tool may use while it is built and run. Tools never print,
/// never ask the user and never read settings files themselves.
#[derive(Clone)]
pub struct ToolContext {
    /// Workspace roots, the boundary check and ignore rules.
    pub workspace: Arc<Workspace>,
    /// What tools read of the settings, taken once per session.
    pub settings: Arc<ToolSettings>,
    /// The model the session talks to (decides how inline data is sent).
    pub model: String,
    /// The model client, for tools that ask the model themselves
    /// (web_fetch, google_web_search); `None` where no model is available.
    pub generator: Option<Arc<dyn ContentGenerator>>,
    /// `~/.gemini` (home from `GEMINI_CLI_HOME`): global memory lives here.
    pub gemini_dir: PathBuf,
    /// The native sandbox every command a tool starts runs under; `None`
    /// when sandboxing is off.
    pub sandbox: Option<Arc<crate::sandbox::PreparedSandbox>>,
    /// The front end's client file system (an ACP editor's), used for text
    /// reads and writes when set.
    pub client_fs: Option<Arc<dyn ClientFs>>,
    /// Runs sub-agents; `None` where delegation is not possible (inside a
    /// sub-agent, `mcp serve`).
    pub subagents: Option<Arc<dyn SubagentRunner>>,
    /// The id of the call being executed (set by the scheduler for the
    /// call's execution).
    pub call_id: Option<String>,
    /// The session's background shell commands.
    pub background: Arc<background::BackgroundShells>,
    /// Plan mode: the approval mode, the plans folder, the final plan.
    pub plan: Arc<plan::PlanMode>,
    /// The dialect the session speaks: which result and error texts the
    /// tools answer with ([`crate::catalogue::texts`]).
    pub dialect: crate::catalogue::dialect::Dialect,
}

/// The settings tools read, taken from the merged settings once per
/// session ([`ToolSettings::of`]): tools see nothing else of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolSettings {
    /// `tools.enableToolOutputTruncation`, as set (on when unset).
    pub truncation: Option<bool>,
    /// `tools.truncateToolOutputThreshold`, as set.
    pub truncate_threshold: Option<f64>,
    /// `tools.truncateToolOutputLines`, as set.
    pub truncate_lines: Option<f64>,
    /// `tools.shell.inactivityTimeout` (seconds), as set.
    pub shell_inactivity_timeout: Option<f64>,
    /// `tools.shell.timeout` (seconds), as set.
    pub shell_timeout: Option<f64>,
    /// `tools.shell.pager`, as set.
    pub shell_pager: Option<String>,
    /// `tools.shell.backgroundCompletionBehavior`, as set.
    pub background_completion_behavior: Option<String>,
    /// `context.fileName`'s names (`GEMINI.md` when unset): the first is
    /// the memory file.
    pub context_file_names: Vec<String>,
}

impl ToolSettings {
    /// What tools read of `settings`.
    pub fn of(settings: &Settings) -> ToolSettings {
        let tools = &settings.typed().tools;
        ToolSettings {
            truncation: tools.enable_tool_output_truncation,
            truncate_threshold: tools.truncate_tool_output_threshold,
            truncate_lines: tools.truncate_tool_output_lines,
            shell_inactivity_timeout: tools.shell.inactivity_timeout,
            shell_timeout: tools.shell.timeout,
            shell_pager: tools.shell.pager.clone(),
            background_completion_behavior: tools.shell.background_completion_behavior.clone(),
            context_file_names: settings.context_file_names(),
        }
    }
}

/// What a sub-agent run ended with.
#[derive(Debug, Clone, PartialEq)]
pub struct SubagentOutcome {
    /// Why it stopped.
    pub reason: crate::subagents::TerminateReason,
    /// Its output, or what went wrong.
    pub result: String,
}

/// Why a sub-agent run failed before it could end with an outcome.
#[derive(Debug, thiserror::Error)]
pub enum SubagentRunError {
    /// A template placeholder of the agent's prompts has no input.
    #[error(transparent)]
    Template(#[from] crate::subagents::TemplateError),
    /// The run broke (a model failure, a hook stopped it); the engine's
    /// error, which tools cannot name (it lives above them).
    #[error(transparent)]
    Run(Box<dyn std::error::Error + Send + Sync>),
}

/// Runs sub-agents for the tools that delegate to them; the session
/// implements it (tools never import the engine above them).
pub trait SubagentRunner: Send + Sync {
    /// Runs `agent` on `args` for the call in `ctx`; `Err` is a failure
    /// before the agent could run (a template input missing, say).
    fn run<'a>(
        &'a self,
        agent: &'a crate::subagents::AgentDefinition,
        args: Map<String, Value>,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<SubagentOutcome, SubagentRunError>>;
}

impl ToolContext {
    #[cfg(test)]
    /// A context with no model client, no sandbox, and the global memory
    /// dir at `<project root>/.gemini-home` (tests and embedders set
    /// `gemini_dir` themselves when it matters).
    pub fn new(
        workspace: Arc<Workspace>,
        settings: Arc<Settings>,
        model: impl Into<String>,
    ) -> Self {
        let gemini_dir = workspace.target_dir().join(".gemini-home");
        let background = Arc::new(background::BackgroundShells::new(&gemini_dir));
        let plan = Arc::new(plan::PlanMode::new(
            workspace.project_temp_dir().join("plans"),
            workspace.target_dir().to_path_buf(),
            Arc::new(std::sync::RwLock::new(crate::policy::ApprovalMode::Default)),
            false,
        ));
        ToolContext {
            plan,
            workspace,
            settings: Arc::new(ToolSettings::of(&settings)),
            model: model.into(),
            generator: None,
            gemini_dir,
            sandbox: None,
            client_fs: None,
            subagents: None,
            call_id: None,
            background,
            dialect: crate::catalogue::dialect::Dialect::V027,
        }
    }
}

/// A tool: static metadata plus a way to turn model arguments into an
/// invocation.
pub trait Tool: Send + Sync {
    /// Name the model calls it by.
    fn name(&self) -> &str;
    /// Human name (`ReadFile`).
    fn display_name(&self) -> &str;
    /// Description sent to the model.
    fn description(&self) -> &str;
    /// Its kind.
    fn kind(&self) -> ToolKind;
    /// What a built-in tool declares about itself (names, aliases, policy
    /// defaults, ...); `None` for discovered, MCP and agent tools.
    fn spec(&self) -> Option<&'static ToolSpec> {
        None
    }
    /// JSON Schema of the parameters.
    fn parameter_schema(&self) -> &Value;
    /// Renames accepted aliases (from later Gemini CLI versions) to the
    /// canonical parameter names, before schema validation.
    fn normalize_args(&self, _args: &mut Map<String, Value>) {}
    /// Tool-specific checks and typed parsing of arguments that already
    /// passed the schema. The error text goes to the model verbatim.
    fn build(
        &self,
        args: &Map<String, Value>,
        ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError>;
    /// True for a sub-agent's tool (what `invoke_agent` may call).
    fn is_agent(&self) -> bool {
        false
    }
    /// Whether its output is shown as Markdown (Gemini CLI's
    /// `isOutputMarkdown`, recorded with each call as
    /// `renderOutputAsMarkdown`): true but for the shell and discovered
    /// tools.
    fn output_is_markdown(&self) -> bool {
        true
    }
    /// The MCP server the tool comes from (`None` for other tools).
    fn server_name(&self) -> Option<&str> {
        None
    }
    /// The name policy rules match (`<server>__<tool>` for MCP tools).
    fn policy_name(&self) -> String {
        self.name().to_string()
    }
    /// `mcp_context` for hooks (`{server_name, tool_name, command, args,
    /// cwd, url, tcp}`); `None` for tools that are not MCP tools.
    fn mcp_context(&self) -> Option<Value> {
        None
    }
    /// The declaration sent to the model.
    fn declaration(&self) -> FunctionDeclaration {
        FunctionDeclaration {
            name: self.name().to_string(),
            description: Some(self.description().to_string()),
            parameters_json_schema: Some(self.parameter_schema().clone()),
            ..FunctionDeclaration::default()
        }
    }
}

/// Where a running call reports its live output: each call gets the
/// latest view of the output so far (for the shell, its last lines as a
/// terminal shows them), replacing the previous one. Throttled by the tool.
pub type OutputSink = Arc<dyn Fn(String) + Send + Sync>;

/// One validated call, ready to describe, confirm and run.
pub trait ToolInvocation: Send + Sync {
    /// One line describing the call for the user.
    fn description(&self) -> String;
    /// What the user would need to approve; `None` when nothing needs
    /// approval. Policy decides whether to ask at all.
    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async { None })
    }
    /// Runs the call. Must stop promptly when `cancel` fires.
    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult>;
    /// Hears the user's answer to [`ToolInvocation::confirmation`] before
    /// the call runs (the plan approval reads its choice and feedback).
    fn answered(&self, _answer: &gemini_rs_protocol::events::ConfirmationResponse) {}
    /// Runs the call, reporting live output to `output` while it runs
    /// (tools without live output just [`ToolInvocation::execute`]).
    fn execute_streaming<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
        output: OutputSink,
    ) -> BoxFuture<'a, ToolResult> {
        let _ = output;
        self.execute(ctx, cancel)
    }
}
