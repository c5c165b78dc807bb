//! Newline-delimited JSON-RPC 2.0 over stdio: one writer task owns stdout
//! (nothing else may print there), requests to the client wait for their
//! answer by id.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::sync::{mpsc, oneshot};

/// JSON-RPC error codes.
pub mod code {
    /// The line is not JSON.
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// No such method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Bad parameters (an unknown session among them).
    pub const INVALID_PARAMS: i64 = -32602;
    /// Something failed on our side.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// ACP: the resource does not exist (the client's `fs/read_text_file`).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
}

/// An error answer.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The code.
    pub code: i64,
    /// What went wrong.
    pub message: String,
}

impl RpcError {
    /// A new error.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
        }
    }
}

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>>>;

/// Our side of the connection: sends messages, tracks our requests.
#[derive(Clone)]
pub struct Peer {
    out: mpsc::UnboundedSender<String>,
    pending: Pending,
    next_id: Arc<AtomicU64>,
}

impl Peer {
    /// A peer writing to stdout, and the task that writes.
    pub fn stdout() -> (Peer, tokio::task::JoinHandle<()>) {
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let writer = tokio::spawn(async move {
            let mut stdout = tokio::io::stdout();
            while let Some(mut line) = rx.recv().await {
                line.push('\n');
                if stdout.write_all(line.as_bytes()).await.is_err() {
                    return;
                }
                let _ = stdout.flush().await;
            }
        });
        let peer = Peer {
            out: tx,
            pending: Arc::default(),
            next_id: Arc::new(AtomicU64::new(0)),
        };
        (peer, writer)
    }

    fn send(&self, message: Value) {
        let _ = self.out.send(message.to_string());
    }

    /// Answers request `id`.
    pub fn respond(&self, id: Value, result: Result<Value, RpcError>) {
        self.send(match result {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": e.code, "message": e.message}}),
        });
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its answer (an error when the
    /// connection closes first).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        rx.await
            .unwrap_or_else(|_| Err(RpcError::new(code::INTERNAL_ERROR, "the client went away")))
    }

    /// Hands a response from the client to the request waiting for it.
    pub fn answer(&self, message: &Value) {
        let Some(id) = message.get("id").and_then(Value::as_u64) else {
            return;
        };
        let waiting = self
            .pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&id);
        let Some(waiting) = waiting else { return };
        let result = match message.get("error") {
            Some(err) => Err(RpcError::new(
                err.get("code")
                    .and_then(Value::as_i64)
                    .unwrap_or(code::INTERNAL_ERROR),
                err.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("error")
                    .to_string(),
            )),
            None => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
        };
        let _ = waiting.send(result);
    }

    /// Fails every request still waiting (the client closed the input).
    pub fn close(&self) {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
    }
}

/// What one incoming line is.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A request to answer.
    Request {
        /// Its id.
        id: Value,
        /// The method.
        method: String,
        /// The parameters (`null` when absent).
        params: Value,
    },
    /// A notification.
    Notification {
        /// The method.
        method: String,
        /// The parameters.
        params: Value,
    },
    /// An answer to one of our requests.
    Response(Value),
    /// Not a message: answer with this error (id `null` when unknown).
    Invalid(Value, RpcError),
}

/// Classifies one line.
pub fn parse(line: &str) -> Incoming {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => {
            return Incoming::Invalid(
                Value::Null,
                RpcError::new(code::PARSE_ERROR, format!("Parse error: {e}")),
            );
        }
    };
    let id = value.get("id").cloned();
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    match (value.get("method").and_then(Value::as_str), id) {
        (Some(method), Some(id)) if !id.is_null() => Incoming::Request {
            id,
            method: method.to_string(),
            params,
        },
        (Some(method), _) => Incoming::Notification {
            method: method.to_string(),
            params,
        },
        (None, Some(_)) if value.get("result").is_some() || value.get("error").is_some() => {
            Incoming::Response(value)
        }
        (None, id) => Incoming::Invalid(
            id.unwrap_or(Value::Null),
            RpcError::new(code::INVALID_REQUEST, "Invalid Request: no method"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_classified() {
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#),
            Incoming::Request { .. }
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}"#),
            Incoming::Notification { .. }
        ));
        assert!(matches!(
            parse(r#"{"jsonrpc":"2.0","id":0,"result":{}}"#),
            Incoming::Response(_)
        ));
        match parse("{not json") {
            Incoming::Invalid(id, e) => {
                assert_eq!(id, Value::Null);
                assert_eq!(e.code, code::PARSE_ERROR);
            }
            other => panic!("{other:?}"),
        }
        match parse(r#"{"jsonrpc":"2.0","id":3}"#) {
            Incoming::Invalid(id, e) => {
                assert_eq!(id, json!(3));
                assert_eq!(e.code, code::INVALID_REQUEST);
            }
            other => panic!("{other:?}"),
        }
    }
}
