//! What the informational slash commands print: `/help`, `/shortcuts`,
//! `/tools`, `/stats`, `/about` and `/memory show`.

use super::heading;
use crate::ui::view::cards::fmt_duration;
use crate::ui::view::wrap::sanitize;
use gemini_rs_protocol::events::{
    AgentsInfo, CommandInfo, ContextFileInfo, SessionStats, SkillInfo, ToolInfo,
};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::time::Duration;

fn kv(k: &str, v: impl Into<String>) -> Line<'static> {
    Line::from(vec![
        // A label as wide as the column still gets a space before its text.
        Span::styled(format!("  {k:<22} "), Style::new().fg(Color::DarkGray)),
        Span::raw(v.into()),
    ])
}

/// `/help`: the built-in commands (`(name, help)`, in order), then the
/// custom ones.
pub fn help_lines(builtin: &[(&str, &str)], custom: &[CommandInfo]) -> Vec<Line<'static>> {
    let mut out = vec![heading("Commands")];
    for (name, detail) in builtin {
        out.push(kv(&format!("/{name}"), *detail));
    }
    if !custom.is_empty() {
        out.push(Line::default());
        out.push(heading("Custom commands"));
        for c in custom {
            out.push(kv(&format!("/{}", c.name), &c.description));
        }
        out.push(Line::default());
    }
    out.push(kv("!<command>", "Run a shell command"));
    out.push(kv("@<path>", "Include a file or directory in the prompt"));
    out.push(Line::default());
    out.extend(shortcut_lines());
    out
}

/// `/shortcuts`.
pub fn shortcut_lines() -> Vec<Line<'static>> {
    vec![
        heading("Keyboard shortcuts"),
        kv("Enter", "Send the prompt"),
        kv(
            "Alt-Enter, Shift-Enter",
            "New line (or end the line with \\)",
        ),
        kv("Ctrl-J", "New line"),
        kv("Up / Down", "Browse the input history"),
        kv("Tab", "Complete a /command or @path"),
        kv("Esc", "Cancel the running request; close suggestions"),
        kv("Esc Esc", "Clear the prompt; on an empty prompt, /rewind"),
        kv("Ctrl-C", "Cancel; clear the input; twice to exit"),
        kv("Ctrl-D", "Exit on an empty prompt"),
        kv("Shift-Tab", "Cycle the approval mode"),
        kv("Ctrl-L", "Clear the screen"),
        kv("Ctrl-O", "Show or fold the calls of sub-agents"),
    ]
}

/// `/skills list`: the enabled skills and where they come from.
pub fn skills_lines(skills: &[SkillInfo]) -> Vec<Line<'static>> {
    let mut out = vec![heading("Agent skills")];
    for skill in skills {
        let from = skill
            .dir
            .as_ref()
            .map_or_else(|| "built-in".to_string(), |d| d.display().to_string());
        out.push(kv(&skill.name, format!("{} ({from})", skill.description)));
    }
    out
}

/// `/agents list`: the sub-agents in use and those waiting for
/// acknowledgement.
pub fn agents_lines(agents: &AgentsInfo) -> Vec<Line<'static>> {
    let from = |file: &Option<std::path::PathBuf>| {
        file.as_ref()
            .map_or_else(|| "built-in".to_string(), |p| p.display().to_string())
    };
    let mut out = vec![heading("Sub-agents")];
    for agent in &agents.agents {
        let first = agent.description.lines().next().unwrap_or_default();
        out.push(kv(&agent.name, format!("{first} ({})", from(&agent.file))));
    }
    if !agents.unacknowledged.is_empty() {
        out.push(heading("Waiting for /agents acknowledge"));
        for agent in &agents.unacknowledged {
            let path = agent
                .file
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            out.push(kv(&agent.name, format!("{} ({path})", agent.description)));
        }
    }
    out
}

