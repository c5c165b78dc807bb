//! The text of `/mcp`, `/hooks`, `/directory show` and `/restore`, built
//! from plain data so the screens can be snapshot-tested.

use super::heading;
use gemini_rs_protocol::events::{
    BackgroundProcessInfo, BackgroundStatus, CheckpointInfo, HooksInfo, McpServerInfo,
    McpServerStatus, McpServersInfo,
};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::path::PathBuf;

fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// `/mcp`.
pub fn mcp_lines(info: &McpServersInfo) -> Vec<Line<'static>> {
    let (servers, failures): (&[McpServerInfo], &[String]) = (&info.servers, &info.failures);
    if servers.is_empty() && failures.is_empty() && info.connecting.is_empty() {
        return vec![
            Line::from("No MCP servers configured."),
            Line::from(Span::styled(
                "Add them under \"mcpServers\" in settings.json.",
                dim(),
            )),
        ];
    }
    let mut out = vec![heading("Configured MCP servers:")];
    for s in servers {
        out.push(Line::default());
        let (dot, status, color) = match s.status {
            McpServerStatus::Ready => ("●", "Ready", Color::Green),
            McpServerStatus::Disconnected => ("●", "Disconnected", Color::Red),
        };
        out.push(Line::from(vec![
            Span::styled(format!("{dot} "), Style::new().fg(color)),
            Span::styled(s.name.clone(), Style::new().add_modifier(Modifier::BOLD)),
            Span::styled(
                format!(" - {status} ({} tools)", s.tools.len()),
                Style::new().fg(color),
            ),
        ]));
        if let Some(d) = s.description.as_deref().filter(|d| !d.is_empty()) {
            out.push(Line::from(Span::styled(format!("    {d}"), dim())));
        }
        if s.tools.is_empty() {
            out.push(Line::from(Span::styled("    No tools available", dim())));
        }
        if !s.resources.is_empty() {
            out.push(Line::from(Span::styled(
                format!(
                    "    Resources ({}), as @{}:<uri>:",
                    s.resources.len(),
                    s.name
                ),
                dim(),
            )));
            for r in &s.resources {
                out.push(Line::from(vec![
                    Span::raw("    - "),
                    Span::styled(r.uri.clone(), Style::new().fg(Color::Magenta)),
                    Span::styled(format!(" ({})", r.name), dim()),
                ]));
            }
        }
        if !s.tools.is_empty() {
            // Gemini CLI 0.61 heads the list with "Tools:".
            out.push(Line::from("  Tools:"));
        }
        for t in &s.tools {
            let desc = t.description.lines().next().unwrap_or("");
            let mut spans = vec![
                Span::raw("    - "),
                Span::styled(t.name.clone(), Style::new().fg(Color::Cyan)),
            ];
            if !desc.is_empty() {
                spans.push(Span::styled(format!(": {desc}"), dim()));
            }
            out.push(Line::from(spans));
        }
    }
    for name in &info.connecting {
        out.push(Line::default());
        out.push(Line::from(vec![
            Span::styled("◌ ", Style::new().fg(Color::Yellow)),
            Span::styled(name.clone(), Style::new().add_modifier(Modifier::BOLD)),
            Span::styled(
                " - Connecting… (its tools join the next request)",
                Style::new().fg(Color::Yellow),
            ),
        ]));
    }
    for f in failures {
        out.push(Line::default());
        if f.contains("needs authentication")
            && let Some(name) = f.split('\'').nth(1)
        {
            out.push(Line::from(vec![
                Span::styled("● ", Style::new().fg(Color::Yellow)),
                Span::styled(name.to_string(), Style::new().add_modifier(Modifier::BOLD)),
                Span::styled(
                    format!(" - Needs authentication (run /mcp auth {name})"),
                    Style::new().fg(Color::Yellow),
                ),
            ]));
            continue;
        }
        out.push(Line::from(vec![
            Span::styled("● ", Style::new().fg(Color::Red)),
            Span::styled(f.clone(), Style::new().fg(Color::Red)),
        ]));
    }
    out
}

