//! Turning things into styled lines, with no session or loop state: text
//! wrapping, syntax highlighting, Markdown, tool cards, the
//! confirmation dialog, the MCP input form and the todo list.

pub mod ask_user;
pub mod cards;
pub mod confirm;
pub mod elicit;
pub mod highlight;
pub mod markdown;
pub mod provider_picker;
pub mod todos;
pub mod wrap;
