//! The MCP client of gemini-rs, as a leaf crate (it knows nothing of the
//! engine): the `mcpServers.<name>` entry types, the legacy SSE transport,
//! the stdout line guard, resources, elicitation types, Gemini CLI's tool
//! naming, MCP-to-Gemini content conversion, and the OAuth pieces that
//! need no engine state (the token store, the loopback callback, the
//! challenge recorder). The connection itself, OAuth login and the Google
//! credentials provider still live in core's `tools::mcp` until their
//! seams (HTTP client builder, token-file directory, process groups,
//! Google credentials) are passed in.

#![deny(missing_docs)]

pub mod config;
pub mod convert;
pub mod elicitation;
mod lenient;
pub mod line_guard;
pub mod naming;
pub mod oauth;
pub mod resources;
pub mod sse;

pub use config::{McpServerConfig, OAuthConfig, TransportSpec};