/// `/hooks`.
pub fn hooks_lines(info: &HooksInfo) -> Vec<Line<'static>> {
    if info.hooks.is_empty() {
        return vec![
            Line::from("No hooks configured."),
            Line::from(Span::styled(
                "Add them under \"hooks\" in settings.json; see gemini-rs hooks --help.",
                dim(),
            )),
        ];
    }
    let mut out = vec![heading("Configured hooks:")];
    if !info.enabled {
        out.push(Line::from(Span::styled(
            "Hooks are disabled (hooksConfig.enabled is false).",
            Style::new().fg(Color::Yellow),
        )));
    }
    let mut last_event: Option<&str> = None;
    for hook in &info.hooks {
        if last_event != Some(hook.event.as_str()) {
            out.push(Line::default());
            out.push(Line::from(Span::styled(
                hook.event.clone(),
                Style::new().add_modifier(Modifier::BOLD),
            )));
            last_event = Some(hook.event.as_str());
        }
        let state = if hook.enabled {
            Span::styled("enabled ", Style::new().fg(Color::Green))
        } else {
            Span::styled("disabled", Style::new().fg(Color::Yellow))
        };
        let mut spans = vec![
            Span::raw("  "),
            state,
            Span::raw(" "),
            Span::raw(hook.display_name.clone()),
        ];
        if let Some(m) = hook.matcher.as_deref().filter(|m| !m.is_empty()) {
            spans.push(Span::styled(format!("  matcher: {m}"), dim()));
        }
        out.push(Line::from(spans));
        if hook.named {
            out.push(Line::from(Span::styled(
                format!("      $ {}", hook.command),
                dim(),
            )));
        }
        if let Some(d) = hook.description.as_deref().filter(|d| !d.is_empty()) {
            out.push(Line::from(Span::styled(format!("      {d}"), dim())));
        }
    }
    out
}

/// `/directory show`.
pub fn directory_lines(dirs: &[PathBuf]) -> Vec<Line<'static>> {
    let mut out = vec![heading("Current workspace directories:")];
    for d in dirs {
        out.push(Line::from(format!("  - {}", d.display())));
    }
    out
}

/// `/restore` without an id.
pub fn restore_list_lines(list: &[CheckpointInfo]) -> Vec<Line<'static>> {
    if list.is_empty() {
        return vec![Line::from("No restorable tool calls found.")];
    }
    let mut out = vec![heading("Available tool calls to restore:")];
    for c in list {
        let file = c.file_path.as_deref().unwrap_or("");
        out.push(Line::from(vec![
            Span::raw(format!("  {}", c.id)),
            Span::styled(format!("  ({} {file})", c.tool_name), dim()),
        ]));
    }
    out.push(Line::from(Span::styled(
        "Restore one with /restore <id>.",
        dim(),
    )));
    out
}

/// `/shells`: each background command with its status and last lines.
pub fn shells_lines(list: &[BackgroundProcessInfo]) -> Vec<Line<'static>> {
    if list.is_empty() {
        return vec![Line::from("No background shells in this session.")];
    }
    let mut out = vec![heading("Background shells:")];
    for p in list {
        out.push(Line::default());
        let (status, color) = match (p.status, p.exit_code, p.signal) {
            (BackgroundStatus::Running, _, _) => ("running".to_string(), Color::Green),
            (BackgroundStatus::Exited, _, Some(sig)) => {
                (format!("ended by signal {sig}"), Color::Yellow)
            }
            (BackgroundStatus::Exited, Some(0), None) => ("exited".to_string(), Color::DarkGray),
            (BackgroundStatus::Exited, Some(code), None) => {
                (format!("exited with code {code}"), Color::Red)
            }
            (BackgroundStatus::Exited, None, None) => ("exited".to_string(), Color::DarkGray),
        };
        out.push(Line::from(vec![
            Span::styled("● ", Style::new().fg(color)),
            Span::styled(
                format!("PID {}", p.pid),
                Style::new().add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!(" - {status}"), Style::new().fg(color)),
            Span::raw(format!("  {}", p.command.replace('\n', " "))),
        ]));
        if p.last_lines.is_empty() {
            out.push(Line::from(Span::styled("    (no output yet)", dim())));
        }
        for l in &p.last_lines {
            out.push(Line::from(Span::styled(format!("    {l}"), dim())));
        }
    }
    if list.iter().any(|p| p.status == BackgroundStatus::Running) {
        out.push(Line::from(Span::styled(
            "Stop one with /shells stop <pid>.",
            dim(),
        )));
    }
    out
}
