//! Snapshot tests of named screens, rendered with ratatui's TestBackend and
//! compared as text.

use crate::ui::input::history::History;
use crate::ui::render;
use crate::ui::state::UiState;
use crate::ui::view::cards::{CardStatus, ToolCard};
use crate::ui::view::markdown;
use gemini_rs_protocol::events::ApprovalMode;
use gemini_rs_protocol::events::{
    AgentEvent, ConfirmationOutcome, ToolCallFinished, ToolCallStatus,
};
use gemini_rs_protocol::events::{ConfirmationDetails, Modifiable, ToolDisplay};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Terminal, TerminalOptions, Viewport};
use serde_json::json;
use std::time::{Duration, Instant};

/// The rows of a buffer, trailing spaces removed.
pub(super) fn rows(buf: &Buffer) -> Vec<String> {
    let area = buf.area;
    (0..area.height)
        .map(|y| {
            let mut s = String::new();
            for x in 0..area.width {
                s.push_str(buf[(x, y)].symbol());
            }
            s.trim_end().to_string()
        })
        .collect()
}

/// Renders lines into a `w`x`h` TestBackend and returns its text.
pub(super) fn screen(lines: Vec<Line<'static>>, w: u16, h: u16) -> String {
    let mut t = Terminal::with_options(
        TestBackend::new(w, h),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, w, h)),
        },
    )
    .unwrap();
    t.draw(|f| Paragraph::new(lines).render(f.area(), f.buffer_mut()))
        .unwrap();
    rows(t.backend().buffer()).join("\n")
}

pub(super) fn state() -> UiState {
    let mut s = UiState::new(
        "gemini-2.5-pro".into(),
        "~/src/demo".into(),
        ApprovalMode::Default,
        History::default(),
    );
    s.width = 80;
    s.height = 24;
    s
}

const DIFF: &str = "Index: notes.txt\n===================================================================\n--- notes.txt\tCurrent\n+++ notes.txt\tProposed\n@@ -1,3 +1,3 @@\n first line\n-second line\n+second line, edited\n third line\n";

fn edit_details() -> ConfirmationDetails {
    ConfirmationDetails::Edit {
        title: "Confirm Edit: notes.txt".into(),
        file_name: "notes.txt".into(),
        file_path: "/work/notes.txt".into(),
        file_diff: DIFF.into(),
        original_content: Some("first line\nsecond line\nthird line\n".into()),
        new_content: "first line\nsecond line, edited\nthird line\n".into(),
        modifiable: Some(Modifiable::new("new_string")),
    }
}

#[test]
fn edit_confirmation_with_diff_80x24() {
    let mut s = state();
    let now = Instant::now();
    s.start_busy("Thinking", now);
    s.on_agent_event(
        AgentEvent::ToolCallRequested {
            call_id: "c1".into(),
            name: "replace".into(),
            args: json!({"file_path": "notes.txt", "old_string": "second line", "new_string": "second line, edited"}),
        },
        now,
    );
    s.on_agent_event(
        AgentEvent::ToolAwaitingApproval {
            call_id: "c1".into(),
            name: "replace".into(),
            details: edit_details(),
        },
        now,
    );
    let (lines, cursor) = render::live_lines(&s, 80, 24, now);
    assert!(
        cursor.is_none(),
        "the editor hides while the dialog is open"
    );
    let got = screen(lines, 80, 24);
    let expected = [
        "",
        " ? replace notes.txt  awaiting approval",
        "",
        "? Confirm Edit: notes.txt  (replace)",
        "  @@ -1,3 +1,3 @@",
        "   first line",
        "  -second line",
        "  +second line, edited",
        "   third line",
        "Apply this change?",
        "● 1. Yes, allow once",
        "  2. Yes, allow always (auto-accept edits)",
        "  3. Modify with external editor",
        "  4. No, suggest changes (esc)",
        "~/src/demo              mode: default (shift+tab)              gemini-2.5-pro (100% context left)",
    ];
    let got_lines: Vec<&str> = got.lines().collect();
    assert_eq!(
        &got_lines[..expected.len() - 1],
        &expected[..expected.len() - 1],
        "{got}"
    );
    assert!(
        got_lines[expected.len() - 1].starts_with("~/src/demo"),
        "{got}"
    );
    assert!(got.contains("mode: default"), "{got}");

    // Enter allows once; number keys and arrows pick; Esc cancels.
    let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
    let mut d = s.confirm.clone().unwrap();
    assert_eq!(
        d.on_key(key(KeyCode::Enter)),
        Some(ConfirmationOutcome::ProceedOnce)
    );
    assert_eq!(d.on_key(key(KeyCode::Down)), None);
    assert_eq!(
        d.on_key(key(KeyCode::Enter)),
        Some(ConfirmationOutcome::ProceedAlways)
    );
    assert_eq!(
        d.on_key(key(KeyCode::Char('3'))),
        Some(ConfirmationOutcome::ModifyWithEditor)
    );
    assert_eq!(
        d.on_key(key(KeyCode::Char('4'))),
        Some(ConfirmationOutcome::Cancel)
    );
    assert_eq!(
        d.on_key(key(KeyCode::Esc)),
        Some(ConfirmationOutcome::Cancel)
    );
}

