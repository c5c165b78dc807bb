//! Running command hooks (§9.3): `bash -c` in the project dir, JSON on
//! stdin, own process group killed on timeout, parallel or sequential
//! (http hooks: [`super::http`]).

use super::config::{CommandHook, HookDialect, HookEvent};
use super::output::{HookOutput, parse_command_output};
use futures::future::join_all;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// What the runner needs to know about the session.
#[derive(Debug, Clone, Default)]
pub struct HookEnv {
    /// The project dir: the hooks' cwd and `GEMINI_PROJECT_DIR`.
    pub project_dir: PathBuf,
    /// The session id (`session_id`, `GEMINI_SESSION_ID`).
    pub session_id: String,
    /// `transcript_path` (empty until chats are recorded).
    pub transcript_path: String,
    /// The sandbox hooks of the workspace's settings run under (`-s`):
    /// a sandboxed command may have written them.
    pub sandbox: Option<std::sync::Arc<crate::sandbox::PreparedSandbox>>,
    /// The keys ([`super::CommandHook::key`]) of the hooks that come from
    /// the workspace's settings.
    pub workspace_hooks: std::collections::BTreeSet<String>,
    /// The session's approval mode (Claude hooks' `permission_mode`, and
    /// `approval_mode: "plan"` in the inputs while planning).
    pub approval_mode: Option<std::sync::Arc<std::sync::RwLock<crate::policy::ApprovalMode>>>,
    /// The plans folder (`GEMINI_PLANS_DIR`).
    pub plans_dir: Option<PathBuf>,
    /// Where finished runs are reported for their telemetry spans (the
    /// session's event stream).
    pub runs: Option<crate::events::EventSender>,
    /// The model `prompt` hooks ask (the session's).
    pub judge: Option<std::sync::Arc<dyn super::prompt::PromptJudge>>,
}

impl HookEnv {
    /// Claude Code's `permission_mode` for the session's approval mode now.
    pub fn permission_mode(&self) -> &'static str {
        let mode = self
            .approval_mode
            .as_ref()
            .and_then(|m| m.read().ok().map(|m| *m))
            .unwrap_or(crate::policy::ApprovalMode::Default);
        super::claude::permission_mode(mode)
    }
}

/// One event firing's input: the Gemini fields every hook's input is
/// made from, and the fields only Claude hooks get.
#[derive(Debug, Clone)]
pub struct EventInput {
    /// The event.
    pub event: HookEvent,
    /// The Gemini CLI input object.
    pub gemini: Map<String, Value>,
    /// Claude Code's own fields (`tool_use_id`, `permission_mode`, ...).
    pub claude: Map<String, Value>,
    /// The tool call that fired it (tool events).
    pub call_id: Option<String>,
}

impl EventInput {
    /// The input object as hooks of `dialect` read it, serialised.
    fn bytes_for(&self, dialect: HookDialect) -> Vec<u8> {
        let bytes = match dialect {
            HookDialect::Gemini => serde_json::to_vec(&self.gemini),
            HookDialect::Claude => {
                let mut input = super::claude::input(self.event, &self.gemini, &self.claude);
                super::claude_transcript::point_at_view(&mut input);
                serde_json::to_vec(&input)
            }
        };
        bytes.unwrap_or_default()
    }

    /// Runs one hook on this input, reading its output by its dialect.
    async fn run(&self, hook: &CommandHook, env: &HookEnv) -> HookRunResult {
        let bytes = self.bytes_for(hook.dialect);
        let call_id = self.call_id.as_deref();
        let mut r = run_hook(hook, &bytes, env, self.event, call_id).await;
        if hook.dialect == HookDialect::Claude && r.error.is_none() {
            let call = super::claude::CallFields::of(&self.gemini);
            let called = call.tool_name.as_deref();
            r.output =
                super::claude::parse_output(self.event, r.exit_code, &r.stdout, &r.stderr, called);
        }
        r
    }
}

/// Why a hook process did not run to its end.
#[derive(Debug, Clone, thiserror::Error)]
pub enum HookRunError {
    /// `bash` could not be started.
    #[error("Failed to spawn hook: {0}")]
    Spawn(std::sync::Arc<std::io::Error>),
    /// Waiting for the process failed.
    #[error("Failed to wait for hook: {0}")]
    Wait(std::sync::Arc<std::io::Error>),
    /// An http hook's request failed (no answer).
    #[error("HTTP hook failed: {0}")]
    Http(String),
    /// The hook ran past its timeout and was killed.
    #[error("Hook timed out after {ms}ms")]
    TimedOut {
        /// The timeout in milliseconds.
        ms: u64,
    },
}

/// The result of one hook run.
#[derive(Debug, Clone)]
pub struct HookRunResult {
    /// The hook that ran.
    pub hook: CommandHook,
    /// True iff the exit code was 0.
    pub success: bool,
    /// The parsed output, if any.
    pub output: Option<HookOutput>,
    /// Exit code (`None` on timeout, spawn error or signal).
    pub exit_code: Option<i32>,
    /// Captured stdout.
    pub stdout: String,
    /// Captured stderr.
    pub stderr: String,
    /// Why the hook did not finish (spawn failure, timeout).
    pub error: Option<HookRunError>,
    /// Wall time.
    pub duration: Duration,
}

