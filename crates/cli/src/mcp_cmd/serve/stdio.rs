//! The stdio transport handed to rmcp: one JSON-RPC message per line on
//! stdin, answers on stdout (nothing else is written there). rmcp's own
//! stdio transport drops unparsable lines, answers a malformed request
//! with an id-less -32600, has no batches, and cancels calls still running
//! 5 s after the end of input. This one keeps what `mcp serve` promised:
//! -32700 for a line that is not JSON, -32602 (with the request's id) for
//! a known method with bad params, batches (protocol 2025-03-26) answered
//! as one array, and the end of input waiting for the calls already read.

use gemini_rs_protocol::jsonrpc::Envelope;
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientNotification, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines, Stdin, Stdout};
use tokio::sync::Notify;

/// Requests read but not answered yet, and batches still collecting.
#[derive(Default)]
struct Pending {
    open: HashSet<String>,
    batches: Vec<Batch>,
}

/// A batch's requests still unanswered and the answers so far.
struct Batch {
    waiting: HashSet<String>,
    answers: Vec<Value>,
}

impl Pending {
    /// Records the answer (or cancellation, `None`) of request `key`;
    /// returns the line to write now, if any.
    fn answered(&mut self, key: &str, answer: Option<Value>) -> Option<String> {
        self.open.remove(key);
        let Some(i) = self.batches.iter().position(|b| b.waiting.contains(key)) else {
            return answer.map(|a| a.to_string());
        };
        let batch = &mut self.batches[i];
        batch.waiting.remove(key);
        batch.answers.extend(answer);
        if !batch.waiting.is_empty() {
            return None;
        }
        let batch = self.batches.swap_remove(i);
        (!batch.answers.is_empty()).then(|| Value::Array(batch.answers).to_string())
    }
}

/// A JSON-RPC error answer.
fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// What one incoming message becomes.
enum Incoming {
    /// For rmcp.
    Message(Box<ClientJsonRpcMessage>),
    /// Answered here (an error).
    Answer(Value),
    /// Nothing to do (a response to a request we never sent).
    Ignore,
}

/// The transport over this process's stdin and stdout.
pub(super) struct StdioTransport {
    lines: Lines<BufReader<Stdin>>,
    out: Arc<tokio::sync::Mutex<Stdout>>,
    pending: Arc<Mutex<Pending>>,
    answered: Arc<Notify>,
    queue: VecDeque<ClientJsonRpcMessage>,
    initialized: bool,
}

impl StdioTransport {
    /// Over stdin and stdout.
    pub(super) fn new() -> Self {
        StdioTransport {
            lines: BufReader::new(tokio::io::stdin()).lines(),
            out: Arc::new(tokio::sync::Mutex::new(tokio::io::stdout())),
            pending: Arc::default(),
            answered: Arc::new(Notify::new()),
            queue: VecDeque::new(),
            initialized: false,
        }
    }

