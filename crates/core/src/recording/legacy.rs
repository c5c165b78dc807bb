//! The session file of Gemini CLI 0.27.4 (and of gemini-rs before it
//! wrote JSONL): one pretty-printed `ConversationRecord` JSON object,
//! `session-*.json`, rewritten whole as the session grows. Read in every
//! dialect; written in the `0.27` dialect ([`SessionFormat::Document`]),
//! where a new session's file takes this form and a resumed `.json` file
//! keeps it. In the `today` dialect resuming one carries it over to a
//! `.jsonl` beside it, as Gemini CLI 0.61 does.

use super::record::{ConversationRecord, MessageRecord};
use crate::catalogue::dialect::Dialect;
use gemini_rs_protocol::Part;
use serde_json::Value;
use std::io;
use std::path::Path;

/// How a session's file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SessionFormat {
    /// Today's JSONL (`session-*.jsonl`), only ever appended to.
    #[default]
    Jsonl,
    /// Gemini CLI 0.27.4's one JSON document (`session-*.json`), rewritten
    /// whole after each batch of messages.
    Document,
}

impl SessionFormat {
    /// The format a dialect's sessions are written in.
    pub fn of(dialect: Dialect) -> Self {
        match dialect {
            Dialect::Today => SessionFormat::Jsonl,
            Dialect::V027 => SessionFormat::Document,
        }
    }

    /// The file name's extension.
    pub(super) fn extension(self) -> &'static str {
        match self {
            SessionFormat::Jsonl => "jsonl",
            SessionFormat::Document => "json",
        }
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

/// Folds the writer's lines into `record` as 0.27.4 keeps its messages,
/// then rewrites the file whole (atomically; a new file is created 0600,
/// as the JSONL one). `$set` lines are not messages and are left out (the
/// session context is not recorded); `last_updated` is the time of the
/// last of them.
pub(super) fn rewrite(
    path: &Path,
    record: &mut ConversationRecord,
    lines: &[u8],
    last_updated: String,
) -> io::Result<()> {
    for msg in super::jsonl::each_line(lines).filter_map(|l| serde_json::from_slice(l).ok()) {
        fold(&mut record.messages, msg);
    }
    record.last_updated = last_updated;
    if record.messages.is_empty() {
        // 0.27.4 writes no file until a message is recorded.
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut opts = std::fs::OpenOptions::new();
    std::os::unix::fs::OpenOptionsExt::mode(opts.write(true).create(true), 0o600);
    drop(opts.open(path)?);
    let text = serde_json::to_string_pretty(&record).map_err(io::Error::other)?;
    crate::workspace::write_atomic(path, text.as_bytes())
}

/// Adds (or, by id, replaces) one message as 0.27.4 records it: a user
/// message holding only function responses is not recorded (the calls'
/// `result` holds them), a text-only user message is its text, and a model
/// message without text or calls stays only while it is the last one
/// (its calls, when it has some, update it; hooks reading the file in
/// between see the turn).
fn fold(messages: &mut Vec<MessageRecord>, mut msg: MessageRecord) {
    if msg.kind == "user" {
        let Ok(parts) = serde_json::from_value::<Vec<Part>>(msg.content.clone()) else {
            return upsert(messages, msg);
        };
        if !parts.is_empty() && parts.iter().all(|p| p.function_response.is_some()) {
            return;
        }
        let texts: Option<String> = parts.iter().map(|p| p.text.as_deref()).collect();
        if let Some(text) = texts {
            msg.content = Value::String(text);
        }
    }
    upsert(messages, msg);
}

/// A model message with no text and no calls (0.27.4 records none).
fn is_empty_turn(msg: &MessageRecord) -> bool {
    let text = msg.content.as_str().map(str::trim);
    let calls = msg.tool_calls.as_ref().is_some_and(|c| !c.is_empty());
    msg.kind == "gemini" && text.is_some_and(str::is_empty) && !calls
}

fn upsert(messages: &mut Vec<MessageRecord>, msg: MessageRecord) {
    match messages.iter_mut().rev().find(|m| m.id == msg.id) {
        Some(old) => *old = msg,
        None => {
            if messages.last().is_some_and(is_empty_turn) {
                messages.pop();
            }
            messages.push(msg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(v: Value) -> String {
        v.to_string()
    }

    #[test]
    fn messages_fold_as_0_27_4_records_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("chats/session-x.json");
        let mut record: ConversationRecord = serde_json::from_value(json!({
            "sessionId": "s", "projectHash": "h", "startTime": "t0", "lastUpdated": "t0"
        }))
        .unwrap();
        let set = line(json!({"$set": {"messages": [], "lastUpdated": "t"}}));
        rewrite(&path, &mut record, set.as_bytes(), "t1".into()).unwrap();
        assert!(!path.exists(), "no file before the first message");
        let lines = [
            json!({"id": "u", "timestamp": "t", "type": "user", "content": [{"text": "go"}, {"text": "!"}]}),
            json!({"id": "g", "timestamp": "t", "type": "gemini", "content": "", "thoughts": []}),
            json!({"id": "g", "timestamp": "t", "type": "gemini", "content": "", "thoughts": [],
                   "toolCalls": [{"id": "c", "name": "glob", "args": {}, "result": [], "status": "success", "timestamp": "t"}]}),
            json!({"id": "r", "timestamp": "t", "type": "user", "content": [{"functionResponse": {"id": "c", "name": "glob", "response": {}}}]}),
            json!({"id": "i", "timestamp": "t", "type": "user", "content": [{"inlineData": {"mimeType": "image/png", "data": "AA=="}}]}),
            json!({"id": "e", "timestamp": "t", "type": "gemini", "content": "", "thoughts": []}),
            json!({"id": "d", "timestamp": "t", "type": "gemini", "content": "done"}),
        ];
        let lines: Vec<String> = lines.into_iter().map(line).collect();
        let lines = lines.join("\n") + "\n";
        rewrite(&path, &mut record, lines.as_bytes(), "t2".into()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n  \"sessionId\": \"s\",\n"), "{text}");
        let back = parse(&text).unwrap();
        assert_eq!(back.last_updated, "t2");
        let ids: Vec<&str> = back.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["u", "g", "i", "d"]);
        assert_eq!(back.messages[0].content, json!("go!"));
        assert!(back.messages[1].tool_calls.is_some());
        assert!(back.messages[2].content.is_array(), "an image stays parts");
        let mode = std::os::unix::fs::PermissionsExt::mode(
            &std::fs::metadata(&path).unwrap().permissions(),
        );
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn formats_per_dialect() {
        assert_eq!(SessionFormat::of(Dialect::Today), SessionFormat::Jsonl);
        assert_eq!(SessionFormat::of(Dialect::V027), SessionFormat::Document);
        assert_eq!(SessionFormat::Document.extension(), "json");
    }
}
