//! The session's settings as ACP config options (`session/new`'s
//! `configOptions`, `session/set_config_option`): the approval mode and
//! the model, so an editor's pickers can switch them. A model switch is
//! answered once the session has taken it (or refused it).

use agent_client_protocol::v1::Responder;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Error, ErrorCode};
use gemini_rs_protocol::events::{AgentEvent, ApprovalMode};
use std::sync::{Arc, Mutex};

/// The answer to a model switch, waiting for the session's verdict.
type PendingSwitch = Responder<acp::SetSessionConfigOptionResponse>;

/// What the options show now, and a model switch in flight.
pub struct ConfigState {
    /// The model in use.
    pub model: String,
    /// The approval mode in use.
    pub mode: ApprovalMode,
    /// The models the picker offers.
    known: Vec<String>,
    pending: Option<PendingSwitch>,
}

/// Shared between the session's handle and its event pump.
pub type SharedConfig = Arc<Mutex<ConfigState>>;

impl ConfigState {
    /// The state a session starts with.
    pub fn new(model: String, mode: ApprovalMode, known: Vec<String>) -> SharedConfig {
        Arc::new(Mutex::new(ConfigState {
            model,
            mode,
            known,
            pending: None,
        }))
    }

    /// The options: the mode (each approval mode) and the model (the one
    /// in use first, then the known ones).
    pub fn options(&self) -> Vec<acp::SessionConfigOption> {
        let modes = super::updates::modes(self.mode)
            .available_modes
            .into_iter()
            .map(|m| acp::SessionConfigSelectOption::new(m.id.0.to_string(), m.name))
            .collect::<Vec<_>>();
        let mut models = vec![self.model.clone()];
        models.extend(self.known.iter().filter(|m| **m != self.model).cloned());
        let models = models
            .into_iter()
            .map(|m| acp::SessionConfigSelectOption::new(m.clone(), m))
            .collect::<Vec<_>>();
        vec![
            acp::SessionConfigOption::select("mode", "Mode", self.mode.as_str(), modes)
                .category(acp::SessionConfigOptionCategory::Mode),
            acp::SessionConfigOption::select("model", "Model", self.model.clone(), models)
                .category(acp::SessionConfigOptionCategory::Model),
        ]
    }

    /// Waits for the session's verdict on a model switch; gives the
    /// responder back when one is already waiting.
    pub fn wait_for_switch(&mut self, responder: PendingSwitch) -> Option<PendingSwitch> {
        if self.pending.is_some() {
            return Some(responder);
        }
        self.pending = Some(responder);
        None
    }

    /// Follows the session's events: the model and mode in use, and the
    /// verdict on a switch in flight (its `ModelChanged` or its `Error`).
    /// A change the client did not ask for (a plan tool leaving plan mode,
    /// `/model` in a command) comes back as the update to send.
    pub fn observe(&mut self, event: &AgentEvent) -> Option<acp::SessionUpdate> {
        match event {
            AgentEvent::ModelChanged { model, .. } => {
                self.model = model.clone();
                match self.pending.take() {
                    Some(responder) => {
                        let answer = acp::SetSessionConfigOptionResponse::new(self.options());
                        let _ = responder.respond(answer);
                        None
                    }
                    None => Some(self.update()),
                }
            }
            AgentEvent::ApprovalModeChanged { mode } if *mode != self.mode => {
                self.mode = *mode;
                Some(self.update())
            }
            AgentEvent::Error { message, .. } => {
                if let Some(responder) = self.pending.take() {
                    let _ = responder
                        .respond_with_error(Error::new(ErrorCode::INVALID_PARAMS, message.clone()));
                }
                None
            }
            _ => None,
        }
    }

    fn update(&self) -> acp::SessionUpdate {
        acp::SessionUpdate::ConfigOptionUpdate(acp::ConfigOptionUpdate::new(self.options()))
    }

    /// A switch still waiting when the session ends is refused.
    pub fn abandon(&mut self) {
        if let Some(responder) = self.pending.take() {
            let _ = responder.respond_with_error(Error::new(
                ErrorCode::INTERNAL_ERROR,
                "the session has ended",
            ));
        }
    }
}
