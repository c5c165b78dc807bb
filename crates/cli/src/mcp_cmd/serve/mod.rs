//! `mcp serve`: the built-in tools as an MCP server on rmcp's server side,
//! over stdio or, with `--port`, streamable HTTP on 127.0.0.1. The handler
//! ([`handler::Handler`]) is shared by both transports; everything that
//! touches the engine is in [`session`].

mod handler;
mod http;
mod resources;
mod session;
mod stdio;

use super::{Env, ServeArgs};
use rmcp::service::{ServerInitializeError, serve_server};
use std::sync::Arc;

/// Serves until stdin closes (or the client goes away).
async fn serve_stdio(handler: handler::Handler) -> Result<(), String> {
    match serve_server(handler, stdio::StdioTransport::new()).await {
        Ok(running) => running
            .waiting()
            .await
            .map(|_| ())
            .map_err(|e| format!("the server task failed: {e}")),
        // The input ended before `initialize`: nothing to serve.
        Err(ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// `mcp serve`.
pub(super) async fn run(env: &Env, args: &ServeArgs) -> i32 {
    let session = match session::ToolSession::start(env, &args.approval_mode).await {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("Error: {e}");
            return 1;
        }
    };
    let handler = handler::Handler::new(session.clone(), args.resources);
    let outcome = match args.port {
        Some(port) => http::serve(handler, port).await,
        None => serve_stdio(handler).await,
    };
    session.shutdown();
    match outcome {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("Error: {e}");
            1
        }
    }
}
