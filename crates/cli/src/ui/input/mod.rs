//! The prompt's input: the multi-line line editor, the input history and
//! completion of `/commands` and `@paths`. Plain data; the key handler
//! (`handlers::keys`) drives them.

pub mod complete;
pub mod history;
pub mod line_editor;
pub mod vim;