impl HookRunResult {
    /// A run of `hook` that has produced nothing yet.
    fn not_run(hook: &CommandHook) -> Self {
        HookRunResult {
            hook: hook.clone(),
            success: false,
            output: None,
            exit_code: None,
            stdout: String::new(),
            stderr: String::new(),
            error: None,
            duration: Duration::ZERO,
        }
    }
}

/// Replaces `$GEMINI_PROJECT_DIR` / `$CLAUDE_PROJECT_DIR` (and their `${…}`
/// forms) by the shell-escaped project dir.
pub fn expand_command(command: &str, project_dir: &Path) -> String {
    let dir = project_dir.to_string_lossy();
    let escaped =
        shlex::try_quote(&dir).map_or_else(|_| dir.to_string(), std::borrow::Cow::into_owned);
    let mut out = command.to_string();
    for var in ["GEMINI_PROJECT_DIR", "CLAUDE_PROJECT_DIR"] {
        out = out.replace(&format!("${{{var}}}"), &escaped);
        out = out.replace(&format!("${var}"), &escaped);
    }
    out
}

/// Runs one hook of `event` (fired by call `call_id`) with `input`
/// (already serialised) on stdin. With telemetry on, its process gets the
/// `TRACEPARENT` of a span of its own, reported when it ends as an
/// [`crate::events::AgentEvent::HookRan`] so the span nests under the
/// step that fired it.
pub async fn run_hook(
    hook: &CommandHook,
    input: &[u8],
    env: &HookEnv,
    event: HookEvent,
    call_id: Option<&str>,
) -> HookRunResult {
    let span = env
        .runs
        .as_ref()
        .and_then(|_| crate::telemetry::HookSpan::start(hook.display_name()));
    let traceparent = span.as_ref().map(crate::telemetry::HookSpan::traceparent);
    let result = match (&hook.http, &hook.prompt) {
        (Some(http), _) => {
            let start = Instant::now();
            let answer = super::http::post(hook, http, input).await;
            http_result(hook, answer, start)
        }
        (None, Some(prompt)) => {
            let start = Instant::now();
            let judge = env.judge.as_deref();
            let answer = super::prompt::run(hook, prompt.model.as_deref(), input, judge).await;
            http_result(hook, answer, start)
        }
        (None, None) => run_process(hook, input, env, traceparent).await,
    };
    if let (Some(span), Some(runs)) = (span, &env.runs) {
        let error = result.error.as_ref().map(ToString::to_string);
        let run = span.finish(
            event.as_str(),
            call_id,
            result.exit_code,
            result.duration,
            error,
        );
        runs.emit(crate::events::AgentEvent::HookRan(run)).await;
    }
    result
}

/// An http hook's answer as a run's result.
fn http_result(hook: &CommandHook, answer: super::http::Answer, start: Instant) -> HookRunResult {
    use super::http::Answer;
    let mut result = HookRunResult::not_run(hook);
    match answer {
        Answer::Exited {
            code,
            stdout,
            stderr,
        } => {
            result.exit_code = Some(code);
            result.success = code == 0;
            result.output = parse_command_output(Some(code), &stdout, &stderr);
            (result.stdout, result.stderr) = (stdout, stderr);
        }
        Answer::TimedOut => {
            result.error = Some(HookRunError::TimedOut {
                ms: hook.timeout_ms,
            });
        }
        Answer::Failed(why) => result.error = Some(HookRunError::Http(why)),
    }
    result.duration = start.elapsed();
    result
}

