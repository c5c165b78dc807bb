//! Command-based tool discovery (§5.1) and calls (§5.2):
//! `tools.discoveryCommand` lists declarations once at start, and each
//! `discovered_tool_<name>` runs `tools.callCommand <name>` with the
//! arguments as JSON on stdin.

use super::{
    ConfirmationDetails, Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolKind,
    ToolResult,
};
use crate::config::Settings;
use futures::future::BoxFuture;
use gemini_rs_protocol::lenient::{from_object, wrong_type_as_none};
use serde::Deserialize;
use serde_json::{Map, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

/// Cap on each of stdout and stderr of the discovery command.
pub const DISCOVERY_OUTPUT_LIMIT: usize = 10 * 1024 * 1024;

/// Prefix of every discovered tool's name.
pub const DISCOVERED_PREFIX: &str = "discovered_tool_";

/// Why discovery failed; the texts are Gemini CLI's. Each is fatal at
/// startup.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DiscoveryError {
    /// The command is blank.
    #[error("Tool discovery command is empty or contains only whitespace.")]
    Empty,
    /// stdout or stderr went over 10 MB.
    #[error("Tool discovery command output exceeded size limit of 10485760 bytes.")]
    OutputTooLarge,
    /// Non-zero exit (`null` when killed by a signal).
    #[error("Tool discovery command failed with exit code {0}")]
    Failed(String),
    /// stdout was JSON but not an array.
    #[error("Tool discovery command did not return a JSON array of tools.")]
    NotArray,
    /// stdout was not JSON.
    #[error("{0}")]
    Parse(String),
    /// The command could not be started.
    #[error("{0}")]
    Spawn(String),
}

impl DiscoveryError {
    /// The feedback line Gemini CLI emits before a non-zero exit error:
    /// `Tool discovery command failed with code <n>.`
    pub fn feedback(&self) -> Option<String> {
        match self {
            DiscoveryError::Failed(code) => {
                Some(format!("Tool discovery command failed with code {code}."))
            }
            DiscoveryError::Empty
            | DiscoveryError::OutputTooLarge
            | DiscoveryError::NotArray
            | DiscoveryError::Parse(_)
            | DiscoveryError::Spawn(_) => None,
        }
    }
}

/// Runs `tools.discoveryCommand` (if set) in `project_root` and returns the
/// discovered tools. Blocking: call it once at startup (from async code,
/// through `spawn_blocking`). With `sandbox`, a command the workspace's
/// settings name runs inside it (a sandboxed command may have written
/// them); the user's runs outside, as their hooks do.
pub fn discover_tools(
    settings: &Settings,
    project_root: &Path,
    sandbox: Option<&Arc<crate::sandbox::PreparedSandbox>>,
) -> Result<Vec<Arc<dyn Tool>>, DiscoveryError> {
    let tools = &settings.typed().tools;
    let Some(discovery) = tools.discovery_command.as_deref() else {
        return Ok(Vec::new());
    };
    let call_command = tools.call_command.clone();
    let from_workspace =
        settings
            .layer(crate::config::Scope::Workspace)
            .is_some_and(|(_, layer)| {
                ["/tools/discoveryCommand", "/toolDiscoveryCommand"]
                    .iter()
                    .any(|p| layer.pointer(p).is_some())
            });
    let sandbox = sandbox.filter(|_| from_workspace);
    let stdout = run_discovery(discovery, project_root, sandbox)?;
    let parsed: Value =
        serde_json::from_str(stdout.trim()).map_err(|e| DiscoveryError::Parse(e.to_string()))?;
    let Value::Array(items) = parsed else {
        return Err(DiscoveryError::NotArray);
    };
    let mut decls: Vec<Declaration> = Vec::new();
    for item in &items {
        let entry: DiscoveredEntry = from_object(item);
        // The first of the two spellings that JavaScript finds truthy
        // enough (not null, not false), as Gemini CLI picks it.
        let group = [
            entry.function_declarations,
            entry.function_declarations_camel,
        ]
        .into_iter()
        .find(|v| !v.is_null() && v != &Value::Bool(false));
        match group {
            Some(Value::Array(list)) => decls.extend(list.iter().map(from_object)),
            Some(_) => {}
            None if truthy(&entry.name) => decls.push(from_object(item)),
            None => {}
        }
    }
    let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
    for d in decls {
        let Some(name) = d.name.as_deref().filter(|n| !n.is_empty()) else {
            continue;
        };
        let description = d.description.as_deref().unwrap_or("");
        let schema = Value::Object(d.parameters_json_schema.unwrap_or_default());
        tools.push(Arc::new(DiscoveredTool::new(
            name,
            description,
            schema,
            discovery,
            call_command.clone(),
            project_root.to_path_buf(),
        )));
    }
    Ok(tools)
}

