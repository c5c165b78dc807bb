//! The HTTP client every MCP connection and OAuth request uses (one
//! builder for the whole engine, no idle connections kept: servers come
//! and go).

use crate::model::http::{ClientBuildError, build_client};

/// The HTTP client for one server. Building fails (rather than panics)
/// when no rustls crypto provider is installed.
pub(crate) fn client() -> Result<reqwest::Client, ClientBuildError> {
    build_client(reqwest::Client::builder().pool_max_idle_per_host(0))
}
