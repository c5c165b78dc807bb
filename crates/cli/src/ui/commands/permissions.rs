//! `/permissions trust [dir]`: the trust level of a folder (the current
//! one by default) changed in a dialog, as Gemini CLI 0.61 offers it. The
//! rule is saved in `trustedFolders.json`; this session keeps the trust it
//! started with, so a change to its own folder says to restart.

use crate::trust::name_of;
use crate::ui::view::wrap::truncate;
use gemini_rs_core::{FolderTrust, GeminiPaths, TrustLevel};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::path::{Path, PathBuf};

/// What `/permissions` without `trust` says.
pub const USAGE: &str = "Usage: /permissions trust [<directory-path>]";

/// The dialog's answers, in order.
const LEVELS: [TrustLevel; 3] = [
    TrustLevel::Folder,
    TrustLevel::Parent,
    TrustLevel::DoNotTrust,
];

/// The open dialog.
pub struct TrustPanel {
    dir: PathBuf,
    now: &'static str,
    cursor: usize,
}

/// What a key did.
pub enum TrustStep {
    /// Still open.
    Open,
    /// Esc: closed without a change.
    Closed,
    /// A level was chosen for the folder.
    Chosen(PathBuf, TrustLevel),
}

/// The folder `arg` names (relative to `root`, `~` for home), or the error
/// to show.
pub fn folder(arg: Option<&str>, root: &Path, home: &Path) -> Result<PathBuf, String> {
    let dir = match arg.map(str::trim).filter(|a| !a.is_empty()) {
        None => root.to_path_buf(),
        Some("~") => home.to_path_buf(),
        Some(a) => match a.strip_prefix("~/") {
            Some(rest) => home.join(rest),
            None => root.join(a),
        },
    };
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => Ok(std::fs::canonicalize(&dir).unwrap_or(dir)),
        Ok(_) => Err(format!("Path is not a directory: {}", dir.display())),
        Err(e) => Err(format!("Error accessing path: {}. {e}", dir.display())),
    }
}

impl TrustPanel {
    /// The dialog for `dir`, showing how the rules decide it now.
    pub fn new(dir: PathBuf, paths: &GeminiPaths) -> Self {
        let env = gemini_rs_core::Env::from_process();
        let now = match gemini_rs_core::folder_trust(&dir, paths, &env) {
            Ok(FolderTrust::Trusted) => "trusted",
            Ok(FolderTrust::Untrusted) => "not trusted",
            Ok(FolderTrust::Unknown) => "not set",
            Err(_) => "unknown (the rules file cannot be read)",
        };
        TrustPanel {
            dir,
            now,
            cursor: 0,
        }
    }

    fn label(&self, level: TrustLevel) -> String {
        match level {
            TrustLevel::Folder => format!("Trust this folder ({})", name_of(&self.dir)),
            TrustLevel::Parent => {
                let parent = self.dir.parent().unwrap_or(&self.dir);
                format!("Trust parent folder ({})", name_of(parent))
            }
            TrustLevel::DoNotTrust => "Don't trust".to_string(),
        }
    }

    /// A key: arrows move, 1-3 or Enter choose, Esc closes.
    pub fn on_key(&mut self, key: KeyEvent) -> TrustStep {
        let chosen = |i: usize| TrustStep::Chosen(self.dir.clone(), LEVELS[i]);
        match key.code {
            KeyCode::Esc => TrustStep::Closed,
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                TrustStep::Closed
            }
            KeyCode::Up => {
                self.cursor = (self.cursor + LEVELS.len() - 1) % LEVELS.len();
                TrustStep::Open
            }
            KeyCode::Down => {
                self.cursor = (self.cursor + 1) % LEVELS.len();
                TrustStep::Open
            }
            KeyCode::Enter => chosen(self.cursor),
            KeyCode::Char(c @ '1'..='3') => chosen(usize::from(c as u8 - b'1')),
            _ => TrustStep::Open,
        }
    }

    /// Its lines at `width`.
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let dim = Style::new().fg(Color::DarkGray);
        let mut out = vec![
            Line::from(Span::styled(
                "Modify Trust Level",
                Style::new().add_modifier(Modifier::BOLD),
            )),
            Line::from(truncate(&format!("Folder: {}", self.dir.display()), width)),
            Line::from(format!("Now: {}", self.now)),
            Line::default(),
        ];
        for (i, level) in LEVELS.iter().enumerate() {
            let here = i == self.cursor;
            let style = if here {
                Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD)
            } else {
                Style::new()
            };
            let mark = if here { "●" } else { " " };
            out.push(Line::from(Span::styled(
                format!("{mark} {}. {}", i + 1, self.label(*level)),
                style,
            )));
        }
        out.push(Line::from(Span::styled(
            "(Enter to choose, Esc to close)",
            dim,
        )));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_resolve_against_the_root_and_home() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("file.txt"), "x").unwrap();
        assert_eq!(folder(None, &root, &root), Ok(root.clone()));
        assert_eq!(folder(Some("sub"), &root, &root), Ok(root.join("sub")));
        assert_eq!(folder(Some("~/sub"), &root, &root), Ok(root.join("sub")));
        let not_dir = folder(Some("file.txt"), &root, &root).unwrap_err();
        assert!(not_dir.starts_with("Path is not a directory"), "{not_dir}");
        let missing = folder(Some("nope"), &root, &root).unwrap_err();
        assert!(missing.starts_with("Error accessing path"), "{missing}");
    }
}
