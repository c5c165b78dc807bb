//! The error type of every model backend ([`ModelError`], a protocol
//! type front ends see) and a failed attempt with its retry hint.

pub use gemini_rs_protocol::events::ModelError;
use std::time::Duration;

/// A failed attempt plus the server's hint of when to retry.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) error: ModelError,
    pub(crate) retry_after: Option<Duration>,
}

impl From<ModelError> for Failure {
    fn from(error: ModelError) -> Self {
        Failure {
            error,
            retry_after: None,
        }
    }
}

/// Shortens `text` to at most `max` characters for error messages.
pub(crate) fn snippet(text: &str, max: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// An error and its `source()` chain, joined with `": "`.
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}
