//! `/extensions [list]` and `/extensions enable|disable <name> [--scope
//! user|workspace]`: the installed extensions and switching one, kept
//! where `gemini-rs extensions enable|disable` keeps it (it takes effect
//! in the next session, as extensions load at start).

use gemini_rs_core::{ExtensionListing, GeminiPaths};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::path::Path;

/// The listing.
pub fn list_lines(list: &[ExtensionListing]) -> Vec<Line<'static>> {
    if list.is_empty() {
        return vec![Line::from(
            "No extensions installed. Install one with: gemini-rs extensions install <source>",
        )];
    }
    let dim = Style::new().fg(Color::DarkGray);
    let mut out = vec![Line::from(Span::styled(
        "Installed extensions",
        Style::new().add_modifier(Modifier::BOLD),
    ))];
    for e in list {
        let (mark, state) = if e.enabled {
            (
                Span::styled("  ● ", Style::new().fg(Color::Green)),
                "enabled",
            )
        } else {
            (Span::styled("  ○ ", dim), "disabled")
        };
        let mut parts = vec![format!("v{}", e.version), state.to_string()];
        if !e.servers.is_empty() {
            parts.push(format!("MCP: {}", e.servers.join(", ")));
        }
        out.push(Line::from(vec![
            mark,
            Span::raw(e.name.clone()),
            Span::styled(format!("  {}", parts.join(" · ")), dim),
        ]));
    }
    out
}

/// Switches extension `name` on or off for `scope` (`user`, the default, or
/// `workspace`); the note to show.
pub fn switch(
    paths: &GeminiPaths,
    root: &Path,
    list: &[ExtensionListing],
    name: &str,
    enable: bool,
    scope: &str,
) -> Result<String, String> {
    if !list.iter().any(|e| e.name == name) {
        let known: Vec<&str> = list.iter().map(|e| e.name.as_str()).collect();
        return Err(match known.is_empty() {
            true => format!("Extension \"{name}\" is not installed; no extensions are."),
            false => format!(
                "Extension \"{name}\" is not installed. Installed: {}.",
                known.join(", ")
            ),
        });
    }
    let folder = match scope {
        "user" => paths.home.as_path(),
        "workspace" => root,
        other => return Err(format!("Unknown scope \"{other}\": use user or workspace.")),
    };
    gemini_rs_core::set_extension_enabled(paths, name, folder, enable)
        .map_err(|e| format!("Cannot save the change: {e}"))?;
    let done = if enable { "enabled" } else { "disabled" };
    Ok(format!(
        "Extension \"{name}\" {done} for the {scope} scope. It takes effect in the next session."
    ))
}
