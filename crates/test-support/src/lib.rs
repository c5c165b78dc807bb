//! Dev-only test support for gemini-rs: [`FakeServer`], one HTTP/1.1 server on
//! 127.0.0.1 that stands in for every remote end the tests talk to.
//!
//! It speaks the model wires gemini-rs uses (Gemini `streamGenerateContent`,
//! `generateContent` and `countTokens`; OpenAI chat completions; Anthropic
//! Messages), serves arbitrary web pages (any status, content type, body,
//! redirects, slow or hanging answers), injects faults, and records every
//! request (method, path, headers, body) for assertions.
//!
//! Each request is answered from, in this order:
//! 1. a **route** whose path (and method, if given) matches: see [`Builder::route`];
//! 2. the **queue** of replies, served once each in order: see [`Builder::replies`];
//! 3. the **replay** of a `.responses` file (the lines gemini-rs records and
//!    replays), matched by wire and RPC, with [`Fault`]s applied: see
//!    [`Builder::replay`];
//! 4. otherwise `404` with a body naming the request.
//!
//! The server is plain `std::net` with one thread per connection, so it
//! starts without a runtime and works the same from `#[test]` and
//! `#[tokio::test]` code. Each connection carries one request and is closed
//! after the answer.
//!
//! ```
//! use gemini_rs_test_support::{FakeServer, Reply};
//! use serde_json::json;
//!
//! // A page, then one 429 before the recorded turn is replayed.
//! let turn = json!({"method": "generateContentStream", "response": [
//!     {"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}}]}]});
//! let server = FakeServer::builder()
//!     .route("/page.html", Reply::ok("text/html", "<p>hi</p>"))
//!     .replies([Reply::json(429, json!({"error": {"message": "slow down"}}))])
//!     .replay(&turn.to_string())
//!     .start();
//! // Point the client at `server.base_url` (e.g. `GOOGLE_GEMINI_BASE_URL`),
//! // fetch `server.url("/page.html")`, then look at what arrived:
//! for request in server.requests() {
//!     println!("{} {} {:?}", request.method, request.path, request.api_key());
//! }
//! ```

mod http;
mod replay;
mod reply;
mod request;
mod server;

pub use replay::Fault;
pub use reply::Reply;
pub use request::Request;
pub use server::{Builder, FakeServer};

/// A port on 127.0.0.1 that nothing listens on right now (bound, then
/// released): for "connection refused" tests and for peers that need a port
/// chosen up front.
///
/// # Panics
/// When no local port can be bound.
pub fn free_port() -> u16 {
    match std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()) {
        Ok(addr) => addr.port(),
        Err(e) => panic!("no free port on 127.0.0.1: {e}"),
    }
}

#[cfg(test)]
mod tests;
