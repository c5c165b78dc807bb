//! [`Reply`]: one canned answer, from a web page to a model's event stream
//! or a fault.

use serde_json::Value;
use std::time::Duration;

/// One canned answer of the [`FakeServer`](crate::FakeServer).
///
/// Build it with a constructor (a page, JSON, a redirect, one wire's event
/// stream, a hang) and adjust it with the modifiers ([`Reply::header`],
/// [`Reply::delayed`], [`Reply::cut_after`], ...).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub(crate) status: u16,
    /// Header lines in order; `content-type` among them unless removed.
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Body,
    /// How long to wait after reading the request before answering.
    pub(crate) delay: Option<Duration>,
}

/// What follows the head of a [`Reply`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Body {
    /// Bytes; `sized` sends `content-length`, otherwise the body ends when
    /// the connection closes.
    Bytes { data: Vec<u8>, sized: bool },
    /// Framed SSE events, flushed one by one. With `cut_after: Some(n)` only
    /// the first `n` go out, without `content-length`, before the
    /// connection closes (a stream broken mid-way).
    Events {
        events: Vec<String>,
        cut_after: Option<usize>,
        /// After the events that go out, hold the connection open (30 s at
        /// most) instead of closing it: a server that stalls mid-answer.
        stall: bool,
    },
    /// `prefix`, then `unit` over and over until the client goes away or
    /// the server is dropped; no `content-length` (a body that never ends).
    Endless { prefix: Vec<u8>, unit: Vec<u8> },
    /// Like `Endless`, but every `{n}` of `unit` is the unit's number
    /// (0, 1, 2, ...): an answer that never stops and never repeats.
    Numbered { prefix: Vec<u8>, unit: String },
    /// Read the request, never answer; the connection stays open for 30 s
    /// or until the server is dropped.
    Hang,
}

const EVENT_STREAM: &str = "text/event-stream";

