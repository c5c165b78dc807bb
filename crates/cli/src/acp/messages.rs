//! What ACP's `messageId` and `usage_update` need from a session's events:
//! one id shared by the chunks of one message (a new one when the kind of
//! chunk changes or a turn ends), and the tokens in context against the
//! model's window.

use agent_client_protocol::v1::schema as acp;
use gemini_rs_protocol::UsageMetadata;

/// The kind of message a chunk belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The user's prompt (replayed history).
    User,
    /// The model's answer.
    Agent,
    /// The model's thoughts.
    Thought,
}

/// Gives the chunks of one message the same id.
#[derive(Debug, Default)]
pub struct MessageIds {
    current: Option<(Kind, acp::MessageId)>,
}

impl MessageIds {
    /// A chunk of `text`, with the id of the message it continues (a new
    /// id when the last chunk was of another kind or the message ended).
    pub fn chunk(&mut self, kind: Kind, text: impl Into<String>) -> acp::ContentChunk {
        let id = match &self.current {
            Some((k, id)) if *k == kind => id.clone(),
            _ => {
                let id = acp::MessageId::new(uuid::Uuid::new_v4().to_string());
                self.current = Some((kind, id.clone()));
                id
            }
        };
        acp::ContentChunk::new(acp::ContentBlock::Text(acp::TextContent::new(text))).message_id(id)
    }

    /// The message so far is complete: the next chunk starts another.
    pub fn end(&mut self) {
        self.current = None;
    }
}

/// The tokens in the session's context and the model's window.
#[derive(Debug, Clone, Copy)]
pub struct UsageMeter {
    used: u64,
    size: u64,
}

impl UsageMeter {
    /// A meter for a model whose window is `size` tokens.
    pub fn new(size: u64) -> Self {
        UsageMeter { used: 0, size }
    }

    /// One model request's usage: its prompt and its answer are what the
    /// context holds now.
    pub fn observe(&mut self, usage: &UsageMetadata) {
        if let Some(prompt) = usage.prompt_token_count {
            self.used = prompt + usage.candidates_token_count.unwrap_or(0);
        }
    }

    /// The model changed: its window.
    pub fn resize(&mut self, size: u64) {
        self.size = size;
    }

    /// The `usage_update` to send.
    pub fn update(&self) -> acp::SessionUpdate {
        acp::SessionUpdate::UsageUpdate(acp::UsageUpdate::new(self.used, self.size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_of_one_message_share_an_id() {
        let mut ids = MessageIds::default();
        let a = ids.chunk(Kind::Thought, "a").message_id;
        let b = ids.chunk(Kind::Thought, "b").message_id;
        let c = ids.chunk(Kind::Agent, "c").message_id;
        ids.end();
        let d = ids.chunk(Kind::Agent, "d").message_id;
        assert!(a.is_some());
        assert_eq!(a, b);
        assert_ne!(b, c);
        assert_ne!(c, d);
    }

    #[test]
    fn usage_counts_the_last_prompt_and_answer() {
        let mut meter = UsageMeter::new(1000);
        let usage: UsageMetadata = serde_json::from_value(serde_json::json!({
            "promptTokenCount": 120, "candidatesTokenCount": 30, "totalTokenCount": 150
        }))
        .unwrap_or_default();
        meter.observe(&usage);
        let update = serde_json::to_value(meter.update()).unwrap_or_default();
        assert_eq!(
            update,
            serde_json::json!({"sessionUpdate": "usage_update", "used": 150, "size": 1000})
        );
    }
}
