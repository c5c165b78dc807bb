//! ACP's session lifecycle beyond `session/new` and `session/load`:
//! `session/resume` (the session again, without its history replayed),
//! `session/close` (the session ended and forgotten), `session/delete`
//! (its recorded files removed), `session/list` (the recorded sessions of a
//! folder, or of every project) and `session/fork` (unstable: a copy of a
//! recorded session as a new one).

use super::session::AcpSession;
use super::{Connection, Server, announce, updates};
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Error, ErrorCode};
use gemini_rs_protocol::events::RecordedSessionInfo;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// How long `session/close` waits for a session to end (SessionEnd hooks,
/// MCP servers and background processes stopped) before answering anyway.
pub(super) const CLOSE_WAIT: Duration = Duration::from_secs(10);

/// The session capabilities this agent advertises in `initialize`.
pub fn capabilities() -> acp::SessionCapabilities {
    acp::SessionCapabilities::new()
        .list(acp::SessionListCapabilities::new())
        .delete(acp::SessionDeleteCapabilities::new())
        .resume(acp::SessionResumeCapabilities::new())
        .close(acp::SessionCloseCapabilities::new())
        .fork(acp::SessionForkCapabilities::new())
}

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message)
}

/// `-32002`: a session that is not open or not recorded (the SDK's
/// client takes it as done for `session/close` and `session/delete`).
fn not_found(message: String) -> Error {
    Error::new(ErrorCode::RESOURCE_NOT_FOUND, message)
}

fn internal(message: String) -> Error {
    Error::new(ErrorCode::INTERNAL_ERROR, message)
}

