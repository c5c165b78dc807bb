//! A guard on a stdio MCP server's stdout. rmcp's line transport drops a
//! message longer than its line limit (16 MiB) with only a log line, so the
//! call it answered would wait for its whole timeout (600 s by default).
//! [`LineGuard`] sits between the child's stdout and rmcp, counts the
//! current line, and when a line goes over the limit it swallows the rest
//! and, at its end, hands rmcp a JSON-RPC error reply with the same `id`
//! instead: the call fails at once, naming the server and the size, and
//! the connection stays usable. A line without an `id` to answer ends the
//! stream (every pending call fails) with the reason kept in [`Overflow`].

use serde_json::{Value, json};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// The JSON-RPC error code of the synthetic reply (internal error).
const OVERSIZED_CODE: i64 = -32603;
/// At most this many bytes of a top-level `id` are kept.
const MAX_ID_BYTES: usize = 1024;
/// Bytes read from the child per poll.
const CHUNK: usize = 64 * 1024;

/// The reason the guard last gave up on an oversized line, shared with the
/// connection so a call failing with "connection closed" can say why.
#[derive(Debug, Clone, Default)]
pub struct Overflow(Arc<Mutex<Option<OversizedLine>>>);

impl Overflow {
    fn set(&self, line: OversizedLine) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(line);
        }
    }

    /// The reason, once; later calls see `None` until the next overflow.
    pub fn take(&self) -> Option<OversizedLine> {
        self.0.lock().ok().and_then(|mut slot| slot.take())
    }
}

/// A line from a server over the transport's limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "MCP server '{server}' sent a message of {size} bytes, over the stdio transport's limit of {limit} bytes ({} MiB)",
    limit / (1024 * 1024)
)]
pub struct OversizedLine {
    /// The server name.
    pub server: String,
    /// The line's size in bytes.
    pub size: usize,
    /// The limit in bytes.
    pub limit: usize,
}

/// The message for a line of `size` bytes over `limit` from `server`.
#[cfg(test)]
pub(crate) fn oversized_message(server: &str, size: usize, limit: usize) -> String {
    OversizedLine {
        server: server.to_string(),
        size,
        limit,
    }
    .to_string()
}

/// Finds the top-level `id` (raw JSON text) and whether a top-level
/// `method` is present in one JSON object streamed byte by byte, without
/// keeping the object.
#[derive(Debug, Default)]
struct TopLevelScan {
    depth: u32,
    in_string: bool,
    escape: bool,
    /// The string being read is a top-level key.
    in_key: bool,
    key: Vec<u8>,
    /// Inside a top-level value (after its `:`).
    in_value: bool,
    value_is_id: bool,
    id_buf: Vec<u8>,
    id: Option<Vec<u8>>,
    has_method: bool,
}

impl TopLevelScan {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.byte(b);
        }
    }

    fn byte(&mut self, b: u8) {
        if self.in_string {
            if self.in_key {
                if self.key.len() < 16 {
                    self.key.push(b);
                }
            } else {
                self.capture(b);
            }
            if self.escape {
                self.escape = false;
            } else if b == b'\\' {
                self.escape = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.in_key {
                    self.in_key = false;
                    self.key.pop();
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && !self.in_value {
                    self.in_key = true;
                    self.key.clear();
                } else {
                    self.capture(b);
                }
            }
            b'{' | b'[' => {
                self.capture(b);
                self.depth = self.depth.saturating_add(1);
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                if self.depth == 0 {
                    self.end_value();
                } else {
                    self.capture(b);
                }
            }
            b':' if self.depth == 1 && !self.in_value => {
                self.in_value = true;
                self.value_is_id = self.key == b"id";
                if self.key == b"method" {
                    self.has_method = true;
                }
            }
            b',' if self.depth == 1 => self.end_value(),
            _ => self.capture(b),
        }
    }

    fn capture(&mut self, b: u8) {
        if self.depth >= 1 && self.in_value && self.value_is_id && self.id_buf.len() < MAX_ID_BYTES
        {
            self.id_buf.push(b);
        }
    }

    fn end_value(&mut self) {
        if self.value_is_id && self.id.is_none() {
            self.id = Some(std::mem::take(&mut self.id_buf));
        }
        self.in_value = false;
        self.value_is_id = false;
    }

    /// The `id` of a reply (a message with an id and no method): a number
    /// or a string, as JSON.
    fn reply_id(&self) -> Option<Value> {
        if self.has_method {
            return None;
        }
        let raw = self.id.as_deref()?;
        match serde_json::from_slice::<Value>(raw).ok()? {
            v @ (Value::Number(_) | Value::String(_)) => Some(v),
            _ => None,
        }
    }
}

/// Where the guard is in the current line.
#[derive(Debug)]
enum Mode {
    /// Bytes go through to rmcp.
    Passing,
    /// The line went over the limit: its rest is read and dropped.
    Swallowing,
}

/// An [`AsyncRead`] over a stdio server's stdout that turns a line over
/// `limit` bytes (newline included, as rmcp counts) into an error reply
/// to the call it answered. See the module docs.
pub struct LineGuard<R> {
    inner: R,
    server: String,
    limit: usize,
    overflow: Overflow,
    mode: Mode,
    /// Bytes of the current line so far, passed or swallowed.
    line_len: usize,
    scan: TopLevelScan,
    /// Bytes read from `inner` not yet handled, from `input_pos`.
    input: Vec<u8>,
    input_pos: usize,
    /// Bytes made up by the guard, handed out before anything else.
    output: Vec<u8>,
    output_pos: usize,
    /// An error to report once the made-up bytes are out.
    failed: Option<OversizedLine>,
}

