//! What retention learns of a session file without reading it whole.
//!
//! Files up to [`WHOLE_FILE_LIMIT`] are parsed whole (exactly, including
//! whether they hold anything to resume). Of a larger file only the head
//! and the tail are read: a JSONL file's metadata line and the last
//! `lastUpdated` among the `$set` lines of its last [`TAIL_BYTES`]; a 0.27.4
//! `.json` file's top-level fields up to its `messages`, stream-parsed, so
//! the messages are never held. A large file counts as resumable (unless it
//! is a sub-agent's): start-up never pays for the size of old sessions.

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

/// Files up to this size are parsed whole.
pub(super) const WHOLE_FILE_LIMIT: u64 = 256 * 1024;
/// How much of a large JSONL file's end is read for its `lastUpdated`.
pub(super) const TAIL_BYTES: u64 = 64 * 1024;
/// The longest metadata line read of a large JSONL file.
const HEAD_LINE_LIMIT: u64 = 1024 * 1024;

/// What retention needs of a file.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Header {
    pub(super) session_id: String,
    pub(super) last_updated: String,
    pub(super) start_time: String,
    pub(super) resumable: bool,
}

/// The header of the session file at `path`; `None` when it is not a
/// session (or cannot be read).
pub(super) fn read(path: &Path) -> Option<Header> {
    let mut file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len <= WHOLE_FILE_LIMIT {
        let mut text = String::new();
        file.read_to_string(&mut text).ok()?;
        return super::super::read_session(&text).map(|r| Header {
            resumable: super::super::resumable(&r),
            session_id: r.session_id,
            last_updated: r.last_updated,
            start_time: r.start_time,
        });
    }
    if path.extension().is_some_and(|e| e == "jsonl") {
        jsonl_head(file, len)
    } else {
        legacy_head(file)
    }
}

/// The fields of a metadata line (or of a `$set`) retention reads.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta {
    session_id: Option<String>,
    project_hash: Option<String>,
    #[serde(default)]
    start_time: String,
    #[serde(default)]
    last_updated: String,
    kind: Option<String>,
}

#[derive(Deserialize)]
struct SetLine {
    #[serde(rename = "$set")]
    set: LastUpdated,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LastUpdated {
    last_updated: String,
}

/// The metadata line, dated by the last `$set` of the tail.
fn jsonl_head(mut file: std::fs::File, len: u64) -> Option<Header> {
    let mut line = Vec::new();
    BufReader::new((&mut file).take(HEAD_LINE_LIMIT))
        .read_until(b'\n', &mut line)
        .ok()?;
    let meta: Meta = serde_json::from_slice(&line).ok()?;
    let session_id = meta.session_id.filter(|_| meta.project_hash.is_some())?;
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(len.saturating_sub(TAIL_BYTES)))
        .ok()?;
    file.take(TAIL_BYTES).read_to_end(&mut tail).ok()?;
    let last_set = tail
        .split(|&b| b == b'\n')
        .rev()
        .find_map(|l| serde_json::from_slice::<SetLine>(l).ok())
        .map(|s| s.set.last_updated);
    // Without a `$set` in the tail, the file's time dates it (the metadata
    // line's `lastUpdated` and `startTime` are as old as the session).
    Some(Header {
        session_id,
        last_updated: last_set.unwrap_or_default(),
        start_time: String::new(),
        resumable: meta.kind.as_deref() != Some("subagent"),
    })
}

/// The top-level fields of a 0.27.4 file before its `messages`.
fn legacy_head(file: std::fs::File) -> Option<Header> {
    let mut found = Meta {
        session_id: None,
        project_hash: None,
        start_time: String::new(),
        last_updated: String::new(),
        kind: None,
    };
    let mut de = serde_json::Deserializer::from_reader(BufReader::new(file));
    // Stopping at `messages` is reported as an error; what was read stays.
    let _ = de::Deserializer::deserialize_map(&mut de, HeadVisitor(&mut found));
    Some(Header {
        session_id: found.session_id?,
        last_updated: found.last_updated,
        start_time: found.start_time,
        resumable: found.kind.as_deref() != Some("subagent"),
    })
}

/// Reads the top-level fields of a session object into `.0`, stopping at
/// `messages` once the session id is known.
struct HeadVisitor<'a>(&'a mut Meta);

/// The error that ends the reading at `messages`.
const STOP: &str = "stopped at messages";

impl<'de> Visitor<'de> for HeadVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a session object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let text = |v: Option<String>| v.unwrap_or_default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "sessionId" => self.0.session_id = map.next_value()?,
                "projectHash" => self.0.project_hash = map.next_value()?,
                "startTime" => self.0.start_time = text(map.next_value()?),
                "lastUpdated" => self.0.last_updated = text(map.next_value()?),
                "kind" => self.0.kind = map.next_value()?,
                "messages" if self.0.session_id.is_some() => {
                    return Err(de::Error::custom(STOP));
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}