async fn run_process(
    hook: &CommandHook,
    input: &[u8],
    env: &HookEnv,
    traceparent: Option<String>,
) -> HookRunResult {
    let start = Instant::now();
    let command = expand_command(&hook.command, &env.project_dir);
    tracing::debug!(
        "Expanding hook command: {command} (cwd: {})",
        env.project_dir.display()
    );
    let mut cmd = tokio::process::Command::new("bash");
    let dir = env.project_dir.to_string_lossy().into_owned();
    cmd.arg("-c")
        .arg(&command)
        .current_dir(&env.project_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("GEMINI_PROJECT_DIR", &dir)
        .env("CLAUDE_PROJECT_DIR", &dir)
        .env("GEMINI_CWD", &dir)
        .env("GEMINI_SESSION_ID", &env.session_id);
    if let Some(dir) = &env.plans_dir {
        cmd.env("GEMINI_PLANS_DIR", dir);
    }
    // The model providers' keys stay out unless the hook's `env` names them.
    for (name, _) in std::env::vars_os() {
        if let Some(name) = name.to_str()
            && crate::config::is_provider_key(name)
            && !hook.env.iter().any(|(k, _)| k == name)
        {
            cmd.env_remove(name);
        }
    }
    if let Some(traceparent) = traceparent {
        cmd.env("TRACEPARENT", traceparent);
    }
    cmd.envs(hook.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .kill_on_drop(true);
    crate::process::new_group(cmd.as_std_mut());
    if let Some(sandbox) = &env.sandbox
        && env.workspace_hooks.contains(&hook.key())
    {
        crate::sandbox::install(cmd.as_std_mut(), sandbox.clone());
    }
    let mut result = HookRunResult::not_run(hook);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            result.error = Some(HookRunError::Spawn(std::sync::Arc::new(e)));
            result.duration = start.elapsed();
            return result;
        }
    };
    let mut group = child.id().map(crate::process::Group::new);
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let mut out_buf = Vec::new();
    let mut err_buf = Vec::new();
    let timeout = Duration::from_millis(hook.timeout_ms);
    let io = async {
        let write = async {
            if let Some(mut s) = stdin {
                let _ = s.write_all(input).await;
                let _ = s.shutdown().await;
            }
        };
        let read_out = async {
            if let Some(mut s) = stdout {
                let _ = s.read_to_end(&mut out_buf).await;
            }
        };
        let read_err = async {
            if let Some(mut s) = stderr {
                let _ = s.read_to_end(&mut err_buf).await;
            }
        };
        let (_, _, _, status) = tokio::join!(write, read_out, read_err, child.wait());
        status
    };
    let finished = tokio::time::timeout(timeout, io).await;
    match finished {
        Ok(Ok(status)) => {
            result.exit_code = status.code();
            result.success = status.code() == Some(0);
        }
        Ok(Err(e)) => result.error = Some(HookRunError::Wait(std::sync::Arc::new(e))),
        Err(_) => {
            match group.as_mut() {
                Some(g) => g.terminate().await,
                None => {
                    let _ = child.kill().await;
                }
            }
            let _ = child.wait().await;
            result.error = Some(HookRunError::TimedOut {
                ms: hook.timeout_ms,
            });
        }
    }
    // The hook is over; what it started in the background is its own.
    if let Some(mut g) = group {
        g.disarm();
    }
    result.stdout = String::from_utf8_lossy(&out_buf).into_owned();
    result.stderr = String::from_utf8_lossy(&err_buf).into_owned();
    if result.error.is_none() {
        result.output = parse_command_output(result.exit_code, &result.stdout, &result.stderr);
    }
    result.duration = start.elapsed();
    result
}

/// Runs hooks concurrently with the same input.
pub async fn run_parallel(
    hooks: &[CommandHook],
    input: &EventInput,
    env: &HookEnv,
) -> Vec<HookRunResult> {
    join_all(hooks.iter().map(|h| input.run(h, env))).await
}

/// Runs hooks one after another; each sees the previous one's changes
/// (BeforeTool `tool_input` and BeforeModel `llm_request` shallow-merged,
/// BeforeAgent `prompt += "\n\n" + additionalContext`).
pub async fn run_sequential(
    hooks: &[CommandHook],
    input: &EventInput,
    env: &HookEnv,
) -> Vec<HookRunResult> {
    let mut input = input.clone();
    let mut results = Vec::with_capacity(hooks.len());
    for hook in hooks {
        let r = input.run(hook, env).await;
        if let (true, Some(out)) = (r.success, &r.output) {
            apply_to_input(input.event, &mut input.gemini, out);
        }
        results.push(r);
    }
    results
}

/// Carries one hook's changes into the next hook's input.
fn apply_to_input(event: HookEvent, input: &mut Map<String, Value>, out: &HookOutput) {
    let merge_obj = |input: &mut Map<String, Value>, key: &str, add: &Map<String, Value>| {
        let mut base = input
            .get(key)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        base.extend(add.iter().map(|(k, v)| (k.clone(), v.clone())));
        input.insert(key.to_string(), Value::Object(base));
    };
    match event {
        HookEvent::BeforeTool => {
            if let Some(add) = out.specific("tool_input").and_then(Value::as_object) {
                merge_obj(input, "tool_input", add);
            }
        }
        HookEvent::BeforeModel => {
            if let Some(add) = out.specific("llm_request").and_then(Value::as_object) {
                merge_obj(input, "llm_request", add);
            }
        }
        HookEvent::BeforeAgent => {
            if let Some(ctx) = out.specific("additionalContext").and_then(Value::as_str) {
                let prompt = PromptField::deserialize(&*input)
                    .unwrap_or_default()
                    .prompt
                    .unwrap_or_default();
                let joined = format!("{prompt}\n\n{ctx}");
                input.insert("prompt".into(), Value::String(joined));
            }
        }
        // The other events do not chain their outputs into the next
        // hook's input.
        _ => {}
    }
}
/// BeforeAgent's `prompt` in a Gemini hook's input.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default)]
struct PromptField {
    #[serde(deserialize_with = "crate::config::lenient::wrong_type_as_none")]
    prompt: Option<String>,
}
