//! The OAuth 2.1 pieces of the MCP client that need no engine state: the
//! token store (Gemini CLI's `mcp-oauth-tokens.json`), the loopback
//! callback that receives the browser's redirect, and the recorder of a
//! server's 401/403 challenge.

pub mod callback;
pub mod recorder;
pub mod store;

pub use recorder::{Challenge, ChallengeSlot};
pub use store::TokenStore;
