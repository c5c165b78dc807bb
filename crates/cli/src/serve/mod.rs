//! `gemini-rs serve --listen ADDR`: one process hosting many sessions for
//! many clients on one HTTP/1 listener (hyper, as `mcp serve --port`):
//! - `/acp`: ACP over WebSocket, one JSON-RPC message per text frame; each
//!   connection is an ACP connection of its own with as many sessions as
//!   it opens, all ended when it closes ([`ws`]);
//! - `/a2a` and `/.well-known/agent-card.json`: an A2A v1.0 agent on the
//!   JSON-RPC binding, each A2A context a session ([`a2a`]);
//! - `/health`: `{"status":"ok"}` for probes.
//!
//! Loopback by default. Any other address needs a bearer token in
//! `GEMINI_RS_SERVE_TOKEN`; with a token set, every route but `/health` and
//! the agent card answers 401 without it.

mod a2a;
mod auth;
mod http;
mod ws;

use crate::args::Args;
use auth::Token;
use clap::Parser;
use gemini_rs_core::GeminiPaths;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// The address served when `--listen` is not given (Gemini CLI's A2A
/// server's default port, on loopback).
pub const DEFAULT_LISTEN: &str = "127.0.0.1:41242";

/// `gemini-rs serve`: the command line.
#[derive(Debug, Parser)]
#[command(
    name = "gemini-rs serve",
    about = "Serve ACP over WebSocket (/acp), A2A (/a2a, /.well-known/agent-card.json) and /health on one listener",
    // The session flags apply; these make no sense for a server.
    mut_arg("prompt", |a| a.hide(true)),
    mut_arg("prompt_flag", |a| a.hide(true)),
    mut_arg("prompt_interactive", |a| a.hide(true)),
    mut_arg("acp", |a| a.hide(true)),
    after_help = "Every other flag of gemini-rs (-m, --approval-mode, --yolo, --sandbox, ...) applies to each session.\nA non-loopback address needs GEMINI_RS_SERVE_TOKEN (a bearer token of 16 or more visible characters)."
)]
pub struct ServeCli {
    /// The address to listen on (IP:PORT; port 0 picks a free one).
    #[arg(long, value_name = "ADDR", default_value = DEFAULT_LISTEN)]
    pub listen: String,
    /// The flags each session is started with.
    #[command(flatten)]
    pub agent: Args,
}

/// What every connection shares.
pub(crate) struct Shared {
    pub args: Arc<Args>,
    pub paths: GeminiPaths,
    /// The folder A2A sessions work in (the server's working directory).
    pub root: PathBuf,
    /// Required on every route but `/health` and the card, when set.
    pub token: Option<Token>,
    /// The address clients reach us at (for the agent card).
    pub local: SocketAddr,
    /// The A2A contexts and tasks.
    pub a2a: a2a::Agent,
}

/// Parses `--listen`: an IP address and a port.
fn parse_listen(text: &str) -> Result<SocketAddr, String> {
    let text = text.trim();
    if let Ok(addr) = text.parse::<SocketAddr>() {
        return Ok(addr);
    }
    if let Some(port) = text.strip_prefix("localhost:")
        && let Ok(port) = port.parse::<u16>()
    {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    Err(format!(
        "--listen `{text}`: expected IP:PORT (e.g. 127.0.0.1:41242 or [::1]:0)"
    ))
}

/// How long an A2A context may sit idle before its session is closed
/// (`GEMINI_RS_SERVE_A2A_IDLE_SECONDS`, default 30 minutes).
fn a2a_idle() -> Result<Duration, String> {
    const VAR: &str = "GEMINI_RS_SERVE_A2A_IDLE_SECONDS";
    match std::env::var(VAR) {
        Err(_) => Ok(Duration::from_secs(30 * 60)),
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(secs) if secs > 0 => Ok(Duration::from_secs(secs)),
            _ => Err(format!(
                "{VAR} must be a whole number of seconds above 0 (got `{text}`)"
            )),
        },
    }
}

/// Serves until interrupted; the exit code.
pub async fn run(listen: &str, args: Args, paths: GeminiPaths, root: PathBuf) -> i32 {
    // As `--acp`: project registrations written behind, all before exiting.
    gemini_rs_core::write_registrations_behind();
    let served = serve(listen, args, paths, root).await;
    let _ = tokio::task::spawn_blocking(gemini_rs_core::flush_registrations).await;
    match served {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}

async fn serve(listen: &str, args: Args, paths: GeminiPaths, root: PathBuf) -> Result<(), String> {
    let addr = parse_listen(listen)?;
    let token = Token::from_env()?;
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(format!(
            "refusing to listen on {addr} without a token: a non-loopback address needs GEMINI_RS_SERVE_TOKEN set to a bearer token (16 or more visible characters) that every client sends as `Authorization: Bearer <token>`"
        ));
    }
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = listener.local_addr().unwrap_or(addr);
    let shared = Arc::new(Shared {
        args: Arc::new(args),
        paths,
        root,
        token,
        local,
        a2a: a2a::Agent::default(),
    });
    eprintln!(
        "gemini-rs serve listening on http://{local} (ACP: ws://{local}/acp, A2A: http://{local}/a2a, health: http://{local}/health)"
    );
    let idle = a2a_idle()?;
    let reaper = {
        let shared = shared.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(idle.min(Duration::from_secs(60)));
            loop {
                tick.tick().await;
                shared.a2a.reap(idle).await;
            }
        })
    };
    let outcome = http::accept(listener, shared.clone()).await;
    reaper.abort();
    shared.a2a.shutdown().await;
    outcome
}

/// A response body: whole, or a stream (A2A's SSE).
pub type Body = http_body_util::combinators::BoxBody<bytes::Bytes, std::convert::Infallible>;

/// A whole answer.
pub fn full(
    status: hyper::StatusCode,
    content_type: &str,
    body: impl Into<bytes::Bytes>,
) -> hyper::Response<Body> {
    use http_body_util::BodyExt;
    let mut response = hyper::Response::new(http_body_util::Full::new(body.into()).boxed());
    *response.status_mut() = status;
    if let Ok(v) = content_type.parse() {
        response
            .headers_mut()
            .insert(hyper::header::CONTENT_TYPE, v);
    }
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(
            parse_listen("127.0.0.1:0").unwrap(),
            "127.0.0.1:0".parse().unwrap()
        );
        assert_eq!(parse_listen("[::1]:80").unwrap().port(), 80);
        assert!(parse_listen("localhost:9").unwrap().ip().is_loopback());
        let e = parse_listen("example.com:80").unwrap_err();
        assert!(e.contains("expected IP:PORT"), "{e}");
        assert!(parse_listen("127.0.0.1").is_err());
    }
}
