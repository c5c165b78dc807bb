//! Slash commands: parsing, and the text of the informational ones.

use gemini_rs_core::agent::memory;
use gemini_rs_core::config::GeminiPaths;
use gemini_rs_core::events::stats::SessionStats;
use gemini_rs_core::tools::ToolRegistry;
use gemini_rs_core::workspace::Workspace;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::Value;
use std::time::Duration;

/// Command names and their help, in `/help` order.
pub const COMMANDS: [(&str, &str); 19] = [
    ("help", "Show help"),
    ("about", "Show version info"),
    (
        "chat",
        "Manage conversations: /chat save|resume|delete <tag>, /chat list",
    ),
    ("clear", "Clear the screen and the conversation"),
    (
        "compress",
        "Compress the context by replacing it with a summary",
    ),
    ("copy", "Copy the last answer to the clipboard"),
    (
        "directory",
        "Workspace directories: /directory show|add <path>",
    ),
    ("hooks", "List the configured hooks"),
    ("init", "Analyse the project and write a starter GEMINI.md"),
    ("mcp", "List the MCP servers and their tools"),
    ("memory", "Context files: /memory show|add <fact>|refresh"),
    ("model", "Show the model in use"),
    ("restore", "Restore files and conversation: /restore [id]"),
    ("quit", "Exit the CLI"),
    ("exit", "Exit the CLI"),
    ("stats", "Show session statistics"),
    ("tools", "List the available tools and their descriptions"),
    ("shortcuts", "Show keyboard shortcuts"),
    ("summarize", "Same as /compress"),
];

/// A parsed slash command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `/help`.
    Help,
    /// `/about`.
    About,
    /// `/chat list`.
    ChatList,
    /// `/chat save <tag>`.
    ChatSave(String),
    /// `/chat resume <tag>` (also `load`).
    ChatResume(String),
    /// `/chat delete <tag>`.
    ChatDelete(String),
    /// `/clear`.
    Clear,
    /// `/compress`.
    Compress,
    /// `/copy`.
    Copy,
    /// `/directory show`.
    DirectoryShow,
    /// `/directory add <paths>`.
    DirectoryAdd(String),
    /// `/hooks`.
    Hooks,
    /// `/init`.
    Init,
    /// `/mcp`.
    Mcp,
    /// `/memory show`.
    MemoryShow,
    /// `/memory add <fact>`.
    MemoryAdd(String),
    /// `/memory refresh`.
    MemoryRefresh,
    /// `/model`.
    Model,
    /// `/restore [id]`.
    Restore(Option<String>),
    /// `/quit`, `/exit`.
    Quit,
    /// `/stats`.
    Stats,
    /// `/tools`.
    Tools,
    /// `/shortcuts`.
    Shortcuts,
    /// Recognised but not usable like this: the message.
    Usage(String),
    /// Not a command.
    Unknown(String),
}

