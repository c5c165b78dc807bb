//! The gemini-rs engine: settings, model clients, the workspace boundary,
//! tools, the scheduler that runs them, the agent loop and the session
//! task every front end drives. No terminal code.
//!
//! Layers, each importing only from those above it in this list:
//! `config`, `workspace`, `model`, `policy`, `sandbox`, `checkpoint`,
//! `process`, `skills`, `subagents` (1); `tools` (2); `events` (3); `hooks` (4); `scheduler` (5);
//! `agent` (6); `session` (7).

pub mod agent;
pub mod checkpoint;
pub mod config;
pub mod events;
pub mod hooks;
pub mod model;
pub mod policy;
pub mod process;
pub mod recording;
pub mod sandbox;
pub mod scheduler;
pub mod session;
pub mod skills;
pub mod subagents;
#[cfg(test)]
mod test_peers;
pub mod tools;
pub mod workspace;