impl Reply {
    /// A `200` with this content type and body.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::status(200, content_type, body)
    }

    /// Any status with this content type and body.
    pub fn status(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: Body::Bytes {
                data: body.into(),
                sized: true,
            },
            delay: None,
        }
    }

    /// Any status and body without a `content-type` header (a client must
    /// guess the type).
    pub fn untyped(status: u16, body: impl Into<Vec<u8>>) -> Reply {
        let mut reply = Reply::status(status, "", body);
        reply.headers.clear();
        reply
    }

    /// A `text/plain` answer, e.g. `Reply::text(503, "busy")`.
    pub fn text(status: u16, body: &str) -> Reply {
        Reply::status(status, "text/plain", body)
    }

    /// An `application/json` answer; `body` is a `serde_json::Value` or JSON
    /// text. Gemini's `generateContent` and `countTokens`, OpenAI's
    /// non-streamed completions and every API error are this.
    pub fn json(status: u16, body: impl ToString) -> Reply {
        Reply::status(status, "application/json", body.to_string())
    }

    /// A `302 Found` to `location`, with an empty body.
    pub fn redirect(location: &str) -> Reply {
        Reply {
            status: 302,
            headers: vec![("location".into(), location.into())],
            body: Body::Bytes {
                data: Vec::new(),
                sized: true,
            },
            delay: None,
        }
    }

    /// No answer at all: the request is read and the connection held open
    /// (30 s at most), so a client can time out, cancel or be killed.
    pub fn hang() -> Reply {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: Body::Hang,
            delay: None,
        }
    }

    /// A `200` event stream with one `data:` event per item, `\n`-framed.
    pub fn sse<T: ToString>(events: impl IntoIterator<Item = T>) -> Reply {
        Reply::events(
            events
                .into_iter()
                .map(|e| format!("data: {}\n\n", e.to_string()))
                .collect(),
        )
    }

    /// Gemini's `streamGenerateContent?alt=sse`: one `data:` event per
    /// response chunk, `\r\n`-framed like the real API.
    pub fn gemini_stream<T: ToString>(chunks: impl IntoIterator<Item = T>) -> Reply {
        Reply::events(
            chunks
                .into_iter()
                .map(|c| format!("data: {}\r\n\r\n", c.to_string()))
                .collect(),
        )
    }

    /// OpenAI's streamed chat completion: one `data:` event per chunk, then
    /// `data: [DONE]`.
    pub fn openai_stream<T: ToString>(chunks: impl IntoIterator<Item = T>) -> Reply {
        let mut events: Vec<String> = chunks
            .into_iter()
            .map(|c| format!("data: {}\n\n", c.to_string()))
            .collect();
        events.push("data: [DONE]\n\n".into());
        Reply::events(events)
    }

    /// Anthropic's streamed Messages: each event as `event: <its type>` and
    /// `data: <it>`.
    pub fn anthropic_stream<T: ToString>(events: impl IntoIterator<Item = T>) -> Reply {
        Reply::events(
            events
                .into_iter()
                .map(|e| {
                    let data = e.to_string();
                    let kind = serde_json::from_str::<Value>(&data)
                        .ok()
                        .and_then(|v| v.get("type")?.as_str().map(str::to_string));
                    match kind {
                        Some(kind) => format!("event: {kind}\ndata: {data}\n\n"),
                        None => format!("data: {data}\n\n"),
                    }
                })
                .collect(),
        )
    }

    fn events(events: Vec<String>) -> Reply {
        Reply {
            status: 200,
            headers: vec![("content-type".into(), EVENT_STREAM.into())],
            body: Body::Events {
                events,
                cut_after: None,
                stall: false,
            },
            delay: None,
        }
    }

    /// A body that never ends: the head (`status`, `content_type`), then
    /// `prefix`, then `unit` repeated until the client hangs up. E.g. an
    /// endless error page, an SSE line that never ends (`prefix` `data: `,
    /// `unit` `aaaa`) or an answer that never stops (`unit` one event).
    pub fn endless(
        status: u16,
        content_type: &str,
        prefix: impl Into<Vec<u8>>,
        unit: impl Into<Vec<u8>>,
    ) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: Body::Endless {
                prefix: prefix.into(),
                unit: unit.into(),
            },
            delay: None,
        }
    }

    /// Like [`Reply::endless`], but every `{n}` in `unit` is replaced by
    /// the number of the unit (0, 1, 2, ...): endless distinct text, e.g.
    /// an answer whose words never repeat.
    pub fn endless_numbered(
        status: u16,
        content_type: &str,
        prefix: impl Into<Vec<u8>>,
        unit: &str,
    ) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: Body::Numbered {
                prefix: prefix.into(),
                unit: unit.to_string(),
            },
            delay: None,
        }
    }

    /// Adds a header (`content-type` replaces the one there).
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        if name.eq_ignore_ascii_case("content-type") {
            self.headers.retain(|(n, _)| n != "content-type");
        }
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }

    /// Sends no `content-length`: the body ends when the connection closes.
    pub fn without_length(mut self) -> Reply {
        if let Body::Bytes { sized, .. } = &mut self.body {
            *sized = false;
        }
        self
    }

    /// Waits this long before answering (a slow server).
    pub fn delayed(mut self, wait: Duration) -> Reply {
        self.delay = Some(wait);
        self
    }

    /// For an event stream: sends only the first `n` events, then closes
    /// the connection (`0`: the head and nothing else).
    pub fn cut_after(mut self, n: usize) -> Reply {
        if let Body::Events { cut_after, .. } = &mut self.body {
            *cut_after = Some(n);
        }
        self
    }

    /// For an event stream: sends only the first `n` events, then holds
    /// the connection open without a byte more (`0`: the head only), for
    /// 30 s at most or until the server is dropped.
    pub fn stall_after(mut self, n: usize) -> Reply {
        if let Body::Events {
            cut_after, stall, ..
        } = &mut self.body
        {
            *cut_after = Some(n);
            *stall = true;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn events(r: &Reply) -> Vec<String> {
        match &r.body {
            Body::Events { events, .. } => events.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_wire_frames_its_events() {
        let gemini = Reply::gemini_stream([json!({"a": 1})]);
        assert_eq!(events(&gemini), ["data: {\"a\":1}\r\n\r\n"]);
        let openai = Reply::openai_stream(["{}"]);
        assert_eq!(events(&openai), ["data: {}\n\n", "data: [DONE]\n\n"]);
        let anthropic = Reply::anthropic_stream([json!({"type": "message_stop"}), json!(1)]);
        assert_eq!(
            events(&anthropic),
            [
                "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
                "data: 1\n\n"
            ]
        );
    }

    #[test]
    fn modifiers_adjust_the_head() {
        let r = Reply::ok("text/html", "x")
            .header("Content-Type", "text/plain")
            .header("X-A", "1");
        assert_eq!(
            r.headers,
            [
                ("content-type".to_string(), "text/plain".to_string()),
                ("x-a".to_string(), "1".to_string())
            ]
        );
        assert!(Reply::untyped(200, "").headers.is_empty());
        assert_eq!(
            Reply::ok("a/b", "x").without_length().body,
            Body::Bytes {
                data: b"x".to_vec(),
                sized: false
            }
        );
    }
}
