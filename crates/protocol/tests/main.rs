//! Round-trip tests of the wire types against Gemini CLI's recorded sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hook_api;
mod round_trip;
