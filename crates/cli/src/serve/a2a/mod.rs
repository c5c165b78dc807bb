//! `gemini-rs serve` as an A2A v1.0 agent: the agent card at
//! `/.well-known/agent-card.json` and the JSON-RPC binding at `/a2a`
//! (`SendMessage`, `SendStreamingMessage` over SSE, `GetTask`,
//! `CancelTask`). Each A2A context is one gemini-rs session working in the
//! server's folder; each message starts a task in its context, and the
//! context's turns run one after the other.

mod context;
mod rpc;

use super::Shared;
use super::{Body, full};
use context::Context;
use gemini_rs_protocol::a2a::Task;
use hyper::StatusCode;
use hyper::{HeaderMap, Response};
use serde_json::json;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::OnceCell;

pub use rpc::handle;

/// Where the agent card is served.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";
/// The JSON-RPC endpoint.
pub const RPC_PATH: &str = "/a2a";
/// The A2A protocol version spoken.
const PROTOCOL_VERSION: &str = "1.0";
/// Tasks remembered (the oldest finished ones are forgotten first).
const MAX_TASKS: usize = 10_000;

/// A context's session, started once by its first message.
type Slot = Arc<OnceCell<Arc<Context>>>;

/// The contexts and tasks of the server.
#[derive(Default)]
pub struct Agent {
    contexts: Mutex<HashMap<String, Slot>>,
    tasks: Mutex<Tasks>,
}

/// The tasks, in the order they were created.
#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Task>,
    order: VecDeque<String>,
}

impl Agent {
    /// The session of context `id`, started on first use.
    async fn context(&self, shared: &Shared, id: &str) -> Result<Arc<Context>, String> {
        let slot = self
            .contexts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(id.to_string())
            .or_default()
            .clone();
        let started = slot
            .get_or_try_init(|| Context::start(shared, &shared.root, id))
            .await
            .cloned();
        if started.is_err() {
            self.contexts
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(id);
        }
        started
    }

    /// The running session of context `id`, if it was started.
    fn started(&self, id: &str) -> Option<Arc<Context>> {
        let contexts = self
            .contexts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        contexts.get(id).and_then(|slot| slot.get().cloned())
    }

    /// A copy of task `id`.
    fn task(&self, id: &str) -> Option<Task> {
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .by_id
            .get(id)
            .cloned()
    }

    /// Keeps `task` (replacing the one of its id); forgets the oldest
    /// finished tasks past [`MAX_TASKS`].
    fn put(&self, task: Task) {
        let id = task.id.clone();
        let mut tasks = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if tasks.by_id.insert(id.clone(), task).is_none() {
            tasks.order.push_back(id);
        }
        while tasks.order.len() > MAX_TASKS {
            let Some(oldest) = tasks.order.pop_front() else {
                break;
            };
            let finished = tasks
                .by_id
                .get(&oldest)
                .is_some_and(|t| t.status.is_final());
            if finished {
                tasks.by_id.remove(&oldest);
            } else {
                tasks.order.push_back(oldest);
                break;
            }
        }
    }

    /// Changes task `id` with `change`; the task after it.
    fn update(&self, id: &str, change: impl FnOnce(&mut Task)) -> Option<Task> {
        let mut tasks = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let task = tasks.by_id.get_mut(id)?;
        change(task);
        Some(task.clone())
    }

    /// Ends the sessions of the contexts idle for `idle` (their
    /// recordings stay: a later message to the context resumes it).
    pub async fn reap(&self, idle: Duration) {
        let mut closing: Vec<(String, Arc<Context>)> = Vec::new();
        self.contexts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|id, slot| match slot.get().filter(|c| c.idle_for(idle)) {
                Some(context) => {
                    closing.push((id.clone(), context.clone()));
                    false
                }
                None => true,
            });
        for (id, context) in closing {
            tracing::debug!("serve: closing the idle A2A context {id}");
            context.close().await;
        }
    }

    /// Ends every context's session.
    pub async fn shutdown(&self) {
        let slots: Vec<Slot> = self
            .contexts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain()
            .map(|(_, s)| s)
            .collect();
        for slot in slots {
            if let Some(context) = slot.get() {
                context.close().await;
            }
        }
    }
}

/// The agent card; its URL is the one the client used to reach us (the
/// `Host` header), else the bound address.
pub fn card(shared: &Shared, headers: &HeaderMap) -> Response<Body> {
    let host = headers
        .get(hyper::header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
        })
        .map(str::to_string)
        .unwrap_or_else(|| shared.local.to_string());
    let mut card = json!({
        "name": "gemini-rs",
        "description": format!(
            "gemini-rs, a Rust implementation of the Gemini CLI coding agent: it reads, searches, writes and edits files and runs commands in {} (each A2A context is one session).",
            shared.root.display()
        ),
        "supportedInterfaces": [{
            "url": format!("http://{host}{RPC_PATH}"),
            "protocolBinding": "JSONRPC",
            "protocolVersion": PROTOCOL_VERSION,
        }],
        "provider": {"organization": "gemini-rs", "url": "https://github.com/google-gemini/gemini-cli"},
        "version": env!("CARGO_PKG_VERSION"),
        "capabilities": {"streaming": true, "pushNotifications": false},
        "defaultInputModes": ["text/plain", "application/json"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{
            "id": "coding",
            "name": "Coding agent",
            "description": "Answers questions about the code in its folder and changes it: reads, searches, writes and edits files, and runs shell commands as its approval mode allows.",
            "tags": ["coding", "files", "shell"],
            "examples": ["List the files here and say what the project does."],
        }],
    });
    if shared.token.is_some() {
        card["securitySchemes"] =
            json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "bearer"}}});
        card["securityRequirements"] = json!([{"schemes": {"bearer": {"list": []}}}]);
    }
    full(StatusCode::OK, "application/json", card.to_string())
}
