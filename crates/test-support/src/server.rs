//! [`FakeServer`] and its [`Builder`]: the listener, the per-connection
//! threads and the choice of a reply for each request.

use crate::http::{read_request, write_reply};
use crate::replay::{Fault, Replay, function_responses};
use crate::reply::Reply;
use crate::request::Request;
use serde_json::Value;
use std::collections::VecDeque;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The running server. Dropping it stops accepting connections and ends
/// hanging replies.
#[derive(Debug)]
pub struct FakeServer {
    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub base_url: String,
    addr: SocketAddr,
    shared: Arc<Shared>,
}

/// What a [`FakeServer`] answers with, set before it starts.
#[derive(Debug, Default)]
#[must_use = "a builder does nothing until `start`"]
pub struct Builder {
    state: State,
}

/// One route: a path (and maybe a method) with its replies.
#[derive(Debug)]
struct Route {
    /// Upper-case method, or `None` for any.
    method: Option<String>,
    /// An exact path, or a prefix when it ends with `*`.
    path: String,
    /// Served in order; the last one repeats.
    replies: Vec<Reply>,
    served: usize,
}

#[derive(Debug, Default)]
struct State {
    routes: Vec<Route>,
    queue: VecDeque<Reply>,
    replay: Option<Replay>,
    requests: Vec<Request>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    stopped: AtomicBool,
}

impl Builder {
    /// Answers requests to `pattern` with `reply`, every time.
    ///
    /// `pattern` is a path (`/page.html`), optionally after a method
    /// (`POST /mcp`); a path ending in `*` is a prefix (`GET /.well-known/*`).
    /// Without `?` in the pattern the query is ignored when matching.
    /// The first matching route wins.
    pub fn route(self, pattern: &str, reply: Reply) -> Builder {
        self.route_replies(pattern, [reply])
    }

    /// Answers requests to `pattern` with `replies` in order; the last one
    /// repeats (e.g. two `503`s, then `200` for a flaky page).
    pub fn route_replies(
        mut self,
        pattern: &str,
        replies: impl IntoIterator<Item = Reply>,
    ) -> Builder {
        self.state
            .routes
            .push(Route::new(pattern, replies.into_iter().collect()));
        self
    }

    /// Queues `replies`: each answers one request that no route matched, in
    /// order, before the replay is consulted.
    pub fn replies(mut self, replies: impl IntoIterator<Item = Reply>) -> Builder {
        self.state.queue.extend(replies);
        self
    }

    /// Replays the JSONL `.responses` text to model requests: Gemini
    /// (`streamGenerateContent` as an SSE stream whose long text parts are
    /// split over two chunks and followed by a metadata-only chunk, as the
    /// real API sometimes streams; `generateContent`, `countTokens` as
    /// JSON), OpenAI chat completions and Anthropic Messages streams. Each
    /// request takes the first unused line of its method; when none is left
    /// it gets a `400` "No more mock responses for ...".
    ///
    /// # Panics
    /// When a line is not `{"method": ..., "response": ...}`.
    pub fn replay(mut self, responses: &str) -> Builder {
        self.state.replay = Some(Replay::parse(responses));
        self
    }

    /// Replays `responses` as [`Builder::replay`] does, but streams each
    /// recorded Gemini chunk as it is (no split, no added metadata
    /// chunk): the stream a reference program was recorded with.
    pub fn replay_as_recorded(mut self, responses: &str) -> Builder {
        self.state.replay = Some(Replay::parse(responses).streamed_as_recorded());
        self
    }

    /// Binds a port on 127.0.0.1 and starts serving.
    ///
    /// # Panics
    /// When no local port can be bound.
    pub fn start(self) -> FakeServer {
        let (listener, addr) =
            match TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr().map(|a| (l, a))) {
                Ok(bound) => bound,
                Err(e) => panic!("the fake server cannot listen on 127.0.0.1: {e}"),
            };
        let shared = Arc::new(Shared {
            state: Mutex::new(self.state),
            stopped: AtomicBool::new(false),
        });
        let accepting = shared.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accepting.stopped.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(stream) = stream else { continue };
                let shared = accepting.clone();
                std::thread::spawn(move || serve(stream, &shared));
            }
        });
        FakeServer {
            base_url: format!("http://{addr}"),
            addr,
            shared,
        }
    }
}

impl FakeServer {
    /// A builder for a server with routes, queued replies and a replay.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Starts a server replaying the JSONL `.responses` text (see
    /// [`Builder::replay`]).
    pub fn replaying(responses: &str) -> FakeServer {
        FakeServer::builder().replay(responses).start()
    }

    /// Starts a server answering requests with `replies` in order, then
    /// `404` (see [`Builder::replies`]).
    pub fn with_replies(replies: impl IntoIterator<Item = Reply>) -> FakeServer {
        FakeServer::builder().replies(replies).start()
    }

