//! The gemini-rs engine: settings, model clients, the workspace boundary,
//! tools, the scheduler that runs them and the agent loop. No terminal code.

pub mod agent;
pub mod config;
pub mod hooks;
pub mod model;
pub mod policy;
pub mod sandbox;
pub mod scheduler;
pub mod session;
pub mod tools;
pub mod workspace;
