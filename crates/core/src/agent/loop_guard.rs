//! Loop detection: the same tool call with the same arguments many times
//! in a row, or the same stretch of model text repeating, stops the turn
//! (`model.disableLoopDetection` turns it off).

use serde_json::Value;
use std::collections::HashMap;

/// Identical consecutive tool calls that count as a loop.
const TOOL_CALL_THRESHOLD: usize = 5;
/// Repeats of one text chunk that count as a loop.
const CONTENT_THRESHOLD: usize = 10;
/// Size of the text chunks compared.
const CHUNK_SIZE: usize = 50;

/// What the guard concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    /// The same call again and again.
    RepeatedToolCall,
    /// The same text again and again.
    RepeatedContent,
}

/// State of the guard for one prompt.
#[derive(Debug, Default)]
pub struct LoopGuard {
    last_call: Option<String>,
    call_repeats: usize,
    text: String,
    chunk_positions: HashMap<String, Vec<usize>>,
    scanned: usize,
    in_code_block: bool,
}

impl LoopGuard {
    /// A fresh guard.
    pub fn new() -> Self {
        LoopGuard::default()
    }

    /// Notes a tool call; `Some` when it makes a loop.
    pub fn on_tool_call(&mut self, name: &str, args: &Value) -> Option<LoopKind> {
        let key = format!("{name}:{}", crate::policy::stable_json(args));
        if self.last_call.as_deref() == Some(key.as_str()) {
            self.call_repeats += 1;
        } else {
            self.last_call = Some(key);
            self.call_repeats = 1;
        }
        // Text between calls no longer counts as one stretch.
        self.reset_content();
        (self.call_repeats >= TOOL_CALL_THRESHOLD).then_some(LoopKind::RepeatedToolCall)
    }

    /// Notes streamed text; `Some` when a chunk keeps repeating close by.
    pub fn on_content(&mut self, text: &str) -> Option<LoopKind> {
        for line in text.split_inclusive('\n') {
            if line.trim_start().starts_with("```") {
                self.in_code_block = !self.in_code_block;
                self.reset_content();
                continue;
            }
            if self.in_code_block {
                continue;
            }
            self.text.push_str(line);
        }
        while self.text.len() >= self.scanned + CHUNK_SIZE {
            let start = self.scanned;
            let Some(chunk) = self.text.get(start..start + CHUNK_SIZE) else {
                self.scanned += 1;
                continue;
            };
            let chunk = chunk.to_string();
            self.scanned += 1;
            let positions = self.chunk_positions.entry(chunk).or_default();
            positions.push(start);
            if positions.len() >= CONTENT_THRESHOLD {
                let recent = &positions[positions.len() - CONTENT_THRESHOLD..];
                let span = recent[CONTENT_THRESHOLD - 1] - recent[0];
                if span <= CHUNK_SIZE * CONTENT_THRESHOLD * 2 {
                    return Some(LoopKind::RepeatedContent);
                }
            }
        }
        None
    }

    fn reset_content(&mut self) {
        self.text.clear();
        self.chunk_positions.clear();
        self.scanned = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn five_identical_calls_are_a_loop() {
        let mut g = LoopGuard::new();
        for _ in 0..4 {
            assert_eq!(
                g.on_tool_call("read_file", &json!({"file_path": "a"})),
                None
            );
        }
        assert_eq!(
            g.on_tool_call("read_file", &json!({"file_path": "a"})),
            Some(LoopKind::RepeatedToolCall)
        );
        assert_eq!(
            g.on_tool_call("read_file", &json!({"file_path": "b"})),
            None
        );
    }

    #[test]
    fn repeated_text_is_a_loop_but_code_is_not() {
        let mut g = LoopGuard::new();
        let sentence = "I will now check the file again to be sure it is right. ";
        let mut hit = None;
        for _ in 0..20 {
            hit = hit.or(g.on_content(sentence));
        }
        assert_eq!(hit, Some(LoopKind::RepeatedContent));

        let mut g = LoopGuard::new();
        assert_eq!(g.on_content("```\n"), None);
        for _ in 0..30 {
            assert_eq!(
                g.on_content("    line = line + 1 and so on, repeated in a code block\n"),
                None
            );
        }
        let mut g = LoopGuard::new();
        let mut varied = None;
        for i in 0..40 {
            varied = varied.or(g.on_content(&format!(
                "Step {i}: looked at file number {} today. ",
                i * 7
            )));
        }
        assert_eq!(varied, None);
    }
}
