//! The wire under ACP: newline-delimited JSON-RPC on stdin and stdout.
//!
//! The SDK's own `Stdio` / `ByteStreams` read lines with `lines()`: a line of
//! invalid UTF-8 ends the connection, and a line is buffered whole however
//! long it is. So we hand the SDK its line-level transport (`Lines`) fed by
//! our reader, which answers bad frames itself and keeps serving:
//! - a line that is not UTF-8 gets a `-32700` parse error (id `null`);
//! - a line longer than [`MAX_FRAME`] is refused with a `-32700` error as
//!   soon as it passes the limit, and the rest of it is skipped unread.
//!
//! - a line that is not JSON gets `-32700` saying where it broke (the SDK
//!   says only "Parse error" and echoes the whole line back);
//! - a request that is not one (an `id` but no `method`, or no
//!   `"jsonrpc": "2.0"`) gets its `-32600` answered to that id: the SDK
//!   would answer it to `null`, which leaves the sender waiting.
//!
//! Lone surrogate escapes (`"\udcff"`) are valid UTF-8 text; `serde_json`
//! refuses them, so the SDK answers those with its own parse error.

use agent_client_protocol::{ErrorCode, Lines};
use futures::channel::mpsc;
use futures::{Sink, SinkExt, Stream, StreamExt};
use serde_json::error::Category;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::io;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};

/// The longest frame we read: 64 MiB.
pub const MAX_FRAME: usize = 64 * 1024 * 1024;

/// One frame read from the wire.
#[derive(Debug, PartialEq)]
enum Frame {
    /// A line of text (no newline), for the SDK to parse.
    Line(String),
    /// A frame we refuse: the message of the parse error to answer with.
    Refused(String),
}

/// Reads newline-delimited frames, holding at most `max` bytes of one.
struct FrameReader<R> {
    inner: R,
    buf: Vec<u8>,
    max: usize,
    /// Set while the rest of a refused, too long frame is skipped.
    skipping: bool,
}

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    fn new(inner: R, max: usize) -> Self {
        FrameReader {
            inner,
            buf: Vec::new(),
            max,
            skipping: false,
        }
    }

    /// The next frame; `None` at the end of the input. Blank lines are
    /// skipped.
    async fn next(&mut self) -> io::Result<Option<Frame>> {
        loop {
            let available = self.inner.fill_buf().await?;
            if available.is_empty() {
                // The end: a last line without its newline still counts.
                let last = std::mem::take(&mut self.buf);
                return Ok(match self.skipping {
                    true => None,
                    false => decode(last),
                });
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let piece = &available[..newline.unwrap_or(available.len())];
            let refused = !self.skipping && self.buf.len() + piece.len() > self.max;
            if !self.skipping && !refused {
                self.buf.extend_from_slice(piece);
            }
            let used = piece.len() + usize::from(newline.is_some());
            self.inner.consume(used);
            if refused {
                self.buf = Vec::new();
                self.skipping = newline.is_none();
                return Ok(Some(Frame::Refused(format!(
                    "Parse error: message longer than {} MiB",
                    self.max / (1024 * 1024)
                ))));
            }
            if newline.is_some() {
                if std::mem::take(&mut self.skipping) {
                    continue;
                }
                if let Some(frame) = decode(std::mem::take(&mut self.buf)) {
                    return Ok(Some(frame));
                }
            }
        }
    }
}

/// A line's bytes as a frame; `None` when the line is blank.
fn decode(mut line: Vec<u8>) -> Option<Frame> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(match String::from_utf8(line) {
        Ok(text) => Frame::Line(text),
        Err(e) => Frame::Refused(format!(
            "Parse error: invalid UTF-8 at byte {}",
            e.utf8_error().valid_up_to()
        )),
    })
}

/// The parts of a message that tell what it is, borrowed unparsed.
#[derive(serde::Deserialize)]
struct Shape<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// Our answer to a line the SDK would answer badly; `None` for the lines
/// the SDK judges. Two kinds:
/// - not JSON: the SDK says only "Parse error" and echoes the whole line
///   (up to 64 MiB) back; we say where it broke, as before the SDK;
/// - a request that is not one (an id, but no method or no
///   `"jsonrpc": "2.0"`): the SDK answers it to `null`; we to its id.
pub fn answer_early(line: &str) -> Option<String> {
    let shape: Shape = match serde_json::from_str(line) {
        Ok(shape) => shape,
        Err(e) if matches!(e.classify(), Category::Syntax | Category::Eof) => {
            let message = format!("Parse error: {e}");
            return Some(error_answer(Value::Null, ErrorCode::PARSE_ERROR, &message));
        }
        Err(_) => return None,
    };
    let id = shape.id?;
    if shape.result.is_some() || shape.error.is_some() {
        return None;
    }
    let message = if !shape.method.is_some_and(|m| m.get().starts_with('"')) {
        "Invalid request: no method"
    } else if shape.jsonrpc.map(RawValue::get) != Some(r#""2.0""#) {
        r#"Invalid request: "jsonrpc" must be "2.0""#
    } else {
        return None;
    };
    let id: Value = serde_json::from_str(id.get()).ok()?;
    Some(error_answer(id, ErrorCode::INVALID_REQUEST, message))
}

/// A JSON-RPC error answer.
pub fn error_answer(id: Value, code: ErrorCode, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code.value(), "message": message}})
        .to_string()
}

