//! The MCP client of gemini-rs, as a leaf crate (it knows nothing of the
//! engine): the `mcpServers.<name>` entry types, one connection per server
//! over stdio, streamable HTTP or legacy SSE (§6.2), OAuth 2.1 and Google
//! credentials, resources, prompts, elicitation, Gemini CLI's tool naming
//! and MCP-to-Gemini content conversion. What it needs of the program
//! (token-file directory, HTTP client builder, Google credentials, process
//! groups) comes in as a [`Host`].

#![deny(missing_docs)]
// A library writes nothing to stdout: that is the front end's (and the
// protocol's, on stdio transports); its tests may print.
#![cfg_attr(not(test), deny(clippy::print_stdout))]

pub mod client;
pub mod config;
pub mod convert;
pub mod elicitation;
mod era;
pub mod error;
pub mod handler;
pub mod host;
pub mod line_guard;
mod listen;
mod mrtr;
pub mod naming;
pub mod oauth;
mod progress;
mod prompts;
pub mod resources;
pub mod sse;
mod stdio;
pub mod tasks;

pub use client::McpConnection;
pub use config::{McpServerConfig, OAuthConfig, TransportSpec};
pub use error::{ConnectError, PromptError};
pub use handler::{file_uri, file_uri_path};
pub use host::Host;
