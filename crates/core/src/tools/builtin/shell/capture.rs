//! Keeps a command's rendered output with bounded memory: the text itself
//! while it is small, otherwise a spool file in the project temp dir plus
//! the last lines; then frames it (`Output: …`) and applies Gemini CLI's
//! truncation (`Output too large. Showing the last …`).

use super::render::LineSink;
use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Longest line kept in the tail, as the reference cuts them.
const MAX_LINE: usize = 1000;
/// Characters shown of a single-line result.
const SINGLE_LINE_SNIPPET: usize = 4000;
/// Bytes of tail lines kept at most, whatever the line setting says.
const MAX_TAIL_BYTES: usize = 16 * 1024 * 1024;
/// Rendered text kept in memory at most (UTF-16 units) when truncation is
/// disabled.
pub(crate) const MAX_IN_MEMORY: usize = 8_000_000;

/// One line of the tail: its first [`MAX_LINE`] characters.
#[derive(Debug, Clone, Default)]
struct TailLine {
    text: String,
    chars: usize,
}

/// Truncation settings.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Content longer than this (UTF-16 units) is truncated; `None` when
    /// truncation is off.
    pub threshold: Option<usize>,
    /// Lines shown of a truncated result.
    pub lines: usize,
}

/// Where the rendered text lives.
enum Store {
    /// Small enough to keep.
    Memory(String),
    /// Spooled to a file.
    Spool(PathBuf, BufWriter<File>),
    /// The spool file failed; only the tail is left.
    Lost(io::Error),
}

/// The rendered output of one command.
pub(crate) struct Capture {
    limits: Limits,
    spool_dir: PathBuf,
    store: Store,
    units: usize,
    lines: usize,
    pending_newlines: usize,
    tail: VecDeque<TailLine>,
    tail_bytes: usize,
}

impl LineSink for Capture {
    fn fragment(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if self.lines == 0 {
            self.tail_push();
        }
        for _ in 0..std::mem::take(&mut self.pending_newlines) {
            self.write("\n");
            self.tail_push();
        }
        self.write(text);
        if let Some(last) = self.tail.back_mut() {
            self.tail_bytes += last.append(text);
        }
    }