    /// Starts a server answering each `(pattern, reply)` route, `404`
    /// elsewhere (see [`Builder::route`]).
    pub fn with_routes<'a>(routes: impl IntoIterator<Item = (&'a str, Reply)>) -> FakeServer {
        routes
            .into_iter()
            .fold(FakeServer::builder(), |b, (pattern, reply)| {
                b.route(pattern, reply)
            })
            .start()
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Adds a route while running, after those already there (see
    /// [`Builder::route`]); for replies that name the server's own URL.
    pub fn route(&self, pattern: &str, reply: Reply) {
        self.shared
            .lock()
            .routes
            .push(Route::new(pattern, vec![reply]));
    }

    /// Queues one more reply (see [`Builder::replies`]).
    pub fn push_reply(&self, reply: Reply) {
        self.shared.lock().queue.push_back(reply);
    }

    /// Makes the next model request(s) of the replay fail, in order.
    pub fn push_fault(&self, fault: Fault) {
        self.shared
            .lock()
            .replay
            .get_or_insert_with(Replay::default)
            .push_fault(fault);
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.lock().requests.clone()
    }

    /// The path (with query) of every request so far.
    pub fn paths(&self) -> Vec<String> {
        self.shared
            .lock()
            .requests
            .iter()
            .map(|r| r.path.clone())
            .collect()
    }

    /// The `functionResponse` parts of the last content of each streamed
    /// Gemini request: what the tools answered the model, in order.
    pub fn function_responses(&self) -> Vec<Value> {
        function_responses(&self.shared.lock().requests)
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag and ends.
        let _ = TcpStream::connect(self.addr);
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Route {
    fn new(pattern: &str, replies: Vec<Reply>) -> Route {
        let (method, path) = match pattern.split_once(' ') {
            Some((method, path)) => (Some(method.to_ascii_uppercase()), path.trim()),
            None => (None, pattern),
        };
        Route {
            method,
            path: path.to_string(),
            replies,
            served: 0,
        }
    }

    fn matches(&self, request: &Request) -> bool {
        let path = if self.path.contains('?') {
            request.path.as_str()
        } else {
            request.path_only()
        };
        let path_ok = match self.path.strip_suffix('*') {
            Some(prefix) => path.starts_with(prefix),
            None => path == self.path,
        };
        path_ok
            && self
                .method
                .as_ref()
                .is_none_or(|m| m.eq_ignore_ascii_case(&request.method))
    }

    /// The next reply; the last one repeats.
    fn next(&mut self) -> Option<Reply> {
        let reply = self
            .replies
            .get(self.served)
            .or(self.replies.last())
            .cloned();
        self.served += 1;
        reply
    }
}

/// Reads one request, records it, answers it and closes the connection.
fn serve(mut stream: TcpStream, shared: &Shared) {
    let Ok(request) = read_request(&stream) else {
        return;
    };
    let reply = {
        let mut state = shared.lock();
        let (reply, record) = choose(&mut state, &request);
        if record {
            state.requests.push(request);
        }
        reply
    };
    let stopped = || shared.stopped.load(Ordering::SeqCst);
    let _ = write_reply(&mut stream, &reply, &stopped);
}

/// Route, then queue, then replay, then `404`; and whether the request
/// is kept for [`FakeServer::requests`]. A local model server's metadata
/// (llama.cpp `GET /props`, Ollama `POST /api/show`), asked at session
/// start, is no model request: unless routed it is answered `404`, as an
/// API without it would, and not kept, so the requests a test sees are
/// the model's.
fn choose(state: &mut State, request: &Request) -> (Reply, bool) {
    if let Some(reply) = state
        .routes
        .iter_mut()
        .find(|r| r.matches(request))
        .and_then(Route::next)
    {
        return (reply, true);
    }
    let path = request.path_only();
    if (request.method == "GET" && path.ends_with("/props"))
        || (request.method == "POST" && path.ends_with("/api/show"))
    {
        return (
            Reply::text(404, "not found: no route for a server metadata request"),
            false,
        );
    }
    if let Some(reply) = state.queue.pop_front() {
        return (reply, true);
    }
    if let Some(reply) = state.replay.as_mut().and_then(|r| r.answer(request)) {
        return (reply, true);
    }
    (
        Reply::text(
            404,
            &format!(
                "not found: no route, queued reply or recorded response for {} {}",
                request.method, request.path
            ),
        ),
        true,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, path: &str) -> Request {
        Request {
            method: method.into(),
            path: path.into(),
            headers: Vec::new(),
            body: Value::Null,
            raw: String::new(),
        }
    }

    #[test]
    fn routes_match_method_path_and_prefix() {
        let route = Route::new("post /mcp", Vec::new());
        assert!(route.matches(&request("POST", "/mcp?x=1")));
        assert!(!route.matches(&request("GET", "/mcp")));
        let route = Route::new("/.well-known/*", Vec::new());
        assert!(route.matches(&request("GET", "/.well-known/oauth")));
        assert!(!route.matches(&request("GET", "/other")));
    }

    #[test]
    fn route_replies_repeat_the_last() {
        let mut route = Route::new("/f", vec![Reply::text(503, "busy"), Reply::text(200, "ok")]);
        let statuses: Vec<u16> = (0..3)
            .filter_map(|_| route.next())
            .map(|r| r.status)
            .collect();
        assert_eq!(statuses, [503, 200, 200]);
    }
}