/// One item of the discovery command's list: a group of declarations
/// (either spelling) or a declaration itself.
#[derive(Deserialize, Default)]
struct DiscoveredEntry {
    #[serde(default)]
    function_declarations: Value,
    #[serde(default, rename = "functionDeclarations")]
    function_declarations_camel: Value,
    #[serde(default)]
    name: Value,
}

/// A function declaration the discovery command printed.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Declaration {
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    name: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    description: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    parameters_json_schema: Option<Map<String, Value>>,
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::String(s) => !s.is_empty(),
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Runs the discovery command without a shell; returns its stdout.
fn run_discovery(
    command: &str,
    cwd: &Path,
    sandbox: Option<&Arc<crate::sandbox::PreparedSandbox>>,
) -> Result<String, DiscoveryError> {
    let parts = shlex::split(command)
        .unwrap_or_else(|| command.split_whitespace().map(str::to_string).collect());
    let Some((program, args)) = parts.split_first() else {
        return Err(DiscoveryError::Empty);
    };
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    crate::process::new_group(&mut cmd);
    if let Some(sandbox) = sandbox {
        crate::sandbox::install(&mut cmd, sandbox.clone());
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| DiscoveryError::Spawn(spawn_error_text(program, &e)))?;
    let _group = crate::process::Group::new(child.id());
    let readers = [
        child.stdout.take().map(capped_reader),
        child.stderr.take().map(capped_reader),
    ];
    let mut outputs = Vec::new();
    let mut too_large = false;
    for r in readers.into_iter().flatten() {
        match r.join() {
            Ok(Some(bytes)) => outputs.push(bytes),
            _ => {
                too_large = true;
                outputs.push(Vec::new());
            }
        }
    }
    if too_large {
        let _ = child.kill();
        let _ = child.wait();
        return Err(DiscoveryError::OutputTooLarge);
    }
    let status = child
        .wait()
        .map_err(|e| DiscoveryError::Spawn(e.to_string()))?;
    if !status.success() {
        let code = status
            .code()
            .map(|c| c.to_string())
            .unwrap_or_else(|| "null".to_string());
        tracing::error!("Tool discovery command failed with code {code}.");
        return Err(DiscoveryError::Failed(code));
    }
    Ok(String::from_utf8_lossy(outputs.first().map(Vec::as_slice).unwrap_or(&[])).into_owned())
}

/// Reads a pipe to its end on a thread; `None` when it went over the cap.
fn capped_reader<R: Read + Send + 'static>(
    mut pipe: R,
) -> std::thread::JoinHandle<Option<Vec<u8>>> {
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let mut buf = [0u8; 64 * 1024];
        loop {
            match pipe.read(&mut buf) {
                Ok(0) | Err(_) => return Some(out),
                Ok(n) => {
                    if out.len() + n > DISCOVERY_OUTPUT_LIMIT {
                        return None;
                    }
                    out.extend_from_slice(&buf[..n]);
                }
            }
        }
    })
}

/// Node's message for a failed spawn, e.g. `spawn ./x ENOENT`.
fn spawn_error_text(program: &str, e: &std::io::Error) -> String {
    let code = match e.kind() {
        std::io::ErrorKind::NotFound => "ENOENT".to_string(),
        std::io::ErrorKind::PermissionDenied => "EACCES".to_string(),
        _ => e.to_string(),
    };
    format!("spawn {program} {code}")
}

/// A tool found by the discovery command.
pub struct DiscoveredTool {
    name: String,
    original_name: String,
    description: String,
    schema: Value,
    call_command: Option<String>,
    cwd: PathBuf,
}

impl DiscoveredTool {
    /// A discovered tool; `description` gets Gemini CLI's suffix.
    pub fn new(
        original_name: &str,
        description: &str,
        schema: Value,
        discovery_command: &str,
        call_command: Option<String>,
        cwd: PathBuf,
    ) -> Self {
        let call = call_command.as_deref().unwrap_or("undefined");
        let description = format!(
            "{description}\n\nThis tool was discovered from the project by executing the command `{discovery_command}` on project root.\nWhen called, this tool will execute the command `{call} {original_name}` on project root.\nTool discovery and call commands can be configured in project or user settings.\n\nWhen called, the tool call command is executed as a subprocess.\nOn success, tool output is returned as a json string.\nOtherwise, the following information is returned:\n\nStdout: Output on stdout stream. Can be `(empty)` or partial.\nStderr: Output on stderr stream. Can be `(empty)` or partial.\nError: Error or `(none)` if no error was reported for the subprocess.\nExit Code: Exit code or `(none)` if terminated by signal.\nSignal: Signal number or `(none)` if no signal was received.\n"
        );
        DiscoveredTool {
            name: format!("{DISCOVERED_PREFIX}{original_name}"),
            original_name: original_name.to_string(),
            description,
            schema,
            call_command,
            cwd,
        }
    }
}