#[test]
fn diff_colours() {
    use ratatui::style::Color;
    let lines = crate::ui::view::cards::diff_lines(DIFF, 80, &[]);
    let fg = |i: usize| lines[i].spans[0].style.fg;
    assert_eq!(fg(0), Some(Color::Cyan));
    assert_eq!(fg(2), Some(Color::Red));
    assert_eq!(fg(3), Some(Color::Green));
}

#[test]
fn markdown_table() {
    let md = "| Tool | Kind | Notes |\n|:-----|:----:|------:|\n| read_file | read | fast |\n| write_file | edit | asks first |\n";
    let lines = markdown::render(md, 60, true);
    let got = screen(lines, 60, 7);
    let expected = "\
┌────────────┬──────┬────────────┐
│ Tool       │ Kind │      Notes │
├────────────┼──────┼────────────┤
│ read_file  │ read │       fast │
│ write_file │ edit │ asks first │
└────────────┴──────┴────────────┘
";
    assert_eq!(
        got,
        expected.trim_end_matches('\n').to_string() + "\n",
        "{got}"
    );
}

#[test]
fn markdown_table_shrinks_to_fit() {
    let md = "| a | b |\n|---|---|\n| one two three four five six | x |\n";
    let lines = markdown::render(md, 20, false);
    for l in &lines {
        assert!(l.width() <= 20, "{l:?}");
    }
    let got = screen(lines, 20, 8);
    assert!(got.contains("│ one two      │ x │"), "{got}");
    assert!(got.contains("│ three four   │   │"), "{got}");
}