/// The text after the first `n` words of `body`, trimmed.
fn rest_after(body: &str, n: usize) -> String {
    let mut rest = body.trim_start();
    for _ in 0..n {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    rest.trim().to_string()
}

/// Parses `/name args`.
impl Command {
    /// True for commands that work on the conversation, so they wait for a
    /// running request to end (like a prompt typed meanwhile).
    pub fn needs_agent(&self) -> bool {
        matches!(
            self,
            Command::ChatSave(_)
                | Command::ChatResume(_)
                | Command::Clear
                | Command::Compress
                | Command::Init
                | Command::MemoryAdd(_)
                | Command::MemoryRefresh
                | Command::Restore(_)
        )
    }
}

pub fn parse(line: &str) -> Command {
    let body = line.trim().trim_start_matches('/');
    let mut words = body.split_whitespace();
    let name = words.next().unwrap_or("");
    let sub = words.next();
    let arg = rest_after(body, 2);
    let need = |usage: &str, make: fn(String) -> Command| {
        if arg.is_empty() {
            Command::Usage(usage.to_string())
        } else {
            make(arg.clone())
        }
    };
    match (name, sub) {
        ("help" | "?", _) => Command::Help,
        ("about", _) => Command::About,
        ("chat", Some("list")) => Command::ChatList,
        ("chat", Some("save")) => need("Missing tag. Usage: /chat save <tag>", Command::ChatSave),
        ("chat", Some("resume" | "load")) => need(
            "Missing tag. Usage: /chat resume <tag>",
            Command::ChatResume,
        ),
        ("chat", Some("delete")) => need(
            "Missing tag. Usage: /chat delete <tag>",
            Command::ChatDelete,
        ),
        ("chat", _) => {
            Command::Usage("Usage: /chat list | save <tag> | resume <tag> | delete <tag>".into())
        }
        ("clear", _) => Command::Clear,
        ("compress" | "summarize", _) => Command::Compress,
        ("copy", _) => Command::Copy,
        ("directory" | "dir", Some("show") | None) => Command::DirectoryShow,
        ("directory" | "dir", Some("add")) => need(
            "Please provide at least one path to add.",
            Command::DirectoryAdd,
        ),
        ("directory" | "dir", Some(_)) => {
            Command::Usage("Usage: /directory show | add <path>[,<path>...]".into())
        }
        ("hooks", _) => Command::Hooks,
        ("init", _) => Command::Init,
        ("mcp", _) => Command::Mcp,
        ("memory", Some("show") | None) => Command::MemoryShow,
        ("memory", Some("add")) => {
            need("Usage: /memory add <text to remember>", Command::MemoryAdd)
        }
        ("memory", Some("refresh")) => Command::MemoryRefresh,
        ("memory", Some(_)) => Command::Usage("Usage: /memory show | add <fact> | refresh".into()),
        ("model", _) => Command::Model,
        ("restore", _) => Command::Restore(sub.map(str::to_string)),
        ("quit" | "exit", _) => Command::Quit,
        ("stats", _) => Command::Stats,
        ("tools", _) => Command::Tools,
        ("shortcuts", _) => Command::Shortcuts,
        _ => Command::Unknown(name.to_string()),
    }
}

fn heading(text: &str) -> Line<'static> {
    Line::from(Span::styled(
        text.to_string(),
        Style::new().add_modifier(Modifier::BOLD).fg(Color::Cyan),
    ))
}

fn kv(k: &str, v: impl Into<String>) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("  {k:<22}"), Style::new().fg(Color::DarkGray)),
        Span::raw(v.into()),
    ])
}

/// `/help`.
pub fn help_lines() -> Vec<Line<'static>> {
    let mut out = vec![heading("Commands")];
    for (name, detail) in COMMANDS {
        out.push(kv(&format!("/{name}"), detail));
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
        kv("Ctrl-C", "Cancel; clear the input; twice to exit"),
        kv("Ctrl-D", "Exit on an empty prompt"),
        kv("Shift-Tab", "Cycle the approval mode"),
        kv("Ctrl-L", "Clear the screen"),
    ]
}

/// `/tools`.
pub fn tools_lines(registry: Option<&ToolRegistry>) -> Vec<Line<'static>> {
    let Some(reg) = registry else {
        return vec![Line::from("The tool list is not available in this build.")];
    };
    let mut out = vec![heading("Available tools")];
    for name in reg.active_names() {
        let Some(t) = reg.get(&name) else { continue };
        let desc = t
            .tool
            .description()
            .lines()
            .next()
            .unwrap_or("")
            .to_string();
        out.push(Line::from(vec![Span::styled(
            format!("  {} ({name})", t.tool.display_name()),
            Style::new().add_modifier(Modifier::BOLD),
        )]));
        out.push(Line::from(Span::styled(
            format!("      {desc}"),
            Style::new().fg(Color::DarkGray),
        )));
    }
    out
}

fn n(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr).and_then(Value::as_u64).unwrap_or(0)
}

