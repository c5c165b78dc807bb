//! The slash commands' words: a typed line split into its parts, what the
//! informational ones print, and the panels of the ones that list session
//! parts (saved chats, MCP servers, hooks, directories, checkpoints). The
//! commands themselves (names, help, handlers) are `handlers::registry`'s.

pub mod args;
pub mod auth;
mod auth_keep;
pub mod chat;
pub mod custom;
pub mod dialog;
pub mod editor;
pub mod extensions;
pub mod info;
pub mod panels;
pub mod permissions;
pub mod policies;
pub mod report;
pub mod rewind;
pub mod settings;
pub mod terminal_setup;
pub mod theme;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// A panel's heading line (bold cyan), as every listing command draws it.
pub fn heading(text: &str) -> Line<'static> {
    Line::from(Span::styled(
        text.to_string(),
        Style::new().add_modifier(Modifier::BOLD).fg(Color::Cyan),
    ))
}
