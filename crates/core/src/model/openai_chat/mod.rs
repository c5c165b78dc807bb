//! OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM,
//! LM Studio, OpenRouter, LiteLLM): `POST {base}/chat/completions` with
//! `stream: true`, translated to and from Gemini contents at this edge. A
//! stream that ends without one event (llama-cpp-python cannot stream a
//! call it chose itself) is asked again unstreamed.

mod request;
mod stream;

use super::ChunkStream;
use super::wire_client::{WireClient, WireSpec};
use gemini_rs_protocol::{GenerateContentRequest, RecordedResponse};
use serde_json::Value;
use stream::OpenAiTranslator;
pub(crate) use stream::call_args;

/// The OpenAI-compatible chat-completions wire.
pub struct OpenAiChat;

/// A [`super::ContentGenerator`] speaking OpenAI chat completions.
pub type OpenAiChatClient = WireClient<OpenAiChat>;

impl WireSpec for OpenAiChat {
    type Translator = OpenAiTranslator;
    const NAME: &'static str = "The OpenAI-compatible API";

    fn url(base: &str) -> String {
        format!("{base}/chat/completions")
    }

    fn authorize(request: reqwest::RequestBuilder, key: Option<&str>) -> reqwest::RequestBuilder {
        match key {
            Some(key) => request.bearer_auth(key),
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

    fn default_max_output(_model: &str) -> Option<u64> {
        // Only what settings declare: servers know their models' limits.
        None
    }

    fn recorded(events: Vec<Value>) -> RecordedResponse {
        RecordedResponse::OpenAiChatStream(events)
    }

    fn unstreamed(body: &Value) -> Option<Value> {
        let mut body = body.clone();
        let map = body.as_object_mut()?;
        map.insert("stream".into(), Value::Bool(false));
        map.remove("stream_options");
        Some(body)
    }

    fn as_event(answer: Value) -> Option<Value> {
        request::completion_as_chunk(answer)
    }
}

/// A recorded stream replayed through the live translator.
pub(crate) fn replay(events: Vec<Value>) -> ChunkStream {
    super::wire_client::replay::<OpenAiChat>(events)
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
