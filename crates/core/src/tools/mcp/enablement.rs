//! Which extensions are on, read from the file Gemini CLI keeps,
//! `~/.gemini/extensions/extension-enablement.json`, so both CLIs agree:
//! `{"<name>": {"overrides": ["/path/", "!/other/path/*"]}}`. An extension
//! is on unless a rule says otherwise; the last rule matching the working
//! directory wins; `!` disables; a trailing `*` covers subdirectories.

use serde_json::Value;
use std::path::Path;

/// Whether extension `name` is on in `cwd`.
pub fn is_enabled(gemini_dir: &Path, name: &str, cwd: &Path) -> bool {
    let file = gemini_dir
        .join("extensions")
        .join("extension-enablement.json");
    let Ok(text) = std::fs::read_to_string(&file) else {
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
    let rules = config
        .pointer(&format!(
            "/{}/overrides",
            name.replace('~', "~0").replace('/', "~1")
        ))
        .and_then(Value::as_array);
    for rule in rules.into_iter().flatten().filter_map(Value::as_str) {
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
    #![allow(clippy::unwrap_used, clippy::expect_used)]
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
    }
}
