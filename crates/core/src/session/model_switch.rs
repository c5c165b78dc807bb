//! `/model NAME` (the `SetModel` op): the name is checked against the
//! known providers and what they offer before the session switches; a
//! refusal names the known ones and the session keeps its model (a
//! custom alias stands for its model). The
//! model lists `/model`'s picker shows come from the same place.

use super::Engine;
use super::auth::check_auth;
use super::view::SessionView;
use crate::events::AgentEvent;
use crate::model::discovery::{DiscoveryError, ProviderModels, check_model, model_choices};
use crate::model::provider::Wire;

impl Engine {
    /// Switches to `model` from the next request on, or says why not.
    pub(super) async fn switch_model(&mut self, model: String) {
        let model = concrete(model.trim());
        // A `modelConfigs.customAliases` name stands for its model.
        let model = self
            .info
            .settings
            .model_alias(&model)
            .map_or(model, |alias| alias.model);
        if let Err(refused) = self.check_switch(&model).await {
            self.emit(AgentEvent::error(refused.to_string())).await;
            return;
        }
        self.agent.set_model(model);
        let model = self.agent.model().to_string();
        self.ctx.model = model.clone();
        self.info.context_windows.probe(&model).await;
        let context_window = self.info.context_window(&model);
        self.emit(AgentEvent::ModelChanged {
            model: model.clone(),
            context_window,
        })
        .await;
        self.emit(AgentEvent::Info {
            message: format!("Model set to {model}."),
        })
        .await;
    }
}

/// Why the session keeps its model.
#[derive(Debug, thiserror::Error)]
enum SwitchRefused {
    /// An unknown provider or model, or a missing key.
    #[error("{0}")]
    Model(#[from] DiscoveryError),
    /// Gemini without credentials: the first line of the auth error.
    #[error("{first}. The model stays {current}.")]
    NoCredentials { first: String, current: String },
}

impl Engine {
    /// Why `model` cannot be switched to: an unknown provider, a missing
    /// key, a model its server does not list, or Gemini without
    /// credentials. A replayed session only checks the provider.
    async fn check_switch(&self, model: &str) -> Result<(), SwitchRefused> {
        let Some(providers) = self.info.context_windows.providers() else {
            return Ok(());
        };
        let current = self.agent.model();
        if !self.live_model {
            return providers
                .resolve(model)
                .map(|_| ())
                .map_err(|e| SwitchRefused::Model(e.into()));
        }
        check_model(providers, &self.info.env, model, current).await?;
        let gemini = providers
            .resolve(model)
            .is_ok_and(|r| r.provider.id == "gemini" && r.provider.wire == Wire::Gemini);
        if gemini {
            let (settings, paths, env) = (&self.info.settings, &self.info.paths, &self.info.env);
            check_auth(settings, paths, env, true).map_err(|e| {
                let first = e.message.lines().next().unwrap_or_default();
                SwitchRefused::NoCredentials {
                    first: first.trim_end_matches('.').to_string(),
                    current: current.to_string(),
                }
            })?;
        }
        Ok(())
    }
}

impl SessionView {
    /// The models known without asking a server (Gemini's, and those
    /// declared for configured providers): what an ACP client's model
    /// picker offers.
    pub fn known_models(&self) -> Vec<String> {
        match self.context_windows.providers() {
            Some(providers) => crate::model::discovery::known_models(providers, &self.env),
            None => crate::model::discovery::GEMINI_MODELS
                .iter()
                .map(ToString::to_string)
                .collect(),
        }
    }

    /// The models of Gemini and of every configured provider, listed from
    /// their servers where they can say (`/model`'s picker).
    pub async fn model_choices(&self) -> Vec<ProviderModels> {
        match self.context_windows.providers() {
            Some(providers) => model_choices(providers, &self.env).await,
            None => Vec::new(),
        }
    }
}

/// Gemini CLI's short names for a concrete model (`pro`, `flash`,
/// `flash-lite`); `auto` names stay, the agent routes them.
fn concrete(model: &str) -> String {
    match model {
        "pro" => "gemini-2.5-pro",
        "flash" => "gemini-2.5-flash",
        "flash-lite" => "gemini-2.5-flash-lite",
        other => other,
    }
    .to_string()
}
