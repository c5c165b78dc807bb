//! `/commands`: the custom command files (`/commands list`) and reading
//! them again after an edit (`/commands reload`), as Gemini CLI 0.61 offers.

use gemini_rs_core::CommandFolder;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

/// What `/commands` alone says.
pub const USAGE: &str = "Use \"/commands list\" to see the custom command files (.toml), or \"/commands reload\" to read them again.";

/// Where the MCP prompts come from, after every listing.
const PROMPTS_NOTE: &str = "MCP prompts come from the configured MCP servers, as they connect.";

/// `/commands list`.
pub fn list_lines(folders: &[CommandFolder]) -> Vec<Line<'static>> {
    let dim = Style::new().fg(Color::DarkGray);
    if folders.is_empty() {
        return vec![
            Line::from("No custom command files (.toml) found."),
            Line::from(Span::styled(PROMPTS_NOTE, dim)),
        ];
    }
    let mut out = Vec::new();
    for folder in folders {
        out.push(super::heading(&format!(
            "{} commands ({}):",
            folder.label,
            folder.path.display()
        )));
        match &folder.files {
            Ok(files) => out.extend(files.iter().map(|f| Line::from(format!("  - {f}")))),
            Err(why) => out.push(Line::from(Span::styled(
                format!("  - (cannot read the folder: {why})"),
                Style::new().fg(Color::Red),
            ))),
        }
    }
    out.push(Line::from(Span::styled(PROMPTS_NOTE, dim)));
    out
}
