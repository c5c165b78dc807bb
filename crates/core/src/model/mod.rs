//! Model backends behind one trait: the Gemini REST client, replay of
//! recorded responses (`--fake-responses`) and a recorder
//! (`--record-responses`).

mod anthropic;
pub mod discovery;
#[cfg(test)]
mod discovery_tests;
mod error;
pub(crate) mod estimate;
mod gemini;
pub mod google_auth;
pub(crate) mod http;
mod limits;
pub(crate) mod local_window;
pub mod logprobs;
mod openai_chat;
mod origin;
pub(crate) mod overflow;
pub mod prices;
pub mod provider;
mod recorder;
mod replay;
mod retry;
pub mod router;
mod schema;
mod sse;
mod wire;
mod wire_client;

pub use anthropic::AnthropicClient;
pub use error::ModelError;
pub use gemini::{GeminiClient, GeminiConfig, VertexTarget};
pub use limits::{RetryNotice, Transport, is_loopback};
pub use openai_chat::OpenAiChatClient;
pub use origin::Named;
pub(crate) use origin::name_error;
pub use recorder::{RecordingGenerator, ResponseSink};
pub use replay::{ReplayGenerator, ReplayMode};
pub use retry::RetryConfig;
pub use wire::WireConfig;

use futures::future::BoxFuture;
use gemini_rs_protocol::{
    GenerateContentRequest, GenerateContentResponse, GenerationConfig, ThinkingConfig,
};
use serde_json::Number;
use tokio_util::sync::CancellationToken;

/// The chunks of a streamed answer, in order.
pub type ChunkStream =
    futures::stream::BoxStream<'static, Result<GenerateContentResponse, ModelError>>;

/// Something that answers model requests.
pub trait ContentGenerator: Send + Sync {
    /// `streamGenerateContent`: resolves once the stream is open.
    fn generate_stream<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>>;

    /// `generateContent`: one whole answer.
    fn generate<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>>;
}

/// True for the Gemini 3 family (`gemini-3-...`, also as `models/gemini-3-...`),
/// whose requests differ: thinking level, thought signatures on calls, media
/// nested in function responses.
pub fn is_gemini_3(model: &str) -> bool {
    model
        .strip_prefix("models/")
        .unwrap_or(model)
        .starts_with("gemini-3-")
}

/// The `generationConfig` Gemini CLI v0.27.4 sends for a main-loop request
/// to `model` (its `chat-base-3` / `chat-base-2.5` / `base` model configs).
pub fn default_generation_config(model: &str) -> GenerationConfig {
    let model = model.strip_prefix("models/").unwrap_or(model);
    let chat = |thinking: ThinkingConfig| GenerationConfig {
        temperature: Some(Number::from(1)),
        top_p: Number::from_f64(0.95),
        top_k: Some(Number::from(64)),
        thinking_config: Some(thinking),
        ..GenerationConfig::default()
    };
    if is_gemini_3(model) {
        chat(ThinkingConfig {
            include_thoughts: Some(true),
            thinking_level: Some("HIGH".to_string()),
            ..ThinkingConfig::default()
        })
    } else if model.starts_with("gemini-2.5") {
        chat(ThinkingConfig {
            include_thoughts: Some(true),
            thinking_budget: Some(8192),
            ..ThinkingConfig::default()
        })
    } else {
        GenerationConfig {
            temperature: Some(Number::from(0)),
            top_p: Some(Number::from(1)),
            ..GenerationConfig::default()
        }
    }
}

/// The model of a session that has none (`mcp serve`): every call fails
/// with a clear error instead of reaching a network.
pub struct NoModel;

impl NoModel {
    fn error() -> ModelError {
        ModelError::Setup {
            message: "this session has no model (it only runs tool calls)".to_string(),
        }
    }
}

impl ContentGenerator for NoModel {
    fn generate_stream<'a>(
        &'a self,
        _model: &'a str,
        _request: &'a GenerateContentRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        Box::pin(async { Err(NoModel::error()) })
    }

    fn generate<'a>(
        &'a self,
        _model: &'a str,
        _request: &'a GenerateContentRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>> {
        Box::pin(async { Err(NoModel::error()) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(model: &str) -> String {
        serde_json::to_string(&default_generation_config(model)).unwrap()
    }

    #[test]
    fn generation_configs_match_gemini_cli() {
        assert_eq!(
            json("gemini-3-flash-preview"),
            r#"{"temperature":1,"topP":0.95,"topK":64,"thinkingConfig":{"includeThoughts":true,"thinkingLevel":"HIGH"}}"#
        );
        assert_eq!(
            json("gemini-2.5-flash"),
            r#"{"temperature":1,"topP":0.95,"topK":64,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":8192}}"#
        );
        assert_eq!(json("gemma-3-27b-it"), r#"{"temperature":0,"topP":1}"#);
    }
}
