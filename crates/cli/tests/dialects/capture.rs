//! What a scenario captures beyond the model's view, written as
//! `e2e/reference/record.py` writes it: the session file's record shapes
//! (`session`), `-o json`'s answer (`json`), `-o stream-json`'s events
//! (`stream`) and the declared parameter schemas (`schemas`); and what
//! both sides are compared without (process ids, not-found suggestions).

use crate::support::{Output, Sandbox};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// The keys and types of `value`: objects keep their keys, arrays every
/// element, and a leaf is written as its type.
pub fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::Bool(_) => json!("boolean"),
        Value::Number(_) => json!("number"),
        Value::Null => json!("null"),
        Value::String(_) => json!("string"),
    }
}

/// Every `chats/session-*` file under `dir`.
fn session_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            session_files(&path, found);
        } else if path.parent().and_then(Path::file_name) == Some("chats".as_ref())
            && entry.file_name().to_string_lossy().starts_with("session-")
        {
            found.push(path);
        }
    }
}

/// The one session file's format and record shapes.
fn session(home: &Path) -> Value {
    let mut found = Vec::new();
    session_files(&home.join(".gemini/tmp"), &mut found);
    let [path] = found.as_slice() else {
        return json!({"format": null, "shapes": [], "error": format!("{} session files", found.len())});
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let (format, records): (&str, Vec<Value>) = if path.extension().is_some_and(|e| e == "jsonl") {
        let records = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
            .collect();
        ("jsonl", records)
    } else {
        (
            "json",
            vec![serde_json::from_str(&text).unwrap_or(Value::Null)],
        )
    };
    json!({"format": format, "shapes": records.iter().map(shape).collect::<Vec<_>>(), "error": null})
}

/// Each `-o stream-json` line's type and shape, with the text of a
/// message or result and the name of a tool kept.
fn stream(stdout: &str) -> Value {
    let events: Vec<Value> = stdout
        .lines()
        .filter(|l| l.trim_start().starts_with('{'))
        .map(|l| serde_json::from_str::<Value>(l).unwrap_or(Value::Null))
        .map(|event| {
            let kept: Map<String, Value> =
                ["type", "role", "content", "tool_name", "status", "delta"]
                    .iter()
                    .filter_map(|k| event.get(*k).map(|v| (k.to_string(), v.clone())))
                    .collect();
            json!({"kept": kept, "shape": shape(&event)})
        })
        .collect();
    Value::Array(events)
}

/// The parameter schema of each declared tool `compared` names.
pub fn schemas(tools: &Value, compared: &[String]) -> Value {
    let mut picked = Map::new();
    for group in tools.as_array().into_iter().flatten() {
        for d in group["functionDeclarations"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if let Some(name) = d["name"]
                .as_str()
                .filter(|n| compared.iter().any(|c| c == n))
            {
                let params = d
                    .get("parameters")
                    .or_else(|| d.get("parametersJsonSchema"));
                picked.insert(name.to_string(), params.cloned().unwrap_or(Value::Null));
            }
        }
    }
    Value::Object(picked)
}

/// What `scenario` asks to capture of a run through gemini-rs.
pub fn captured(scenario: &Value, sb: &Sandbox, out: &Output) -> Map<String, Value> {
    let mut captured = Map::new();
    for what in scenario["capture"].as_array().into_iter().flatten() {
        match what.as_str() {
            Some("session") => {
                captured.insert("session".into(), session(&sb.home));
            }
            Some("json") => {
                let answer: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
                captured.insert(
                    "json".into(),
                    json!({"response": answer.get("response"), "shape": shape(&answer)}),
                );
            }
            Some("stream-json") => {
                captured.insert("stream".into(), stream(&out.stdout));
            }
            _ => {}
        }
    }
    captured
}

/// `text` with the project's temp folder under `<home>/.gemini/tmp/`
/// written `<project>` (a slug in 0.61, a hash of the path in 0.27.4).
pub fn without_project_dirs(text: &str) -> String {
    const KEY: &str = "<home>/.gemini/tmp/";
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(KEY) {
        out.push_str(&rest[..at + KEY.len()]);
        out.push_str("<project>");
        rest = &rest[at + KEY.len()..];
        rest = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || "_.-<>".contains(c));
    }
    out.push_str(rest);
    out
}

/// `value` without its `description` keys (tool and parameter
/// descriptions stay in gemini-rs's own words, issue 36).
pub fn without_descriptions(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| !(k.as_str() == "description" && v.is_string()))
                .map(|(k, v)| (k.clone(), without_descriptions(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_descriptions).collect()),
        other => other.clone(),
    }
}

/// `responses` with the suggestions of not-found errors left out: they
/// rank every declared tool, and 0.61 declares tools gemini-rs does not
/// have (`update_topic`, `invoke_agent`).
pub fn without_suggestions(mut responses: Value) -> Value {
    for response in responses.as_array_mut().into_iter().flatten() {
        if let Some(error) = response[1]["error"].as_str()
            && let Some((head, _)) = error.split_once(" Did you mean")
            && head.ends_with("not found.")
        {
            response[1]["error"] = json!(head);
        }
    }
    responses
}

/// `responses` with the shell's process group id written `<pgid>` and a
/// background command's process id `<pid>` (as the recorder writes them
/// in the goldens).
pub fn without_pgid(responses: Value) -> Value {
    let text = without_number(&responses.to_string(), "Process Group PGID: ", "<pgid>");
    let text = without_number(&text, "PID: ", "<pid>");
    serde_json::from_str(&text).expect("JSON")
}

/// `text` with the digits after each `key` written `placeholder`.
fn without_number(text: &str, key: &str, placeholder: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at + key.len()]);
        out.push_str(placeholder);
        rest = &rest[at + key.len()..];
        rest = rest.strip_prefix(placeholder).unwrap_or(rest);
        rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// The keys gemini-rs adds to the references' headless output, each a
/// deliberate difference (docs/dialects.md): `-o json`'s and the stream
/// result's cost, peak memory and CPU time (issue 40), the `init` line's
/// `schema_version` (the version harnesses check) and `approval_mode`.
const OURS_ONLY: &[&str] = &[
    "costUsd",
    "cost_usd",
    "peakMemoryMb",
    "cpuMs",
    "schema_version",
    "approval_mode",
];

/// `value` without the keys of [`OURS_ONLY`], wherever they are.
pub fn without_ours(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !OURS_ONLY.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), without_ours(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_ours).collect()),
        other => other.clone(),
    }
}
