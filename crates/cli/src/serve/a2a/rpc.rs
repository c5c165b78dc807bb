//! A2A's JSON-RPC binding: the request, its methods, and the task each
//! message runs (answered whole, or as SSE events while it runs).

use super::Agent;
use super::context::{Context, TurnEnd};
use crate::serve::Shared;
use crate::serve::{Body, full};
use bytes::Bytes;
use futures::StreamExt;
use futures::channel::mpsc;
use gemini_rs_protocol::a2a::{self, Message, StatusUpdate, StreamResponse, Task, TaskStatus};
use gemini_rs_protocol::jsonrpc::Envelope;
use gemini_rs_protocol::lenient::{from_object, typed, wrong_type_as_none};
use gemini_rs_protocol::{Extra, Part};
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use serde::Deserialize;
use serde_json::{Value, json};
use std::convert::Infallible;
use std::sync::Arc;

/// Largest request body accepted.
const MAX_BODY: usize = 16 * 1024 * 1024;

/// A JSON-RPC error: code and message.
struct RpcError(i64, String);

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError(-32602, message.into())
}

/// A JSON-RPC answer.
fn answer(id: &Value, outcome: Result<Value, RpcError>) -> Response<Body> {
    let body = match outcome {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(RpcError(code, message)) => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
        }
    };
    full(StatusCode::OK, "application/json", body.to_string())
}

/// Now, as a protobuf JSON timestamp.
fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A POST to `/a2a`.
pub async fn handle(shared: Arc<Shared>, request: Request<Incoming>) -> Response<Body> {
    if request.method() != hyper::Method::POST {
        let body = json!({"error": "POST JSON-RPC requests to /a2a"}).to_string();
        return full(StatusCode::METHOD_NOT_ALLOWED, "application/json", body);
    }
    let body = match Limited::new(request.into_body(), MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            let message = format!("Invalid request: the body could not be read ({e})");
            return answer(&Value::Null, Err(RpcError(-32600, message)));
        }
    };
    let message: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            let message = format!("Parse error: {e}");
            return answer(&Value::Null, Err(RpcError(-32700, message)));
        }
    };
    let envelope = Envelope::of(&message);
    let id = envelope.id.clone().unwrap_or(Value::Null);
    let (Some(method), true) = (envelope.method_name(), envelope.is_v2()) else {
        let message =
            r#"Invalid request: a JSON-RPC 2.0 object with "jsonrpc": "2.0" and a method"#;
        return answer(&id, Err(RpcError(-32600, message.into())));
    };
    let params = envelope.params.clone().unwrap_or_else(|| json!({}));
    let agent = &shared.a2a;
    match method {
        "SendMessage" => answer(&id, send(&shared, &params).await),
        "SendStreamingMessage" => {
            match async { start(&shared, &send_params(&params)?).await }.await {
                Ok(started) => stream(shared.clone(), id, started),
                Err(e) => answer(&id, Err(e)),
            }
        }
        "GetTask" => answer(&id, get(agent, &params)),
        "CancelTask" => answer(&id, cancel(agent, &params).await),
        other => answer(
            &id,
            Err(RpcError(
                -32601,
                format!(
                    "Method not found: {other} (this agent speaks A2A 1.0's SendMessage, SendStreamingMessage, GetTask and CancelTask)"
                ),
            )),
        ),
    }
}

/// A message accepted: its task (submitted), the context's session, and
/// the prompt.
struct Started {
    task: Task,
    context: Arc<Context>,
    parts: Vec<Part>,
}

/// `SendMessage`'s and `SendStreamingMessage`'s params.
#[derive(Default, Deserialize)]
struct SendParams {
    /// The message (read strictly: a field that does not fit is named).
    #[serde(default)]
    message: Option<Message>,
    /// How to answer.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    configuration: Option<SendConfiguration>,
}

/// `SendMessage`'s `configuration`.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendConfiguration {
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    return_immediately: Option<bool>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    history_length: Option<u64>,
}

/// `GetTask`'s and `CancelTask`'s params.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TaskParams {
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    id: Option<String>,
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    history_length: Option<u64>,
}

/// The params of a send; an error names the field that does not fit.
fn send_params(params: &Value) -> Result<SendParams, RpcError> {
    if !params.is_object() {
        return Ok(SendParams::default());
    }
    typed(params.clone()).map_err(|e| invalid(format!("params.{e}")))
}

/// A value for an answer.
fn to_json(value: impl serde::Serialize) -> Result<Value, RpcError> {
    serde_json::to_value(value).map_err(|e| RpcError(-32603, e.to_string()))
}

/// Checks an id a client chose: 1-128 letters, digits, `-`, `_` or `.`.
fn client_id(id: Option<&str>, key: &str) -> Result<Option<String>, RpcError> {
    let Some(id) = id else {
        return Ok(None);
    };
    if id.is_empty()
        || id.len() > 128
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(invalid(format!(
            "message.{key} must be 1-128 letters, digits, '-', '_' or '.'"
        )));
    }
    Ok(Some(id.to_string()))
}

