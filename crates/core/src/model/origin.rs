//! Errors that name their provider: [`Named`] wraps one provider's client
//! and gives every failure (opening the call, or later in its stream) the
//! provider's id, API, base URL and the variable or setting that chose
//! that URL, plus a hint when the server could not be reached.

use super::{ChunkStream, ContentGenerator, ModelError};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use gemini_rs_protocol::events::ApiOrigin;
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// One provider's client whose errors name the provider.
pub struct Named {
    inner: Arc<dyn ContentGenerator>,
    origin: ApiOrigin,
}

impl Named {
    /// Wraps `inner`, the client of the provider `origin` describes.
    pub fn new(inner: Arc<dyn ContentGenerator>, origin: ApiOrigin) -> Named {
        Named { inner, origin }
    }
}

/// `error` with `origin` (cancellations and already named errors stay).
pub(crate) fn name_error(error: ModelError, origin: &ApiOrigin) -> ModelError {
    match error {
        ModelError::Cancelled | ModelError::AtProvider { .. } => error,
        error => ModelError::AtProvider {
            hint: hint(&error, origin),
            origin: Box::new(origin.clone()),
            error: Box::new(error),
        },
    }
}

/// What to try when the server could not be reached: start the local
/// server, or check the network.
fn hint(error: &ModelError, origin: &ApiOrigin) -> Option<String> {
    let error = match error {
        ModelError::RetriesExhausted { last, .. } => last.as_ref(),
        other => other,
    };
    if !matches!(
        error,
        ModelError::Connection { .. } | ModelError::Unreachable { .. }
    ) {
        return None;
    }
    let url = reqwest::Url::parse(&origin.base_url).ok();
    let host = url
        .as_ref()
        .map(|u| {
            let host = u.host_str().unwrap_or_default();
            match u.port_or_known_default() {
                Some(port) => format!("{host}:{port}"),
                None => host.to_string(),
            }
        })
        .unwrap_or_else(|| origin.base_url.clone());
    let ollama = origin.provider == "ollama" || url.and_then(|u| u.port()) == Some(11434);
    Some(if ollama {
        let root = origin.base_url.trim_end_matches('/');
        let root = root.strip_suffix("/v1").unwrap_or(root);
        format!(
            "Is Ollama running? Start it with `ollama serve`, or point OLLAMA_HOST at it (now {root})."
        )
    } else if super::is_loopback(&origin.base_url) {
        format!(
            "Is the server on this machine running and listening on {host}? Start it, or change {}.",
            origin.configured_by
        )
    } else {
        "Check your network connection and proxy settings (HTTPS_PROXY).".to_string()
    })
}

impl ContentGenerator for Named {
    fn generate_stream<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        async move {
            let stream = self
                .inner
                .generate_stream(model, request, cancel)
                .await
                .map_err(|e| name_error(e, &self.origin))?;
            let origin = self.origin.clone();
            Ok(stream
                .map(move |item| item.map_err(|e| name_error(e, &origin)))
                .boxed())
        }
        .boxed()
    }

    fn generate<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>> {
        async move {
            self.inner
                .generate(model, request, cancel)
                .await
                .map_err(|e| name_error(e, &self.origin))
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn origin(provider: &str, base_url: &str, by: &str) -> ApiOrigin {
        ApiOrigin {
            provider: provider.into(),
            api: "OpenAI-compatible API".into(),
            base_url: base_url.into(),
            configured_by: by.into(),
        }
    }

    #[test]
    fn errors_name_the_provider_and_hint_at_local_servers() {
        let refused = || ModelError::Unreachable {
            url: "http://127.0.0.1:11434/v1/chat/completions".into(),
            message: "connection refused".into(),
        };
        let o = origin("ollama", "http://127.0.0.1:11434/v1", "OLLAMA_HOST");
        let text = name_error(refused(), &o).to_string();
        assert!(text.contains("provider `ollama`"), "{text}");
        assert!(text.contains("from OLLAMA_HOST"), "{text}");
        assert!(
            text.contains("Is Ollama running?") && text.contains("now http://127.0.0.1:11434)"),
            "{text}"
        );
        let o = origin(
            "local",
            "http://localhost:8080/v1",
            "model.providers.local.baseUrl",
        );
        let text = name_error(refused(), &o).to_string();
        assert!(
            text.contains("localhost:8080")
                && text.contains("change model.providers.local.baseUrl"),
            "{text}"
        );
        let o = origin("openai", "https://api.openai.com/v1", "the default");
        let stalled = ModelError::Stalled {
            seconds: 300,
            stage: "before answering".into(),
        };
        let named = name_error(stalled, &o);
        assert_eq!(named.api(), "OpenAI-compatible API");
        assert!(!named.to_string().contains("Is "), "{named}");
        assert_eq!(name_error(ModelError::Cancelled, &o), ModelError::Cancelled);
    }
}
