//! Turning things into styled lines, with no session or loop state: text
//! wrapping, syntax highlighting, Markdown, tool cards and the
//! confirmation dialog.

pub mod cards;
pub mod confirm;
pub mod highlight;
pub mod markdown;
pub mod wrap;