/// A message's parts as a prompt: text, data as JSON text, files by
/// reference, raw bytes inline.
fn prompt(parts: &[a2a::Part]) -> Result<Vec<Part>, RpcError> {
    let mut out = Vec::new();
    for part in parts {
        if let Some(text) = &part.text {
            out.push(Part::text(text));
        } else if let Some(data) = &part.data {
            out.push(Part::text(data.to_string()));
        } else if let Some(url) = &part.url {
            let name = part.filename.as_deref().unwrap_or(url);
            out.push(Part::text(format!("[{name}]({url})")));
        } else if let Some(raw) = &part.raw {
            let mime = part
                .media_type
                .as_deref()
                .unwrap_or("application/octet-stream");
            out.push(Part::inline_data(mime, raw));
        } else {
            return Err(invalid(
                "each part needs text, data, url or raw (A2A 1.0's Part)",
            ));
        }
    }
    if out.is_empty() {
        return Err(invalid("message.parts is empty"));
    }
    Ok(out)
}

/// A status now.
fn status(state: &str, message: Option<Message>) -> TaskStatus {
    TaskStatus {
        state: state.to_string(),
        message,
        timestamp: Some(now()),
        extra: Extra::default(),
    }
}

/// An agent's message with `text`.
fn agent_message(text: String, extra: Extra) -> Message {
    Message {
        message_id: Some(uuid::Uuid::new_v4().to_string()),
        role: Some("ROLE_AGENT".into()),
        parts: vec![a2a::Part::text(text)],
        context_id: None,
        task_id: None,
        extra,
    }
}

/// Accepts `params.message`: its context's session (started on first
/// use) and a new task, submitted.
async fn start(shared: &Shared, params: &SendParams) -> Result<Started, RpcError> {
    let message = params
        .message
        .as_ref()
        .ok_or_else(|| invalid("params.message is required"))?;
    if message.is_agent() {
        return Err(invalid("message.role must be ROLE_USER"));
    }
    let parts = prompt(&message.parts)?;
    let agent = &shared.a2a;
    if let Some(task_id) = client_id(message.task_id.as_deref(), "taskId")? {
        let Some(task) = agent.task(&task_id) else {
            return Err(RpcError(-32001, format!("Task not found: {task_id}")));
        };
        let why = match task.status.is_final() {
            true => "is finished; send the next message with its contextId and no taskId",
            false => "is still running; wait for it or cancel it",
        };
        return Err(RpcError(-32004, format!("Task {task_id} {why}")));
    }
    let context_id = client_id(message.context_id.as_deref(), "contextId")?
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let context = agent
        .context(shared, &context_id)
        .await
        .map_err(|e| RpcError(-32603, format!("the session could not start: {e}")))?;
    let task_id = uuid::Uuid::new_v4().to_string();
    let mut user = message.clone();
    user.context_id = Some(context_id.clone());
    user.task_id = Some(task_id.clone());
    if user.message_id.as_deref().is_none_or(str::is_empty) {
        user.message_id = Some(uuid::Uuid::new_v4().to_string());
    }
    user.role = Some("ROLE_USER".into());
    let task = Task {
        id: task_id,
        context_id,
        status: status("TASK_STATE_SUBMITTED", None),
        history: Some(vec![user]),
        artifacts: None,
        extra: Extra::default(),
    };
    agent.put(task.clone());
    Ok(Started {
        task,
        context,
        parts,
    })
}

/// Runs a started task to its end; `events` hears its status changes as
/// A2A `StreamResponse`s. The task as it ended.
async fn run(
    shared: Arc<Shared>,
    started: Started,
    events: mpsc::UnboundedSender<StreamResponse>,
) -> Option<Task> {
    let agent = &shared.a2a;
    let id = started.task.id.clone();
    let context_id = started.task.context_id.clone();
    let status_update = |status: &TaskStatus| StreamResponse {
        status_update: Some(StatusUpdate {
            task_id: id.clone(),
            context_id: context_id.clone(),
            status: status.clone(),
            extra: Extra::default(),
        }),
        ..StreamResponse::default()
    };
    // Working once the context's earlier turns ended, unless cancelled
    // while it waited.
    let begin = || {
        let working = status("TASK_STATE_WORKING", None);
        let mut go = false;
        agent.update(&id, |t| {
            go = t.status.state == "TASK_STATE_SUBMITTED";
            if go {
                t.status = working.clone();
            }
        });
        if go {
            let _ = events.unbounded_send(status_update(&working));
        }
        go
    };
    // Unbounded: the names come from the loop that reads the session's
    // (bounded) events, which must not wait for a streaming client; one
    // name per tool call.
    let (tools, mut tool_names) = tokio::sync::mpsc::unbounded_channel();
    let forward = {
        let events = events.clone();
        let status_update = &status_update;
        async move {
            while let Some(name) = tool_names.recv().await {
                let mut metadata = Extra::default();
                metadata.insert("metadata".into(), json!({"gemini-rs/tool": name}));
                let message = agent_message(format!("Calling {name}"), metadata);
                let working = status("TASK_STATE_WORKING", Some(message));
                let _ = events.unbounded_send(status_update(&working));
            }
        }
    };
    let (end, ()) = tokio::join!(
        async {
            let end = started.context.turn(started.parts, begin, &tools).await;
            drop(tools);
            end
        },
        forward
    );
    let (state, text) = match end {
        TurnEnd::Completed(text) => ("TASK_STATE_COMPLETED", text),
        TurnEnd::Canceled => ("TASK_STATE_CANCELED", "Operation cancelled.".to_string()),
        TurnEnd::Failed(e) => ("TASK_STATE_FAILED", e),
    };
    let mut reply = agent_message(text, Extra::default());
    reply.context_id = Some(context_id.clone());
    reply.task_id = Some(id.clone());
    let ended_status = status(state, Some(reply.clone()));
    let ended = agent.update(&id, |t| {
        t.status = ended_status.clone();
        t.history.get_or_insert_with(Vec::new).push(reply);
    });
    let _ = events.unbounded_send(status_update(&ended_status));
    ended
}

