//! Round-trip tests of the wire types against Gemini CLI's recorded sessions.
// clippy.toml lets tests unwrap, but it cannot tell an integration test
// crate's helper functions from library code: allow it here, once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod events;
mod hook_api;
mod round_trip;
