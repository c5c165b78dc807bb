//! The file edits of this run's prompts: each call whose result shows a
//! file diff (`write_file`, `replace`, the memory tool) with the content
//! before and after. `/rewind` reverts them without checkpoints, newest
//! first, as Gemini CLI 0.61 reverts from its recorded edits. Files changed
//! by shell commands or by hand leave no record, so they are not reverted.

use crate::scheduler::CompletedCall;
use crate::tools::ToolDisplay;
use gemini_rs_protocol::events::{FileDiff, ToolCallStatus};
use std::path::Path;

/// The most content the log keeps (before and after, all edits): past it
/// the oldest prompts' edits are forgotten whole, so a long session's
/// memory stays bounded; rewinding to them no longer reverts files.
const MAX_KEPT_BYTES: usize = 16 << 20;

/// The edits, each with the number of the prompt (1: this run's first)
/// that made it.
#[derive(Debug, Default)]
pub struct EditLog {
    prompts: usize,
    edits: Vec<(usize, FileDiff)>,
    bytes: usize,
}

/// What an edit keeps in memory.
fn size(d: &FileDiff) -> usize {
    d.file_diff.len() + d.original_content.as_ref().map_or(0, String::len) + d.new_content.len()
}

impl EditLog {
    /// A prompt started; the edits that follow are its.
    pub fn prompt_started(&mut self) {
        self.prompts += 1;
    }

    /// Keeps the edits among `completed`.
    pub fn note(&mut self, completed: &[CompletedCall]) {
        for c in completed {
            if c.status == ToolCallStatus::Success
                && let ToolDisplay::FileDiff(d) = &c.result.display
            {
                self.push(self.prompts, d.clone());
            }
        }
        self.forget_oldest();
    }

    fn push(&mut self, prompt: usize, d: FileDiff) {
        self.bytes += size(&d);
        self.edits.push((prompt, d));
    }

    /// Drops the oldest prompts' edits, a prompt at a time, while over the
    /// cap (the latest prompt's are kept whole).
    fn forget_oldest(&mut self) {
        while self.bytes > MAX_KEPT_BYTES {
            let Some(&(oldest, _)) = self.edits.first() else {
                break;
            };
            if oldest == self.prompts {
                break;
            }
            let end = self.edits.partition_point(|(n, _)| *n == oldest);
            let freed: usize = self.edits.drain(..end).map(|(_, d)| size(&d)).sum();
            self.bytes -= freed;
        }
    }

    /// Takes out the edits made since the `back`-th latest prompt (1: the
    /// latest), newest first.
    pub fn take_since(&mut self, back: usize) -> Vec<FileDiff> {
        let first = self.prompts.saturating_sub(back.saturating_sub(1));
        let at = self.edits.partition_point(|(n, _)| *n < first);
        let taken: Vec<FileDiff> = self.edits.drain(at..).rev().map(|(_, d)| d).collect();
        self.bytes = self.bytes.saturating_sub(taken.iter().map(size).sum());
        taken
    }

    /// The conversation went back to before the `back`-th latest prompt.
    pub fn cut(&mut self, back: usize) {
        self.prompts = self.prompts.saturating_sub(back);
        let prompts = self.prompts;
        self.edits.retain(|(n, _)| *n <= prompts);
        self.bytes = self.edits.iter().map(|(_, d)| size(d)).sum();
    }

    /// Forgets everything (`/clear`, `/chat resume`, `/restore`).
    pub fn clear(&mut self) {
        *self = EditLog::default();
    }
}

/// What reverting one edit did, when it did not simply work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RevertNote {
    /// The file no longer holds the edit's result, so it was left alone.
    Changed(String),
    /// A file the edit changed is gone.
    Missing(String),
    /// Reading or writing the file failed.
    Failed(String, String),
}

impl RevertNote {
    /// The line shown to the user, in Gemini CLI 0.61's words.
    pub fn message(&self) -> String {
        match self {
            RevertNote::Changed(f) => format!(
                "Smart revert for {f} failed. The file may have been modified in a way that conflicts with the undo operation."
            ),
            RevertNote::Missing(f) => format!(
                "Cannot revert changes for {f} because it was not found on disk. This is expected if a file created by the agent was deleted before rewind"
            ),
            RevertNote::Failed(f, e) => {
                format!("An unexpected error occurred while reverting {f}: {e}")
            }
        }
    }
}

