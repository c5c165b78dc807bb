//! Writing a session file in O(size of one message) per message.
//!
//! The file is Gemini CLI's `ConversationRecord` JSON, laid out with the
//! `messages` array last but one and `lastUpdated` last:
//!
//! ```text
//! {
//!   "sessionId": "..", "projectHash": "..", "startTime": "..", ...,
//!   "messages": [
//!     {..},
//!     {..}
//!   ],
//!   "lastUpdated": ".."
//! }
//! ```
//!
//! The first write (and the first after resuming a file written by someone
//! else) rewrites the whole file atomically; every later message overwrites
//! only the tail (`\n  ],\n  "lastUpdated": ..}`) with `,\n    {message}`
//! plus a new tail, in one positioned write. A process killed mid-write can
//! leave a torn last message; [`repair`] drops it when the file is read.

use super::record::ConversationRecord;
use crate::workspace::write_atomic;
use serde_json::Value;
use std::io;
use std::path::Path;

/// Where the tail starts, once the file has our layout.
#[derive(Debug, Default)]
pub(super) struct SessionWriter {
    tail_at: Option<u64>,
    /// The file, kept open between appends (reopened after a rewrite,
    /// which replaces it).
    file: Option<std::fs::File>,
}

/// Writes through to `out`, putting `pad` after every newline: JSON strings
/// escape their newlines, so every literal one is layout.
struct PadWriter<'a> {
    out: &'a mut Vec<u8>,
    pad: &'a [u8],
}

impl io::Write for PadWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(i) = rest.iter().position(|&b| b == b'\n') {
            self.out.extend_from_slice(&rest[..=i]);
            self.out.extend_from_slice(self.pad);
            rest = &rest[i + 1..];
        }
        self.out.extend_from_slice(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Appends `value` pretty-printed and indented by `levels` two-space steps.
fn push_pretty(out: &mut Vec<u8>, value: &impl serde::Serialize, levels: usize) -> io::Result<()> {
    let pad = "  ".repeat(levels);
    let writer = PadWriter {
        out,
        pad: pad.as_bytes(),
    };
    serde_json::to_writer_pretty(writer, value).map_err(io::Error::other)
}

/// A value pretty-printed and indented by `levels` two-space steps.
fn pretty_at(value: &impl serde::Serialize, levels: usize) -> io::Result<String> {
    let mut out = Vec::new();
    push_pretty(&mut out, value, levels)?;
    String::from_utf8(out).map_err(io::Error::other)
}

fn tail(last_updated: &str) -> io::Result<String> {
    let stamp = serde_json::to_string(last_updated).map_err(io::Error::other)?;
    Ok(format!("\n  ],\n  \"lastUpdated\": {stamp}\n}}\n"))
}

impl SessionWriter {
    /// Writes `record` after its last `new` messages were pushed.
    pub(super) fn append(
        &mut self,
        path: &Path,
        record: &ConversationRecord,
        new: usize,
    ) -> io::Result<()> {
        match self.tail_at {
            Some(at) if record.messages.len() > new => self.append_at(path, at, record, new),
            _ => self.rewrite(path, record),
        }
    }

    /// Overwrites the tail with the new messages and a new tail, in one
    /// positioned write.
    fn append_at(
        &mut self,
        path: &Path,
        at: u64,
        record: &ConversationRecord,
        new: usize,
    ) -> io::Result<()> {
        use std::os::unix::fs::FileExt;
        let mut bytes = Vec::with_capacity(1024 * new);
        for msg in &record.messages[record.messages.len() - new..] {
            bytes.extend_from_slice(b",\n    ");
            push_pretty(&mut bytes, msg, 2)?;
        }
        let body_len = bytes.len() as u64;
        bytes.extend_from_slice(tail(&record.last_updated)?.as_bytes());
        if self.file.is_none() {
            self.file = Some(std::fs::OpenOptions::new().write(true).open(path)?);
        }
        let Some(file) = self.file.as_ref() else {
            return self.rewrite(path, record);
        };
        if file.metadata()?.len() < at {
            // Someone else changed the file: start over.
            self.tail_at = None;
            return self.rewrite(path, record);
        }
        file.write_all_at(&bytes, at)?;
        self.tail_at = Some(at + body_len);
        Ok(())
    }

    /// The whole file, atomically.
    fn rewrite(&mut self, path: &Path, record: &ConversationRecord) -> io::Result<()> {
        let mut head = serde_json::Map::new();
        head.insert("sessionId".into(), Value::String(record.session_id.clone()));
        head.insert(
            "projectHash".into(),
            Value::String(record.project_hash.clone()),
        );
        head.insert("startTime".into(), Value::String(record.start_time.clone()));
        for (k, v) in &record.extra {
            head.insert(k.clone(), v.clone());
        }
        let mut text = String::from("{\n");
        for (k, v) in &head {
            let key = serde_json::to_string(k).map_err(io::Error::other)?;
            text.push_str(&format!("  {key}: {},\n", pretty_at(v, 1)?));
        }
        text.push_str("  \"messages\": [");
        for (i, m) in record.messages.iter().enumerate() {
            text.push_str(if i == 0 { "\n    " } else { ",\n    " });
            text.push_str(&pretty_at(m, 2)?);
        }
        let tail_at = text.len() as u64;
        text.push_str(&tail(&record.last_updated)?);
        self.file = None;
        write_atomic(path, text.as_bytes())?;
        self.tail_at = (!record.messages.is_empty()).then_some(tail_at);
        Ok(())
    }
}

/// Parses a session file; a file torn by a crash mid-append loses only its
/// last, incomplete message.
pub(super) fn parse(text: &str) -> Option<ConversationRecord> {
    if let Ok(record) = serde_json::from_str(text) {
        return Some(record);
    }
    repair(text).and_then(|fixed| serde_json::from_str(&fixed).ok())
}

/// Cuts after the last complete message (`\n    }` closing one) and closes
/// the array and the object.
fn repair(text: &str) -> Option<String> {
    let start = text.find("\n  \"messages\": [")?;
    let mut end = text.len();
    while let Some(i) = text[..end].rfind("\n    }") {
        if i < start {
            break;
        }
        let candidate = format!("{}\n  ]\n}}\n", &text[..i + 6]);
        if serde_json::from_str::<Value>(&candidate).is_ok() {
            return Some(candidate);
        }
        end = i;
    }
    Some(format!("{}\n  ]\n}}\n", &text[..start + 16]))
}
