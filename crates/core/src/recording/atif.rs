//! A session's messages as an ATIF trajectory (Agent Trajectory
//! Interchange Format v1.8, the format Harbor and trainers read): one
//! `user` step per prompt, one `agent` step per model turn with its tool
//! calls, their results as the step's observation, its token counts and,
//! when the model server sent them, its logprobs and token ids.

use super::record::{MessageRecord, RecordedLogprobs, RecordedTokens, ToolCallRecord};
use serde::Serialize;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// The `schema_version` written.
pub const SCHEMA_VERSION: &str = "ATIF-v1.8";

/// The root document (`Trajectory`).
#[derive(Debug, Serialize)]
struct Trajectory {
    schema_version: &'static str,
    session_id: String,
    agent: Agent,
    steps: Vec<Step>,
    final_metrics: FinalMetrics,
}

/// `AgentSchema`.
#[derive(Debug, Serialize)]
struct Agent {
    name: &'static str,
    version: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_name: Option<String>,
}

/// `StepObject`.
#[derive(Debug, Serialize)]
struct Step {
    step_id: usize,
    timestamp: String,
    source: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_name: Option<String>,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_content: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<Vec<ToolCall>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    observation: Option<Observation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metrics: Option<Metrics>,
}

/// `ToolCallSchema`.
#[derive(Debug, Serialize)]
struct ToolCall {
    tool_call_id: String,
    function_name: String,
    arguments: Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<Value>,
}

/// `ObservationSchema`.
#[derive(Debug, Serialize)]
struct Observation {
    results: Vec<ObservationResult>,
}

/// `ObservationResultSchema`.
#[derive(Debug, Serialize)]
struct ObservationResult {
    source_call_id: String,
    content: String,
}

/// `MetricsSchema`.
#[derive(Debug, Default, Serialize)]
struct Metrics {
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completion_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cached_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prompt_token_ids: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    completion_token_ids: Option<Vec<i64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    logprobs: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    extra: Option<Value>,
}

/// `FinalMetricsSchema`.
#[derive(Debug, Serialize)]
struct FinalMetrics {
    total_prompt_tokens: u64,
    total_completion_tokens: u64,
    total_cached_tokens: u64,
    total_steps: usize,
}

/// Where a session's trajectory goes and what it is about.
#[derive(Debug, Clone)]
pub struct TrajectoryFile {
    /// The file (`--trajectory`, or `trajectory` in ACP `session/new`'s `_meta`).
    pub path: PathBuf,
    /// The session id.
    pub session_id: String,
}

impl TrajectoryFile {
    /// Writes the trajectory of `messages` through the atomic writer: a
    /// reader sees the previous whole document or the new one. A new file
    /// is created 0600 first (it holds prompts and answers, as the session
    /// file does), and the atomic write keeps that mode.
    pub fn write(&self, messages: &[MessageRecord]) -> std::io::Result<()> {
        create_private(&self.path)?;
        let doc = trajectory(&self.session_id, messages);
        let mut bytes = serde_json::to_vec_pretty(&doc).map_err(std::io::Error::other)?;
        bytes.push(b'\n');
        crate::workspace::write_atomic(&self.path, &bytes)
    }
}