#[test]
fn markdown_code_block() {
    let md = "Here:\n\n```rust\nfn main() {\n    println!(\"hi\");\n}\n```\n\n# Title\n\n- one\n- two\n  1. nested\n";
    let lines = markdown::render(md, 40, true);
    let got = screen(lines.clone(), 40, 12);
    let expected = "\
Here:

fn main() {
    println!(\"hi\");
}

Title

• one
• two
  1. nested";
    assert_eq!(got.trim_end(), expected, "{got}");
    assert!(
        crate::ui::view::highlight::loaded(),
        "the first code block loads syntect"
    );
    // Code gets the named colours of its kinds, which the theme maps.
    let code = &lines[2];
    assert!(
        code.spans
            .iter()
            .any(|s| s.content.contains("fn") && s.style.fg == Some(ratatui::style::Color::Blue)),
        "{code:?}"
    );
    let light = crate::ui::theme::by_name("Default Light").unwrap();
    assert_eq!(
        light.map(ratatui::style::Color::Blue),
        ratatui::style::Color::Rgb(0x00, 0x5F, 0xAF)
    );
}

#[test]
fn every_tool_card_status() {
    let now = Instant::now();
    let mut s = state();
    let statuses = [
        CardStatus::Pending,
        CardStatus::AwaitingApproval,
        CardStatus::Running(now - Duration::from_secs(3)),
        CardStatus::Done(Duration::from_millis(120)),
        CardStatus::Failed(Duration::from_millis(1500)),
        CardStatus::Cancelled,
    ];
    for (i, st) in statuses.into_iter().enumerate() {
        let mut c = ToolCard::new(
            format!("c{i}"),
            "run_shell_command".into(),
            &json!({"command": format!("step {i}")}),
        );
        c.status = st;
        if i == 3 {
            c.display = Some(ToolDisplay::Text("all good".into()));
        }
        if i == 4 {
            c.error = Some("exit code 2".into());
        }
        s.cards.push(c);
    }
    let lines: Vec<Line<'static>> = s
        .cards
        .iter()
        .flat_map(|c| c.lines(80, now, None))
        .collect();
    let got = screen(lines, 80, 9);
    let spinner = crate::ui::view::cards::spinner_frame(now, now - Duration::from_secs(3));
    let expected = [
        " o run_shell_command step 0  pending".to_string(),
        " ? run_shell_command step 1  awaiting approval".to_string(),
        format!(" {spinner} run_shell_command step 2  running 3s"),
        " ✓ run_shell_command step 3  done 120ms".to_string(),
        "   ⎿ all good".to_string(),
        " x run_shell_command step 4  failed 1.5s".to_string(),
        "   ⎿ exit code 2".to_string(),
        " - run_shell_command step 5  cancelled".to_string(),
        String::new(),
    ]
    .join("\n");
    assert_eq!(got, expected, "{got}");
}

#[test]
fn streamed_answer_commits_finished_blocks() {
    let mut s = state();
    let now = Instant::now();
    s.start_busy("Thinking", now);
    s.on_agent_event(
        AgentEvent::Content {
            text: "# Plan\n\nFirst par".into(),
        },
        now,
    );
    let committed: Vec<String> = s.out.iter().map(crate::ui::view::wrap::line_text).collect();
    assert_eq!(committed, vec!["", "✦ Plan"]);
    assert_eq!(s.stream, "First par");
    let (lines, _) = render::live_lines(&s, 80, 24, now);
    let got = screen(lines, 80, 24);
    assert!(got.contains("  First par"), "{got}");
    assert!(got.contains("esc to cancel"), "{got}");
    s.on_agent_event(
        AgentEvent::Content {
            text: "agraph.".into(),
        },
        now,
    );
    s.on_agent_event(
        AgentEvent::ToolFinished(ToolCallFinished {
            call_id: "x".into(),
            name: "write_file".into(),
            args: json!({"file_path": "a.txt"}),
            status: ToolCallStatus::Success,
            display: ToolDisplay::Text("Wrote a.txt".into()),
            error: None,
            duration: Duration::from_millis(5),
        }),
        now,
    );
    s.end_busy(now);
    let all: Vec<String> = s.out.iter().map(crate::ui::view::wrap::line_text).collect();
    assert!(all.contains(&"  First paragraph.".to_string()), "{all:?}");
    assert!(
        all.contains(&" ✓ write_file a.txt  done 5ms".to_string()),
        "{all:?}"
    );
    assert!(s.busy.is_none());
}

#[test]
fn footer_shows_mode_and_notice() {
    let mut s = state();
    s.mode = ApprovalMode::Yolo;
    let f = crate::ui::view::wrap::line_text(&render::footer(&s, 80));
    assert!(f.starts_with("~/src/demo"), "{f}");
    assert!(f.contains("mode: YOLO"), "{f}");
    assert!(f.ends_with("gemini-2.5-pro (100% context left)"), "{f}");
    s.notice = Some(("Press Ctrl-C again to exit.".into(), Instant::now()));
    let f = crate::ui::view::wrap::line_text(&render::footer(&s, 80));
    assert!(f.starts_with("Press Ctrl-C again to exit."), "{f}");
}

#[test]
fn footer_counts_mcp_servers() {
    let mut s = state();
    s.mcp_status = Some((2, 0, 1));
    let f = crate::ui::view::wrap::line_text(&render::footer(&s, 120));
    assert!(
        f.ends_with("(100% context left) · MCP 2 ready, 1 failed"),
        "{f}"
    );
    s.background_running = 2;
    let f = crate::ui::view::wrap::line_text(&render::footer(&s, 120));
    assert!(f.ends_with("1 failed · 2 background processes"), "{f}");
}

#[test]
fn a_retry_wait_counts_down_in_the_status_line() {
    let mut s = state();
    let now = Instant::now();
    s.start_busy("Thinking", now);
    s.on_agent_event(
        AgentEvent::ModelRetry {
            attempt: 1,
            max_attempts: 5,
            delay_ms: 2500,
            reason: "HTTP 503: overloaded".into(),
        },
        now,
    );
    let at = |s: &UiState, later: Duration| {
        let (lines, _) = render::live_lines(s, 80, 24, now + later);
        screen(lines, 80, 24)
    };
    let got = at(&s, Duration::ZERO);
    assert!(
        got.contains("Retrying in 3s (attempt 2 of 5): HTTP 503"),
        "{got}"
    );
    assert!(at(&s, Duration::from_millis(1600)).contains("Retrying in 1s"));
    // The answer arriving ends the countdown.
    s.on_agent_event(AgentEvent::Content { text: "ok".into() }, now);
    assert!(!at(&s, Duration::ZERO).contains("Retrying"));
}

#[test]
fn cost_shows_in_the_footer_and_stats() {
    let mut s = state();
    s.stats.record_request(
        "gemini-2.5-pro",
        std::time::Duration::from_millis(5),
        None,
        false,
        false,
    );
    s.stats.record_cost("gemini-2.5-pro", 0.25);
    let f = crate::ui::view::wrap::line_text(&render::footer(&s, 120));
    assert!(f.contains("(100% context left) · $0.25"), "{f}");
    let lines =
        crate::ui::commands::info::stats_lines(&s.stats, std::time::Duration::from_secs(1), "id");
    let text: Vec<String> = lines.iter().map(crate::ui::view::wrap::line_text).collect();
    assert!(
        text.iter()
            .any(|l| l.contains("Cost") && l.contains("$0.25")),
        "{text:?}"
    );
    assert!(text.iter().any(|l| l.contains("Session cost")), "{text:?}");
}

#[test]
fn estimated_tokens_are_marked_in_the_footer_and_stats() {
    let mut s = state();
    s.context_window = 1000;
    let usage = gemini_rs_protocol::UsageMetadata {
        prompt_token_count: Some(250),
        candidates_token_count: Some(10),
        total_token_count: Some(260),
        ..Default::default()
    };
    s.on_agent_event(
        AgentEvent::Usage {
            model: "ollama/gemma3".into(),
            usage: usage.clone(),
            estimated: true,
        },
        Instant::now(),
    );
    s.stats.record_request(
        "ollama/gemma3",
        std::time::Duration::from_millis(5),
        Some(&usage),
        false,
        true,
    );
    let f = crate::ui::view::wrap::line_text(&render::footer(&s, 120));
    assert!(f.contains("(~75% context left, estimated)"), "{f}");
    let lines =
        crate::ui::commands::info::stats_lines(&s.stats, std::time::Duration::from_secs(1), "id");
    let text: Vec<String> = lines.iter().map(crate::ui::view::wrap::line_text).collect();
    assert!(
        text.iter()
            .any(|l| l.contains("Prompt tokens") && l.contains("~250")),
        "{text:?}"
    );
    assert!(text.iter().any(|l| l.contains("estimated")), "{text:?}");
}
