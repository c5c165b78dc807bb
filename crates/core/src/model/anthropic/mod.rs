//! Anthropic Messages: `POST {base}/v1/messages` with `stream: true`,
//! `x-api-key` and `anthropic-version`, translated to and from Gemini
//! contents at this edge.

mod request;
mod stream;

use super::ChunkStream;
use super::provider::known_limits;
use super::wire_client::{WireClient, WireSpec};
use gemini_rs_protocol::{GenerateContentRequest, RecordedResponse};
use serde_json::Value;
use stream::AnthropicTranslator;

/// The `anthropic-version` header.
const API_VERSION: &str = "2023-06-01";

/// The Anthropic Messages wire.
pub struct Anthropic;

/// A [`super::ContentGenerator`] speaking Anthropic Messages.
pub type AnthropicClient = WireClient<Anthropic>;

impl WireSpec for Anthropic {
    type Translator = AnthropicTranslator;
    const NAME: &'static str = "The Anthropic API";

    fn url(base: &str) -> String {
        format!("{base}/v1/messages")
    }

    fn authorize(request: reqwest::RequestBuilder, key: Option<&str>) -> reqwest::RequestBuilder {
        let request = request.header("anthropic-version", API_VERSION);
        match key {
            Some(key) => request.header("x-api-key", key),
            None => request,
        }
    }

    fn body(
        model: &str,
        request: &GenerateContentRequest,
        max_output_tokens: Option<u64>,
    ) -> Value {
        request::body(model, request, max_output_tokens)
    }

    fn default_max_output(model: &str) -> Option<u64> {
        known_limits(model).max_output_tokens
    }

    fn recorded(events: Vec<Value>) -> RecordedResponse {
        RecordedResponse::AnthropicMessagesStream(events)
    }
}

/// A recorded stream replayed through the live translator.
pub(crate) fn replay(events: Vec<Value>) -> ChunkStream {
    super::wire_client::replay::<Anthropic>(events)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