/// The lines of `input` for the SDK; refused frames are answered on `out`
/// and reading goes on.
fn incoming<R>(
    input: R,
    max: usize,
    out: mpsc::UnboundedSender<String>,
) -> impl Stream<Item = io::Result<String>> + Send + 'static
where
    R: AsyncRead + Unpin + Send + 'static,
{
    let reader = FrameReader::new(BufReader::new(input), max);
    futures::stream::unfold(Some(reader), move |reader| {
        let out = out.clone();
        async move {
            let mut reader = reader?;
            loop {
                match reader.next().await {
                    Ok(Some(Frame::Line(line))) => match answer_early(&line) {
                        Some(answer) => {
                            let _ = out.unbounded_send(answer);
                        }
                        None => return Some((Ok(line), Some(reader))),
                    },
                    Ok(Some(Frame::Refused(message))) => {
                        tracing::warn!("ACP: {message}");
                        let answer = error_answer(Value::Null, ErrorCode::PARSE_ERROR, &message);
                        let _ = out.unbounded_send(answer);
                    }
                    Ok(None) => return None,
                    // A read error ends the input after it is reported.
                    Err(e) => return Some((Err(e), None)),
                }
            }
        }
    })
}

/// The SDK's outgoing sink: lines into the channel the writer drains.
fn outgoing(
    out: mpsc::UnboundedSender<String>,
) -> impl Sink<String, Error = io::Error> + Send + 'static {
    out.sink_map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the ACP writer stopped"))
}

/// The transport on `input` and `output`, and the task that writes
/// (it ends once the connection and the reader are dropped).
pub fn lines<R, W>(
    input: R,
    output: W,
    max: usize,
) -> (
    Lines<impl Sink<String, Error = io::Error>, impl Stream<Item = io::Result<String>>>,
    tokio::task::JoinHandle<()>,
)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    // Unbounded: the reader answers refused frames here too and must never
    // wait for the writer (an editor that writes without reading would
    // stall both). What the session sends is bounded before it gets here
    // (its event stream; see docs/architecture.md).
    let (tx, mut rx) = mpsc::unbounded::<String>();
    let writer = tokio::spawn(async move {
        let mut output = output;
        while let Some(mut line) = rx.next().await {
            line.push('\n');
            if output.write_all(line.as_bytes()).await.is_err() {
                return;
            }
            let _ = output.flush().await;
        }
    });
    let transport = Lines::new(outgoing(tx.clone()), incoming(input, max, tx));
    (transport, writer)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    async fn frames(input: &[u8], max: usize) -> Vec<Frame> {
        let mut reader = FrameReader::new(BufReader::with_capacity(4, input), max);
        let mut out = Vec::new();
        while let Some(frame) = reader.next().await.unwrap() {
            out.push(frame);
        }
        out
    }

    #[tokio::test]
    async fn lines_blank_lines_and_a_last_line_without_newline() {
        let got = frames(b"{\"a\":1}\r\n\n  \n{\"b\":2}", 64).await;
        assert_eq!(
            got,
            [
                Frame::Line("{\"a\":1}".into()),
                Frame::Line("{\"b\":2}".into())
            ]
        );
    }

    #[tokio::test]
    async fn invalid_utf8_is_refused_and_reading_goes_on() {
        let got = frames(b"{\"a\xff\"}\nok\n", 64).await;
        assert_eq!(
            got,
            [
                Frame::Refused("Parse error: invalid UTF-8 at byte 3".into()),
                Frame::Line("ok".into())
            ]
        );
    }

    #[tokio::test]
    async fn a_long_frame_is_refused_once_and_skipped() {
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(b"\nshort\n");
        input.extend_from_slice(&[b'y'; 30]);
        let got = frames(&input, 20).await;
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(matches!(&got[0], Frame::Refused(m) if m.contains("longer than")));
        assert_eq!(got[1], Frame::Line("short".into()));
        assert!(matches!(&got[2], Frame::Refused(_)));
        // Exactly at the limit is fine.
        let got = frames(&[b'z'; 20], 20).await;
        assert_eq!(got, [Frame::Line("z".repeat(20))]);
    }

    #[test]
    fn bad_json_and_requests_that_are_not_are_answered_here() {
        let answer = answer_early(r#"{"jsonrpc":"2.0","id":3}"#).unwrap();
        assert_eq!(
            answer,
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid request: no method"}}"#
        );
        assert!(answer_early(r#"{"jsonrpc":"2.0","id":"a","method":7}"#).is_some());
        let answer = answer_early(r#"{"id":4,"method":"initialize"}"#).unwrap();
        assert!(
            answer.contains(r#""id":4"#) && answer.contains("must be"),
            "{answer}"
        );
        for sdk in [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize"}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":null}"#,
            r#"{"jsonrpc":"2.0","method":"n"}"#,
            "[]",
            r#"{"x":"\udcff"}"#,
        ] {
            assert_eq!(answer_early(sdk), None, "{sdk}");
        }
    }

    #[tokio::test]
    async fn refusals_are_answered_on_the_output() {
        let (tx, mut rx) = mpsc::unbounded();
        let lines: Vec<String> = incoming(&b"\xfe\n{}\n"[..], 64, tx)
            .map(|l| l.unwrap())
            .collect()
            .await;
        assert_eq!(lines, ["{}"]);
        let answer: serde_json::Value = serde_json::from_str(&rx.next().await.unwrap()).unwrap();
        assert_eq!(answer["error"]["code"], -32700);
        assert_eq!(answer["id"], serde_json::Value::Null);
    }
}
