//! The context window of a model served on this machine, asked of the
//! server where it says: llama.cpp's `GET /props`
//! (`default_generation_settings.n_ctx`) and Ollama's `POST /api/show`
//! (`model_info.<arch>.context_length`). Used for the footer's context
//! left and for compression instead of a guess.

use super::http::build_client;
use super::provider::{ContextWindows, Providers, Wire, known_limits};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::time::Duration;

/// How long one question to a local server may take.
const PROBE_TIMEOUT: Duration = Duration::from_millis(1500);

/// llama.cpp's `/props` (the parts read).
#[derive(Debug, Deserialize)]
struct Props {
    #[serde(default)]
    default_generation_settings: Option<GenerationSettings>,
    #[serde(default)]
    n_ctx: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct GenerationSettings {
    #[serde(default)]
    n_ctx: Option<u64>,
}

/// Ollama's `/api/show` (the parts read).
#[derive(Debug, Deserialize)]
struct Show {
    #[serde(default)]
    model_info: BTreeMap<String, serde_json::Value>,
}

/// The context size in a llama.cpp `/props` body.
pub fn window_from_props(body: &str) -> Option<u64> {
    let props: Props = serde_json::from_str(body).ok()?;
    props
        .default_generation_settings
        .and_then(|g| g.n_ctx)
        .or(props.n_ctx)
        .filter(|n| *n > 0)
}

/// The context length in an Ollama `/api/show` body.
pub fn window_from_show(body: &str) -> Option<u64> {
    let show: Show = serde_json::from_str(body).ok()?;
    show.model_info
        .iter()
        .find(|(k, _)| k.ends_with(".context_length"))
        .and_then(|(_, v)| v.as_u64())
        .filter(|n| *n > 0)
}

/// The server's root: the base URL without its `/v1`.
fn server_root(base_url: &str) -> &str {
    let trimmed = base_url.trim_end_matches('/');
    trimmed.strip_suffix("/v1").unwrap_or(trimmed)
}

async fn get_text(request: reqwest::RequestBuilder) -> Option<String> {
    let response = tokio::time::timeout(PROBE_TIMEOUT, request.send())
        .await
        .ok()?
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    tokio::time::timeout(PROBE_TIMEOUT, response.text())
        .await
        .ok()?
        .ok()
}

impl ContextWindows {
    /// Asks the local server behind `model` for its context window (see
    /// [`probe`]); later lookups of `model` use the answer.
    pub async fn probe(&self, model: &str) {
        if let Some(p) = self.providers() {
            probe(p, model).await;
        }
    }
}

/// Asks the local server behind `model` for its context window and keeps
/// the answer in `providers`; nothing happens for remote servers, models
/// whose window settings declare or that are well known (`gpt-4.1`), or
/// servers that do not say.
pub async fn probe(providers: &Providers, model: &str) {
    let Ok(resolved) = providers.resolve(model) else {
        return;
    };
    let provider = resolved.provider;
    let Some(base) = provider.base_url.as_deref() else {
        return;
    };
    if provider.wire != Wire::OpenAiChat
        || !super::is_loopback(base)
        || known_limits(model).context_window.is_some()
        || provider
            .models
            .get(resolved.model)
            .is_some_and(|l| l.context_window.is_some())
    {
        return;
    }
    let builder = reqwest::Client::builder()
        .no_proxy()
        .connect_timeout(PROBE_TIMEOUT);
    let Ok(client) = build_client(builder) else {
        return;
    };
    let root = server_root(base);
    let mut window = None;
    if let Some(body) = get_text(client.get(format!("{root}/props"))).await {
        window = window_from_props(&body);
    }
    if window.is_none() {
        let show = client
            .post(format!("{root}/api/show"))
            .json(&serde_json::json!({"model": resolved.model}));
        if let Some(body) = get_text(show).await {
            window = window_from_show(&body);
        }
    }
    if let Some(w) = window {
        providers.set_probed_window(model, w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_cpp_props_give_n_ctx() {
        let body = r#"{"default_generation_settings":{"n_ctx":8192,"params":{"temperature":0.8}},
            "total_slots":1,"model_path":"gemma-3-270m.gguf","build_info":"b6000"}"#;
        assert_eq!(window_from_props(body), Some(8192));
        assert_eq!(window_from_props(r#"{"n_ctx":4096}"#), Some(4096));
        assert_eq!(
            window_from_props(r#"{"default_generation_settings":{}}"#),
            None
        );
        assert_eq!(window_from_props("<html>not found</html>"), None);
        assert_eq!(
            window_from_props(r#"{"default_generation_settings":{"n_ctx":0}}"#),
            None
        );
    }

    #[test]
    fn ollama_show_gives_the_architecture_context_length() {
        let body = r#"{"details":{"family":"gemma3"},"model_info":{"general.architecture":"gemma3",
            "gemma3.context_length":32768,"gemma3.embedding_length":640}}"#;
        assert_eq!(window_from_show(body), Some(32768));
        assert_eq!(window_from_show(r#"{"model_info":{}}"#), None);
    }

    #[test]
    fn the_root_drops_v1() {
        assert_eq!(
            server_root("http://127.0.0.1:8080/v1/"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(
            server_root("http://127.0.0.1:8080"),
            "http://127.0.0.1:8080"
        );
    }
}
