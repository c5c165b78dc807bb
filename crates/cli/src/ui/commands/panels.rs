//! The text of `/mcp`, `/hooks`, `/directory show` and `/restore`, built
//! from plain data so the screens can be snapshot-tested.

use gemini_rs_core::checkpoint::CheckpointInfo;
use gemini_rs_core::hooks::HookConfig;
use gemini_rs_core::tools::mcp::McpManager;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::path::PathBuf;

/// One connected MCP server as `/mcp` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct McpServerView {
    /// The name under `mcpServers`.
    pub name: String,
    /// Its configured description.
    pub description: Option<String>,
    /// True while connected.
    pub ready: bool,
    /// Its tools: name and first line of the description.
    pub tools: Vec<(String, String)>,
    /// Its resources and resource templates: URI (or template) and name.
    pub resources: Vec<(String, String)>,
}

/// The servers and failures of a session's MCP manager.
pub fn mcp_view(mgr: Option<&McpManager>) -> (Vec<McpServerView>, Vec<String>) {
    let Some(mgr) = mgr else {
        return (Vec::new(), Vec::new());
    };
    let servers = mgr
        .connections()
        .iter()
        .map(|c| McpServerView {
            name: c.name().to_string(),
            description: c.config.description.clone(),
            ready: !c.is_closed(),
            tools: c
                .tools()
                .into_iter()
                .map(|t| {
                    let desc = t
                        .description
                        .as_deref()
                        .and_then(|d| d.lines().next())
                        .unwrap_or("")
                        .to_string();
                    (t.name.to_string(), desc)
                })
                .collect(),
            resources: {
                let list = c.resources();
                let plain = list.resources.into_iter().map(|(uri, name, _)| (uri, name));
                plain.chain(list.templates).collect()
            },
        })
        .collect();
    (servers, mgr.failures().to_vec())
}

fn heading(text: &str) -> Line<'static> {
    Line::from(Span::styled(
        text.to_string(),
        Style::new().add_modifier(Modifier::BOLD).fg(Color::Cyan),
    ))
}

fn dim() -> Style {
    Style::new().fg(Color::DarkGray)
}

/// `/mcp`.
pub fn mcp_lines(servers: &[McpServerView], failures: &[String]) -> Vec<Line<'static>> {
    if servers.is_empty() && failures.is_empty() {
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
        let (dot, status, color) = if s.ready {
            ("●", "Ready", Color::Green)
        } else {
            ("●", "Disconnected", Color::Red)
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
            for (uri, name) in &s.resources {
                out.push(Line::from(vec![
                    Span::raw("    - "),
                    Span::styled(uri.clone(), Style::new().fg(Color::Magenta)),
                    Span::styled(format!(" ({name})"), dim()),
                ]));
            }
        }
        for (name, desc) in &s.tools {
            let mut spans = vec![
                Span::raw("    - "),
                Span::styled(name.clone(), Style::new().fg(Color::Cyan)),
            ];
            if !desc.is_empty() {
                spans.push(Span::styled(format!(": {desc}"), dim()));
            }
            out.push(Line::from(spans));
        }
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
pub fn hooks_lines(config: Option<&HookConfig>) -> Vec<Line<'static>> {
    let list = config.map(HookConfig::list).unwrap_or_default();
    if list.is_empty() {
        return vec![
            Line::from("No hooks configured."),
            Line::from(Span::styled(
                "Add them under \"hooks\" in settings.json; see gemini-rs hooks --help.",
                dim(),
            )),
        ];
    }
    let mut out = vec![heading("Configured hooks:")];
    if config.is_some_and(|c| !c.enabled) {
        out.push(Line::from(Span::styled(
            "Hooks are disabled (hooksConfig.enabled is false).",
            Style::new().fg(Color::Yellow),
        )));
    }
    let mut last_event = None;
    for (event, def, hook, enabled) in list {
        if last_event != Some(event) {
            out.push(Line::default());
            out.push(Line::from(Span::styled(
                event.as_str().to_string(),
                Style::new().add_modifier(Modifier::BOLD),
            )));
            last_event = Some(event);
        }
        let state = if enabled {
            Span::styled("enabled ", Style::new().fg(Color::Green))
        } else {
            Span::styled("disabled", Style::new().fg(Color::Yellow))
        };
        let mut spans = vec![
            Span::raw("  "),
            state,
            Span::raw(" "),
            Span::raw(hook.display_name().to_string()),
        ];
        if let Some(m) = def.matcher.as_deref().filter(|m| !m.is_empty()) {
            spans.push(Span::styled(format!("  matcher: {m}"), dim()));
        }
        out.push(Line::from(spans));
        if hook.name.is_some() {
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
