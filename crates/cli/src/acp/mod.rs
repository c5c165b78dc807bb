//! `gemini-rs --acp`: an Agent Client Protocol agent on stdio, for editors
//! (Zed, JetBrains, Neovim clients), on the official SDK
//! (`agent-client-protocol`, protocol v1). Each ACP session is a session
//! engine started with the terminal UI's tool set and confirmations;
//! stdout carries only protocol messages.
//!
//! The SDK runs handlers one at a time in its dispatch loop, so anything
//! slow (starting a session, a prompt) is handed to a task and answered
//! through its `Responder` later.

mod config;
mod fs;
mod lifecycle;
mod messages;
mod meta;
mod nested;
mod prompt;
mod session;
pub mod transport;
mod updates;
mod workspaces;

use crate::args::Args;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{
    Client, Error, ErrorCode, HandleDispatchFrom, Lines, on_receive_notification,
    on_receive_request,
};
use futures::{Sink, Stream};
use gemini_rs_core::GeminiPaths;
use gemini_rs_core::Session;
use session::AcpSession;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Our side of the connection to the client.
type Connection = agent_client_protocol::v1::ConnectionTo<Client>;

/// The agent's state shared by the handlers.
#[derive(Clone)]
struct Server {
    args: Arc<Args>,
    paths: GeminiPaths,
    sessions: Arc<Mutex<HashMap<String, Arc<AcpSession>>>>,
    /// Set when the client offers reading and writing text files.
    client_fs: Arc<AtomicBool>,
    /// The copies of the sessions started from a template.
    workspaces: workspaces::Workspaces,
}

/// Serves ACP on stdin/stdout until stdin closes; the exit code.
pub async fn run(args: Args, paths: GeminiPaths) -> i32 {
    let (wire, writer) = transport::lines(
        tokio::io::stdin(),
        tokio::io::stdout(),
        transport::MAX_FRAME,
    );
    // Many sessions, many project folders: their registrations are written
    // behind, together, and all of them before the server exits.
    gemini_rs_core::write_registrations_behind();
    let served = serve(Arc::new(args), paths, wire).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), writer).await;
    let _ = tokio::task::spawn_blocking(gemini_rs_core::flush_registrations).await;
    match served {
        Ok(()) => 0,
        Err(e) => {
            tracing::error!("ACP connection failed: {e:?}");
            1
        }
    }
}

