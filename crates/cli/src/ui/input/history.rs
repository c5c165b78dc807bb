//! Input history, persisted per project as JSON lines in the project temp
//! dir, navigated with Up and Down.

use std::io::Write;
use std::path::PathBuf;

const MAX_ENTRIES: usize = 1000;

/// The prompts typed so far, oldest first, and a browsing position.
#[derive(Debug, Default)]
pub struct History {
    entries: Vec<String>,
    path: Option<PathBuf>,
    pos: Option<usize>,
    draft: String,
}

impl History {
    /// Loads the history at `path` (missing or unreadable: empty).
    pub fn load(path: PathBuf) -> Self {
        let entries = std::fs::read_to_string(&path)
            .map(|t| {
                t.lines()
                    .filter_map(|l| serde_json::from_str::<String>(l).ok())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        let skip = entries.len().saturating_sub(MAX_ENTRIES);
        History {
            entries: entries.into_iter().skip(skip).collect(),
            path: Some(path),
            pos: None,
            draft: String::new(),
        }
    }

    /// The entries, oldest first.
    #[cfg(test)]
    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Adds an entry (not a repeat of the last one) and appends it to the file.
    pub fn push(&mut self, entry: &str) {
        self.pos = None;
        if entry.trim().is_empty() || self.entries.last().is_some_and(|l| l == entry) {
            return;
        }
        self.entries.push(entry.to_string());
        let Some(path) = &self.path else { return };
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Ok(line) = serde_json::to_string(entry)
            && let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
        {
            let _ = writeln!(f, "{line}");
        }
    }

    /// The previous entry; `current` is kept as the draft on the first step.
    pub fn prev(&mut self, current: &str) -> Option<&str> {
        let next = match self.pos {
            None => {
                self.draft = current.to_string();
                self.entries.len().checked_sub(1)?
            }
            Some(0) => return None,
            Some(p) => p - 1,
        };
        self.pos = Some(next);
        self.entries.get(next).map(String::as_str)
    }

    /// The next entry, or the draft past the newest.
    pub fn next(&mut self) -> Option<&str> {
        let p = self.pos?;
        if p + 1 >= self.entries.len() {
            self.pos = None;
            return Some(&self.draft);
        }
        self.pos = Some(p + 1);
        self.entries.get(p + 1).map(String::as_str)
    }

    /// Stops browsing.
    pub fn reset(&mut self) {
        self.pos = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn persists_and_browses() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/input_history");
        let mut h = History::load(path.clone());
        h.push("one");
        h.push("two\nlines");
        h.push("two\nlines");
        let mut h = History::load(path);
        assert_eq!(h.entries().len(), 2);
        assert_eq!(h.prev("draft"), Some("two\nlines"));
        assert_eq!(h.prev(""), Some("one"));
        assert_eq!(h.prev(""), None);
        assert_eq!(h.next(), Some("two\nlines"));
        assert_eq!(h.next(), Some("draft"));
    }
}
