//! `/chat save|resume|list|delete`: conversation checkpoints written as
//! Gemini CLI writes them, `<project temp dir>/checkpoint-<tag>.json`
//! (the tag percent-encoded as `encodeURIComponent` does) holding
//! `{"history": [Content, …]}`; a bare array is read too.

use gemini_rs_protocol::Content;
use std::path::{Path, PathBuf};

/// A saved conversation, as `/chat list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedChat {
    /// The tag.
    pub tag: String,
    /// Last written, local time `YYYY-MM-DD HH:MM:SS`.
    pub modified: String,
}

/// `encodeURIComponent`.
pub fn encode_tag(tag: &str) -> String {
    let mut out = String::new();
    for b in tag.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `decodeURIComponent` (invalid sequences are kept as they are).
pub fn decode_tag(name: &str) -> String {
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = name.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The file of `tag`.
pub fn checkpoint_path(dir: &Path, tag: &str) -> PathBuf {
    dir.join(format!("checkpoint-{}.json", encode_tag(tag)))
}

/// Writes `history` under `tag`; true when a checkpoint was replaced.
pub fn save(dir: &Path, tag: &str, history: &[Content]) -> std::io::Result<bool> {
    let path = checkpoint_path(dir, tag);
    let existed = path.exists();
    let json = serde_json::json!({ "history": history });
    let bytes = serde_json::to_vec_pretty(&json).map_err(std::io::Error::other)?;
    std::fs::create_dir_all(dir)?;
    crate::workspace::write_atomic(&path, &bytes)?;
    Ok(existed)
}

/// Why a saved conversation could not be read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file cannot be read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file is not JSON.
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    /// Its history is not a conversation.
    #[error("{}: {source}", path.display())]
    History {
        /// The file.
        path: PathBuf,
        /// What does not fit.
        source: serde_json::Error,
    },
}

/// The history saved under `tag`; `Ok(None)` when there is none.
pub fn load(dir: &Path, tag: &str) -> Result<Option<Vec<Content>>, LoadError> {
    let mut path = checkpoint_path(dir, tag);
    if !path.exists() {
        // Older Gemini CLI versions did not encode the tag.
        path = dir.join(format!("checkpoint-{tag}.json"));
        if tag.contains(['/', '\\']) || !path.exists() {
            return Ok(None);
        }
    }
    let text = std::fs::read_to_string(&path)?;
    let value: serde_json::Value = serde_json::from_str(&text)?;
    let history = match value {
        serde_json::Value::Array(_) => value,
        serde_json::Value::Object(mut o) => o.remove("history").unwrap_or_default(),
        _ => serde_json::Value::Null,
    };
    serde_json::from_value(history)
        .map(Some)
        .map_err(|source| LoadError::History { path, source })
}

/// Deletes the checkpoint of `tag`; false when there was none.
pub fn delete(dir: &Path, tag: &str) -> std::io::Result<bool> {
    let path = checkpoint_path(dir, tag);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// The saved conversations, oldest first.
pub fn list(dir: &Path) -> Vec<SavedChat> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(std::time::SystemTime, SavedChat)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let tag = name.strip_prefix("checkpoint-")?.strip_suffix(".json")?;
            let mtime = e.metadata().and_then(|m| m.modified()).ok()?;
            let modified = chrono::DateTime::<chrono::Local>::from(mtime)
                .format("%Y-%m-%d %H:%M:%S")
                .to_string();
            Some((
                mtime,
                SavedChat {
                    tag: decode_tag(tag),
                    modified,
                },
            ))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.tag.cmp(&b.1.tag)));
    out.into_iter().map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemini_rs_protocol::{Part, Role};

    #[test]
    fn tags_are_encoded_like_encode_uri_component() {
        assert_eq!(encode_tag("my tag/1"), "my%20tag%2F1");
        assert_eq!(encode_tag("a-b_c.d!~*'()"), "a-b_c.d!~*'()");
        assert_eq!(encode_tag("é"), "%C3%A9");
        assert_eq!(decode_tag("my%20tag%2F1"), "my tag/1");
        assert_eq!(decode_tag("%C3%A9%zz"), "é%zz");
    }

    #[test]
    fn save_resume_list_delete_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let history = vec![
            Content::user_text("context"),
            Content::user_text("hello"),
            Content::new(Role::Model, vec![Part::text("hi there")]),
        ];
        assert!(!save(dir.path(), "my work", &history).unwrap());
        assert!(dir.path().join("checkpoint-my%20work.json").is_file());
        let text = std::fs::read_to_string(dir.path().join("checkpoint-my%20work.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["history"][2]["role"], "model");
        assert_eq!(v["history"][1]["parts"][0]["text"], "hello");
        assert_eq!(load(dir.path(), "my work").unwrap(), Some(history.clone()));
        assert!(
            save(dir.path(), "my work", &history[..2]).unwrap(),
            "replaced"
        );
        assert_eq!(load(dir.path(), "my work").unwrap().unwrap().len(), 2);
        assert_eq!(load(dir.path(), "other").unwrap(), None);
        let tags: Vec<String> = list(dir.path()).into_iter().map(|c| c.tag).collect();
        assert_eq!(tags, ["my work"]);
        assert!(delete(dir.path(), "my work").unwrap());
        assert!(!delete(dir.path(), "my work").unwrap());
        assert!(list(dir.path()).is_empty());
    }

    #[test]
    fn a_bare_array_is_read_too() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("checkpoint-old.json"),
            r#"[{"role":"user","parts":[{"text":"x"}]}]"#,
        )
        .unwrap();
        assert_eq!(load(dir.path(), "old").unwrap().unwrap().len(), 1);
    }
}
