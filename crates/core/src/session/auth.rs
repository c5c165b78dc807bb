//! Auth checks and the model client: the REST client with the user's key,
//! or a replay of recorded responses, optionally recorded.

use super::config::{SessionConfig, StartError, StartErrorKind};
use crate::config::{GeminiPaths, Settings};
use crate::model::{
    ContentGenerator, GeminiClient, GeminiConfig, RecordingGenerator, ReplayGenerator, RetryConfig,
};
use std::sync::Arc;

fn auth_error(class: &'static str, message: String) -> StartError {
    StartError::new(StartErrorKind::Auth, class, message)
}

/// The API key, after checking the selected and enforced auth types.
pub fn check_auth(
    settings: &Settings,
    paths: &GeminiPaths,
    needs_key: bool,
) -> Result<Option<String>, StartError> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let truthy = |k: &str| env(k).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let auth = &settings.typed().security.auth;
    let selected = auth.selected_type.clone().filter(|s| !s.is_empty());
    let from_env = if truthy("GOOGLE_GENAI_USE_GCA") {
        Some("oauth-personal")
    } else if truthy("GOOGLE_GENAI_USE_VERTEXAI") {
        Some("vertex-ai")
    } else if env("GEMINI_API_KEY").is_some() {
        Some("gemini-api-key")
    } else {
        None
    };
    let current = selected.clone().or(from_env.map(str::to_string));
    if let Some(enforced) = auth.enforced_type.as_deref().filter(|s| !s.is_empty())
        && current.as_deref() != Some(enforced)
    {
        return Err(auth_error(
            "Error",
            format!(
                "The enforced authentication type is '{enforced}', but the current type is '{}'. Please re-authenticate with the correct type.",
                current.as_deref().unwrap_or("none")
            ),
        ));
    }
    let key = env("GEMINI_API_KEY");
    if needs_key {
        match current.as_deref() {
            Some("oauth-personal")
            | Some("vertex-ai")
            | Some("cloud-shell")
            | Some("compute-default-credentials") => {
                return Err(auth_error(
                    "FatalAuthenticationError",
                    format!(
                        "Authentication type '{}' is not supported by gemini-rs yet. Set GEMINI_API_KEY (an API key from Google AI Studio) and select \"gemini-api-key\" in {}.",
                        current.as_deref().unwrap_or(""),
                        paths.user_settings().display()
                    ),
                ));
            }
            _ if key.is_none() => {
                return Err(auth_error(
                    "FatalAuthenticationError",
                    format!(
                        "Please set an Auth method in your {} or specify one of the following environment variables before running: GEMINI_API_KEY",
                        paths.user_settings().display()
                    ),
                ));
            }
            _ => {}
        }
    }
    Ok(key)
}

/// The model client: a replay of recorded responses, or the Gemini API;
/// wrapped in the recorder when `--record-responses` is given.
pub fn generator(config: &SessionConfig) -> Result<Arc<dyn ContentGenerator>, StartError> {
    let key = check_auth(&config.settings, &config.paths, config.replay.is_none())?;
    let other = |e: crate::model::ModelError| {
        StartError::new(StartErrorKind::Other, "Error", e.to_string())
    };
    let inner: Arc<dyn ContentGenerator> = match &config.replay {
        Some((file, mode)) => Arc::new(ReplayGenerator::from_file(file, *mode).map_err(other)?),
        None => {
            let mut retry = RetryConfig::default();
            if let Some(ms) = config.settings.retry_initial_delay_ms() {
                retry.initial_delay_ms = ms;
            }
            let base_url = std::env::var("GOOGLE_GEMINI_BASE_URL")
                .ok()
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "https://generativelanguage.googleapis.com".to_string());
            Arc::new(
                GeminiClient::new(GeminiConfig {
                    api_key: key.unwrap_or_default(),
                    base_url,
                    retry,
                    proxy: None,
                })
                .map_err(other)?,
            )
        }
    };
    Ok(match &config.record_responses {
        Some(path) => Arc::new(RecordingGenerator::new(inner, path.clone())),
        None => inner,
    })
}
