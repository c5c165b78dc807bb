//! Snapshot tests of the command screens (`/mcp`, `/hooks`, `/chat list`,
//! `/restore`) and of a running shell card's live output.

use super::tests::{screen, state};
use crate::ui::commands::chat;
use crate::ui::commands::panels;
use crate::ui::render;
use gemini_rs_protocol::events::{
    AgentEvent, CheckpointInfo, HookInfo, HooksInfo, McpResourceInfo, McpServerInfo,
    McpServerStatus, McpServersInfo, McpToolInfo, RecordedSessionInfo, SavedChatInfo,
};
use serde_json::json;
use std::time::Instant;

fn assert_screen(got: &str, expected: &[&str]) {
    let got_lines: Vec<&str> = got.lines().collect();
    assert_eq!(&got_lines[..expected.len()], expected, "\n{got}");
    assert!(
        got_lines[expected.len()..].iter().all(|l| l.is_empty()),
        "\n{got}"
    );
}

#[test]
fn mcp_screen() {
    let tool = |name: &str, description: &str| McpToolInfo {
        name: name.into(),
        description: description.into(),
    };
    let servers = vec![
        McpServerInfo {
            name: "files".into(),
            description: Some("Local file helpers".into()),
            status: McpServerStatus::Ready,
            tools: vec![tool("read_note", "Reads a note"), tool("list_notes", "")],
            resources: vec![],
        },
        McpServerInfo {
            name: "empty".into(),
            description: None,
            status: McpServerStatus::Ready,
            tools: vec![],
            resources: vec![],
        },
    ];
    let failures = vec!["Error connecting to MCP server 'broken': spawn failed".to_string()];
    let info = McpServersInfo {
        servers,
        failures,
        connecting: vec!["slow".to_string()],
    };
    let got = screen(panels::mcp_lines(&info), 80, 19);
    assert_screen(
        &got,
        &[
            "Configured MCP servers:",
            "",
            "● files - Ready (2 tools)",
            "    Local file helpers",
            "  Tools:",
            "    - read_note: Reads a note",
            "    - list_notes",
            "",
            "● empty - Ready (0 tools)",
            "    No tools available",
            "",
            "◌ slow - Connecting… (its tools join the next request)",
            "",
            "● Error connecting to MCP server 'broken': spawn failed",
        ],
    );
    let none = screen(panels::mcp_lines(&McpServersInfo::default()), 80, 3);
    assert!(none.starts_with("No MCP servers configured."), "{none}");
    let docs = vec![McpServerInfo {
        name: "docs".into(),
        description: None,
        status: McpServerStatus::Ready,
        tools: vec![tool("search", "")],
        resources: vec![McpResourceInfo {
            uri: "demo://a.md".into(),
            name: "a".into(),
            template: false,
        }],
    }];
    let auth = vec![
        "Error connecting to MCP server 'gh': needs authentication, and no browser could be opened"
            .to_string(),
    ];
    let info = McpServersInfo {
        servers: docs,
        failures: auth,
        connecting: Vec::new(),
    };
    let got = screen(panels::mcp_lines(&info), 80, 10);
    assert_screen(
        &got,
        &[
            "Configured MCP servers:",
            "",
            "● docs - Ready (1 tools)",
            "    Resources (1), as @docs:<uri>:",
            "    - demo://a.md (a)",
            "  Tools:",
            "    - search",
            "",
            "● gh - Needs authentication (run /mcp auth gh)",
        ],
    );
}

#[test]
fn hooks_screen() {
    let hook = |event: &str, matcher: Option<&str>, name: Option<&str>, command: &str| HookInfo {
        event: event.into(),
        matcher: matcher.map(str::to_string),
        display_name: name.unwrap_or(command).into(),
        command: command.into(),
        named: name.is_some(),
        description: None,
        enabled: true,
    };
    let matcher = Some("write_file|replace");
    let config = HooksInfo {
        enabled: true,
        hooks: vec![
            HookInfo {
                description: Some("Blocks secrets".into()),
                ..hook("BeforeTool", matcher, Some("guard"), "./check.sh")
            },
            HookInfo {
                enabled: false,
                ..hook("BeforeTool", matcher, None, "echo hi")
            },
            hook("SessionStart", None, None, "date"),
        ],
    };
    let got = screen(panels::hooks_lines(&config), 80, 14);
    assert_screen(
        &got,
        &[
            "Configured hooks:",
            "",
            "BeforeTool",
            "  enabled  guard  matcher: write_file|replace",
            "      $ ./check.sh",
            "      Blocks secrets",
            "  disabled echo hi  matcher: write_file|replace",
            "",
            "SessionStart",
            "  enabled  date",
        ],
    );
    let none = screen(panels::hooks_lines(&HooksInfo::default()), 80, 3);
    assert!(none.starts_with("No hooks configured."), "{none}");
}