/// Why a trajectory path cannot be used; the text names the path.
#[derive(Debug, thiserror::Error)]
pub enum TrajectoryPathError {
    /// The path could not be made absolute or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The path is a folder.
    #[error("{} is a directory", .0.display())]
    Directory(PathBuf),
    /// The path is a FIFO, a device or a socket.
    #[error("{}", crate::workspace::not_regular_message(path, kind))]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// Nothing is there and the file cannot be created.
    #[error("cannot create {}: {source}", path.display())]
    Create {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Checks a trajectory path before a session starts, made absolute: an
/// existing file must be a regular one; a missing one is created and
/// removed again here, so a folder that cannot hold it is named at once
/// (the session writes it when it starts). The error names the path and
/// why.
pub fn check_trajectory_path(path: &Path) -> Result<PathBuf, TrajectoryPathError> {
    let path = std::path::absolute(path).map_err(|source| TrajectoryPathError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_dir() => Err(TrajectoryPathError::Directory(path)),
        Ok(_) => match std::fs::metadata(&path) {
            Ok(meta) if meta.is_file() => Ok(path),
            Ok(meta) => {
                let kind = crate::workspace::special_kind(&meta).unwrap_or("a directory");
                Err(TrajectoryPathError::NotRegular { path, kind })
            }
            Err(source) => Err(TrajectoryPathError::Io { path, source }),
        },
        Err(_) => match create_private(&path) {
            Ok(()) => {
                let _ = std::fs::remove_file(&path);
                Ok(path)
            }
            Err(source) => Err(TrajectoryPathError::Create { path, source }),
        },
    }
}

/// Creates `path` empty with mode 0600 unless something is there.
fn create_private(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Ok(());
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    let mut opts = std::fs::OpenOptions::new();
    std::os::unix::fs::OpenOptionsExt::mode(opts.write(true).create_new(true), 0o600);
    match opts.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// The ATIF document of a session's messages.
fn trajectory(session_id: &str, messages: &[MessageRecord]) -> Trajectory {
    let mut steps: Vec<Step> = Vec::new();
    for msg in messages {
        let step = match msg.kind.as_str() {
            "user" => user_step(msg),
            "gemini" => Some(agent_step(msg)),
            _ => None,
        };
        if let Some(mut step) = step {
            step.step_id = steps.len() + 1;
            steps.push(step);
        }
    }
    let metrics = steps.iter().filter_map(|s| s.metrics.as_ref());
    let sum = |f: fn(&Metrics) -> Option<u64>| metrics.clone().filter_map(f).sum();
    let final_metrics = FinalMetrics {
        total_prompt_tokens: sum(|m| m.prompt_tokens),
        total_completion_tokens: sum(|m| m.completion_tokens),
        total_cached_tokens: sum(|m| m.cached_tokens),
        total_steps: steps.len(),
    };
    Trajectory {
        schema_version: SCHEMA_VERSION,
        session_id: session_id.to_string(),
        agent: Agent {
            name: "gemini-rs",
            version: env!("CARGO_PKG_VERSION"),
            model_name: steps.iter().find_map(|s| s.model_name.clone()),
        },
        steps,
        final_metrics,
    }
}

/// A prompt as a `user` step; the function responses Gemini CLI records
/// as a user message are the previous agent step's observation instead.
fn user_step(msg: &MessageRecord) -> Option<Step> {
    if !matches!(msg.content, Value::Array(_) | Value::String(_)) {
        return None;
    }
    let parts = super::history::parts_of(&msg.content);
    if parts.iter().any(|p| p.function_response.is_some()) {
        return None;
    }
    let text: Vec<&str> = parts.iter().filter_map(|p| p.text.as_deref()).collect();
    Some(Step {
        step_id: 0,
        timestamp: msg.timestamp.clone(),
        source: "user",
        model_name: None,
        message: text.join("\n"),
        reasoning_content: None,
        tool_calls: None,
        observation: None,
        metrics: None,
    })
}

/// A model turn as an `agent` step.
fn agent_step(msg: &MessageRecord) -> Step {
    let fields = msg.model_fields();
    let thoughts: Vec<String> = (fields.thoughts.into_iter().flatten())
        .map(|t| match (t.subject.trim(), t.description.trim()) {
            ("", d) => d.to_string(),
            (s, d) => format!("**{s}** {d}").trim().to_string(),
        })
        .filter(|t| !t.is_empty())
        .collect();
    let calls = msg.tool_calls.as_deref().unwrap_or_default();
    Step {
        step_id: 0,
        timestamp: msg.timestamp.clone(),
        source: "agent",
        model_name: fields.model,
        message: msg.content.as_str().unwrap_or_default().to_string(),
        reasoning_content: (!thoughts.is_empty()).then(|| thoughts.join("\n\n")),
        tool_calls: (!calls.is_empty()).then(|| calls.iter().map(tool_call).collect()),
        observation: (!calls.is_empty()).then(|| Observation {
            results: calls
                .iter()
                .map(|c| ObservationResult {
                    source_call_id: c.id.clone(),
                    content: result_text(&c.result),
                })
                .collect(),
        }),
        metrics: metrics(fields.tokens, fields.logprobs),
    }
}

fn tool_call(call: &ToolCallRecord) -> ToolCall {
    let arguments = match &call.args {
        Value::Object(m) => m.clone(),
        Value::Null => Map::new(),
        other => Map::from_iter([("value".to_string(), other.clone())]),
    };
    ToolCall {
        tool_call_id: call.id.clone(),
        function_name: call.name.clone(),
        arguments,
        extra: (!call.status.is_empty()).then(|| serde_json::json!({"status": call.status})),
    }
}

/// What a call answered the model: the `output` (or `error`) of its
/// function responses, else their JSON.
// open shape: a function response's `response` is the tool's own object
// (`output` and `error` by convention only).
fn result_text(result: &Value) -> String {
    let texts: Vec<String> = result
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.pointer("/functionResponse/response"))
        .map(|r| match r.get("output").or_else(|| r.get("error")) {
            Some(Value::String(s)) => s.clone(),
            _ => r.to_string(),
        })
        .collect();
    if texts.is_empty() && !result.is_null() {
        return result.to_string();
    }
    texts.join("\n")
}

/// The turn's tokens and, when recorded, its logprobs and token ids.
fn metrics(tokens: Option<RecordedTokens>, lp: Option<RecordedLogprobs>) -> Option<Metrics> {
    if tokens.is_none() && lp.is_none() {
        return None;
    }
    let tokens = tokens.unwrap_or_default();
    let lp = lp.unwrap_or_default();
    let completion = match (tokens.output, tokens.thoughts) {
        (None, None) => None,
        (o, t) => Some(o.unwrap_or(0) + t.unwrap_or(0)),
    };
    let mut extra = Map::new();
    if let Some(t) = tokens.tool.filter(|t| *t > 0) {
        extra.insert("tool_tokens".into(), t.into());
    }
    if let Some(t) = lp.tokens.filter(|t| !t.is_empty()) {
        extra.insert("completion_tokens_text".into(), Value::Array(t));
    }
    Some(Metrics {
        prompt_tokens: tokens.input,
        completion_tokens: completion,
        cached_tokens: tokens.cached,
        prompt_token_ids: lp.prompt_token_ids.filter(|v| !v.is_empty()),
        completion_token_ids: lp.token_ids.filter(|v| !v.is_empty()),
        logprobs: lp.logprobs.filter(|v| !v.is_empty()),
        extra: (!extra.is_empty()).then_some(Value::Object(extra)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_round_trip_becomes_a_user_and_two_agent_steps() {
        let user = MessageRecord::new("user", json!([{"text": "read a.txt"}]));
        let mut model = MessageRecord::new("gemini", json!("Reading."));
        model.extra.insert("model".into(), json!("m1"));
        model.extra.insert(
            "tokens".into(),
            json!({"input": 50, "output": 7, "cached": 0, "thoughts": 2, "tool": 0, "total": 59}),
        );
        model.extra.insert(
            "logprobs".into(),
            json!({"tokens": ["Read", "ing."], "tokenIds": [11, 12], "logprobs": [-0.5, -0.25],
                "promptTokenIds": [1, 2, 3]}),
        );
        model.tool_calls = Some(vec![ToolCallRecord {
            id: "c1".into(),
            name: "read_file".into(),
            args: json!({"file_path": "a.txt"}),
            result: json!([{"functionResponse": {"id": "c1", "name": "read_file",
                "response": {"output": "alpha\n"}}}]),
            status: "success".into(),
            timestamp: String::new(),
            result_display: None,
            extra: Default::default(),
        }]);
        let responses = MessageRecord::new("user", json!([{"functionResponse": {}}]));
        let answer = MessageRecord::new("gemini", json!("It says alpha."));
        let info = MessageRecord::new("info", json!("noted"));
        let doc = trajectory("s1", &[user, model, responses, answer, info]);
        let v = serde_json::to_value(&doc).unwrap();
        assert_eq!(v["schema_version"], "ATIF-v1.8");
        assert_eq!(v["agent"]["model_name"], "m1");
        let steps = v["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 3);
        assert_eq!(steps[0]["source"], "user");
        assert_eq!(steps[0]["message"], "read a.txt");
        assert_eq!(steps[1]["step_id"], 2);
        assert_eq!(steps[1]["tool_calls"][0]["function_name"], "read_file");
        assert_eq!(steps[1]["observation"]["results"][0]["content"], "alpha\n");
        assert_eq!(steps[1]["metrics"]["completion_tokens"], 9);
        assert_eq!(steps[1]["metrics"]["completion_token_ids"], json!([11, 12]));
        assert_eq!(steps[1]["metrics"]["logprobs"], json!([-0.5, -0.25]));
        assert_eq!(steps[1]["metrics"]["prompt_token_ids"], json!([1, 2, 3]));
        assert_eq!(steps[2]["message"], "It says alpha.");
        assert_eq!(v["final_metrics"]["total_prompt_tokens"], 50);
        assert_eq!(v["final_metrics"]["total_steps"], 3);
    }
}
