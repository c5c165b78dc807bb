//! `/editor`: the external editors Gemini CLI knows, which are installed,
//! and the preferred one (`general.preferredEditor` in the user settings,
//! as Gemini CLI keeps it). The external editor of an edit confirmation
//! uses the preferred one when it is installed, else `$VISUAL`/`$EDITOR`.

use crate::settings_file::{FileScope, set_key};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// One editor: its settings id, its name, the programs that start it (the
/// first found wins) and the arguments that make it wait for the file.
pub struct EditorKind {
    /// The id kept in `general.preferredEditor`.
    pub id: &'static str,
    /// The name shown.
    pub name: &'static str,
    /// The programs to look for on `PATH`.
    programs: &'static [&'static str],
    /// Arguments before the file (a GUI editor's wait flag).
    args: &'static [&'static str],
}

const fn kind(
    id: &'static str,
    name: &'static str,
    programs: &'static [&'static str],
    args: &'static [&'static str],
) -> EditorKind {
    EditorKind {
        id,
        name,
        programs,
        args,
    }
}

/// Gemini CLI's editors, GUI ones first.
pub const EDITORS: &[EditorKind] = &[
    kind("vscode", "VS Code", &["code"], &["--wait"]),
    kind("vscodium", "VSCodium", &["codium"], &["--wait"]),
    kind("windsurf", "Windsurf", &["windsurf"], &["--wait"]),
    kind("cursor", "Cursor", &["cursor"], &["--wait"]),
    kind("zed", "Zed", &["zed", "zeditor"], &["--wait"]),
    kind(
        "antigravity",
        "Antigravity",
        &["agy", "antigravity"],
        &["--wait"],
    ),
    kind("sublimetext", "Sublime Text", &["subl"], &["-w"]),
    kind("lapce", "Lapce", &["lapce"], &["--wait"]),
    kind("nova", "Nova", &["nova"], &["--wait"]),
    kind("bbedit", "BBEdit", &["bbedit"], &["--wait"]),
    kind("vim", "Vim", &["vim"], &[]),
    kind("neovim", "Neovim", &["nvim"], &[]),
    kind("emacs", "Emacs", &["emacs"], &[]),
    kind("hx", "Helix", &["hx"], &[]),
    kind("emacsclient", "Emacs Client", &["emacsclient"], &["-nw"]),
    kind("micro", "Micro", &["micro"], &[]),
];

/// The editor with settings id `id`.
pub fn by_id(id: &str) -> Option<&'static EditorKind> {
    EDITORS.iter().find(|e| e.id == id)
}

/// `program` found on `path_var` (a `PATH` value) as an executable file.
fn find_program(program: &str, path_var: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path_var)
        .map(|dir| dir.join(program))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

impl EditorKind {
    /// The command line that edits a file and waits (the file is appended),
    /// when one of its programs is on `path_var`.
    pub fn command(&self, path_var: &str) -> Option<Vec<String>> {
        let program = self
            .programs
            .iter()
            .find_map(|p| find_program(p, path_var))?;
        let mut cmd = vec![program.to_string_lossy().to_string()];
        cmd.extend(self.args.iter().map(ToString::to_string));
        Some(cmd)
    }
}

/// The process's `PATH`.
pub fn process_path() -> String {
    std::env::var("PATH").unwrap_or_default()
}

/// The editor list: installed ones marked, the preferred one shown.
pub fn list_lines(preferred: Option<&str>, path_var: &str) -> Vec<Line<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let dim = Style::new().fg(Color::DarkGray);
    let mut out = vec![Line::from(Span::styled(
        "External editors (/editor <name> to choose, /editor none to clear)",
        bold,
    ))];
    for e in EDITORS {
        let installed = e.command(path_var).is_some();
        let mark = if Some(e.id) == preferred { "●" } else { " " };
        out.push(Line::from(vec![
            Span::styled(format!("  {mark} "), Style::new().fg(Color::Green)),
            Span::raw(format!("{:<13}", e.id)),
            Span::raw(format!("{:<14}", e.name)),
            Span::styled(if installed { "installed" } else { "not found" }, dim),
        ]));
    }
    let current = match preferred {
        Some(id) => format!("Preferred editor: {id}."),
        None => "No preferred editor: $VISUAL or $EDITOR is used, else vi.".to_string(),
    };
    out.push(Line::from(Span::styled(current, dim)));
    out
}

/// Chooses editor `name` (`none` clears the choice) and keeps it in the
/// user settings at `settings`; the note to show.
pub fn choose(settings: &Path, name: &str, path_var: &str) -> Result<String, String> {
    if name == "none" {
        let lost = set_key(settings, FileScope::User, "general.preferredEditor", None)?;
        let note = "Preferred editor cleared: $VISUAL or $EDITOR is used, else vi.";
        return Ok(with_note(note.to_string(), lost));
    }
    let Some(editor) = by_id(name) else {
        let known: Vec<&str> = EDITORS.iter().map(|e| e.id).collect();
        return Err(format!(
            "Unknown editor \"{name}\". Known editors: {}.",
            known.join(", ")
        ));
    };
    if editor.command(path_var).is_none() {
        return Err(format!(
            "{} is not installed: none of {} is on PATH.",
            editor.name,
            editor.programs.join(", ")
        ));
    }
    let value = Value::String(editor.id.to_string());
    let lost = set_key(
        settings,
        FileScope::User,
        "general.preferredEditor",
        Some(value),
    )?;
    let note = format!(
        "Preferred editor: {} ({}), kept in {}.",
        editor.name,
        editor.id,
        settings.display()
    );
    Ok(with_note(note, lost))
}

fn with_note(mut note: String, extra: Option<String>) -> String {
    if let Some(extra) = extra {
        note.push('\n');
        note.push_str(&extra);
    }
    note
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn finds_programs_on_path_only_when_executable() {
        let dir = tempfile::tempdir().unwrap();
        let code = dir.path().join("code");
        std::fs::write(&code, "#!/bin/sh\n").unwrap();
        let path_var = dir.path().to_string_lossy().to_string();
        let vscode = by_id("vscode").unwrap();
        assert_eq!(vscode.command(&path_var), None, "not executable yet");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&code, std::fs::Permissions::from_mode(0o755)).unwrap();
        let cmd = vscode.command(&path_var).unwrap();
        assert_eq!(cmd, [code.to_string_lossy().to_string(), "--wait".into()]);
        assert_eq!(by_id("vim").unwrap().command(&path_var), None);
    }

    #[test]
    fn choosing_keeps_the_rest_of_the_settings() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let nvim = bin.join("nvim");
        std::fs::write(&nvim, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&nvim, std::fs::Permissions::from_mode(0o755)).unwrap();
        let settings = dir.path().join(".gemini/settings.json");
        std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
        std::fs::write(&settings, r#"{"ui": {"theme": "GitHub"}}"#).unwrap();
        let path_var = bin.to_string_lossy().to_string();
        let err = choose(&settings, "notepad", &path_var).unwrap_err();
        assert!(err.contains("Known editors: vscode"), "{err}");
        let err = choose(&settings, "emacs", &path_var).unwrap_err();
        assert!(err.contains("not installed"), "{err}");
        choose(&settings, "neovim", &path_var).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        assert_eq!(v["general"]["preferredEditor"], "neovim");
        assert_eq!(v["ui"]["theme"], "GitHub");
        choose(&settings, "none", &path_var).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        assert_eq!(v["general"].get("preferredEditor"), None);
    }
}