impl Server {
    /// Takes a session out of the open ones (`None` when it is not open).
    pub(super) fn take_session(&self, id: &str) -> Option<Arc<AcpSession>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(id)
    }

    fn open_session(&self, id: &str) -> Option<Arc<AcpSession>> {
        self.sessions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// `session/resume`: the recorded session started again (or the open
    /// one kept); its commands are sent before the answer, no history.
    pub(super) fn spawn_resume_session(
        &self,
        req: acp::ResumeSessionRequest,
        responder: Responder<acp::ResumeSessionResponse>,
        cx: Connection,
    ) {
        let server = self.clone();
        tokio::spawn(async move {
            let id = req.session_id.0.to_string();
            let session = match server.open_session(&id) {
                Some(open) => open,
                None => match server
                    .resume_recorded(&req.cwd, req.mcp_servers, id, &cx)
                    .await
                {
                    Ok(session) => session,
                    Err(e) => {
                        let _ = responder.respond_with_error(e);
                        return;
                    }
                },
            };
            announce(&cx, &session);
            let answer = acp::ResumeSessionResponse::new()
                .modes(updates::modes(session.info.approval_mode()))
                .config_options(session.config_options());
            let _ = responder.respond(answer);
        });
    }

    /// Starts recorded session `id` of `cwd`; an id with no recorded
    /// session in that folder is refused rather than started afresh.
    async fn resume_recorded(
        &self,
        cwd: &Path,
        servers: Vec<acp::McpServer>,
        id: String,
        cx: &Connection,
    ) -> Result<Arc<AcpSession>, Error> {
        let root = std::fs::canonicalize(cwd)
            .map_err(|e| invalid(format!("`cwd` {} cannot be used: {e}", cwd.display())))?;
        if !gemini_rs_core::session_exists(&self.paths, &root, &id) {
            return Err(not_found(format!(
                "no session `{id}` is recorded for {}",
                root.display()
            )));
        }
        self.start(&root, servers, Some(id), None, cx).await
    }

    /// `session/close`: the session's running prompt cancelled, the
    /// session ended (its MCP servers and processes stopped) and
    /// forgotten; answered once it has ended.
    pub(super) fn spawn_close_session(
        &self,
        req: acp::CloseSessionRequest,
        responder: Responder<acp::CloseSessionResponse>,
    ) {
        let Some(session) = self.take_session(&req.session_id.0) else {
            let _ = responder
                .respond_with_error(not_found(format!("Unknown session `{}`", req.session_id.0)));
            return;
        };
        let workspaces = self.workspaces.clone();
        let id = req.session_id.0.to_string();
        tokio::spawn(async move {
            session.close(CLOSE_WAIT).await;
            // A copy from a template is unmounted (ask for its patch first).
            workspaces.release(&id);
            let _ = responder.respond(acp::CloseSessionResponse::new());
        });
    }

    /// `session/delete`: the session closed if it is open, then every file
    /// recording it removed.
    pub(super) fn spawn_delete_session(
        &self,
        req: acp::DeleteSessionRequest,
        responder: Responder<acp::DeleteSessionResponse>,
    ) {
        let server = self.clone();
        tokio::spawn(async move {
            let id = req.session_id.0.to_string();
            let mut roots = gemini_rs_core::recorded_projects(&server.paths);
            if let Some(open) = server.take_session(&id) {
                roots.insert(0, open.info.root().to_path_buf());
                open.close(CLOSE_WAIT).await;
            }
            let found = roots.into_iter().find(|root| recorded(&server, root, &id));
            let Some(root) = found else {
                let _ = responder
                    .respond_with_error(not_found(format!("no recorded session `{id}` to delete")));
                return;
            };
            let _ = match gemini_rs_core::delete_session(&server.paths, &root, &id) {
                Ok(_) => responder.respond(acp::DeleteSessionResponse::new()),
                Err(e) => responder.respond_with_error(internal(e.to_string())),
            };
        });
    }

    /// `session/list`: the recorded sessions of `cwd` (of every registered
    /// project without one), the last updated first.
    pub(super) fn list_sessions(
        &self,
        req: &acp::ListSessionsRequest,
    ) -> Result<acp::ListSessionsResponse, Error> {
        let roots = match &req.cwd {
            Some(cwd) if !cwd.is_absolute() => {
                return Err(invalid(format!("`cwd` {} is not absolute", cwd.display())));
            }
            // A folder that does not exist has no sessions.
            Some(cwd) => std::fs::canonicalize(cwd).ok().into_iter().collect(),
            None => gemini_rs_core::recorded_projects(&self.paths),
        };
        let mut listed: Vec<(String, acp::SessionInfo)> = roots
            .iter()
            .flat_map(|root| {
                gemini_rs_core::list_sessions(&self.paths, root)
                    .into_iter()
                    .map(move |s| (s.last_updated.clone(), session_info(root, &s)))
            })
            .collect();
        listed.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(acp::ListSessionsResponse::new(
            listed.into_iter().map(|(_, info)| info).collect(),
        ))
    }

    /// `session/fork` (unstable): recorded session `sessionId` of `cwd`
    /// copied as a new session, which is started; the source is left as
    /// it is. Its commands follow the answer, as for `session/new`.
    pub(super) fn spawn_fork_session(
        &self,
        req: acp::ForkSessionRequest,
        responder: Responder<acp::ForkSessionResponse>,
        cx: Connection,
    ) {
        let server = self.clone();
        tokio::spawn(async move {
            let id = match server.fork(&req.cwd, &req.session_id.0) {
                Ok(id) => id,
                Err(e) => {
                    let _ = responder.respond_with_error(e);
                    return;
                }
            };
            let trajectory = match super::meta::trajectory(req.meta.as_ref(), &req.cwd) {
                Ok(t) => t,
                Err(e) => {
                    let _ = responder.respond_with_error(e);
                    return;
                }
            };
            let started = server.start(&req.cwd, req.mcp_servers, Some(id), trajectory, &cx);
            match started.await {
                Ok(session) => {
                    let answer =
                        acp::ForkSessionResponse::new(session.info.session_id().to_string())
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

    /// Copies recorded session `source` of `cwd` under a new id; the id.
    fn fork(&self, cwd: &Path, source: &str) -> Result<String, Error> {
        let root = std::fs::canonicalize(cwd)
            .map_err(|e| invalid(format!("`cwd` {} cannot be used: {e}", cwd.display())))?;
        if !recorded(self, &root, source) {
            return Err(not_found(format!(
                "no session `{source}` is recorded for {}",
                root.display()
            )));
        }
        let id = uuid::Uuid::new_v4().to_string();
        gemini_rs_core::fork_session(&self.paths, &root, source, &id)
            .map_err(|e| internal(e.to_string()))?;
        Ok(id)
    }
}

/// True when `root` has a resumable recorded session of exactly `id` (not
/// an index or a prefix, which the terminal's `--delete-session` accepts).
fn recorded(server: &Server, root: &Path, id: &str) -> bool {
    gemini_rs_core::list_sessions(&server.paths, root)
        .iter()
        .any(|s| s.session_id == id)
}

/// A listed session as ACP describes it.
fn session_info(root: &Path, s: &RecordedSessionInfo) -> acp::SessionInfo {
    let title = Some(s.title().trim()).filter(|t| !t.is_empty());
    acp::SessionInfo::new(s.session_id.clone(), PathBuf::from(root))
        .title(title.map(str::to_string))
        .updated_at(s.last_updated.clone())
}
