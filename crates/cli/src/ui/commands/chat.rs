//! `/chat list`: the saved conversations (kept by the session) and the
//! recorded sessions.

use super::heading;
use gemini_rs_protocol::events::{RecordedSessionInfo, SavedChatInfo};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// `/chat list`: the saved conversations, then the recorded sessions.
pub fn list_lines(saved: &[SavedChatInfo], sessions: &[RecordedSessionInfo]) -> Vec<Line<'static>> {
    let dim = Style::new().fg(Color::DarkGray);
    let mut out = Vec::new();
    if saved.is_empty() {
        out.push(Line::from("No saved conversation checkpoints found."));
    } else {
        out.push(heading("List of saved conversations:"));
        for c in saved {
            out.push(Line::from(vec![
                Span::raw("  - "),
                Span::styled(c.tag.clone(), Style::new().add_modifier(Modifier::BOLD)),
                Span::styled(format!(" (saved on {})", c.modified), dim),
            ]));
        }
        out.push(Line::from(Span::styled(
            "Resume one with /chat resume <tag>.",
            dim,
        )));
    }
    out.push(Line::default());
    if sessions.is_empty() {
        out.push(Line::from("No recorded sessions for this project."));
    } else {
        out.push(heading(&format!("Recorded sessions ({})", sessions.len())));
        for (i, s) in sessions.iter().enumerate() {
            out.push(Line::from(format!(
                "  {}. {} [{}]",
                i + 1,
                s.last_updated,
                s.session_id
            )));
        }
        out.push(Line::from(Span::styled(
            "Resume one with gemini-rs --resume <index or id>.",
            dim,
        )));
    }
    out
}
