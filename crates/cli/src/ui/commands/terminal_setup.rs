//! `/terminal-setup`: VS Code and its kin (Cursor, Windsurf, Antigravity)
//! send the same key for Enter and Shift+Enter to their terminal, so a
//! multi-line prompt needs keybindings that send `\` + Enter instead (the
//! prompt turns a line ending in `\` into a newline). This adds them to
//! the editor's user `keybindings.json`, as Gemini CLI does: a backup
//! first, nothing changed when a binding of the same key exists.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// What Shift+Enter and Ctrl+Enter send: a backslash, then Enter.
const NEWLINE_SEQUENCE: &str = "\\\r\n";

/// A VS Code-like terminal: its name and its config folder's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Terminal {
    /// The name shown.
    pub name: &'static str,
    /// The folder under `~/.config` holding `User/keybindings.json`.
    pub app: &'static str,
}

const VSCODE: Terminal = Terminal {
    name: "VS Code",
    app: "Code",
};
const CURSOR: Terminal = Terminal {
    name: "Cursor",
    app: "Cursor",
};
const WINDSURF: Terminal = Terminal {
    name: "Windsurf",
    app: "Windsurf",
};
const ANTIGRAVITY: Terminal = Terminal {
    name: "Antigravity",
    app: "Antigravity",
};

/// The terminal we run in, from the variables these editors set (`var`
/// reads one) or the parent process's name.
pub fn detect(var: &dyn Fn(&str) -> Option<String>, parent: Option<&str>) -> Option<Terminal> {
    let askpass = var("VSCODE_GIT_ASKPASS_MAIN")
        .unwrap_or_default()
        .to_lowercase();
    if var("CURSOR_TRACE_ID").is_some() || askpass.contains("cursor") {
        return Some(CURSOR);
    }
    if askpass.contains("windsurf") {
        return Some(WINDSURF);
    }
    if askpass.contains("antigravity") {
        return Some(ANTIGRAVITY);
    }
    if var("TERM_PROGRAM").as_deref() == Some("vscode") || var("VSCODE_GIT_IPC_HANDLE").is_some() {
        return Some(VSCODE);
    }
    let parent = parent?.to_lowercase();
    [WINDSURF, ANTIGRAVITY, CURSOR]
        .into_iter()
        .find(|t| parent.contains(&t.name.to_lowercase()))
        .or_else(|| parent.contains("code").then_some(VSCODE))
}

/// The parent process's name (Linux `/proc`).
pub fn parent_name() -> Option<String> {
    let ppid = std::os::unix::process::parent_id();
    std::fs::read_to_string(format!("/proc/{ppid}/comm"))
        .ok()
        .map(|s| s.trim().to_string())
}

/// The keybindings we add.
fn bindings() -> Vec<Value> {
    let send = |key: &str, text: &str| {
        json!({
            "key": key,
            "command": "workbench.action.terminal.sendSequence",
            "when": "terminalFocus",
            "args": {"text": text}
        })
    };
    vec![
        send("shift+enter", NEWLINE_SEQUENCE),
        send("ctrl+enter", NEWLINE_SEQUENCE),
    ]
}

/// Where `terminal` keeps its user keybindings under `home`.
pub fn keybindings_path(home: &Path, terminal: Terminal) -> PathBuf {
    home.join(".config")
        .join(terminal.app)
        .join("User")
        .join("keybindings.json")
}

