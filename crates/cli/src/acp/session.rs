//! One ACP session: a session engine's handle, and the task that carries
//! out what its events mean (see `updates.rs`): `session/update`
//! notifications, `session/request_permission` requests, and the answer to
//! `session/prompt` when the prompt ends.

use super::config::{ConfigState, SharedConfig};
use super::updates::{self, Action, Translator};
use super::{Connection, prompt};
use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Error, ErrorCode};
use gemini_rs_core::{OpSender, SessionView};
use gemini_rs_protocol::events::ApprovalMode;
use gemini_rs_protocol::events::{AgentEvent, ConfirmationResponse, Op};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// The `session/prompt` request waiting for its prompt to end.
type PendingPrompt = Arc<Mutex<Option<Responder<acp::PromptResponse>>>>;

/// A running ACP session.
pub struct AcpSession {
    ops: OpSender,
    /// What the session is built of.
    pub info: Arc<SessionView>,
    prompt: PendingPrompt,
    /// Set by `session/cancel` until the prompt ends.
    cancelled: Arc<AtomicBool>,
    /// The config options' state (mode, model).
    config: SharedConfig,
    /// The session engine's task, awaited by `session/close`.
    task: Mutex<Option<JoinHandle<()>>>,
}

impl AcpSession {
    /// Adapts a started session; its events go to `cx` from now on.
    pub fn new(
        cx: Connection,
        ops: OpSender,
        events: mpsc::Receiver<AgentEvent>,
        info: Arc<SessionView>,
    ) -> AcpSession {
        let config = ConfigState::new(
            info.summary().model.clone(),
            info.approval_mode(),
            info.known_models(),
        );
        let session = AcpSession {
            ops,
            info,
            prompt: Arc::default(),
            cancelled: Arc::default(),
            config,
            task: Mutex::new(None),
        };
        let pump = Pump {
            cx,
            ops: session.ops.clone(),
            session_id: acp::SessionId::new(session.info.session_id().to_string()),
            translator: Translator::new(session.info.clone()),
            prompt: session.prompt.clone(),
            cancelled: session.cancelled.clone(),
            config: session.config.clone(),
        };
        tokio::spawn(pump.run(events));
        session
    }

    /// Starts a prompt; `responder` answers when it ends.
    pub fn prompt(
        &self,
        responder: Responder<acp::PromptResponse>,
        blocks: Vec<acp::ContentBlock>,
    ) -> Result<(), Error> {
        let parts = match prompt::prompt_parts(blocks) {
            Ok(parts) => parts,
            Err(e) => return responder.respond_with_error(e),
        };
        let mut pending = self
            .prompt
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if pending.is_some() {
            return responder.respond_with_error(Error::new(
                ErrorCode::INVALID_REQUEST,
                "a prompt is already running in this session",
            ));
        }
        self.cancelled.store(false, Ordering::SeqCst);
        if !self.ops.submit(Op::Prompt { parts }) {
            return responder.respond_with_error(Error::new(
                ErrorCode::INTERNAL_ERROR,
                "the session has ended",
            ));
        }
        *pending = Some(responder);
        Ok(())
    }

    /// `session/cancel`: the running prompt ends with `cancelled`.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::SeqCst);
        self.ops.submit(Op::Cancel);
    }

    /// `session/set_mode`.
    pub fn set_mode(&self, mode: &str) -> Result<(), Error> {
        let mode = ApprovalMode::parse(mode).ok_or_else(|| {
            Error::new(
                ErrorCode::INVALID_PARAMS,
                format!("unknown mode `{mode}` (default, auto_edit, yolo, plan)"),
            )
        })?;
        if !self.info.trusted() && !gemini_rs_core::mode_allowed_untrusted(mode) {
            return Err(Error::new(
                ErrorCode::INVALID_PARAMS,
                gemini_rs_core::untrusted_mode_refusal(mode),
            ));
        }
        self.ops.submit(Op::SetApprovalMode { mode });
        Ok(())
    }

    /// The config options now (`configOptions` of `session/new`).
    pub fn config_options(&self) -> Vec<acp::SessionConfigOption> {
        self.config
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .options()
    }

    /// `session/set_config_option`: `mode` switches at once; `model` is
    /// answered when the session has switched (or refused, with why).
    pub fn set_config_option(
        &self,
        req: acp::SetSessionConfigOptionRequest,
        responder: Responder<acp::SetSessionConfigOptionResponse>,
    ) -> Result<(), Error> {
        let acp::SessionConfigOptionValue::ValueId { value } = &req.value else {
            return responder.respond_with_error(Error::new(
                ErrorCode::INVALID_PARAMS,
                "mode and model take one of their values",
            ));
        };
        let value = value.0.to_string();
        match &*req.config_id.0 {
            "mode" => {
                if let Err(e) = self.set_mode(&value) {
                    return responder.respond_with_error(e);
                }
                let mut config = self
                    .config
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if let Some(mode) = ApprovalMode::parse(&value) {
                    config.mode = mode;
                }
                responder.respond(acp::SetSessionConfigOptionResponse::new(config.options()))
            }
            "model" => {
                let mut config = self
                    .config
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if let Some(responder) = config.wait_for_switch(responder) {
                    return responder.respond_with_error(Error::new(
                        ErrorCode::INVALID_REQUEST,
                        "a model switch is already under way",
                    ));
                }
                drop(config);
                self.ops.submit(Op::SetModel { model: value });
                Ok(())
            }
            other => responder.respond_with_error(Error::new(
                ErrorCode::INVALID_PARAMS,
                format!("unknown config option `{other}` (mode, model)"),
            )),
        }
    }

    /// Ends the session (SessionEnd hooks, MCP servers stopped).
    pub fn shutdown(&self) {
        self.ops.submit(Op::Shutdown);
    }
}