/// `/tools`.
pub fn tools_lines(tools: &[ToolInfo]) -> Vec<Line<'static>> {
    let mut out = vec![heading("Available tools")];
    for t in tools {
        let desc = t.description.lines().next().unwrap_or("").to_string();
        out.push(Line::from(vec![Span::styled(
            format!("  {} ({})", t.display_name, t.name),
            Style::new().add_modifier(Modifier::BOLD),
        )]));
        out.push(Line::from(Span::styled(
            format!("      {desc}"),
            Style::new().fg(Color::DarkGray),
        )));
    }
    out
}

/// `/stats`.
pub fn stats_lines(stats: &SessionStats, wall: Duration, session_id: &str) -> Vec<Line<'static>> {
    let mut out = vec![heading("Session stats")];
    out.push(kv("Session ID", session_id));
    out.push(kv("Wall time", fmt_duration(wall)));
    let tools = &stats.tools;
    let (calls, ok, fail) = (tools.total_calls, tools.total_success, tools.total_fail);
    out.push(kv("Tool calls", format!("{calls} ( ✓ {ok} x {fail} )")));
    out.push(kv(
        "Tool time",
        fmt_duration(Duration::from_millis(tools.total_duration_ms)),
    ));
    out.push(kv(
        "Code changes",
        format!(
            "+{} -{}",
            stats.files.total_lines_added, stats.files.total_lines_removed
        ),
    ));
    for (name, m) in &stats.models {
        out.push(Line::default());
        out.push(heading(&format!("Model {name}")));
        out.push(kv("Requests", m.api.total_requests.to_string()));
        out.push(kv("Errors", m.api.total_errors.to_string()));
        out.push(kv(
            "API time",
            fmt_duration(Duration::from_millis(m.api.total_latency_ms)),
        ));
        // Estimated counts (a server that sent no usage) read `~N`.
        let estimated = m.tokens.estimated;
        let tilde = if estimated { "~" } else { "" };
        let tokens = |count: u64| format!("{tilde}{count}");
        out.push(kv("Prompt tokens", tokens(m.tokens.prompt)));
        out.push(kv("Cached tokens", tokens(m.tokens.cached)));
        out.push(kv("Output tokens", tokens(m.tokens.candidates)));
        out.push(kv("Thought tokens", tokens(m.tokens.thoughts)));
        out.push(kv("Total tokens", tokens(m.tokens.total)));
        if estimated {
            out.push(kv(
                "Note",
                "tokens estimated from the text's size: the server sent no usage",
            ));
        }
        if let Some(usd) = m.cost_usd {
            out.push(kv("Cost", format_usd(usd)));
        }
    }
    if let Some(usd) = stats.total_cost_usd() {
        out.push(Line::default());
        out.push(kv("Session cost", format_usd(usd)));
    }
    out
}

/// US dollars, with cents shown down to a hundredth of a cent.
pub fn format_usd(usd: f64) -> String {
    if usd < 0.01 {
        format!("${usd:.4}")
    } else {
        format!("${usd:.2}")
    }
}

/// `/about`.
pub fn about_lines(model: &str, session_id: &str, workspace: &str) -> Vec<Line<'static>> {
    vec![
        heading("About gemini-rs"),
        kv("Version", env!("CARGO_PKG_VERSION")),
        kv("Model", model),
        kv(
            "OS",
            format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        ),
        kv("Session ID", session_id),
        kv("Workspace", workspace),
    ]
}

/// `/memory show`: the context files the session uses now.
pub fn memory_lines(files: &[ContextFileInfo]) -> Vec<Line<'static>> {
    if files.is_empty() {
        return vec![Line::from(
            "Memory is empty: no GEMINI.md context files were found.",
        )];
    }
    let mut out = vec![heading(&format!(
        "Current memory content from {} file(s)",
        files.len()
    ))];
    for f in files {
        out.push(Line::from(Span::styled(
            format!("--- {} ---", f.path.display()),
            Style::new().fg(Color::DarkGray),
        )));
        for l in sanitize(&f.content).lines() {
            out.push(Line::from(l.to_string()));
        }
    }
    out
}