/// Adds the bindings to `terminal`'s keybindings under `home`; the message
/// to show (`Err` when nothing could be done).
pub fn configure(home: &Path, terminal: Terminal) -> Result<String, String> {
    let file = keybindings_path(home, terminal);
    let name = terminal.name;
    let mut list: Vec<Value> = match std::fs::read_to_string(&file) {
        Ok(text) => {
            // keybindings.json may have comments.
            let clean = gemini_rs_core::strip_json_comments(&text);
            match serde_json::from_str::<Value>(&clean) {
                Ok(Value::Array(list)) => list,
                Ok(_) => {
                    return Err(format!(
                        "{name}'s keybindings.json is not a JSON array; fix or delete it, then run /terminal-setup again.\nFile: {}",
                        file.display()
                    ));
                }
                Err(e) => {
                    return Err(format!(
                        "{name}'s keybindings.json is not valid JSON ({e}); fix or delete it, then run /terminal-setup again.\nFile: {}",
                        file.display()
                    ));
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(format!("Cannot read {}: {e}", file.display())),
    };
    let wanted = bindings();
    let missing: Vec<&Value> = wanted.iter().filter(|b| !list.contains(b)).collect();
    if missing.is_empty() {
        return Ok(format!("{name} keybindings are already configured."));
    }
    let conflicts: Vec<String> = missing
        .iter()
        .filter_map(|b| b["key"].as_str())
        .filter(|key| list.iter().any(|kb| kb["key"].as_str() == Some(key)))
        .map(|key| format!("- {key} is already bound"))
        .collect();
    if !conflicts.is_empty() {
        return Err(format!(
            "Existing keybindings found; nothing was changed, to keep them.\n{}\nEdit the file by hand if needed: {}",
            conflicts.join("\n"),
            file.display()
        ));
    }
    if file.exists() {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let backup = file.with_file_name(format!("keybindings.json.backup.{stamp}"));
        std::fs::copy(&file, &backup)
            .map_err(|e| format!("Cannot back up {}: {e}", file.display()))?;
    }
    let added: Vec<String> = missing
        .iter()
        .filter_map(|b| b["key"].as_str().map(str::to_string))
        .collect();
    for b in missing.into_iter().rev() {
        list.insert(0, b.clone());
    }
    let text = serde_json::to_string_pretty(&Value::Array(list)).map_err(|e| e.to_string())?;
    gemini_rs_core::write_atomic(&file, format!("{text}\n").as_bytes())
        .map_err(|e| format!("Cannot write {}: {e}", file.display()))?;
    Ok(format!(
        "Added the {} keybindings to {name}.\nModified: {}\nRestart {name}'s terminal for them to take effect.",
        added.join(", "),
        file.display()
    ))
}

/// The message when no supported terminal was found.
pub const UNDETECTED: &str = "No terminal that needs setting up was detected. /terminal-setup configures VS Code, Cursor, Windsurf and Antigravity; other terminals need nothing (Shift+Enter works where the terminal reports it, and Alt+Enter, Ctrl+J or \\ then Enter always insert a newline).";

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn detects_from_variables_then_the_parent() {
        let vars = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| v.to_string())
            }
        };
        assert_eq!(
            detect(&vars(&[("TERM_PROGRAM", "vscode")]), None),
            Some(VSCODE)
        );
        assert_eq!(
            detect(
                &vars(&[
                    ("TERM_PROGRAM", "vscode"),
                    ("VSCODE_GIT_ASKPASS_MAIN", "/x/Cursor.app/askpass")
                ]),
                None
            ),
            Some(CURSOR)
        );
        assert_eq!(detect(&vars(&[]), Some("windsurf")), Some(WINDSURF));
        assert_eq!(detect(&vars(&[]), Some("bash")), None);
    }

    #[test]
    fn adds_once_keeps_others_and_refuses_conflicts() {
        let home = tempfile::tempdir().unwrap();
        let file = keybindings_path(home.path(), VSCODE);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(
            &file,
            "// mine\n[{\"key\": \"ctrl+k\", \"command\": \"x\"}]\n",
        )
        .unwrap();
        let note = configure(home.path(), VSCODE).unwrap();
        assert!(note.contains("shift+enter, ctrl+enter"), "{note}");
        let list: Vec<Value> =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(list.len(), 3);
        assert_eq!(list[0]["args"]["text"], "\\\r\n");
        assert_eq!(list[2]["key"], "ctrl+k");
        let backups = std::fs::read_dir(file.parent().unwrap()).unwrap().count();
        assert_eq!(backups, 2, "the file and its backup");
        assert!(configure(home.path(), VSCODE).unwrap().contains("already"));

        let other = keybindings_path(home.path(), CURSOR);
        std::fs::create_dir_all(other.parent().unwrap()).unwrap();
        std::fs::write(&other, r#"[{"key": "shift+enter", "command": "y"}]"#).unwrap();
        let err = configure(home.path(), CURSOR).unwrap_err();
        assert!(err.contains("shift+enter is already bound"), "{err}");
        std::fs::write(&other, "{}").unwrap();
        assert!(
            configure(home.path(), CURSOR)
                .unwrap_err()
                .contains("array")
        );
    }
}
