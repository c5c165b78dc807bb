//! A streamable-HTTP client that remembers the server's last auth
//! challenge (401 or 403 `insufficient_scope` with its `WWW-Authenticate`),
//! so the connection can authorize and try again whatever request met it.

use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What the server asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Challenge {
    /// 401: a token (first login, or the old one was refused).
    Unauthorized(String),
    /// 403 `insufficient_scope`: a token with more scopes.
    InsufficientScope(String),
}

impl Challenge {
    /// The `WWW-Authenticate` header.
    pub fn header(&self) -> &str {
        match self {
            Challenge::Unauthorized(h) | Challenge::InsufficientScope(h) => h,
        }
    }
}

/// Where a connection's last challenge is kept.
pub type ChallengeSlot = Arc<Mutex<Option<Challenge>>>;

/// Takes the last challenge out of `slot`.
pub fn take(slot: &ChallengeSlot) -> Option<Challenge> {
    slot.lock().ok().and_then(|mut s| s.take())
}

/// Wraps a client, recording challenges into a slot.
#[derive(Clone)]
pub struct ChallengeRecorder<C> {
    inner: C,
    slot: ChallengeSlot,
}

impl<C> ChallengeRecorder<C> {
    /// Wraps `inner`.
    pub fn new(inner: C, slot: ChallengeSlot) -> Self {
        ChallengeRecorder { inner, slot }
    }

    fn note<T, E: std::error::Error + Send + Sync + 'static>(
        &self,
        result: Result<T, StreamableHttpError<E>>,
    ) -> Result<T, StreamableHttpError<E>> {
        let challenge = match &result {
            Err(StreamableHttpError::AuthRequired(e)) => {
                Some(Challenge::Unauthorized(e.www_authenticate_header.clone()))
            }
            Err(StreamableHttpError::InsufficientScope(e)) => Some(Challenge::InsufficientScope(
                e.www_authenticate_header.clone(),
            )),
            _ => None,
        };
        if let Some(c) = challenge
            && let Ok(mut slot) = self.slot.lock()
        {
            *slot = Some(c);
        }
        result
    }
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for ChallengeRecorder<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let r = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.note(r)
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let r = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        self.note(r)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let r = self
            .inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await;
        self.note(r)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
        StreamableHttpError<Self::Error>,
    > {
        let r = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.note(r)
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
        StreamableHttpError<Self::Error>,
    > {
        let r = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.note(r)
    }
}