impl<R: AsyncRead + Unpin> LineGuard<R> {
    /// Guards `inner`, the stdout of server `server`, against lines over
    /// `limit` bytes; the reason of a fatal overflow goes to `overflow`.
    pub fn new(inner: R, server: &str, limit: usize, overflow: Overflow) -> Self {
        LineGuard {
            inner,
            server: server.to_string(),
            limit,
            overflow,
            mode: Mode::Passing,
            line_len: 0,
            scan: TopLevelScan::default(),
            input: Vec::new(),
            input_pos: 0,
            output: Vec::new(),
            output_pos: 0,
            failed: None,
        }
    }

    /// Handles buffered input into `buf` (pass, swallow, or make up the
    /// error reply) until one of them runs out.
    fn process(&mut self, buf: &mut ReadBuf<'_>) {
        while self.input_pos < self.input.len()
            && self.output_pos == self.output.len()
            && self.failed.is_none()
        {
            let rest = &self.input[self.input_pos..];
            let newline = rest.iter().position(|&b| b == b'\n');
            let line_rest = newline.map_or(rest.len(), |i| i + 1);
            match self.mode {
                Mode::Passing => {
                    if buf.remaining() == 0 {
                        return;
                    }
                    let room = self.limit.saturating_sub(self.line_len);
                    if room == 0 {
                        // One more byte would put the line over the limit.
                        // End it for rmcp now (it drops an oversized or
                        // unparsable line) and swallow the rest.
                        self.mode = Mode::Swallowing;
                        self.output = b"\n".to_vec();
                        self.output_pos = 0;
                        continue;
                    }
                    let take = line_rest.min(room).min(buf.remaining());
                    let part = &rest[..take];
                    buf.put_slice(part);
                    self.scan.feed(part);
                    self.input_pos += take;
                    self.line_len += take;
                    if newline.is_some_and(|i| i + 1 == take) {
                        self.line_len = 0;
                        self.scan = TopLevelScan::default();
                    }
                }
                Mode::Swallowing => {
                    let part = &rest[..line_rest];
                    self.scan.feed(part);
                    self.input_pos += line_rest;
                    self.line_len = self.line_len.saturating_add(line_rest);
                    if newline.is_some() {
                        self.end_oversized();
                    }
                }
            }
        }
    }

    /// The oversized line ended: answer its call, or give up the stream.
    fn end_oversized(&mut self) {
        let line = self.oversized();
        tracing::warn!(server = %self.server, "{line}");
        let scan = std::mem::take(&mut self.scan);
        self.mode = Mode::Passing;
        self.line_len = 0;
        if let Some(id) = scan.reply_id() {
            let reply = json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {"code": OVERSIZED_CODE, "message": line.to_string()},
            });
            let mut line = serde_json::to_vec(&reply).unwrap_or_default();
            line.push(b'\n');
            self.output = line;
            self.output_pos = 0;
        } else if !scan.has_method {
            // No id to answer: fail every pending call by ending the stream.
            self.overflow.set(line.clone());
            self.failed = Some(line);
        }
        // A request or notification from the server is dropped, as rmcp
        // would; nothing of ours waits for it.
    }

    /// The line being swallowed, as the reason it is refused.
    fn oversized(&self) -> OversizedLine {
        OversizedLine {
            server: self.server.clone(),
            size: self.line_len,
            limit: self.limit,
        }
    }

    fn drain_output(&mut self, buf: &mut ReadBuf<'_>) {
        let rest = &self.output[self.output_pos..];
        let take = rest.len().min(buf.remaining());
        buf.put_slice(&rest[..take]);
        self.output_pos += take;
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineGuard<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        loop {
            let before = buf.filled().len();
            this.drain_output(buf);
            if this.output_pos == this.output.len() {
                if let Some(message) = this.failed.take() {
                    if buf.filled().len() > before {
                        // Hand out what is there; fail on the next read.
                        this.failed = Some(message);
                        return Poll::Ready(Ok(()));
                    }
                    return Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        message,
                    )));
                }
                this.process(buf);
            }
            if buf.filled().len() > before {
                return Poll::Ready(Ok(()));
            }
            if this.input_pos < this.input.len() || this.output_pos < this.output.len() {
                // Swallowing made progress without output; go on.
                continue;
            }
            this.input.clear();
            this.input_pos = 0;
            this.input.resize(CHUNK, 0);
            let mut read = ReadBuf::new(&mut this.input);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) => {
                    let n = read.filled().len();
                    this.input.truncate(n);
                    if n == 0 {
                        if matches!(this.mode, Mode::Swallowing) {
                            this.overflow.set(this.oversized());
                        }
                        return Poll::Ready(Ok(()));
                    }
                }
                Poll::Ready(Err(e)) => {
                    this.input.clear();
                    return Poll::Ready(Err(e));
                }
                Poll::Pending => {
                    this.input.clear();
                    return Poll::Pending;
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "line_guard_tests.rs"]
mod tests;
