//! Which extensions are on, read from the file Gemini CLI keeps,
//! `~/.gemini/extensions/extension-enablement.json`, so both CLIs agree:
//! `{"<name>": {"overrides": ["/path/", "!/other/path/*"]}}`. An extension
//! is on unless a rule says otherwise; the last rule matching the working
//! directory wins; `!` disables; a trailing `*` covers subdirectories.

use gemini_rs_protocol::lenient::{from_object, strings_of_list};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::path::Path;

/// One extension's entry in the file (other keys kept as they are).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Entry {
    /// The rules, in order.
    #[serde(
        default,
        deserialize_with = "strings_of_list",
        skip_serializing_if = "Option::is_none"
    )]
    overrides: Option<Vec<String>>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

/// Whether extension `name` is on in `cwd`.
pub fn is_enabled(gemini_dir: &Path, name: &str, cwd: &Path) -> bool {
    let file = gemini_dir
        .join("extensions")
        .join("extension-enablement.json");
    let Ok(text) = crate::config::input_file::read_input(
        &file,
        None,
        crate::config::input_file::MAX_INPUT_BYTES,
    ) else {
        return true;
    };
    let config: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!("could not read {}: {e}", file.display());
            return true;
        }
    };
    let path = with_slashes(&cwd.to_string_lossy());
    let mut enabled = true;
    let entry: Entry = config
        .as_object()
        .and_then(|extensions| extensions.get(name))
        .map(from_object)
        .unwrap_or_default();
    for rule in entry.overrides.iter().flatten().map(String::as_str) {
        let (disable, rule) = match rule.strip_prefix('!') {
            Some(r) => (true, r),
            None => (false, rule),
        };
        let (subdirs, base) = match rule.strip_suffix('*') {
            Some(b) => (true, b),
            None => (false, rule),
        };
        let base = with_slashes(base);
        let matches = if subdirs {
            path.starts_with(&base)
        } else {
            path == base
        };
        if matches {
            enabled = !disable;
        }
    }
    enabled
}

/// Switches extension `name` on or off for `scope` and every folder below
/// it (`~` for the user scope, the project for the workspace scope), as
/// Gemini CLI's `extensions enable|disable` write it: rules that conflict
/// with the new one, or that it covers, are dropped.
pub fn set_enabled(
    gemini_dir: &Path,
    name: &str,
    scope: &Path,
    enable: bool,
) -> std::io::Result<()> {
    let dir = gemini_dir.join("extensions");
    let file = dir.join("extension-enablement.json");
    let mut config: Map<String, Value> = crate::config::input_file::read_input(
        &file,
        None,
        crate::config::input_file::MAX_INPUT_BYTES,
    )
    .ok()
    .and_then(|t| serde_json::from_str(&t).ok())
    .unwrap_or_default();
    let base = with_slashes(&scope.to_string_lossy());
    let rule = format!("{}{base}*", if enable { "" } else { "!" });
    let entry: Entry = config.get(name).map(from_object).unwrap_or_default();
    let kept: Vec<String> = entry
        .overrides
        .into_iter()
        .flatten()
        .filter(|old| {
            let old_base = old.trim_start_matches('!').trim_end_matches('*');
            // The same folder (either way), or a folder below the new rule.
            with_slashes(old_base) != base && !with_slashes(old_base).starts_with(&base)
        })
        .chain([rule])
        .collect();
    let entry = Entry {
        overrides: Some(kept),
        extra: entry.extra,
    };
    let entry = serde_json::to_value(entry).map_err(std::io::Error::other)?;
    config.insert(name.to_string(), entry);
    std::fs::create_dir_all(&dir)?;
    let text =
        serde_json::to_string_pretty(&Value::Object(config)).map_err(std::io::Error::other)?;
    crate::workspace::write_atomic(&file, text.as_bytes())
}

/// `p` with `/` separators, a leading and a trailing `/`.
fn with_slashes(p: &str) -> String {
    let mut s = p.replace('\\', "/");
    if !s.starts_with('/') {
        s.insert(0, '/');
    }
    if !s.ends_with('/') {
        s.push('/');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_matching_rule_wins() {
        let home = tempfile::tempdir().unwrap();
        let gemini = home.path().join(".gemini");
        std::fs::create_dir_all(gemini.join("extensions")).unwrap();
        std::fs::write(
            gemini.join("extensions/extension-enablement.json"),
            r#"{"tools": {"overrides": ["!/home/u/*", "/home/u/work/"]}, "off": {"overrides": ["!/*"]}}"#,
        )
        .unwrap();
        assert!(!is_enabled(&gemini, "tools", Path::new("/home/u/play")));
        assert!(is_enabled(&gemini, "tools", Path::new("/home/u/work")));
        assert!(!is_enabled(&gemini, "tools", Path::new("/home/u/work/sub")));
        assert!(is_enabled(&gemini, "tools", Path::new("/srv")));
        assert!(!is_enabled(&gemini, "off", Path::new("/anywhere")));
        assert!(is_enabled(&gemini, "other", Path::new("/anywhere")));
        // Enabling for /home/u drops the rules it covers.
        set_enabled(&gemini, "tools", Path::new("/home/u"), true).unwrap();
        assert!(is_enabled(&gemini, "tools", Path::new("/home/u/play")));
        let text =
            std::fs::read_to_string(gemini.join("extensions/extension-enablement.json")).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["tools"]["overrides"], serde_json::json!(["/home/u/*"]));
        set_enabled(&gemini, "tools", Path::new("/home/u/work"), false).unwrap();
        assert!(!is_enabled(&gemini, "tools", Path::new("/home/u/work/x")));
        assert!(is_enabled(&gemini, "tools", Path::new("/home/u/play")));
    }

    #[test]
    fn an_odd_entry_is_replaced_and_other_keys_are_kept() {
        let home = tempfile::tempdir().unwrap();
        let gemini = home.path().join(".gemini");
        let file = gemini.join("extensions/extension-enablement.json");
        std::fs::create_dir_all(gemini.join("extensions")).unwrap();
        std::fs::write(
            &file,
            r#"{"odd": "not an object", "kept": {"overrides": ["!/x/"], "note": 1}}"#,
        )
        .unwrap();
        assert!(is_enabled(&gemini, "odd", Path::new("/x")));
        set_enabled(&gemini, "odd", Path::new("/x"), false).unwrap();
        set_enabled(&gemini, "kept", Path::new("/y"), true).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(v["odd"], serde_json::json!({"overrides": ["!/x/*"]}));
        assert_eq!(
            v["kept"],
            serde_json::json!({"overrides": ["!/x/", "/y/*"], "note": 1})
        );
        assert!(!is_enabled(&gemini, "odd", Path::new("/x/z")));
    }
}
