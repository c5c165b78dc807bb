//! What the user's actions do to the running [`App`](crate::ui::control::App):
//! keys, an entered line (prompt, `!shell`, `/command`), slash commands and
//! "modify with editor". Free functions over the app, called by the loop
//! (`ui::app`); none of them calls back into the loop.

pub mod dialog;
pub mod external_editor;
pub mod keys;
pub mod model;
pub mod plan;
pub mod preferences;
pub mod registry;
pub mod slash;
pub mod slash_info;
pub mod submit;
