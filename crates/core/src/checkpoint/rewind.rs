//! Finding the checkpoint `/rewind` restores: the oldest one made after a
//! given prompt, recognised by that prompt sitting at the same place in
//! the conversation the checkpoint saved.

use super::{Checkpointer, read_json};
use gemini_rs_protocol::Content;

impl Checkpointer {
    /// The id of the oldest checkpoint whose saved conversation has
    /// `prompt` at `index` (made during that prompt's turn or later).
    pub fn first_after_prompt(&self, index: usize, prompt: &Content) -> Option<String> {
        self.list().into_iter().map(|c| c.id).find(|id| {
            let Ok(data) = read_json(&self.dir.join(format!("{id}.json"))) else {
                return false;
            };
            data.get("clientHistory")
                .and_then(|h| h.get(index))
                .and_then(|c| serde_json::from_value::<Content>(c.clone()).ok())
                .is_some_and(|c| c == *prompt)
        })
    }
}
