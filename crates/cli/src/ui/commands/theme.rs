//! `/theme [name]`: the themes with a preview, and switching to one (kept
//! in the user settings as `ui.theme`, as Gemini CLI keeps it).

use crate::settings_file::{FileScope, set_key};
use crate::ui::theme::{self, Kind, THEMES};
use crate::ui::view::markdown;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::path::Path;

/// A few lines of code and a diff, to see a theme with.
const PREVIEW: &str = "```rust\n// Greets the user.\nfn greet(name: &str) -> String {\n    let count = 42;\n    format!(\"Hello, {name}! ({count})\")\n}\n```\n";

/// The list of themes, the current one marked, and a preview of it.
pub fn list_lines(width: usize) -> Vec<Line<'static>> {
    let current = theme::current();
    let mut out = vec![Line::from(Span::styled(
        "Themes (/theme <name> to switch)",
        Style::new().add_modifier(Modifier::BOLD),
    ))];
    for t in THEMES {
        let mark = if t.name == current.name { "●" } else { " " };
        let kind = match t.kind {
            Kind::Light => "light",
            Kind::Dark => "dark",
        };
        out.push(Line::from(vec![
            Span::styled(format!("  {mark} "), Style::new().fg(Color::Green)),
            Span::raw(format!("{:<26}", t.name)),
            Span::styled(kind, Style::new().fg(Color::DarkGray)),
        ]));
    }
    out.push(Line::default());
    out.extend(preview_lines(width));
    out
}

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
    let Some(chosen) = theme::by_name(name) else {
        return Err(format!(
            "Unknown theme \"{name}\". Known themes: {}.",
            theme::Theme::names().join(", ")
        ));
    };
    theme::set(chosen);
    let value = Value::String(chosen.name.to_string());
    let lost_comments = set_key(path, FileScope::User, "ui.theme", Some(value))?;
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
