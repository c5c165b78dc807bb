//! The slash commands' words: the table and parser, what the informational
//! ones print, and the panels of the ones that list session parts (saved
//! chats, MCP servers, hooks, directories, checkpoints). Running them is
//! `handlers::slash`.

pub mod chat;
pub mod info;
pub mod panels;
pub mod parse;
pub mod plan;
pub mod theme;
