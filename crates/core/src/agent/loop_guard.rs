//! Loop detection: the same tool call with the same arguments many times
//! in a row, or the same stretch of model text repeating, stops the turn
//! (`model.disableLoopDetection` turns it off).

use serde_json::Value;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};

/// Identical consecutive tool calls that count as a loop.
const TOOL_CALL_THRESHOLD: usize = 5;
/// Repeats of one text chunk that count as a loop.
const CONTENT_THRESHOLD: usize = 10;
/// Size of the text chunks compared.
const CHUNK_SIZE: usize = 50;
/// The widest stretch `CONTENT_THRESHOLD` repeats may spread over and
/// still count: older chunks can never be part of a loop, so they are
/// forgotten (the guard's memory is bounded by this window, not by the
/// length of the answer).
const SPAN: usize = CHUNK_SIZE * CONTENT_THRESHOLD * 2;
/// Text kept before the scan point is trimmed once it grows past this.
const TEXT_KEEP: usize = 4 * SPAN;

/// What the guard concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoopKind {
    /// The same call again and again.
    RepeatedToolCall,
    /// The same text again and again.
    RepeatedContent,
}

/// State of the guard for one prompt.
///
/// Content is compared as 50-byte chunks at every offset; a chunk seen
/// [`CONTENT_THRESHOLD`] times within [`SPAN`] bytes is a loop. Chunks
/// are kept as 64-bit hashes of those within the last [`SPAN`] bytes
/// only, so memory stays constant however long the answer.
#[derive(Debug, Default)]
pub struct LoopGuard {
    last_call: Option<String>,
    call_repeats: usize,
    /// The text not yet trimmed; `text[0]` is at absolute offset `base`.
    text: String,
    base: usize,
    /// Absolute offset of the next chunk to scan.
    scanned: usize,
    /// Offsets of the chunks seen in the window, by hash.
    chunk_positions: HashMap<u64, VecDeque<usize>>,
    /// The window's chunks in order: (hash, offset).
    window: VecDeque<(u64, usize)>,
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
            if let Some(hit) = self.scan() {
                return Some(hit);
            }
        }
        None
    }

    /// Looks at every whole chunk not scanned yet.
    fn scan(&mut self) -> Option<LoopKind> {
        while self.base + self.text.len() >= self.scanned + CHUNK_SIZE {
            let start = self.scanned;
            self.scanned += 1;
            let at = start - self.base;
            let Some(chunk) = self.text.get(at..at + CHUNK_SIZE) else {
                continue;
            };
            let mut hasher = DefaultHasher::new();
            chunk.hash(&mut hasher);
            let hash = hasher.finish();
            self.forget_before(start.saturating_sub(SPAN));
            self.window.push_back((hash, start));
            let positions = self.chunk_positions.entry(hash).or_default();
            positions.push_back(start);
            if positions.len() >= CONTENT_THRESHOLD {
                let first = positions[positions.len() - CONTENT_THRESHOLD];
                if start - first <= SPAN {
                    return Some(LoopKind::RepeatedContent);
                }
            }
        }
        self.trim_text();
        None
    }

    /// Drops the chunks that start before `oldest`.
    fn forget_before(&mut self, oldest: usize) {
        while let Some(&(hash, pos)) = self.window.front() {
            if pos >= oldest {
                break;
            }
            self.window.pop_front();
            if let Some(positions) = self.chunk_positions.get_mut(&hash) {
                positions.pop_front();
                if positions.is_empty() {
                    self.chunk_positions.remove(&hash);
                }
            }
        }
    }

    /// Drops the text before the scan point, keeping a char boundary.
    fn trim_text(&mut self) {
        let scanned = self.scanned - self.base;
        if scanned <= TEXT_KEEP {
            return;
        }
        let mut cut = scanned;
        while cut > 0 && !self.text.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.drain(..cut);
        self.base += cut;
    }

    fn reset_content(&mut self) {
        self.text.clear();
        self.chunk_positions.clear();
        self.window.clear();
        self.base = 0;
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

    #[test]
    fn memory_stays_bounded_over_a_long_distinct_answer() {
        let mut g = LoopGuard::new();
        for i in 0..200_000u64 {
            assert_eq!(g.on_content(&format!("word{i} ")), None);
        }
        assert!(
            g.chunk_positions.len() <= SPAN + 1,
            "{}",
            g.chunk_positions.len()
        );
        assert!(g.window.len() <= SPAN + 1);
        assert!(g.text.len() <= TEXT_KEEP + 4096, "{}", g.text.len());
        // Repetition after it is still found.
        let sentence = "I will now check the file again to be sure it is right. ";
        let mut hit = None;
        for _ in 0..20 {
            hit = hit.or(g.on_content(sentence));
        }
        assert_eq!(hit, Some(LoopKind::RepeatedContent));
    }
}