impl Tool for DiscoveredTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn display_name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn output_is_markdown(&self) -> bool {
        false
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Other
    }
    fn parameter_schema(&self) -> &Value {
        &self.schema
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        Ok(Box::new(DiscoveredInvocation {
            name: self.name.clone(),
            original_name: self.original_name.clone(),
            call_command: self.call_command.clone(),
            cwd: self.cwd.clone(),
            args: args.clone(),
        }))
    }
}

struct DiscoveredInvocation {
    name: String,
    original_name: String,
    call_command: Option<String>,
    cwd: PathBuf,
    args: Map<String, Value>,
}

/// What one run of the call command produced.
#[derive(Debug, Default)]
struct CallRun {
    stdout: String,
    stderr: String,
    error: Option<String>,
    code: Option<i32>,
    signal: Option<String>,
}

impl CallRun {
    fn failure_text(&self) -> String {
        let or = |s: &str, d: &str| {
            if s.is_empty() {
                d.to_string()
            } else {
                s.to_string()
            }
        };
        format!(
            "Stdout: {}\nStderr: {}\nError: {}\nExit Code: {}\nSignal: {}",
            or(&self.stdout, "(empty)"),
            or(&self.stderr, "(empty)"),
            self.error.as_deref().unwrap_or("(none)"),
            self.code
                .map(|c| c.to_string())
                .unwrap_or_else(|| "(none)".to_string()),
            self.signal.as_deref().unwrap_or("(none)"),
        )
    }
}

fn signal_name(sig: i32) -> String {
    let name = match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => return sig.to_string(),
    };
    name.to_string()
}

async fn run_call(
    program: &str,
    arg: &str,
    cwd: &Path,
    stdin: String,
    cancel: &CancellationToken,
    sandbox: Option<&Arc<crate::sandbox::PreparedSandbox>>,
) -> CallRun {
    let mut cmd = tokio::process::Command::new(program);
    cmd.arg(arg)
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    crate::process::new_group(cmd.as_std_mut());
    if let Some(sandbox) = sandbox {
        crate::sandbox::install(cmd.as_std_mut(), sandbox.clone());
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            let errno = e.raw_os_error().map(|n| -n);
            return CallRun {
                error: Some(format!("Error: {}", spawn_error_text(program, &e))),
                code: errno,
                ..CallRun::default()
            };
        }
    };
    if let Some(mut pipe) = child.stdin.take() {
        tokio::spawn(async move {
            let _ = pipe.write_all(stdin.as_bytes()).await;
            let _ = pipe.shutdown().await;
        });
    }
    let read = |pipe: Option<Box<dyn tokio::io::AsyncRead + Send + Unpin>>| {
        tokio::spawn(async move {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf).await;
            }
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
    );
    let err = read(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn tokio::io::AsyncRead + Send + Unpin>),
    );
    let group = child.id().map(crate::process::Group::new);
    let status = tokio::select! {
        s = child.wait() => s,
        _ = cancel.cancelled() => {
            // Gemini CLI kills a cancelled call outright (`Signal: SIGKILL`).
            if let Some(g) = group.as_ref() {
                g.signal(libc::SIGKILL);
            }
            let _ = child.start_kill();
            child.wait().await
        }
    };
    if let Some(mut g) = group {
        g.disarm();
    }
    let mut run = CallRun {
        stdout: out.await.unwrap_or_default(),
        stderr: err.await.unwrap_or_default(),
        ..CallRun::default()
    };
    match status {
        Ok(s) => {
            run.code = s.code();
            #[cfg(unix)]
            {
                use std::os::unix::process::ExitStatusExt;
                run.signal = s.signal().map(signal_name);
            }
        }
        Err(e) => run.error = Some(format!("Error: {e}")),
    }
    run
}

impl ToolInvocation for DiscoveredInvocation {
    fn description(&self) -> String {
        serde_json::to_string(&self.args).unwrap_or_default()
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            Some(ConfirmationDetails::Info {
                title: format!("Confirm: {}", self.name),
                prompt: self.description(),
                urls: Vec::new(),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let input = serde_json::to_string(&self.args).unwrap_or_else(|_| "{}".to_string());
            let program = self.call_command.as_deref().unwrap_or("undefined");
            let run = run_call(
                program,
                &self.original_name,
                &self.cwd,
                input,
                &cancel,
                ctx.sandbox.as_ref(),
            )
            .await;
            let ok = run.error.is_none()
                && run.code == Some(0)
                && run.signal.is_none()
                && run.stderr.is_empty();
            if ok {
                return ToolResult::text(run.stdout.clone(), run.stdout);
            }
            let text = run.failure_text();
            ToolResult::error(
                ToolErrorKind::DiscoveredToolExecutionError,
                text.clone(),
                text,
            )
        })
    }
}

#[cfg(test)]
mod tests;
