//! Gemini CLI's `~/.gemini/mcp-server-enablement.json`: servers switched
//! off by `mcp disable` (`{"name": {"enabled": false}}`, names lowercased),
//! shared with Gemini CLI so both agree on what runs.

use gemini_rs_protocol::lenient::{from_object, wrong_type_as_none};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// One server's entry in the file.
#[derive(Debug, Default, Deserialize)]
struct Entry {
    /// `false` when switched off.
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    enabled: Option<bool>,
}

/// The file's name under `~/.gemini`.
const FILE: &str = "mcp-server-enablement.json";

/// A server id as the file keys it.
pub fn normalize(name: &str) -> String {
    name.trim().to_lowercase()
}

fn path(gemini_dir: &Path) -> PathBuf {
    gemini_dir.join(FILE)
}

fn read(gemini_dir: &Path) -> Map<String, Value> {
    std::fs::read_to_string(path(gemini_dir))
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .and_then(|v| match v {
            Value::Object(m) => Some(m),
            _ => None,
        })
        .unwrap_or_default()
}

/// The servers switched off (normalized names).
pub fn disabled(gemini_dir: &Path) -> Vec<String> {
    read(gemini_dir)
        .into_iter()
        .filter(|(_, v)| from_object::<Entry>(v).enabled == Some(false))
        .map(|(k, _)| normalize(&k))
        .collect()
}

/// Switches a server on (its entry removed) or off; whether the file
/// changed. Written atomically.
pub fn set_enabled(gemini_dir: &Path, name: &str, on: bool) -> std::io::Result<bool> {
    let mut map = read(gemini_dir);
    let key = normalize(name);
    let changed = if on {
        map.remove(&key).is_some()
    } else {
        map.insert(key, json!({"enabled": false})) != Some(json!({"enabled": false}))
    };
    if changed {
        let text = serde_json::to_string_pretty(&Value::Object(map))?;
        crate::workspace::write_atomic(&path(gemini_dir), text.as_bytes())?;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disable_enable_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        assert!(set_enabled(dir.path(), "Foo", false).unwrap());
        assert!(!set_enabled(dir.path(), "foo ", false).unwrap());
        assert_eq!(disabled(dir.path()), ["foo"]);
        let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            json!({"foo": {"enabled": false}})
        );
        assert!(set_enabled(dir.path(), "FOO", true).unwrap());
        assert!(disabled(dir.path()).is_empty());
    }
}