/// `session/close`'s part: the session's engine task, and its end.
impl AcpSession {
    /// Keeps the session engine's task, for [`AcpSession::close`].
    pub fn attach_task(&self, task: JoinHandle<()>) {
        *self
            .task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(task);
    }

    /// Cancels the running prompt (answered `cancelled`) and ends the
    /// session, waiting up to `wait` for its end: SessionEnd hooks run,
    /// MCP servers and background processes stopped.
    pub async fn close(&self, wait: Duration) {
        self.cancel();
        self.shutdown();
        let task = self
            .task
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(task) = task
            && tokio::time::timeout(wait, task).await.is_err()
        {
            tracing::warn!(session = %self.info.session_id(), "the session did not end in {wait:?}");
        }
    }
}

/// Forwards one session's events.
struct Pump {
    cx: Connection,
    ops: OpSender,
    session_id: acp::SessionId,
    translator: Translator,
    prompt: PendingPrompt,
    cancelled: Arc<AtomicBool>,
    config: SharedConfig,
}

impl Pump {
    async fn run(mut self, mut events: mpsc::Receiver<AgentEvent>) {
        while let Some(event) = events.recv().await {
            let changed = self
                .config
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .observe(&event);
            if let Some(update) = changed {
                let note = acp::SessionNotification::new(self.session_id.clone(), update);
                let _ = self.cx.send_notification(note);
            }
            match self.translator.translate(event) {
                Action::Show(shown) => {
                    for update in shown {
                        let note = acp::SessionNotification::new(self.session_id.clone(), update);
                        // Fails only once the connection is gone.
                        let _ = self.cx.send_notification(note);
                    }
                }
                Action::Ask { call_id, request } => self.ask(call_id, request),
                Action::Submit(op) => {
                    self.ops.submit(op);
                }
                Action::Finished(result) => {
                    // The turn's usage goes before the prompt's answer.
                    let usage = self.translator.usage_update();
                    let note = acp::SessionNotification::new(self.session_id.clone(), usage);
                    let _ = self.cx.send_notification(note);
                    self.finish(result)
                }
                Action::Ended => break,
            }
        }
        // A prompt or a switch still open when the session ends is answered.
        self.config
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .abandon();
        if let Some(responder) = self.take_prompt() {
            let _ = responder.respond(acp::PromptResponse::new(acp::StopReason::Cancelled));
        }
    }

    fn take_prompt(&self) -> Option<Responder<acp::PromptResponse>> {
        self.prompt
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// Answers the running `session/prompt`.
    fn finish(&self, result: Result<acp::PromptResponse, String>) {
        let Some(responder) = self.take_prompt() else {
            return;
        };
        let cancelled = self.cancelled.swap(false, Ordering::SeqCst);
        let _ = match result {
            _ if cancelled => {
                responder.respond(acp::PromptResponse::new(acp::StopReason::Cancelled))
            }
            Ok(response) => responder.respond(response),
            Err(message) => {
                responder.respond_with_error(Error::new(ErrorCode::INTERNAL_ERROR, message))
            }
        };
    }

    /// Asks the client; its answer (or none, when the connection closes
    /// first) goes back to the session. The wait runs in its own task: the
    /// session goes on (a cancel may end the prompt meanwhile).
    fn ask(&self, call_id: String, request: Box<acp::RequestPermissionRequest>) {
        let cx = self.cx.clone();
        let ops = self.ops.clone();
        tokio::spawn(async move {
            let answer = cx.send_request(*request).block_task().await.ok();
            ops.submit(Op::Confirm(ConfirmationResponse {
                call_id,
                outcome: updates::confirmation(answer),
                modified_args: None,
                feedback: None,
            }));
        });
    }
}