/// `/stats`.
pub fn stats_lines(stats: &SessionStats, wall: Duration, session_id: &str) -> Vec<Line<'static>> {
    let j = stats.to_json();
    let mut out = vec![heading("Session stats")];
    out.push(kv("Session ID", session_id));
    out.push(kv("Wall time", super::cards::fmt_duration(wall)));
    let calls = n(&j, "/tools/totalCalls");
    let ok = n(&j, "/tools/totalSuccess");
    let fail = n(&j, "/tools/totalFail");
    out.push(kv("Tool calls", format!("{calls} ( ✓ {ok} x {fail} )")));
    out.push(kv(
        "Tool time",
        super::cards::fmt_duration(Duration::from_millis(n(&j, "/tools/totalDurationMs"))),
    ));
    out.push(kv(
        "Code changes",
        format!(
            "+{} -{}",
            n(&j, "/files/totalLinesAdded"),
            n(&j, "/files/totalLinesRemoved")
        ),
    ));
    if let Some(models) = j.get("models").and_then(Value::as_object) {
        for (name, m) in models {
            out.push(Line::default());
            out.push(heading(&format!("Model {name}")));
            out.push(kv("Requests", n(m, "/api/totalRequests").to_string()));
            out.push(kv("Errors", n(m, "/api/totalErrors").to_string()));
            out.push(kv(
                "API time",
                super::cards::fmt_duration(Duration::from_millis(n(m, "/api/totalLatencyMs"))),
            ));
            out.push(kv("Prompt tokens", n(m, "/tokens/prompt").to_string()));
            out.push(kv("Cached tokens", n(m, "/tokens/cached").to_string()));
            out.push(kv("Output tokens", n(m, "/tokens/candidates").to_string()));
            out.push(kv("Thought tokens", n(m, "/tokens/thoughts").to_string()));
            out.push(kv("Total tokens", n(m, "/tokens/total").to_string()));
        }
    }
    out
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

/// `/memory show`: the context files found now.
pub fn memory_lines(
    workspace: &Workspace,
    paths: &GeminiPaths,
    names: &[String],
    max_dirs: usize,
) -> Vec<Line<'static>> {
    let opts = memory::MemoryOptions {
        file_names: names,
        gemini_dir: &paths.gemini_dir,
        home: &paths.home,
        max_dirs,
    };
    let files = memory::load_context_files(workspace, &opts);
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
        for l in super::wrap::sanitize(&f.content).lines() {
            out.push(Line::from(l.to_string()));
        }
    }
    out
}

/// Base64 (standard alphabet, padded), for OSC 52.
pub fn base64(data: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let v = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[((v >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn parses_commands() {
        assert_eq!(parse("/help"), Command::Help);
        assert_eq!(parse("/chat list"), Command::ChatList);
        assert_eq!(parse("/memory"), Command::MemoryShow);
        assert_eq!(parse("/nope"), Command::Unknown("nope".into()));
        assert_eq!(
            parse("/chat save my tag"),
            Command::ChatSave("my tag".into())
        );
        assert_eq!(parse("/chat load x"), Command::ChatResume("x".into()));
        assert!(matches!(parse("/chat save"), Command::Usage(_)));
        assert_eq!(
            parse("/memory add  I like  tea "),
            Command::MemoryAdd("I like  tea".into())
        );
        assert_eq!(parse("/memory refresh"), Command::MemoryRefresh);
        assert_eq!(parse("/restore"), Command::Restore(None));
        assert_eq!(parse("/restore abc"), Command::Restore(Some("abc".into())));
        assert_eq!(
            parse("/directory add ../x"),
            Command::DirectoryAdd("../x".into())
        );
        assert_eq!(parse("/directory"), Command::DirectoryShow);
        assert_eq!(parse("/mcp"), Command::Mcp);
    }

    #[test]
    fn base64_matches() {
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"hi!"), "aGkh");
        assert_eq!(base64(b"a"), "YQ==");
    }
}
