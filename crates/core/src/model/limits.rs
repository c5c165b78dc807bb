//! How a provider call is bounded ([`Transport`]): the connect timeout,
//! the idle timeout, the size caps of error bodies, event-stream lines and
//! whole answers, and who hears about retries. A server that stalls, or
//! sends too much, ends the call with an error instead of holding the
//! session or its memory.

use super::error::{ModelError, error_chain};
use bytes::Bytes;
use futures::stream::{BoxStream, Stream, StreamExt};
use std::sync::Arc;
use std::time::Duration;

/// One line (or one event) of an event stream may hold at most this much.
pub const MAX_LINE_BYTES: usize = 16 << 20;
/// An error answer's body is read up to this much; the rest is dropped.
pub const MAX_ERROR_BODY_BYTES: usize = 1 << 20;
/// The connect timeout for servers on this machine (127.0.0.1, ::1,
/// localhost): a local server that is up answers at once.
pub const LOOPBACK_CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// A retry about to happen, as told to a [`RetryNotifier`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryNotice {
    /// The attempt that failed (1-based).
    pub attempt: u32,
    /// Attempts in total.
    pub max_attempts: u32,
    /// The wait before the next attempt.
    pub delay: Duration,
    /// Why the attempt failed.
    pub reason: String,
    /// The model asked.
    pub model: String,
    /// The failure's type, as the stats count it (`ApiError`, ...).
    pub error_type: &'static str,
    /// How long the failed attempt took.
    pub latency: Duration,
}

/// Hears of every retry wait (the session turns it into an event).
pub type RetryNotifier = Arc<dyn Fn(RetryNotice) + Send + Sync>;

/// How the calls of one client are bounded and reported.
#[derive(Clone)]
pub struct Transport {
    /// Connect timeout for remote hosts (`model.connectTimeoutSeconds`);
    /// loopback hosts use at most [`LOOPBACK_CONNECT_TIMEOUT`].
    pub connect_timeout: Duration,
    /// A call with no byte for this long ends (`model.streamIdleTimeoutSeconds`).
    pub idle_timeout: Duration,
    /// The most bytes one streamed answer may take (`model.maxStreamMegabytes`).
    pub max_stream_bytes: u64,
    /// Told of each retry wait.
    pub on_retry: Option<RetryNotifier>,
}

impl Default for Transport {
    fn default() -> Self {
        Transport {
            connect_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(300),
            max_stream_bytes: 128 << 20,
            on_retry: None,
        }
    }
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("connect_timeout", &self.connect_timeout)
            .field("idle_timeout", &self.idle_timeout)
            .field("max_stream_bytes", &self.max_stream_bytes)
            .field("on_retry", &self.on_retry.is_some())
            .finish()
    }
}

impl Transport {
    /// The connect timeout for a server at `base_url`.
    pub fn connect_timeout_for(&self, base_url: &str) -> Duration {
        if is_loopback(base_url) {
            self.connect_timeout.min(LOOPBACK_CONNECT_TIMEOUT)
        } else {
            self.connect_timeout
        }
    }

    /// The idle-timeout error at `stage`.
    pub(crate) fn stalled(&self, stage: &str) -> ModelError {
        ModelError::Stalled {
            seconds: self.idle_timeout.as_secs(),
            stage: stage.to_string(),
        }
    }

    fn too_large(&self) -> ModelError {
        ModelError::TooLarge {
            what: "the streamed answer".to_string(),
            limit: format!(
                "{} MiB (model.maxStreamMegabytes)",
                self.max_stream_bytes >> 20
            ),
        }
    }
}

/// True when `url`'s host is this machine (127.0.0.0/8, ::1, localhost).
pub fn is_loopback(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// Where the line and event counters stand.
#[derive(Debug, Default)]
struct Framing {
    line: usize,
    event: usize,
    after_cr: bool,
}

impl Framing {
    /// Counts `bytes`; false when a line or an event went over the cap.
    fn feed(&mut self, bytes: &[u8]) -> bool {
        for &b in bytes {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\r' | b'\n' => {
                    if self.line == 0 {
                        self.event = 0;
                    }
                    self.line = 0;
                    self.after_cr = b == b'\r';
                }
                _ => {
                    self.after_cr = false;
                    self.line += 1;
                    self.event += 1;
                }
            }
        }
        self.line <= MAX_LINE_BYTES && self.event <= MAX_LINE_BYTES
    }
}

/// Where a [`bounded`] body stands.
struct Bounded {
    bytes: BoxStream<'static, Result<Bytes, reqwest::Error>>,
    transport: Transport,
    framing: Framing,
    total: u64,
    /// For event streams: the start of a line whose end has not come yet.
    pending: Option<bytes::BytesMut>,
}

