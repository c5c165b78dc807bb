//! Why a model call failed, with a message that tells the user what to
//! do next.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a model call failed. Each message tells the user what to do next.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ModelError {
    /// The caller cancelled the request.
    #[error("The request to the model was cancelled.")]
    Cancelled,
    /// HTTP 400: the API rejected the request itself.
    #[error("The Gemini API rejected the request (HTTP 400): {message}")]
    BadRequest {
        /// The API's error message.
        message: String,
    },
    /// HTTP 401/403: the key is wrong or lacks permission.
    #[error(
        "The Gemini API refused the API key (HTTP {status}): {message}. The key is invalid or lacks \
         permission; set GEMINI_API_KEY to a valid Gemini API key."
    )]
    Auth {
        /// 401 or 403.
        status: u16,
        /// The API's error message.
        message: String,
    },
    /// HTTP 404: the model does not exist (or is not available to this key).
    #[error(
        "The model `{model}` was not found (HTTP 404): {message}. Check the model name given with \
         -m, GEMINI_MODEL or model.name in settings."
    )]
    ModelNotFound {
        /// The requested model id.
        model: String,
        /// The API's error message.
        message: String,
    },
    /// HTTP 429: quota or rate limit exhausted (after retries).
    #[error(
        "The Gemini API quota or rate limit was exceeded (HTTP 429): {message}. Wait a moment and \
         try again, or check your quota."
    )]
    RateLimited {
        /// The API's error message.
        message: String,
    },
    /// Any other HTTP error status.
    #[error("The Gemini API returned HTTP {status}: {message}")]
    Api {
        /// The HTTP status code.
        status: u16,
        /// The API's error message.
        message: String,
    },
    /// The server could not be reached (DNS, TCP, TLS, proxy...).
    #[error("Could not connect to {url}: {message}.")]
    Connection {
        /// The endpoint that failed.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The response stream broke off.
    #[error("The connection broke off mid-response: {message}. Try again.")]
    StreamCut {
        /// What went wrong.
        message: String,
    },
    /// A response (or one SSE event of a stream) was not the expected JSON.
    #[error("The server sent a malformed response chunk ({message}): {snippet}")]
    MalformedChunk {
        /// The parse error.
        message: String,
        /// The start of the offending text.
        snippet: String,
    },
    /// Retries were used up; wraps the last failure.
    #[error("{last} (gave up after {attempts} attempts)")]
    RetriesExhausted {
        /// How many attempts were made.
        attempts: u32,
        /// The last failure.
        #[source]
        last: Box<ModelError>,
    },
    /// The HTTP client could not be configured (bad proxy URL, TLS setup...).
    #[error("Could not set up the model client: {message}")]
    Setup {
        /// What went wrong.
        message: String,
    },
    /// A responses file could not be read.
    #[error("Could not read the responses file {path}: {message}")]
    ResponsesFile {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
    /// A responses file has a line that is not a valid recorded response.
    #[error("{path}:{line}: {message}")]
    ResponsesLine {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// The parse error.
        message: String,
    },
    /// Replay ran out of lines or hit a line for another method (exact upstream texts).
    #[error("{message}")]
    Replay {
        /// The upstream text.
        message: String,
    },
    /// An error answer from another provider's API (OpenAI-compatible,
    /// Anthropic); `message` says what to do where that is known.
    #[error("{provider} answered HTTP {status}: {message}")]
    Provider {
        /// The API, e.g. `The OpenAI-compatible API at http://...`.
        provider: String,
        /// The HTTP status (or the code of an error event in a stream).
        status: u16,
        /// The API's message, with advice.
        message: String,
    },
    /// The request no longer fits the model's context window.
    #[error(
        "The conversation is too long for the model's context window ({provider}): {}. \
         Run /compress or /clear, or choose a model with a larger context window.",
        overflow_text(.message, *.window, *.needed)
    )]
    ContextTooLong {
        /// The API.
        provider: String,
        /// The API's message.
        message: String,
        /// The model's context window in tokens, where the server said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        window: Option<u64>,
        /// The tokens the request needed, as the server counted them (or
        /// estimated where it did not say).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        needed: Option<u64>,
    },
    /// Nothing listens at the address (connection refused), or a loopback
    /// address did not answer within its connect timeout: not retried.
    #[error("Could not connect to {url}: {message}.")]
    Unreachable {
        /// The endpoint that failed.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// No byte arrived for the idle timeout (before the answer's head or
    /// within its body).
    #[error(
        "The server sent nothing for {seconds} s {stage} and the request was given up \
         (model.streamIdleTimeoutSeconds sets this limit)."
    )]
    Stalled {
        /// The idle timeout.
        seconds: u64,
        /// `before answering` or `in the middle of its answer`.
        stage: String,
    },
    /// The answer went over one of the size limits of a stream.
    #[error("The answer was given up: {what} is over the limit of {limit}.")]
    TooLarge {
        /// What grew too large (`one line of the event stream`, ...).
        what: String,
        /// The limit, with the setting that raises it where there is one.
        limit: String,
    },
    /// The stream ended cleanly but without its wire's end marker, so the
    /// answer may be cut short.
    #[error(
        "The answer stream ended without {marker}, so the answer may be incomplete. Try again."
    )]
    Incomplete {
        /// The end marker the wire promises (`finish_reason` or `[DONE]`, ...).
        marker: String,
    },
    /// A failure of one provider's API, with where it was and what chose it.
    #[error("{error} ({origin}){}", hint_text(.hint))]
    AtProvider {
        /// The provider, its API and URL.
        origin: Box<ApiOrigin>,
        /// What to try, for a server that could not be reached.
        hint: Option<String>,
        /// The failure.
        error: Box<ModelError>,
    },
}

