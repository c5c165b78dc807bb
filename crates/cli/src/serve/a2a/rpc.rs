//! A2A's JSON-RPC binding: the request, its methods, and the task each
//! message runs (answered whole, or as SSE events while it runs).

use super::context::{Context, TurnEnd};
use super::{Agent, terminal};
use crate::serve::Shared;
use crate::serve::{Body, full};
use bytes::Bytes;
use futures::StreamExt;
use futures::channel::mpsc;
use gemini_rs_protocol::Part;
use http_body_util::{BodyExt, Limited, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
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
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let method = message.get("method").and_then(Value::as_str);
    let (Some(method), Some("2.0")) = (method, message["jsonrpc"].as_str()) else {
        let message =
            r#"Invalid request: a JSON-RPC 2.0 object with "jsonrpc": "2.0" and a method"#;
        return answer(&id, Err(RpcError(-32600, message.into())));
    };
    let params = message.get("params").cloned().unwrap_or_else(|| json!({}));
    let agent = &shared.a2a;
    match method {
        "SendMessage" => answer(&id, send(&shared, &params).await),
        "SendStreamingMessage" => match start(&shared, &params).await {
            Ok(started) => stream(shared.clone(), id, started),
            Err(e) => answer(&id, Err(e)),
        },
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
    task: Value,
    context: Arc<Context>,
    parts: Vec<Part>,
}

/// Checks an id a client chose: 1-128 letters, digits, `-`, `_` or `.`.
fn client_id(value: &Value, key: &str) -> Result<Option<String>, RpcError> {
    let Some(v) = value.get(key).filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let id = v.as_str().unwrap_or_default();
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
fn prompt(parts: &[Value]) -> Result<Vec<Part>, RpcError> {
    let mut out = Vec::new();
    for part in parts {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            out.push(Part::text(text));
        } else if let Some(data) = part.get("data") {
            out.push(Part::text(data.to_string()));
        } else if let Some(url) = part.get("url").and_then(Value::as_str) {
            let name = part["filename"].as_str().unwrap_or(url);
            out.push(Part::text(format!("[{name}]({url})")));
        } else if let Some(raw) = part.get("raw").and_then(Value::as_str) {
            let mime = part["mediaType"]
                .as_str()
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

/// Accepts `params.message`: its context's session (started on first
/// use) and a new task, submitted.
async fn start(shared: &Shared, params: &Value) -> Result<Started, RpcError> {
    let message = params
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| invalid("params.message is required"))?;
    if message["role"].as_str() == Some("ROLE_AGENT") {
        return Err(invalid("message.role must be ROLE_USER"));
    }
    let parts = prompt(message["parts"].as_array().map_or(&[][..], Vec::as_slice))?;
    let agent = &shared.a2a;
    if let Some(task_id) = client_id(message, "taskId")? {
        let Some(task) = agent.task(&task_id) else {
            return Err(RpcError(-32001, format!("Task not found: {task_id}")));
        };
        let state = task["status"]["state"].as_str().unwrap_or_default();
        let why = match terminal(state) {
            true => "is finished; send the next message with its contextId and no taskId",
            false => "is still running; wait for it or cancel it",
        };
        return Err(RpcError(-32004, format!("Task {task_id} {why}")));
    }
    let context_id =
        client_id(message, "contextId")?.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let context = agent
        .context(shared, &context_id)
        .await
        .map_err(|e| RpcError(-32603, format!("the session could not start: {e}")))?;
    let task_id = uuid::Uuid::new_v4().to_string();
    let mut user = message.clone();
    user["contextId"] = json!(context_id);
    user["taskId"] = json!(task_id);
    if user["messageId"].as_str().is_none_or(str::is_empty) {
        user["messageId"] = json!(uuid::Uuid::new_v4().to_string());
    }
    user["role"] = json!("ROLE_USER");
    let task = json!({
        "id": task_id,
        "contextId": context_id,
        "status": {"state": "TASK_STATE_SUBMITTED", "timestamp": now()},
        "history": [user],
    });
    agent.put(task.clone());
    Ok(Started {
        task,
        context,
        parts,
    })
}

/// Runs a started task to its end; `events` hears its status changes as
/// A2A `StreamResponse`s. The task as it ended.
async fn run(shared: Arc<Shared>, started: Started, events: mpsc::UnboundedSender<Value>) -> Value {
    let agent = &shared.a2a;
    let id = started.task["id"].as_str().unwrap_or_default().to_string();
    let context_id = started.task["contextId"].clone();
    let status_update = |status: &Value| json!({"statusUpdate": {"taskId": id, "contextId": context_id, "status": status}});
    // Working once the context's earlier turns ended, unless cancelled
    // while it waited.
    let begin = || {
        let working = json!({"state": "TASK_STATE_WORKING", "timestamp": now()});
        let mut go = false;
        agent.update(&id, |t| {
            go = t["status"]["state"] == "TASK_STATE_SUBMITTED";
            if go {
                t["status"] = working.clone();
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
        async move {
            while let Some(name) = tool_names.recv().await {
                let mut status = json!({"state": "TASK_STATE_WORKING", "timestamp": now()});
                status["message"] = json!({
                    "messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_AGENT",
                    "parts": [{"text": format!("Calling {name}")}],
                    "metadata": {"gemini-rs/tool": name},
                });
                let _ = events.unbounded_send(status_update(&status));
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
    let reply = json!({
        "messageId": uuid::Uuid::new_v4().to_string(),
        "role": "ROLE_AGENT",
        "parts": [{"text": text}],
        "contextId": context_id,
        "taskId": id,
    });
    let status = json!({"state": state, "message": reply, "timestamp": now()});
    let ended = agent.update(&id, |t| {
        t["status"] = status.clone();
        if let Some(history) = t["history"].as_array_mut() {
            history.push(reply.clone());
        }
    });
    let _ = events.unbounded_send(status_update(&status));
    ended.unwrap_or(Value::Null)
}

/// `SendMessage`: the task once it ended (or at once, submitted, with
/// `configuration.returnImmediately`).
async fn send(shared: &Arc<Shared>, params: &Value) -> Result<Value, RpcError> {
    let started = start(shared, params).await?;
    let submitted = started.task.clone();
    let (events, _) = mpsc::unbounded();
    let running = tokio::spawn(run(shared.clone(), started, events));
    if params["configuration"]["returnImmediately"] == json!(true) {
        return Ok(json!({"task": submitted}));
    }
    let task = running
        .await
        .map_err(|e| RpcError(-32603, format!("the task failed: {e}")))?;
    let limit = params["configuration"]["historyLength"].as_u64();
    Ok(json!({"task": trim_history(task, limit)}))
}

/// `SendStreamingMessage`: SSE events, the task first, then its status
/// updates until it ends. The task runs on if the client goes away.
fn stream(shared: Arc<Shared>, id: Value, started: Started) -> Response<Body> {
    let (events, receiver) = mpsc::unbounded::<Value>();
    let _ = events.unbounded_send(json!({"task": started.task}));
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
fn trim_history(mut task: Value, limit: Option<u64>) -> Value {
    if let (Some(limit), Some(history)) = (limit, task["history"].as_array_mut()) {
        let keep = usize::try_from(limit).unwrap_or(usize::MAX);
        let drop = history.len().saturating_sub(keep);
        history.drain(..drop);
    }
    task
}

/// The task `params.id` names.
fn named(agent: &Agent, params: &Value) -> Result<(String, Value), RpcError> {
    let id = params["id"]
        .as_str()
        .ok_or_else(|| invalid("params.id (the task's id) is required"))?;
    let task = agent
        .task(id)
        .ok_or_else(|| RpcError(-32001, format!("Task not found: {id}")))?;
    Ok((id.to_string(), task))
}

/// `GetTask`.
fn get(agent: &Agent, params: &Value) -> Result<Value, RpcError> {
    let (_, task) = named(agent, params)?;
    Ok(trim_history(task, params["historyLength"].as_u64()))
}

/// `CancelTask`: a task still waiting for its turn is cancelled at once;
/// a running one has its turn cancelled, and is answered once it ended
/// (up to 5 s).
async fn cancel(agent: &Agent, params: &Value) -> Result<Value, RpcError> {
    let (id, _) = named(agent, params)?;
    let mut state = String::new();
    let task = agent
        .update(&id, |t| {
            state = t["status"]["state"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if state == "TASK_STATE_SUBMITTED" {
                t["status"] = json!({"state": "TASK_STATE_CANCELED", "timestamp": now()});
            }
        })
        .ok_or_else(|| RpcError(-32001, format!("Task not found: {id}")))?;
    if terminal(&state) {
        return Err(RpcError(
            -32002,
            format!("Task {id} is finished and cannot be canceled"),
        ));
    }
    if state == "TASK_STATE_SUBMITTED" {
        return Ok(task);
    }
    let context = task["contextId"].as_str().unwrap_or_default();
    if let Some(context) = agent.started(context) {
        context.cancel();
    }
    for _ in 0..100 {
        if let Some(task) = agent.task(&id)
            && terminal(task["status"]["state"].as_str().unwrap_or_default())
        {
            return Ok(task);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    agent
        .task(&id)
        .ok_or_else(|| RpcError(-32001, format!("Task not found: {id}")))
}
