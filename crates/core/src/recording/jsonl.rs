//! Today's session file (Gemini CLI 0.39 and later): `session-*.jsonl`,
//! one JSON record per line, only ever appended to.
//!
//! ```text
//! {"sessionId":"..","projectHash":"..","startTime":"..","lastUpdated":"..","kind":"main"}
//! {"id":"..","timestamp":"..","type":"user","content":[{"text":"hi"}]}
//! {"$set":{"lastUpdated":".."}}
//! {"id":"..","type":"gemini","content":"..","thoughts":[..],"tokens":{..},"model":".."}
//! {"id":"<same id>", .., "toolCalls":[..]}          a message update
//! {"$rewindTo":"<message id>"}                      drop that message and the later ones
//! ```
//!
//! The first line is the metadata; a record with a string `id` is a message
//! (a later one with the same id replaces it in place); `$set` merges
//! metadata (its `messages`, when present, replace them all); `$rewindTo`
//! cuts the conversation. Lines that do not parse (a torn last line) are
//! skipped, as Gemini CLI skips them.

use super::record::{ConversationRecord, MessageRecord};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::io;
use std::path::Path;

/// The metadata line.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Header<'a> {
    session_id: &'a str,
    project_hash: &'a str,
    start_time: &'a str,
    last_updated: &'a str,
    #[serde(flatten)]
    extra: &'a Map<String, Value>,
}

/// The metadata line of `record`.
pub(super) fn header_line(record: &ConversationRecord) -> io::Result<String> {
    serde_json::to_string(&Header {
        session_id: &record.session_id,
        project_hash: &record.project_hash,
        start_time: &record.start_time,
        last_updated: &record.last_updated,
        extra: &record.extra,
    })
    .map_err(io::Error::other)
}

/// A message line.
pub(super) fn message_line(msg: &MessageRecord) -> io::Result<String> {
    serde_json::to_string(msg).map_err(io::Error::other)
}

/// Appends `value` as one line: its JSON, then a newline, serialised
/// straight onto `out` (the lines waiting for the writer); on an error
/// `out` is left as it was.
pub(super) fn push_line(out: &mut Vec<u8>, value: &impl Serialize) -> io::Result<()> {
    let start = out.len();
    if let Err(e) = serde_json::to_writer(&mut *out, value) {
        out.truncate(start);
        return Err(io::Error::other(e));
    }
    out.push(b'\n');
    Ok(())
}

/// The lines of `bytes` (each ended by a newline), empty ones left out.
pub(super) fn each_line(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty())
}

/// Appends the `$set` line of a new `lastUpdated` (written after every
/// new message), written out directly: a time of ours
/// ([`super::lines::format_stamp`]) has nothing to escape.
pub(super) fn last_updated_line(out: &mut Vec<u8>, stamp: &str) {
    out.extend_from_slice(br#"{"$set":{"lastUpdated":"#);
    if stamp.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        // Not one of ours: serde escapes it (a string cannot fail to encode).
        let _ = serde_json::to_writer(&mut *out, stamp);
    } else {
        out.push(b'"');
        out.extend_from_slice(stamp.as_bytes());
        out.push(b'"');
    }
    out.extend_from_slice(b"}}\n");
}

/// The whole record as JSONL, written atomically (a 0.27.4 `.json` session
/// carried over to `.jsonl` on resume).
pub(super) fn write_whole(path: &Path, record: &ConversationRecord) -> io::Result<()> {
    let mut lines = vec![header_line(record)?];
    for msg in &record.messages {
        lines.push(message_line(msg)?);
    }
    let mut text = lines.join("\n");
    text.push('\n');
    crate::workspace::write_atomic(path, text.as_bytes())
}

/// Messages in file order, replaced in place by id.
#[derive(Default)]
struct Messages {
    list: Vec<MessageRecord>,
    at: HashMap<String, usize>,
}

impl Messages {
    fn upsert(&mut self, msg: MessageRecord) {
        match self.at.get(&msg.id) {
            Some(&i) => self.list[i] = msg,
            None => {
                self.at.insert(msg.id.clone(), self.list.len());
                self.list.push(msg);
            }
        }
    }

    fn replace_all(&mut self, all: &[Value]) {
        *self = Messages::default();
        for v in all {
            if let Ok(msg) = serde_json::from_value::<MessageRecord>(v.clone()) {
                self.upsert(msg);
            }
        }
    }

    /// Drops `id` and everything after it (everything when `id` is unknown).
    fn rewind(&mut self, id: &str) {
        let cut = self.at.get(id).copied().unwrap_or(0);
        self.list.truncate(cut);
        self.at.retain(|_, i| *i < cut);
    }
}

/// One line of a JSONL session, by what it carries.
#[derive(Deserialize)]
#[serde(untagged)]
enum Line {
    /// `{"$rewindTo": id}`.
    Rewind {
        #[serde(rename = "$rewindTo")]
        rewind_to: String,
    },
    /// A message (a string `id`; one that does not parse is skipped).
    Message(Box<MessageRecord>),
    /// A line with a string `id` that is no message.
    Torn {
        #[serde(rename = "id")]
        _id: String,
    },
    /// `{"$set": {...}}`.
    Set {
        #[serde(rename = "$set")]
        set: Map<String, Value>,
    },
    /// The metadata (its `messages`, when present, are the messages).
    Meta(Meta),
}

/// The metadata line.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    session_id: String,
    project_hash: String,
    #[serde(default)]
    messages: Option<Vec<Value>>,
    /// The other metadata (open: Gemini CLI adds fields).
    #[serde(flatten)]
    rest: Map<String, Value>,
}

/// Parses a JSONL session; `None` when no line carries a `sessionId` and
/// `projectHash` (not this format).
pub(super) fn parse(text: &str) -> Option<ConversationRecord> {
    let mut meta = Map::new();
    let mut messages = Messages::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(line) = serde_json::from_str::<Line>(line) else {
            continue;
        };
        match line {
            Line::Rewind { rewind_to } => messages.rewind(&rewind_to),
            Line::Message(msg) => messages.upsert(*msg),
            Line::Torn { .. } => {}
            Line::Set { set } => {
                for (k, v) in set {
                    match (k.as_str(), v) {
                        ("messages", Value::Array(all)) => messages.replace_all(&all),
                        ("messages", _) => {}
                        (_, v) => {
                            meta.insert(k, v);
                        }
                    }
                }
            }
            Line::Meta(Meta {
                session_id,
                project_hash,
                messages: all,
                rest,
            }) => {
                for v in all.into_iter().flatten() {
                    if let Ok(msg) = serde_json::from_value(v) {
                        messages.upsert(msg);
                    }
                }
                meta.insert("sessionId".into(), Value::String(session_id));
                meta.insert("projectHash".into(), Value::String(project_hash));
                meta.extend(rest);
            }
        }
    }
    let text_of = |m: &mut Map<String, Value>, k: &str| match m.remove(k) {
        Some(Value::String(s)) => s,
        _ => String::new(),
    };
    let (Some(Value::String(session_id)), Some(Value::String(project_hash))) =
        (meta.remove("sessionId"), meta.remove("projectHash"))
    else {
        return None;
    };
    let start_time = text_of(&mut meta, "startTime");
    let last_updated = text_of(&mut meta, "lastUpdated");
    Some(ConversationRecord {
        session_id,
        project_hash,
        start_time,
        last_updated,
        messages: messages.list,
        extra: meta,
    })
}