#[test]
fn chat_list_screen() {
    let saved = vec![
        SavedChatInfo {
            tag: "before refactor".into(),
            modified: "2026-01-02 10:11:12".into(),
        },
        SavedChatInfo {
            tag: "v2".into(),
            modified: "2026-01-03 09:00:00".into(),
        },
    ];
    let sessions = vec![RecordedSessionInfo {
        last_updated: "2026-01-03T09:05:00.000Z".into(),
        session_id: "7b665372-6034-4919-ab2a-e15c17e5cc3b".into(),
        file: "/tmp/session.json".into(),
        start_time: "2026-01-03T09:00:00.000Z".into(),
        first_prompt: "hi".into(),
        summary: None,
    }];
    let got = screen(chat::list_lines(&saved, &sessions), 80, 12);
    assert_screen(
        &got,
        &[
            "List of saved conversations:",
            "  - before refactor (saved on 2026-01-02 10:11:12)",
            "  - v2 (saved on 2026-01-03 09:00:00)",
            "Resume one with /chat resume <tag>.",
            "",
            "Recorded sessions (1)",
            "  1. 2026-01-03T09:05:00.000Z [7b665372-6034-4919-ab2a-e15c17e5cc3b]",
            "Resume one with gemini-rs --resume <index or id>.",
        ],
    );
    let empty = screen(chat::list_lines(&[], &[]), 80, 4);
    assert_screen(
        &empty,
        &[
            "No saved conversation checkpoints found.",
            "",
            "No recorded sessions for this project.",
        ],
    );
}

#[test]
fn restore_list_screen() {
    let list = vec![CheckpointInfo {
        id: "2026-01-02T10-11-12_000Z-notes.txt-replace".into(),
        tool_name: "replace".into(),
        file_path: Some("/w/notes.txt".into()),
    }];
    let got = screen(panels::restore_list_lines(&list), 80, 4);
    assert_screen(
        &got,
        &[
            "Available tool calls to restore:",
            "  2026-01-02T10-11-12_000Z-notes.txt-replace  (replace /w/notes.txt)",
            "Restore one with /restore <id>.",
        ],
    );
}

#[test]
fn running_shell_card_shows_the_latest_output_lines() {
    let mut s = state();
    let now = Instant::now();
    s.start_busy("Thinking", now);
    s.on_agent_event(
        AgentEvent::ToolCallRequested {
            call_id: "s1".into(),
            name: "run_shell_command".into(),
            args: json!({"command": "make"}),
        },
        now,
    );
    s.on_agent_event(
        AgentEvent::ToolRunning {
            call_id: "s1".into(),
        },
        now,
    );
    for chunk in [
        "step 1",
        "step 1\nstep 2",
        "step 2\nstep 3\nstep 4\nstep 5\nstep 6\nstep 7",
    ] {
        s.on_agent_event(
            AgentEvent::ToolOutput {
                call_id: "s1".into(),
                chunk: chunk.into(),
            },
            now,
        );
    }
    let (lines, _) = render::live_lines(&s, 80, 24, now);
    let got = screen(lines, 80, 24);
    let shown: Vec<&str> = got.lines().filter(|l| l.contains("step")).collect();
    assert_eq!(
        shown,
        [
            "   ⎿ step 3",
            "     step 4",
            "     step 5",
            "     step 6",
            "     step 7"
        ],
        "\n{got}"
    );
}

#[test]
fn help_keys_as_wide_as_their_column_keep_a_space() {
    let builtin = crate::ui::handlers::registry::listed();
    let lines = crate::ui::commands::info::help_lines(&builtin, &[]);
    let text: Vec<String> = lines.iter().map(crate::ui::view::wrap::line_text).collect();
    assert!(
        text.iter().any(|l| l.contains("Shift-Enter New line")),
        "{text:#?}"
    );
}

#[test]
fn long_info_lines_wrap_under_their_text() {
    let mut s = state();
    s.width = 40;
    s.push_lines(crate::ui::commands::info::tools_lines(&[
        gemini_rs_protocol::events::ToolInfo {
            name: "read_file".into(),
            display_name: "ReadFile".into(),
            description:
                "Reads and returns the content of a specified file from the local filesystem."
                    .into(),
            kind: gemini_rs_protocol::events::ToolKind::Read,
            parameters: json!({}),
            server: None,
        },
    ]));
    let text: Vec<String> = s.out.iter().map(crate::ui::view::wrap::line_text).collect();
    assert!(text.len() > 3, "{text:#?}");
    for line in &text[2..] {
        assert!(line.starts_with("      ") && line.len() <= 40, "{text:#?}");
    }
}

#[test]
fn shell_mode_shows_the_bang_as_the_prompt() {
    let mut s = state();
    s.input.insert_str("!ls -la");
    let (lines, (cx, _)) = s.input.render(40, "> ", "");
    assert_eq!(crate::ui::view::wrap::line_text(&lines[0]), "! ls -la");
    assert_eq!(cx, 8);
}
