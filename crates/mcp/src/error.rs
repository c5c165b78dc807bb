//! Why connecting to, logging in to or asking an MCP server failed. The
//! Display texts are the reasons users and the model read after "Error
//! connecting to MCP server '{name}': " and similar heads.

use super::config::INVALID_CONFIG_MESSAGE;
use super::oauth::google::GoogleAuthError;
use super::oauth::{LoginError, TokenError};
use super::sse::SseError;
use crate::host::BoxError;
use reqwest::header::{InvalidHeaderName, InvalidHeaderValue};
use rmcp::service::{ClientInitializeError, ServiceError};

/// Why a connection to one server could not be opened (or reopened).
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// A `headers` entry's name is not a valid HTTP header name.
    #[error("invalid header name {name}: {source}")]
    HeaderName {
        /// The header's name as configured.
        name: String,
        /// Why it is invalid.
        source: InvalidHeaderName,
    },
    /// A `headers` entry's value is not a valid HTTP header value.
    #[error("invalid header value for {name}: {source}")]
    HeaderValue {
        /// The header's name.
        name: String,
        /// Why its value is invalid.
        source: InvalidHeaderValue,
    },
    /// A token made an invalid `Authorization` header.
    #[error("{0}")]
    AuthorizationHeader(InvalidHeaderValue),
    /// The HTTP client could not be built.
    #[error(transparent)]
    Client(BoxError),
    /// The transport came up but `initialize` failed (boxed: rmcp's error
    /// is large).
    #[error(transparent)]
    Initialize(Box<ClientInitializeError>),
    /// The legacy SSE transport failed.
    #[error(transparent)]
    Sse(#[from] SseError),
    /// The stdio server's command could not be started.
    #[error("failed to start {command}: {source}")]
    Spawn {
        /// The configured command.
        command: String,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// Streamable HTTP failed, then the SSE fallback failed too.
    #[error("{http}; SSE fallback: {sse}")]
    Fallback {
        /// Why streamable HTTP failed.
        http: Box<ConnectError>,
        /// Why SSE failed.
        sse: Box<ConnectError>,
    },
    /// The entry names no transport.
    #[error("{INVALID_CONFIG_MESSAGE}")]
    InvalidConfig,
    /// `tools/list` failed.
    #[error("{}", service_error_text(.0))]
    ListTools(ServiceError),
    /// Connecting took longer than the server's timeout.
    #[error("Connection timed out after {ms} ms")]
    TimedOut {
        /// The timeout in milliseconds.
        ms: u64,
    },
    /// The server asked for a login and it failed.
    #[error(transparent)]
    Login(#[from] McpLoginError),
    /// The stored tokens could not be used.
    #[error(transparent)]
    Tokens(#[from] TokenError),
    /// Google credentials (`authProviderType`) gave no token.
    #[error(transparent)]
    Google(#[from] GoogleAuthError),
    /// The connection was shut down and may not be reopened.
    #[error("the connection was shut down")]
    ShutDown,
    /// The task connecting the server panicked or was cancelled.
    #[error("{0}")]
    Task(#[from] tokio::task::JoinError),
}

impl From<ClientInitializeError> for ConnectError {
    fn from(e: ClientInitializeError) -> Self {
        ConnectError::Initialize(Box::new(e))
    }
}

/// Why logging in to one server failed.
#[derive(Debug, thiserror::Error)]
pub enum McpLoginError {
    /// A stdio server has no URL to log in at.
    #[error("only HTTP and SSE servers can log in")]
    NotRemote,
    /// The OAuth flow failed.
    #[error(transparent)]
    Flow(#[from] LoginError),
}

impl ConnectError {
    /// True when the server asked for an OAuth login that could not happen
    /// here (no browser): `mcp auth <server>` is the way on.
    pub fn needs_authentication(&self) -> bool {
        if let ConnectError::Fallback { http, sse } = self {
            return http.needs_authentication() || sse.needs_authentication();
        }
        matches!(
            self,
            ConnectError::Login(McpLoginError::Flow(LoginError::NeedsBrowser))
        )
    }
}

/// Why `prompts/get` failed.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    /// The server's connection is gone.
    #[error("MCP server '{server}' is not connected")]
    NotConnected {
        /// The server name.
        server: String,
    },
    /// The request or the answer does not fit the MCP types.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// The server did not answer within its timeout.
    #[error("MCP server '{server}' did not answer in time")]
    TimedOut {
        /// The server name.
        server: String,
    },
    /// The server answered with an error.
    #[error("{0}")]
    Service(#[from] ServiceError),
}

/// Gemini CLI's text for a failed request: `MCP error {code}: {message}`.
pub(crate) fn service_error_text(e: &ServiceError) -> String {
    match e {
        ServiceError::McpError(data) => format!("MCP error {}: {}", data.code.0, data.message),
        ServiceError::Timeout { .. } => "MCP error -32001: Request timed out".to_string(),
        ServiceError::TransportClosed => "MCP error -32000: Connection closed".to_string(),
        other => other.to_string(),
    }
}