/// Reverts `edits` (newest first): a file that still holds an edit's
/// result gets its content from before (a file the edit created is
/// removed); one changed since is left alone with a note.
pub fn revert(edits: &[FileDiff]) -> Vec<RevertNote> {
    edits.iter().filter_map(revert_one).collect()
}

fn revert_one(d: &FileDiff) -> Option<RevertNote> {
    let path = Path::new(&d.file_path);
    let name = d.file_name.clone();
    let current = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A created file already gone is what reverting wants.
            return d
                .original_content
                .is_some()
                .then_some(RevertNote::Missing(name));
        }
        Err(e) => return Some(RevertNote::Failed(name, e.to_string())),
    };
    if current != d.new_content {
        return Some(RevertNote::Changed(name));
    }
    let done = match &d.original_content {
        Some(before) => crate::workspace::write_atomic(path, before.as_bytes()),
        None => std::fs::remove_file(path),
    };
    done.err().map(|e| RevertNote::Failed(name, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(dir: &Path, name: &str, before: Option<&str>, after: &str) -> FileDiff {
        FileDiff {
            file_diff: String::new(),
            file_name: name.into(),
            file_path: dir.join(name).display().to_string(),
            original_content: before.map(str::to_string),
            new_content: after.into(),
        }
    }

    #[test]
    fn edits_are_taken_from_the_chosen_prompt_on_newest_first() {
        let dir = tempfile::tempdir().unwrap();
        let mut log = EditLog::default();
        for (prompt, after) in [(1, "one"), (2, "two"), (3, "three")] {
            while log.prompts < prompt {
                log.prompt_started();
            }
            let before = (prompt > 1).then_some("x");
            log.push(prompt, diff(dir.path(), "f", before, after));
        }
        let taken = log.take_since(2);
        let afters: Vec<&str> = taken.iter().map(|d| d.new_content.as_str()).collect();
        assert_eq!(afters, ["three", "two"]);
        log.cut(2);
        assert_eq!(log.prompts, 1);
        assert_eq!(log.edits.len(), 1);
    }

    #[test]
    fn past_the_cap_the_oldest_prompts_edits_are_forgotten_whole() {
        let dir = tempfile::tempdir().unwrap();
        let big = "x".repeat(MAX_KEPT_BYTES / 3);
        let mut log = EditLog::default();
        for prompt in 1..=4 {
            log.prompt_started();
            log.push(prompt, diff(dir.path(), "a", None, &big));
            log.push(prompt, diff(dir.path(), "b", None, "small"));
            log.forget_oldest();
        }
        let kept: Vec<usize> = log.edits.iter().map(|(n, _)| *n).collect();
        assert_eq!(kept, [3, 3, 4, 4]);
        assert!(log.bytes <= MAX_KEPT_BYTES);
        // One prompt over the cap on its own is kept whole.
        log.prompt_started();
        let huge = "y".repeat(MAX_KEPT_BYTES + 1);
        log.push(5, diff(dir.path(), "c", None, &huge));
        log.forget_oldest();
        assert_eq!(log.edits.len(), 1);
        assert_eq!(log.take_since(1).len(), 1);
        assert_eq!(log.bytes, 0);
    }

    #[test]
    fn a_file_still_as_edited_is_reverted_and_a_changed_one_is_left() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("kept"), "after").unwrap();
        std::fs::write(dir.path().join("made"), "new").unwrap();
        std::fs::write(dir.path().join("moved"), "by hand").unwrap();
        let notes = revert(&[
            diff(dir.path(), "kept", Some("before"), "after"),
            diff(dir.path(), "made", None, "new"),
            diff(dir.path(), "moved", Some("before"), "after"),
            diff(dir.path(), "gone", Some("before"), "after"),
        ]);
        let read = |n: &str| std::fs::read_to_string(dir.path().join(n)).ok();
        assert_eq!(read("kept").as_deref(), Some("before"));
        assert_eq!(read("made"), None);
        assert_eq!(read("moved").as_deref(), Some("by hand"));
        assert_eq!(
            notes,
            [
                RevertNote::Changed("moved".into()),
                RevertNote::Missing("gone".into())
            ]
        );
    }
}
