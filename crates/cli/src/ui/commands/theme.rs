//! `/theme [name]`: a picker of the themes (arrow keys preview the one
//! under the cursor, Tab picks the settings file, Enter keeps it as
//! `ui.theme`, Esc puts the old one back), as Gemini CLI 0.61's; with a
//! name, switching to it at once.

use crate::settings_file::{FileScope, set_key};
use crate::ui::theme::{self, Kind, THEMES, Theme};
use crate::ui::view::markdown;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Themes the picker shows at once.
const SHOWN: usize = 12;

/// A few lines of code and a diff, to see a theme with.
const PREVIEW: &str = "```rust\n// Greets the user.\nfn greet(name: &str) -> String {\n    let count = 42;\n    format!(\"Hello, {name}! ({count})\")\n}\n```\n";

/// The preview in the current theme.
pub fn preview_lines(width: usize) -> Vec<Line<'static>> {
    let mut out = markdown::render(PREVIEW, width, true);
    out.push(Line::from(Span::styled(
        "+ an added line",
        Style::new().fg(Color::Green),
    )));
    out.push(Line::from(Span::styled(
        "- a removed line",
        Style::new().fg(Color::Red),
    )));
    out
}

/// Switches to theme `name` and keeps it in the user settings at `path`;
/// the note to show.
pub fn switch(path: &Path, name: &str) -> Result<String, String> {
    keep(path, FileScope::User, name)
}

/// Switches to theme `name` and keeps it in the settings file at `path`
/// (of `scope`); the note to show.
fn keep(path: &Path, scope: FileScope, name: &str) -> Result<String, String> {
    let Some(chosen) = theme::by_name(name) else {
        return Err(format!(
            "Unknown theme \"{name}\". Known themes: {}.",
            theme::Theme::names().join(", ")
        ));
    };
    theme::set(chosen);
    let value = Value::String(chosen.name.to_string());
    let lost_comments = set_key(path, scope, "ui.theme", Some(value))?;
    let mut note = format!(
        "Theme \"{}\" in use, kept in {}.",
        chosen.name,
        path.display()
    );
    if let Some(extra) = lost_comments {
        note.push('\n');
        note.push_str(&extra);
    }
    Ok(note)
}

/// What a key in the picker led to.
pub enum ThemeStep {
    /// Still open.
    Open,
    /// Closed; the theme from before is back.
    Cancelled,
    /// Closed with the theme kept: the note, or why it could not be kept.
    Kept(Result<String, String>),
}

/// The open `/theme` picker.
pub struct ThemePanel {
    /// The theme in use when it opened, put back on Esc.
    before: Theme,
    cursor: usize,
    user: PathBuf,
    workspace: PathBuf,
    scope: FileScope,
    /// True while Tab's "Apply To" choice has the keys.
    choosing_scope: bool,
}

impl ThemePanel {
    /// The picker on the theme in use; `user` and `workspace` are the
    /// settings files Tab chooses between.
    pub fn new(user: PathBuf, workspace: PathBuf) -> Self {
        let before = theme::current();
        ThemePanel {
            before,
            cursor: THEMES.iter().position(|t| *t == before).unwrap_or(0),
            user,
            workspace,
            scope: FileScope::User,
            choosing_scope: false,
        }
    }

    /// Handles a key; moving the cursor previews its theme.
    pub fn on_key(&mut self, key: KeyEvent) -> ThemeStep {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code == KeyCode::Esc || (ctrl && key.code == KeyCode::Char('c')) {
            theme::set(self.before);
            return ThemeStep::Cancelled;
        }
        if self.choosing_scope {
            match key.code {
                KeyCode::Up | KeyCode::Down => {
                    self.scope = match self.scope {
                        FileScope::User => FileScope::Project,
                        FileScope::Project => FileScope::User,
                    }
                }
                KeyCode::Enter | KeyCode::Tab => self.choosing_scope = false,
                _ => {}
            }
            return ThemeStep::Open;
        }
        let n = THEMES.len();
        match key.code {
            KeyCode::Up => self.cursor = (self.cursor + n - 1) % n,
            KeyCode::Down => self.cursor = (self.cursor + 1) % n,
            KeyCode::Tab => self.choosing_scope = true,
            KeyCode::Enter => {
                let path = match self.scope {
                    FileScope::User => &self.user,
                    FileScope::Project => &self.workspace,
                };
                let kept = keep(path, self.scope, THEMES[self.cursor].name);
                if kept.is_err() {
                    theme::set(self.before);
                }
                return ThemeStep::Kept(kept);
            }
            _ => return ThemeStep::Open,
        }
        theme::set(THEMES[self.cursor]);
        ThemeStep::Open
    }

    /// The picker's lines at `width`: the themes around the cursor, then
    /// the preview in the theme under it (or the choice of file).
    pub fn lines(&self, width: usize) -> Vec<Line<'static>> {
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let accent = Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD);
        let dim = Style::new().fg(Color::DarkGray);
        if self.choosing_scope {
            let mut out = vec![Line::from(Span::styled("Apply To", bold))];
            for (scope, label) in [
                (FileScope::User, "User Settings"),
                (FileScope::Project, "Workspace Settings"),
            ] {
                let here = scope == self.scope;
                let style = if here { accent } else { Style::new() };
                let mark = if here { "● " } else { "  " };
                out.push(Line::from(Span::styled(format!("{mark}{label}"), style)));
            }
            out.push(Line::default());
            out.push(Line::from(Span::styled(
                "(Use Enter to apply scope, Tab to select theme, Esc to close)",
                dim,
            )));
            return out;
        }
        let scope = match self.scope {
            FileScope::User => "User Settings",
            FileScope::Project => "Workspace Settings",
        };
        let mut out = vec![Line::from(vec![
            Span::styled("Select Theme", bold),
            Span::styled(format!("  (saved in {scope})"), dim),
        ])];
        let first = self
            .cursor
            .saturating_sub(SHOWN / 2)
            .min(THEMES.len() - SHOWN);
        out.push(Line::from(Span::styled(
            if first > 0 { "▲" } else { " " },
            dim,
        )));
        for (i, t) in THEMES.iter().enumerate().skip(first).take(SHOWN) {
            let here = i == self.cursor;
            let style = if here { accent } else { Style::new() };
            let kind = match t.kind {
                Kind::Light => "light",
                Kind::Dark => "dark",
            };
            out.push(Line::from(vec![
                Span::styled(if here { "● " } else { "  " }, accent),
                Span::styled(format!("{:>2}. {:<28}", i + 1, t.name), style),
                Span::styled(kind, dim),
            ]));
        }
        let more = first + SHOWN < THEMES.len();
        out.push(Line::from(Span::styled(if more { "▼" } else { " " }, dim)));
        out.push(Line::from(Span::styled("Preview", bold)));
        out.extend(preview_lines(width));
        out.push(Line::default());
        out.push(Line::from(Span::styled(
            "(Use Enter to select, Tab to configure scope, Esc to close)",
            dim,
        )));
        out
    }
}