impl Bounded {
    /// The next piece of the body: for event streams, whole lines only
    /// (the SSE parser scans its whole buffer on every piece, so feeding
    /// it half a long line over and over would take quadratic time).
    async fn next(&mut self) -> Option<Result<Bytes, ModelError>> {
        loop {
            let chunk = match tokio::time::timeout(self.transport.idle_timeout, self.bytes.next())
                .await
            {
                Err(_) => return Some(Err(self.transport.stalled("in the middle of its answer"))),
                Ok(None) => {
                    let rest = self.pending.take().filter(|p| !p.is_empty());
                    return rest.map(|p| Ok(p.freeze()));
                }
                Ok(Some(Err(e))) => {
                    return Some(Err(ModelError::StreamCut {
                        message: error_chain(&e),
                    }));
                }
                Ok(Some(Ok(chunk))) => chunk,
            };
            self.total += chunk.len() as u64;
            if self.total > self.transport.max_stream_bytes {
                return Some(Err(self.transport.too_large()));
            }
            if self.pending.is_some() && !self.framing.feed(&chunk) {
                return Some(Err(ModelError::TooLarge {
                    what: "one line of the event stream".to_string(),
                    limit: format!("{} MiB", MAX_LINE_BYTES >> 20),
                }));
            }
            let Some(pending) = self.pending.as_mut() else {
                return Some(Ok(chunk));
            };
            match chunk.iter().rposition(|b| matches!(b, b'\n' | b'\r')) {
                None => pending.extend_from_slice(&chunk),
                Some(end) => {
                    pending.extend_from_slice(&chunk[..=end]);
                    let lines = pending.split().freeze();
                    pending.extend_from_slice(&chunk[end + 1..]);
                    return Some(Ok(lines));
                }
            }
        }
    }
}

/// A response body as bounded bytes: each read waits at most the idle
/// timeout, the whole body stays under the stream cap and, for an event
/// stream (`sse`), no line or event goes over [`MAX_LINE_BYTES`] and
/// pieces end at line ends. The stream ends after its first error.
pub(crate) fn bounded<S>(
    bytes: S,
    transport: &Transport,
    sse: bool,
) -> BoxStream<'static, Result<Bytes, ModelError>>
where
    S: Stream<Item = Result<Bytes, reqwest::Error>> + Send + 'static,
{
    let state = Bounded {
        bytes: bytes.boxed(),
        transport: transport.clone(),
        framing: Framing::default(),
        total: 0,
        pending: sse.then(bytes::BytesMut::new),
    };
    futures::stream::unfold(Some(state), |state| async move {
        let mut state = state?;
        let item = state.next().await?;
        let next = item.is_ok().then_some(state);
        Some((item, next))
    })
    .boxed()
}

/// The whole body of a (non-streamed) answer, bounded like a stream.
pub(crate) async fn read_body(
    response: reqwest::Response,
    transport: &Transport,
) -> Result<String, ModelError> {
    let mut body = bounded(response.bytes_stream(), transport, false);
    let mut data = Vec::new();
    while let Some(chunk) = body.next().await {
        data.extend_from_slice(&chunk?);
    }
    Ok(String::from_utf8_lossy(&data).into_owned())
}

/// At most [`MAX_ERROR_BODY_BYTES`] of an error answer's body; whatever
/// cannot be read in time is left out.
pub(crate) async fn error_body(mut response: reqwest::Response, idle: Duration) -> String {
    let mut data = Vec::new();
    while data.len() < MAX_ERROR_BODY_BYTES {
        match tokio::time::timeout(idle, response.chunk()).await {
            Ok(Ok(Some(chunk))) => data.extend_from_slice(&chunk),
            _ => break,
        }
    }
    data.truncate(MAX_ERROR_BODY_BYTES);
    String::from_utf8_lossy(&data).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_events_are_counted_across_chunks() {
        let mut f = Framing::default();
        assert!(f.feed(b"data: abc\r\n\r\ndata: x\n\n"));
        assert_eq!((f.line, f.event), (0, 0));
        assert!(f.feed(b"data: "));
        assert!(f.feed(&vec![b'a'; MAX_LINE_BYTES - 6]));
        assert!(!f.feed(b"b"));
        let mut f = Framing::default();
        // Many short lines of one event add up.
        let line = vec![b'a'; 1 << 20];
        for _ in 0..16 {
            assert!(f.feed(&line));
            assert!(f.feed(b"\r\n"));
        }
        assert!(!f.feed(b"x"));
    }

    #[test]
    fn loopback_hosts_get_the_short_connect_timeout() {
        let t = Transport::default();
        for url in [
            "http://127.0.0.1:11434/v1",
            "http://localhost:8080",
            "http://[::1]:9/v1",
        ] {
            assert_eq!(
                t.connect_timeout_for(url),
                LOOPBACK_CONNECT_TIMEOUT,
                "{url}"
            );
        }
        assert_eq!(
            t.connect_timeout_for("https://api.openai.com/v1"),
            Duration::from_secs(30)
        );
    }
}
