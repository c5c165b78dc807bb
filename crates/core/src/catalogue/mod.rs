//! The tool catalogue (layer 1): what each built-in tool declares
//! ([`builtins`], [`spec`]), every name a tool answers to in both Gemini
//! CLI dialects, Claude Code and MCP forms ([`names`], [`claude`]), and
//! what each dialect shows the model ([`dialect`], [`schemas`]) and prints
//! headless ([`headless`]). Policy, hooks,
//! sub-agents, config and the tools read it; it reads nothing of theirs.

pub mod builtins;
pub mod claude;
pub mod dialect;
pub mod headless;
pub mod names;
pub mod params;
pub mod rules;
pub mod schemas;
pub mod spec;
pub mod texts;
