//! `gemini-rs --acp`: an Agent Client Protocol agent on stdio, for editors
//! (Zed, JetBrains, Neovim clients). Each ACP session is a session engine
//! started with the terminal UI's tool set and confirmations; stdout
//! carries only protocol messages.

mod fs;
mod rpc;
mod session;
mod updates;

use crate::args::Args;
use gemini_rs_core::config::GeminiPaths;
use gemini_rs_core::session::Session;
use gemini_rs_core::session::custom_commands::CustomCommand;
use rpc::{Incoming, Peer, RpcError, code};
use serde_json::{Map, Value, json};
use session::AcpSession;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncBufReadExt;

/// The protocol version we speak.
const PROTOCOL_VERSION: u64 = 1;

/// The agent's state shared by request handlers.
#[derive(Clone)]
struct Agent {
    peer: Peer,
    args: Arc<Args>,
    paths: GeminiPaths,
    sessions: Arc<Mutex<HashMap<String, Arc<AcpSession>>>>,
    /// Set when the client offers reading and writing text files.
    client_fs: Arc<AtomicBool>,
}

/// Serves ACP on stdin/stdout until stdin closes; the exit code.
pub async fn run(args: Args, paths: GeminiPaths) -> i32 {
    let (peer, writer) = Peer::stdout();
    let agent = Agent {
        peer: peer.clone(),
        args: Arc::new(args),
        paths,
        sessions: Arc::default(),
        client_fs: Arc::default(),
    };
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if line.trim().is_empty() {
            continue;
        }
        match rpc::parse(&line) {
            Incoming::Request { id, method, params } => {
                let agent = agent.clone();
                tokio::spawn(async move {
                    if let Some(result) = agent.handle(&method, params, id.clone()).await {
                        agent.respond(id, result);
                    }
                });
            }
            Incoming::Notification { method, params } => agent.notification(&method, &params),
            Incoming::Response(message) => peer.answer(&message),
            Incoming::Invalid(id, error) => peer.respond(id, Err(error)),
        }
    }
    // The client closed its end: end every session and its processes.
    peer.close();
    let sessions: Vec<Arc<AcpSession>> = agent
        .sessions
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .drain()
        .map(|(_, s)| s)
        .collect();
    for s in &sessions {
        s.shutdown();
    }
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    drop(agent);
    drop(peer);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(1), writer).await;
    0
}

impl Agent {
    /// Answers a request; `None` when the answer is sent later (a prompt).
    async fn handle(
        &self,
        method: &str,
        params: Value,
        id: Value,
    ) -> Option<Result<Value, RpcError>> {
        Some(match method {
            "initialize" => {
                let fs = |k: &str| {
                    params
                        .pointer(&format!("/clientCapabilities/fs/{k}"))
                        .and_then(Value::as_bool)
                        == Some(true)
                };
                let both = fs("readTextFile") && fs("writeTextFile");
                self.client_fs.store(both, Ordering::SeqCst);
                Ok(initialize())
            }
            "authenticate" => Ok(json!({})),
            "session/new" => self.new_session(&params, None).await,
            "session/load" => self.load_session(&params).await,
            "session/prompt" => {
                return match self.session(&params) {
                    Ok(s) => s.prompt(id, &params).err().map(Err),
                    Err(e) => Some(Err(e)),
                };
            }
            "session/set_mode" => self.session(&params).and_then(|s| {
                let mode = params
                    .get("modeId")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                s.set_mode(mode).map(|()| json!({}))
            }),
            other => Err(RpcError::new(
                code::METHOD_NOT_FOUND,
                format!("Method not found: {other}"),
            )),
        })
    }

