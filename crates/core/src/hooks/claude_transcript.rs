//! The transcript Claude Code's hooks read: gemini-rs records a session in
//! Gemini CLI's JSONL (`user` and `gemini` messages); a Claude hook's
//! `transcript_path` points at a view of it in Claude Code's shape, written
//! beside it (`<name>.claude.jsonl`) each time a Claude hook runs:
//! `{"type": "user"|"assistant", "uuid", "timestamp", "message": {"role",
//! "content"}}` with text, `tool_use` (Claude's tool names and parameter
//! names) and `tool_result` blocks.

use crate::catalogue::claude::call_to_claude;
use crate::recording::ConversationRecord;
use gemini_rs_protocol::Part;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// Writes the Claude Code view of the transcript at `path`; its path, or
/// `None` when the transcript cannot be read or the view not written.
pub fn write_view(path: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(path).ok()?;
    let view = path.with_extension("claude.jsonl");
    let mut out = String::new();
    for entry in messages(&text).iter().filter_map(entry) {
        out.push_str(&entry.to_string());
        out.push('\n');
    }
    // Private like the session file it mirrors (created 0600; the atomic
    // writer keeps a file's mode), and whole or not at all: a hook already
    // running may be reading it, and hooks of parallel calls write it too.
    let created = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&view);
    if let Err(e) = created
        && e.kind() != std::io::ErrorKind::AlreadyExists
    {
        tracing::warn!(
            "Could not create the Claude transcript {}: {e}",
            view.display()
        );
    }
    match crate::workspace::write_atomic(&view, out.as_bytes()) {
        Ok(()) => Some(view),
        Err(e) => {
            tracing::warn!(
                "Could not write the Claude transcript {}: {e}",
                view.display()
            );
            None
        }
    }
}

/// The message records of a transcript: a JSONL file's, the last update
/// of each id, or the messages of 0.27.4's one document (the `0.27`
/// dialect's file).
fn messages(text: &str) -> Vec<Value> {
    if let Ok(doc) = serde_json::from_str::<ConversationRecord>(text) {
        return document_messages(doc);
    }
    let mut out: Vec<Value> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let (Some(id), Some(_)) = (v["id"].as_str(), v["type"].as_str()) else {
            continue;
        };
        match at.get(id) {
            Some(&i) => out[i] = v,
            None => {
                at.insert(id.to_string(), out.len());
                out.push(v);
            }
        }
    }
    out
}

/// A document's messages, each model message with calls followed by a
/// user message of their results (that format keeps them only in the
/// calls; a JSONL file records them as such a message).
fn document_messages(doc: ConversationRecord) -> Vec<Value> {
    let mut out = Vec::new();
    for msg in doc.messages {
        let results: Vec<Value> = (msg.tool_calls.iter().flatten())
            .filter_map(|c| c.result.as_array())
            .flatten()
            .cloned()
            .collect();
        let (id, timestamp) = (msg.id.clone(), msg.timestamp.clone());
        out.extend(serde_json::to_value(msg).ok());
        if !results.is_empty() {
            out.push(
                json!({"id": format!("{id}_response"), "timestamp": timestamp,
                "type": "user", "content": results}),
            );
        }
    }
    out
}

/// One record as Claude Code's transcript entry (`None` for notes).
fn entry(m: &Value) -> Option<Value> {
    let (kind, content) = match m["type"].as_str()? {
        "user" => ("user", user_content(&m["content"])?),
        "gemini" => ("assistant", assistant_content(m)),
        // A prompt that ended on a model error: Claude Code's transcript
        // has the error as the model's message.
        "error" => ("assistant", json!([{"type": "text", "text": m["content"]}])),
        _ => return None,
    };
    Some(
        json!({"type": kind, "uuid": m["id"], "timestamp": m["timestamp"],
        "message": {"role": kind, "content": content}}),
    )
}

/// A user record's content: its text, or its tool results.
fn user_content(content: &Value) -> Option<Value> {
    let parts = match content {
        Value::String(s) => return Some(Value::String(s.clone())),
        Value::Array(parts) => parts,
        _ => return None,
    };
    let parts: Vec<Part> = parts
        .iter()
        .filter_map(|p| Part::deserialize(p).ok())
        .collect();
    let results: Vec<Value> = parts
        .iter()
        .filter_map(|p| p.function_response.as_ref())
        .map(|fr| {
            json!({"type": "tool_result", "tool_use_id": fr.id,
                "content": fr.response.to_string()})
        })
        .collect();
    if !results.is_empty() {
        return Some(Value::Array(results));
    }
    let text: String = parts.iter().filter_map(|p| p.text.as_deref()).collect();
    Some(Value::String(text))
}