/// `SendMessage`: the task once it ended (or at once, submitted, with
/// `configuration.returnImmediately`).
async fn send(shared: &Arc<Shared>, params: &Value) -> Result<Value, RpcError> {
    let params = send_params(params)?;
    let started = start(shared, &params).await?;
    let submitted = started.task.clone();
    let (events, _) = mpsc::unbounded();
    let running = tokio::spawn(run(shared.clone(), started, events));
    let configuration = params.configuration.unwrap_or_default();
    if configuration.return_immediately == Some(true) {
        return to_json(StreamResponse {
            task: Some(submitted),
            ..StreamResponse::default()
        });
    }
    let task = running
        .await
        .map_err(|e| RpcError(-32603, format!("the task failed: {e}")))?;
    let task = task.map(|t| trim_history(t, configuration.history_length));
    Ok(json!({"task": to_json(task)?}))
}

/// `SendStreamingMessage`: SSE events, the task first, then its status
/// updates until it ends. The task runs on if the client goes away.
fn stream(shared: Arc<Shared>, id: Value, started: Started) -> Response<Body> {
    let (events, receiver) = mpsc::unbounded::<StreamResponse>();
    let first = StreamResponse {
        task: Some(started.task.clone()),
        ..StreamResponse::default()
    };
    let _ = events.unbounded_send(first);
    tokio::spawn(run(shared, started, events));
    let frames = receiver.map(move |result| {
        let message = json!({"jsonrpc": "2.0", "id": id, "result": result});
        Ok::<_, Infallible>(Frame::data(Bytes::from(format!("data: {message}\n\n"))))
    });
    let mut response = Response::new(BodyExt::boxed(StreamBody::new(frames)));
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        hyper::header::CACHE_CONTROL,
        hyper::header::HeaderValue::from_static("no-cache"),
    );
    response
}

/// The last `limit` messages of a task's history (`None`: all of them).
fn trim_history(mut task: Task, limit: Option<u64>) -> Task {
    if let (Some(limit), Some(history)) = (limit, task.history.as_mut()) {
        let keep = usize::try_from(limit).unwrap_or(usize::MAX);
        let drop = history.len().saturating_sub(keep);
        history.drain(..drop);
    }
    task
}

/// The task `params.id` names.
fn named(agent: &Agent, params: &TaskParams) -> Result<(String, Task), RpcError> {
    let id = params
        .id
        .as_deref()
        .ok_or_else(|| invalid("params.id (the task's id) is required"))?;
    let task = agent
        .task(id)
        .ok_or_else(|| RpcError(-32001, format!("Task not found: {id}")))?;
    Ok((id.to_string(), task))
}

/// `GetTask`.
fn get(agent: &Agent, params: &Value) -> Result<Value, RpcError> {
    let params: TaskParams = from_object(params);
    let (_, task) = named(agent, &params)?;
    to_json(trim_history(task, params.history_length))
}

/// `CancelTask`: a task still waiting for its turn is cancelled at once;
/// a running one has its turn cancelled, and is answered once it ended
/// (up to 5 s).
async fn cancel(agent: &Agent, params: &Value) -> Result<Value, RpcError> {
    let (id, _) = named(agent, &from_object(params))?;
    let mut state = String::new();
    let task = agent
        .update(&id, |t| {
            state = t.status.state.clone();
            if state == "TASK_STATE_SUBMITTED" {
                t.status = status("TASK_STATE_CANCELED", None);
            }
        })
        .ok_or_else(|| RpcError(-32001, format!("Task not found: {id}")))?;
    if a2a::is_final(&state) {
        return Err(RpcError(
            -32002,
            format!("Task {id} is finished and cannot be canceled"),
        ));
    }
    if state == "TASK_STATE_SUBMITTED" {
        return to_json(task);
    }
    if let Some(context) = agent.started(&task.context_id) {
        context.cancel();
    }
    for _ in 0..100 {
        if let Some(task) = agent.task(&id)
            && task.status.is_final()
        {
            return to_json(task);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let task = agent
        .task(&id)
        .ok_or_else(|| RpcError(-32001, format!("Task not found: {id}")))?;
    to_json(task)
}