/// Serves one ACP connection on `wire` until the client closes it; the
/// connection's sessions end with it (`gemini-rs serve` runs one per
/// WebSocket).
pub async fn serve<S, I>(
    args: Arc<Args>,
    paths: GeminiPaths,
    wire: Lines<S, I>,
) -> Result<(), Error>
where
    S: Sink<String, Error = std::io::Error> + Send + 'static,
    I: Stream<Item = std::io::Result<String>> + Send + 'static,
{
    let server = Server {
        args,
        paths,
        sessions: Arc::default(),
        client_fs: Arc::default(),
        workspaces: workspaces::Workspaces::default(),
    };
    let builder = agent_client_protocol::Agent
        .v1()
        .name("gemini-rs")
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::InitializeRequest, responder, _cx| {
                    responder.respond(s.initialize(&req))
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |_: acp::AuthenticateRequest, responder, _cx| {
                responder.respond(acp::AuthenticateResponse::new())
            },
            on_receive_request!(),
        );
    let served = session_handlers(builder, &server)
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::PromptRequest,
                            responder: Responder<acp::PromptResponse>,
                            _cx| {
                    match s.session(&req.session_id) {
                        Ok(session) => session.prompt(responder, req.prompt),
                        Err(e) => responder.respond_with_error(e),
                    }
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::SetSessionModeRequest, responder, _cx| {
                    let set = s
                        .session(&req.session_id)
                        .and_then(|session| session.set_mode(&req.mode_id.0));
                    responder.respond_with_result(set.map(|()| acp::SetSessionModeResponse::new()))
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::SetSessionConfigOptionRequest, responder, _cx| match s
                    .session(&req.session_id)
                {
                    Ok(session) => session.set_config_option(req, responder),
                    Err(e) => responder.respond_with_error(e),
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: workspaces::PatchRequest, responder, _cx| {
                    let s = s.clone();
                    tokio::spawn(async move {
                        let _ = responder
                            .respond_with_result(s.workspaces.patch(&req.session_id).await);
                    });
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            {
                let s = server.clone();
                async move |note: acp::CancelNotification, _cx| {
                    if let Ok(session) = s.session(&note.session_id) {
                        session.cancel();
                    }
                    Ok(())
                }
            },
            on_receive_notification!(),
        )
        .connect_with(wire, async |cx: Connection| {
            cx.incoming_closed().await;
            // The client closed its end: end every session and its
            // processes; the answers still open go out before we stop.
            server.shutdown().await;
            Ok(())
        })
        .await;
    // After a transport error too.
    server.shutdown().await;
    server.workspaces.release_all();
    served
}

/// The handlers of the session requests: new, load, resume, close,
/// delete, list and fork (the slow ones hand their work to a task).
fn session_handlers(
    builder: agent_client_protocol::v1::Builder<
        agent_client_protocol::Agent,
        impl HandleDispatchFrom<Client> + 'static,
    >,
    server: &Server,
) -> agent_client_protocol::v1::Builder<
    agent_client_protocol::Agent,
    impl HandleDispatchFrom<Client> + 'static,
> {
    builder
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::NewSessionRequest, responder, cx| {
                    s.spawn_new_session(req, responder, cx);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::LoadSessionRequest, responder, cx| {
                    s.spawn_load_session(req, responder, cx);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::ResumeSessionRequest, responder, cx| {
                    s.spawn_resume_session(req, responder, cx);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::CloseSessionRequest, responder, _cx| {
                    s.spawn_close_session(req, responder);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::DeleteSessionRequest, responder, _cx| {
                    s.spawn_delete_session(req, responder);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::ListSessionsRequest, responder, _cx| {
                    responder.respond_with_result(s.list_sessions(&req))
                }
            },
            on_receive_request!(),
        )
        .on_receive_request(
            {
                let s = server.clone();
                async move |req: acp::ForkSessionRequest, responder, cx| {
                    s.spawn_fork_session(req, responder, cx);
                    Ok(())
                }
            },
            on_receive_request!(),
        )
}

impl Server {
    /// The answer to `initialize`; notes whether the client offers files.
    fn initialize(&self, req: &acp::InitializeRequest) -> acp::InitializeResponse {
        let fs = &req.client_capabilities.fs;
        self.client_fs
            .store(fs.read_text_file && fs.write_text_file, Ordering::SeqCst);
        let auth = |id: &str, name: &str, description: &str| {
            acp::AuthMethod::Agent(
                acp::AuthMethodAgent::new(id.to_string(), name)
                    .description(description.to_string()),
            )
        };
        acp::InitializeResponse::new(ProtocolVersion::V1)
            .agent_capabilities(
                acp::AgentCapabilities::new()
                    .load_session(true)
                    .prompt_capabilities(
                        acp::PromptCapabilities::new()
                            .image(true)
                            .audio(true)
                            .embedded_context(true),
                    )
                    .mcp_capabilities(acp::McpCapabilities::new().http(true).sse(true))
                    .session_capabilities(lifecycle::capabilities()),
            )
            .auth_methods(vec![
                auth(
                    "gemini-api-key",
                    "Use Gemini API key",
                    "Requires GEMINI_API_KEY in the environment",
                ),
                auth(
                    "vertex-ai",
                    "Vertex AI",
                    "Requires GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY",
                ),
            ])
            .agent_info(acp::Implementation::new(
                "gemini-rs",
                env!("CARGO_PKG_VERSION"),
            ))
    }

    /// The session a request names.
    fn session(&self, id: &acp::SessionId) -> Result<Arc<AcpSession>, Error> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&*id.0)
            .cloned()
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::INVALID_PARAMS,
                    format!("Unknown session `{}`", id.0),
                )
            })
    }

    /// `session/new`, started in a task; its commands follow the answer,
    /// so the client already knows the session they are for.
    fn spawn_new_session(
        &self,
        req: acp::NewSessionRequest,
        responder: Responder<acp::NewSessionResponse>,
        cx: Connection,
    ) {
        let server = self.clone();
        tokio::spawn(async move {
            let trajectory = match meta::trajectory(req.meta.as_ref(), &req.cwd) {
                Ok(t) => t,
                Err(e) => {
                    let _ = responder.respond_with_error(e);
                    return;
                }
            };
            let copy = match workspaces::requested(req.meta.as_ref()) {
                Ok(Some(template)) => {
                    match server
                        .workspaces
                        .create(&server.paths, &req.cwd, template)
                        .await
                    {
                        Ok(copy) => Some(copy),
                        Err(e) => {
                            let _ = responder.respond_with_error(e);
                            return;
                        }
                    }
                }
                Ok(None) => None,
                Err(e) => {
                    let _ = responder.respond_with_error(e);
                    return;
                }
            };
            let cwd = copy.as_ref().map_or(req.cwd.clone(), |c| c.root.clone());
            match server
                .start(&cwd, req.mcp_servers, None, trajectory, &cx)
                .await
            {
                Ok(session) => {
                    if let Some(copy) = copy {
                        server
                            .workspaces
                            .keep(session.info.session_id().to_string(), copy);
                    }
                    let answer =
                        acp::NewSessionResponse::new(session.info.session_id().to_string())
                            .modes(updates::modes(session.info.approval_mode()))
                            .config_options(session.config_options());
                    if responder.respond(answer).is_ok() {
                        announce(&cx, &session);
                    }
                }
                Err(e) => {
                    let _ = responder.respond_with_error(e);
                }
            }
        });
    }

    /// `session/load`: resumes a recorded session and shows its history
    /// before answering.
    fn spawn_load_session(
        &self,
        req: acp::LoadSessionRequest,
        responder: Responder<acp::LoadSessionResponse>,
        cx: Connection,
    ) {
        let server = self.clone();
        tokio::spawn(async move {
            let id = req.session_id.0.to_string();
            // A session loaded while open starts again from its recording.
            if let Some(open) = server.take_session(&id) {
                open.close(lifecycle::CLOSE_WAIT).await;
            }
            let trajectory = match meta::trajectory(req.meta.as_ref(), &req.cwd) {
                Ok(t) => t,
                Err(e) => {
                    let _ = responder.respond_with_error(e);
                    return;
                }
            };
            let started = server.start(&req.cwd, req.mcp_servers, Some(id), trajectory, &cx);
            let session = match started.await {
                Ok(session) => session,
                Err(e) => {
                    let _ = responder.respond_with_error(e);
                    return;
                }
            };
            let info = &session.info;
            let found =
                gemini_rs_core::session_history(info.paths(), info.root(), info.session_id());
            if let Ok((_, history)) = found {
                for update in updates::history(info, &history) {
                    let note = acp::SessionNotification::new(req.session_id.clone(), update);
                    let _ = cx.send_notification(note);
                }
            }
            // Every update of the load goes before its answer.
            announce(&cx, &session);
            let answer = acp::LoadSessionResponse::new()
                .modes(updates::modes(info.approval_mode()))
                .config_options(session.config_options());
            let _ = responder.respond(answer);
        });
    }

    /// Starts a session engine in `cwd` (resuming `resume`, keeping its
    /// trajectory in `trajectory`) and keeps it.
    async fn start(
        &self,
        cwd: &std::path::Path,
        servers: Vec<acp::McpServer>,
        resume: Option<String>,
        trajectory: Option<std::path::PathBuf>,
        cx: &Connection,
    ) -> Result<Arc<AcpSession>, Error> {
        let invalid = |message: String| Error::new(ErrorCode::INVALID_PARAMS, message);
        let root = std::fs::canonicalize(cwd)
            .map_err(|e| invalid(format!("`cwd` {} cannot be used: {e}", cwd.display())))?;
        let startup = gemini_rs_core::Startup::load(
            root,
            self.paths.clone(),
            gemini_rs_core::Env::from_process(),
        )
        .map_err(|e| Error::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?;
        let session_id = resume
            .clone()
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let mut config = self.args.session_config(startup, true, session_id.clone());
        // One session among many: its commands' memory counts, not the
        // process's.
        config.limit_scope = gemini_rs_core::LimitScope::Session;
        config.resume = resume;
        config.trajectory = trajectory;
        if self.client_fs.load(Ordering::SeqCst) {
            config.client_fs = Some(Arc::new(fs::AcpFs {
                cx: cx.clone(),
                session_id,
            }));
        }
        config.mcp_servers = prompt::mcp_servers(servers);
        let handle = Session::start(config)
            .await
            .map_err(|e| Error::new(ErrorCode::INTERNAL_ERROR, e.message))?;
        let (ops, events, info, task) = handle.into_parts();
        let id = info.session_id().to_string();
        let session = Arc::new(AcpSession::new(cx.clone(), ops, events, info));
        session.attach_task(task);
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, session.clone());
        Ok(session)
    }

    /// Ends every session (SessionEnd hooks, MCP servers and processes
    /// stopped) and gives them a moment to answer what is still open.
    async fn shutdown(&self) {
        let sessions: Vec<Arc<AcpSession>> = self
            .sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .drain()
            .map(|(_, s)| s)
            .collect();
        if sessions.is_empty() {
            return;
        }
        for s in &sessions {
            s.shutdown();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Tells the client a session's slash commands.
fn announce(cx: &Connection, session: &AcpSession) {
    let update = updates::available_commands(&session.info.commands());
    let note = acp::SessionNotification::new(session.info.session_id().to_string(), update);
    let _ = cx.send_notification(note);
}