    /// Sorts one message: for rmcp, answered here, or ignored.
    fn classify(&mut self, value: Value) -> Incoming {
        let envelope = Envelope::of(&value);
        let v2 = envelope.is_v2();
        let answer = envelope.is_response();
        let method = envelope.method_name().map(str::to_string);
        let id = envelope.id;
        match serde_json::from_value::<ClientJsonRpcMessage>(value) {
            Ok(ClientJsonRpcMessage::Request(request)) => {
                if method.as_deref() == Some("initialize") {
                    self.initialized = true;
                }
                if let Some(id) = &id
                    && let Ok(mut p) = self.pending.lock()
                {
                    p.open.insert(id.to_string());
                }
                Incoming::Message(Box::new(ClientJsonRpcMessage::Request(request)))
            }
            // rmcp ends the connection on anything but a request before
            // `initialize`; a stray notification or response is dropped.
            Ok(_) if !self.initialized => Incoming::Ignore,
            Ok(ClientJsonRpcMessage::Notification(n)) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(request) = &c.params.request_id
                    && let Ok(request) = serde_json::to_value(request)
                {
                    let line = self
                        .pending
                        .lock()
                        .ok()
                        .and_then(|mut p| p.answered(&request.to_string(), None));
                    if let Some(line) = line {
                        // The rest of a batch whose last open call was cancelled.
                        self.queue_write(line);
                    }
                    self.answered.notify_waiters();
                }
                Incoming::Message(Box::new(ClientJsonRpcMessage::Notification(n)))
            }
            Ok(other) => Incoming::Message(Box::new(other)),
            // rmcp reads unknown methods as custom requests and known ones
            // with bad params too, so what fails here is the envelope.
            Err(e) => match (id, method) {
                (Some(id), Some(_)) if v2 => {
                    Incoming::Answer(error(id, -32602, &format!("Invalid params: {e}")))
                }
                (None, Some(_)) => Incoming::Ignore, // a malformed notification
                (Some(_), None) if answer => Incoming::Ignore, // a response of sorts
                (id, _) => {
                    Incoming::Answer(error(id.unwrap_or(Value::Null), -32600, "Invalid Request"))
                }
            },
        }
    }

    /// Writes `line` from a task of its own: rmcp polls `receive` in a
    /// `select!` and may drop it at any await, so the only await in
    /// receiving is the (cancel-safe) read of the next line.
    fn queue_write(&self, line: String) {
        let out = self.out.clone();
        tokio::spawn(async move { write_line(&out, line).await });
    }

    /// Reads lines until there is a message for rmcp; `None` at the end of
    /// input once every request read has been answered or cancelled.
    /// Cancel-safe: reading a line is, and nothing else here waits on
    /// anything but the end-of-input wait, which starts over.
    async fn next_message(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            if let Some(m) = self.queue.pop_front() {
                return Some(m);
            }
            let line = match self.lines.next_line().await {
                Ok(Some(line)) => line,
                Ok(None) => break,
                Err(e) => {
                    tracing::warn!("mcp serve: reading stdin failed: {e}");
                    break;
                }
            };
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<Value>(&line) {
                Err(e) => {
                    let answer = error(Value::Null, -32700, &format!("Parse error: {e}"));
                    self.queue_write(answer.to_string());
                }
                Ok(Value::Array(items)) => self.batch(items),
                Ok(value) => match self.classify(value) {
                    Incoming::Message(m) => return Some(*m),
                    Incoming::Answer(a) => self.queue_write(a.to_string()),
                    Incoming::Ignore => {}
                },
            }
        }
        self.calls_done().await;
        None
    }

    /// Splits a batch into the queue; its answers go out as one array.
    fn batch(&mut self, items: Vec<Value>) {
        if items.is_empty() {
            let answer = error(Value::Null, -32600, "Invalid Request");
            return self.queue_write(answer.to_string());
        }
        let mut waiting = HashSet::new();
        let mut answers = Vec::new();
        for item in items {
            match self.classify(item) {
                Incoming::Message(m) => {
                    if let ClientJsonRpcMessage::Request(r) = m.as_ref()
                        && let Ok(id) = serde_json::to_value(&r.id)
                    {
                        waiting.insert(id.to_string());
                    }
                    self.queue.push_back(*m);
                }
                Incoming::Answer(a) => answers.push(a),
                Incoming::Ignore => {}
            }
        }
        if waiting.is_empty() {
            if !answers.is_empty() {
                self.queue_write(Value::Array(answers).to_string());
            }
        } else if let Ok(mut p) = self.pending.lock() {
            p.batches.push(Batch { waiting, answers });
        }
    }

    /// Waits until every request read has been answered or cancelled.
    async fn calls_done(&self) {
        loop {
            let notified = self.answered.notified();
            let idle = self.pending.lock().map_or(true, |p| p.open.is_empty());
            if idle {
                return;
            }
            notified.await;
        }
    }
}

async fn write_line(out: &tokio::sync::Mutex<Stdout>, mut line: String) {
    line.push('\n');
    let mut out = out.lock().await;
    if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
        tracing::debug!("mcp serve: stdout closed");
    }
}

impl Transport<RoleServer> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let out = self.out.clone();
        let pending = self.pending.clone();
        let answered = self.answered.clone();
        async move {
            let value = serde_json::to_value(&item)?;
            let envelope = Envelope::of(&value);
            let line = match &envelope.id {
                Some(id) if envelope.is_response() && !id.is_null() => {
                    let key = id.to_string();
                    let line = pending
                        .lock()
                        .ok()
                        .and_then(|mut p| p.answered(&key, Some(value.clone())));
                    answered.notify_waiters();
                    line
                }
                _ => Some(value.to_string()),
            };
            if let Some(line) = line {
                write_line(&out, line).await;
            }
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.next_message()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.out.lock().await.flush().await
    }
}