    /// Sends an answer; a new session's commands follow it, so the client
    /// already knows the session they are for.
    fn respond(&self, id: Value, mut result: Result<Value, RpcError>) {
        let announce = result.as_mut().ok().and_then(|r| {
            let hidden = r.as_object_mut()?.remove("_announce")?;
            Some((
                hidden.get("sessionId")?.clone(),
                hidden.get("commands")?.clone(),
            ))
        });
        self.peer.respond(id, result);
        if let Some((session, commands)) = announce {
            self.peer.notify(
                "session/update",
                json!({"sessionId": session, "update": {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": commands}}),
            );
        }
    }

    fn notification(&self, method: &str, params: &Value) {
        if method == "session/cancel"
            && let Ok(s) = self.session(params)
        {
            s.cancel();
        }
    }

    /// The session a request names.
    fn session(&self, params: &Value) -> Result<Arc<AcpSession>, RpcError> {
        let id = params
            .get("sessionId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
            .ok_or_else(|| RpcError::new(code::INVALID_PARAMS, format!("Unknown session `{id}`")))
    }

    /// `session/new` (and the start of `session/load` with `resume`).
    async fn new_session(&self, params: &Value, resume: Option<String>) -> Result<Value, RpcError> {
        let cwd = params.get("cwd").and_then(Value::as_str).ok_or_else(|| {
            RpcError::new(code::INVALID_PARAMS, "`cwd` is required (an absolute path)")
        })?;
        let root = std::fs::canonicalize(cwd).map_err(|e| {
            RpcError::new(
                code::INVALID_PARAMS,
                format!("`cwd` {cwd} cannot be used: {e}"),
            )
        })?;
        let env = |k: &str| std::env::var(k).ok();
        let (settings, trusted) = crate::load_settings(&root, &self.paths, &env)
            .map_err(|e| RpcError::new(code::INTERNAL_ERROR, e.to_string()))?;
        let session_id = resume
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let mut config = self.args.session_config(
            settings,
            self.paths.clone(),
            root,
            trusted,
            true,
            session_id.clone(),
        );
        config.resume = resume;
        if self.client_fs.load(Ordering::SeqCst) {
            config.client_fs = Some(Arc::new(fs::AcpFs {
                peer: self.peer.clone(),
                session_id,
            }));
        }
        config.mcp_servers = mcp_servers(params.get("mcpServers"));
        let handle = Session::start(config)
            .await
            .map_err(|e| RpcError::new(code::INTERNAL_ERROR, e.message))?;
        let (ops, events, info, _task) = handle.into_parts();
        let mode = info.approval_mode;
        let commands = available_commands(&info.custom_commands);
        let id = info.session_id.clone();
        let session = Arc::new(AcpSession::new(self.peer.clone(), ops, events, info));
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id.clone(), session);
        Ok(json!({"sessionId": id, "modes": session::modes(mode),
            "_announce": {"sessionId": id, "commands": commands}}))
    }

    /// `session/load`: resumes a recorded session and shows its history.
    async fn load_session(&self, params: &Value) -> Result<Value, RpcError> {
        let id = params
            .get("sessionId")
            .and_then(Value::as_str)
            .ok_or_else(|| RpcError::new(code::INVALID_PARAMS, "`sessionId` is required"))?
            .to_string();
        let started = self.new_session(params, Some(id.clone())).await?;
        let session = self.session(&json!({"sessionId": id}))?;
        let chats = session.info.workspace.project_temp_dir().join("chats");
        if let Ok(found) = gemini_rs_core::recording::find_session(&chats, &id) {
            let history = gemini_rs_core::recording::history_of(&found.record);
            let root = session.info.workspace.target_dir();
            for update in updates::history(&session.info.tools, root, &history) {
                self.peer
                    .notify("session/update", json!({"sessionId": id, "update": update}));
            }
        }
        Ok(json!({"modes": started["modes"], "_announce": started["_announce"]}))
    }
}

/// The answer to `initialize`.
fn initialize() -> Value {
    json!({
        "protocolVersion": PROTOCOL_VERSION,
        "agentCapabilities": {
            "loadSession": true,
            "promptCapabilities": {"image": true, "audio": true, "embeddedContext": true},
            "mcpCapabilities": {"http": true, "sse": true}
        },
        "authMethods": [
            {"id": "gemini-api-key", "name": "Use Gemini API key",
             "description": "Requires GEMINI_API_KEY in the environment"},
            {"id": "vertex-ai", "name": "Vertex AI",
             "description": "Requires GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY"}
        ],
        "agentInfo": {"name": "gemini-rs", "version": env!("CARGO_PKG_VERSION")}
    })
}

/// The slash commands a client can offer: the user's custom commands
/// (sent as prompts, which the session expands).
fn available_commands(custom: &[CustomCommand]) -> Value {
    Value::Array(
        custom
            .iter()
            .map(|c| {
                json!({"name": c.name, "description": c.description,
                    "input": {"hint": "arguments"}})
            })
            .collect(),
    )
}

/// The client's MCP servers (`session/new`) as settings' `mcpServers`
/// entries: stdio (`command`, `args`, `env`), `http` and `sse`.
fn mcp_servers(list: Option<&Value>) -> Vec<(String, Value)> {
    let pairs = |v: Option<&Value>| -> Map<String, Value> {
        v.and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let name = p.get("name")?.as_str()?;
                Some((name.to_string(), p.get("value")?.clone()))
            })
            .collect()
    };
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| {
            let name = s.get("name")?.as_str()?.to_string();
            let entry = match s.get("type").and_then(Value::as_str) {
                Some("http") => json!({"httpUrl": s.get("url")?, "headers": pairs(s.get("headers"))}),
                Some("sse") => json!({"url": s.get("url")?, "headers": pairs(s.get("headers"))}),
                _ => json!({"command": s.get("command")?, "args": s.get("args").cloned().unwrap_or(json!([])),
                    "env": pairs(s.get("env")), "cwd": s.get("cwd").cloned().unwrap_or(Value::Null)}),
            };
            let mut entry = entry;
            if let Some(obj) = entry.as_object_mut() {
                obj.retain(|_, v| !v.is_null());
            }
            Some((name, entry))
        })
        .collect()
}