fn overflow_text(message: &str, window: Option<u64>, needed: Option<u64>) -> String {
    match (window, needed) {
        (Some(w), Some(n)) => {
            format!("the model's context window is {w} tokens; this request needed about {n}")
        }
        (Some(w), None) => format!("the model's context window is {w} tokens ({message})"),
        _ => message.to_string(),
    }
}

fn hint_text(hint: &Option<String>) -> String {
    hint.as_ref().map(|h| format!(" {h}")).unwrap_or_default()
}

/// Which provider a model call went to: its id, the kind of API, the base
/// URL and the variable or setting that chose that URL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ApiOrigin {
    /// The provider id (`gemini`, `openai`, `ollama`, a `model.providers` key).
    pub provider: String,
    /// The kind of API, e.g. `OpenAI-compatible API`.
    pub api: String,
    /// The API root the calls went to.
    pub base_url: String,
    /// What chose the URL: a variable (`OPENAI_BASE_URL`), a setting
    /// (`model.providers.x.baseUrl`) or `the default`.
    pub configured_by: String,
}

impl std::fmt::Display for ApiOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "provider `{}`, {} at {}, from {}",
            self.provider, self.api, self.base_url, self.configured_by
        )
    }
}

impl ModelError {
    /// The kind of API the failed call went to (`Gemini API` when no
    /// provider is named).
    pub fn api(&self) -> &str {
        match self {
            ModelError::AtProvider { origin, .. } => &origin.api,
            _ => "Gemini API",
        }
    }

    /// The failure inside a provider's wrapper (the error itself otherwise).
    pub fn inner(&self) -> &ModelError {
        match self {
            ModelError::AtProvider { error, .. } => error.inner(),
            other => other,
        }
    }

    /// The HTTP status behind this error, if it came from one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ModelError::BadRequest { .. } => Some(400),
            ModelError::Auth { status, .. } | ModelError::Api { status, .. } => Some(*status),
            ModelError::ModelNotFound { .. } => Some(404),
            ModelError::RateLimited { .. } => Some(429),
            ModelError::RetriesExhausted { last, .. } => last.status(),
            ModelError::Provider { status, .. } => Some(*status),
            ModelError::ContextTooLong { .. } => Some(400),
            ModelError::AtProvider { error, .. } => error.status(),
            ModelError::Cancelled
            | ModelError::Unreachable { .. }
            | ModelError::Stalled { .. }
            | ModelError::TooLarge { .. }
            | ModelError::Incomplete { .. }
            | ModelError::Connection { .. }
            | ModelError::StreamCut { .. }
            | ModelError::MalformedChunk { .. }
            | ModelError::Setup { .. }
            | ModelError::ResponsesFile { .. }
            | ModelError::ResponsesLine { .. }
            | ModelError::Replay { .. } => None,
        }
    }

    /// The error's type as the session's stats count it
    /// (`api.errorsByType`): `ApiError` for an answer with an HTTP error
    /// status (Gemini CLI's name), `ModelError` for any other failure.
    pub fn error_type(&self) -> &'static str {
        match self.status() {
            Some(_) => "ApiError",
            None => "ModelError",
        }
    }

    /// Whether another attempt may succeed (429, 5xx, network trouble).
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelError::RateLimited { .. }
            | ModelError::Connection { .. }
            | ModelError::StreamCut { .. } => true,
            ModelError::Api { status, .. } => *status >= 500,
            ModelError::Provider { status, .. } => {
                matches!(*status, 408 | 409 | 429) || *status >= 500
            }
            ModelError::ContextTooLong { .. } => false,
            ModelError::AtProvider { error, .. } => error.is_retryable(),
            ModelError::Cancelled
            | ModelError::Unreachable { .. }
            | ModelError::Stalled { .. }
            | ModelError::TooLarge { .. }
            | ModelError::Incomplete { .. }
            | ModelError::BadRequest { .. }
            | ModelError::Auth { .. }
            | ModelError::ModelNotFound { .. }
            | ModelError::MalformedChunk { .. }
            | ModelError::RetriesExhausted { .. }
            | ModelError::Setup { .. }
            | ModelError::ResponsesFile { .. }
            | ModelError::ResponsesLine { .. }
            | ModelError::Replay { .. } => false,
        }
    }
}