    fn newline(&mut self) {
        self.pending_newlines += 1;
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        if let Store::Spool(path, _) = &self.store {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Capture {
    /// An empty capture that spools into `spool_dir` when it grows.
    pub(crate) fn new(limits: Limits, spool_dir: &Path) -> Self {
        Capture {
            limits,
            spool_dir: spool_dir.to_path_buf(),
            store: Store::Memory(String::new()),
            units: 0,
            lines: 0,
            pending_newlines: 0,
            tail: VecDeque::new(),
            tail_bytes: 0,
        }
    }

    /// True while nothing visible was rendered.
    pub(crate) fn is_empty(&self) -> bool {
        self.lines == 0
    }

    /// The rendered text so far when it is still in memory.
    pub(crate) fn text(&self) -> Option<&str> {
        match &self.store {
            Store::Memory(s) => Some(s),
            Store::Spool(..) | Store::Lost(_) => None,
        }
    }

    fn memory_cap(&self) -> usize {
        self.limits
            .threshold
            .map_or(MAX_IN_MEMORY, |t| t.min(MAX_IN_MEMORY))
    }

    fn tail_push(&mut self) {
        self.lines += 1;
        self.tail.push_back(TailLine::default());
        let keep = self.limits.lines.max(1);
        while self.tail.len() > keep || (self.tail_bytes > MAX_TAIL_BYTES && self.tail.len() > 1) {
            if let Some(old) = self.tail.pop_front() {
                self.tail_bytes -= old.text.len();
            }
        }
    }

    fn write(&mut self, text: &str) {
        self.units += utf16_len(text);
        let cap = self.memory_cap();
        match &mut self.store {
            Store::Memory(mem) => {
                mem.push_str(text);
                if self.units > cap {
                    self.start_spool();
                }
            }
            Store::Spool(_, file) => {
                if let Err(e) = file.write_all(text.as_bytes()) {
                    self.store = Store::Lost(e);
                }
            }
            Store::Lost(_) => {}
        }
    }

    fn start_spool(&mut self) {
        let path = self
            .spool_dir
            .join(format!("shell_spool_{}.tmp", uuid::Uuid::new_v4().simple()));
        let Store::Memory(mem) = std::mem::replace(&mut self.store, Store::Memory(String::new()))
        else {
            return;
        };
        let opened = std::fs::create_dir_all(&self.spool_dir).and_then(|()| File::create(&path));
        self.store = match opened {
            Ok(file) => {
                let mut file = BufWriter::with_capacity(256 * 1024, file);
                match file.write_all(mem.as_bytes()) {
                    Ok(()) => Store::Spool(path, file),
                    Err(e) => {
                        let _ = std::fs::remove_file(&path);
                        Store::Lost(e)
                    }
                }
            }
            Err(e) => Store::Lost(e),
        };
    }

    /// Frames the output as `prefix + output + suffix` and truncates the
    /// result when it is too long, saving the full text to `save_as`.
    pub(crate) fn finish(mut self, prefix: &str, suffix: &str, save_as: &Path) -> String {
        let total_units = utf16_len(prefix) + self.units + utf16_len(suffix);
        let too_long = self.limits.threshold.is_some_and(|t| total_units > t);
        match std::mem::replace(&mut self.store, Store::Memory(String::new())) {
            Store::Memory(mem) => {
                let full = format!("{prefix}{mem}{suffix}");
                if !too_long {
                    return full;
                }
                let saved = save_text(&full, save_as);
                truncate_text(&full, self.limits.lines, &saved_name(saved, save_as))
            }
            store => {
                let saved = match store {
                    Store::Spool(spool_path, file) => {
                        let saved = save_spooled(prefix, suffix, file, &spool_path, save_as);
                        let _ = std::fs::remove_file(&spool_path);
                        saved
                    }
                    Store::Lost(e) => Err(e),
                    Store::Memory(_) => Ok(()),
                };
                let lines = self.framed_tail(prefix, suffix);
                let total_lines = newlines(prefix) + self.lines.max(1) + newlines(suffix);
                truncated_lines(&lines, total_lines, &saved_name(saved, save_as))
            }
        }
    }

    /// The last lines of `prefix + output + suffix`, from the kept tail.
    fn framed_tail(&self, prefix: &str, suffix: &str) -> Vec<TailLine> {
        let mut lines: Vec<TailLine> = Vec::new();
        let has_first = self.tail.len() >= self.lines;
        if has_first {
            lines.extend(prefix.split('\n').map(tail_line));
        }
        let mut tail = self.tail.iter().cloned();
        if let Some(first) = tail.next() {
            match (has_first, lines.last_mut()) {
                (true, Some(joined)) => {
                    joined.append(&first.text);
                    joined.chars = joined.chars - first.text.chars().count() + first.chars;
                }
                _ => lines.push(first),
            }
        }
        lines.extend(tail);
        let mut parts = suffix.split('\n');
        if let (Some(first), Some(last)) = (parts.next(), lines.last_mut()) {
            last.append(first);
        }
        lines.extend(parts.map(tail_line));
        let keep = self.limits.lines.max(1);
        let skip = lines.len().saturating_sub(keep);
        lines.split_off(skip)
    }
}

impl TailLine {
    /// Appends text, keeping at most [`MAX_LINE`] characters; returns the
    /// bytes added.
    fn append(&mut self, text: &str) -> usize {
        let room = MAX_LINE.saturating_sub(self.chars);
        let before = self.text.len();
        if room > 0 {
            self.text.extend(text.chars().take(room));
        }
        self.chars += char_count(text);
        self.text.len() - before
    }
}

fn save_spooled(
    prefix: &str,
    suffix: &str,
    mut spool: BufWriter<File>,
    spool_path: &Path,
    save_as: &Path,
) -> io::Result<()> {
    spool.flush()?;
    drop(spool);
    let mut out = File::create(save_as)?;
    out.write_all(prefix.as_bytes())?;
    let mut src = File::open(spool_path)?;
    io::copy(&mut src, &mut out)?;
    out.write_all(suffix.as_bytes())?;
    Ok(())
}

fn tail_line(text: &str) -> TailLine {
    TailLine {
        text: text.chars().take(MAX_LINE).collect(),
        chars: text.chars().count(),
    }
}

fn newlines(s: &str) -> usize {
    s.bytes().filter(|b| *b == b'\n').count()
}

fn save_text(text: &str, path: &Path) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

fn saved_name(result: io::Result<()>, path: &Path) -> String {
    if let Err(e) = result {
        tracing::warn!(
            "could not save the full shell output to {}: {e}",
            path.display()
        );
    }
    path.display().to_string()
}

/// Number of UTF-16 code units, JavaScript's `length`.
pub(crate) fn utf16_len(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.chars().map(char::len_utf16).sum()
}

fn char_count(s: &str) -> usize {
    if s.is_ascii() {
        s.len()
    } else {
        s.chars().count()
    }
}

/// `toLocaleString()` of an integer: `4000` gives `4,000`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The reference's `formatTruncatedToolOutput` on an in-memory text.
pub(crate) fn truncate_text(content: &str, keep: usize, file: &str) -> String {
    let all: Vec<&str> = content.split('\n').collect();
    if all.len() <= 1 {
        let chars: Vec<char> = content.chars().collect();
        let snippet: String = chars[chars.len().saturating_sub(SINGLE_LINE_SNIPPET)..]
            .iter()
            .collect();
        return format!(
            "Output too large. Showing the last {} characters of the output. For full output see: {file}\n...{snippet}",
            thousands(snippet.chars().count())
        );
    }
    let skip = all.len().saturating_sub(keep.max(1));
    let lines: Vec<TailLine> = all[skip..].iter().map(|l| tail_line(l)).collect();
    truncated_lines(&lines, all.len(), file)
}

fn truncated_lines(lines: &[TailLine], total: usize, file: &str) -> String {
    let mut long = false;
    let shown: Vec<String> = lines
        .iter()
        .map(|l| {
            if l.chars > MAX_LINE {
                long = true;
                let cut: String = l.text.chars().take(MAX_LINE).collect();
                format!("{cut}... [LINE WIDTH TRUNCATED]")
            } else {
                l.text.clone()
            }
        })
        .collect();
    let note = if long {
        " (some long lines truncated)"
    } else {
        ""
    };
    format!(
        "Output too large. Showing the last {} of {} lines{note}. For full output see: {file}\n...\n{}",
        thousands(shown.len()),
        thousands(total),
        shown.join("\n")
    )
}