/// A model record's content blocks: its text, then its calls.
fn assistant_content(m: &Value) -> Value {
    let mut blocks = Vec::new();
    if let Some(text) = m["content"].as_str().filter(|t| !t.is_empty()) {
        blocks.push(json!({"type": "text", "text": text}));
    }
    for call in m["toolCalls"].as_array().into_iter().flatten() {
        let name = call["name"].as_str().unwrap_or_default();
        let args = call["args"].as_object().cloned().unwrap_or_default();
        let (name, input) = call_to_claude(name, &args)
            .map_or((name.to_string(), args), |(n, a)| (n.to_string(), a));
        blocks.push(json!({"type": "tool_use", "id": call["id"], "name": name,
            "input": Value::Object(input)}));
    }
    Value::Array(blocks)
}

/// A hook input's `transcript_path`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct TranscriptField {
    #[serde(deserialize_with = "crate::config::lenient::wrong_type_as_none")]
    transcript_path: Option<String>,
}

/// `input` with `transcript_path` pointing at the Claude view, when the
/// transcript exists.
pub fn point_at_view(input: &mut Map<String, Value>) {
    let Some(path) = TranscriptField::deserialize(&*input)
        .unwrap_or_default()
        .transcript_path
    else {
        return;
    };
    if path.is_empty() {
        return;
    }
    if let Some(view) = write_view(Path::new(&path)) {
        input.insert(
            "transcript_path".into(),
            Value::String(view.to_string_lossy().into_owned()),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_view_types_model_turns_as_assistant_with_claude_tool_names() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("session.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"sessionId":"s","projectHash":"h"}"#, "\n",
                r#"{"id":"u1","timestamp":"t","type":"user","content":[{"text":"go"}]}"#, "\n",
                r#"{"id":"g1","timestamp":"t","type":"gemini","content":"","model":"m"}"#, "\n",
                r#"{"id":"g1","timestamp":"t","type":"gemini","content":"Running.","model":"m","toolCalls":[{"id":"c1","name":"run_shell_command","args":{"command":"ls"}}]}"#, "\n",
                r#"{"id":"r1","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c1","name":"run_shell_command","response":{"output":"a"}}}]}"#, "\n",
            ),
        )
        .unwrap();
        let view = write_view(&path).unwrap();
        // It holds the prompts: private, and no temp file left beside it.
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&view).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        let lines: Vec<Value> = std::fs::read_to_string(view)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["user", "assistant", "user"]);
        assert_eq!(lines[0]["message"]["content"], "go");
        assert_eq!(
            lines[1]["message"]["content"],
            json!([{"type": "text", "text": "Running."},
                {"type": "tool_use", "id": "c1", "name": "Bash", "input": {"command": "ls"}}])
        );
        assert_eq!(lines[2]["message"]["content"][0]["tool_use_id"], "c1");
    }

    #[test]
    fn a_0_27_document_gives_the_same_view() {
        let doc = json!({"sessionId": "s", "projectHash": "h", "startTime": "t", "lastUpdated": "t",
            "messages": [
                {"id": "u1", "timestamp": "t", "type": "user", "content": "go"},
                {"id": "g1", "timestamp": "t", "type": "gemini", "content": "Running.",
                 "toolCalls": [{"id": "c1", "name": "run_shell_command", "args": {"command": "ls"},
                    "result": [{"functionResponse": {"id": "c1", "name": "run_shell_command",
                        "response": {"output": "a"}}}]}]}]});
        let entries: Vec<Value> = messages(&serde_json::to_string_pretty(&doc).unwrap())
            .iter()
            .filter_map(entry)
            .collect();
        let kinds: Vec<&str> = entries
            .iter()
            .map(|l| l["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["user", "assistant", "user"]);
        assert_eq!(entries[0]["message"]["content"], "go");
        assert_eq!(entries[1]["message"]["content"][1]["name"], "Bash");
        assert_eq!(entries[2]["message"]["content"][0]["tool_use_id"], "c1");
    }
}
