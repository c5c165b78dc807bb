//! Resuming on screen: a resumed conversation (`--resume`, `/chat
//! resume`, `/resume`) is drawn as it was while it ran (the prompts, the
//! model's text as Markdown, a finished card per tool call), and `/resume`
//! lists this project's sessions to switch to.

use crate::ui::control::App;
use crate::ui::state::UiState;
use crate::ui::view::cards::{CardStatus, ToolCard};
use gemini_rs_protocol::events::{RecordedSessionInfo, ToolDisplay};
use gemini_rs_protocol::{Content, FunctionCall, Part};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use std::time::{Duration, Instant};

/// Lines of a resumed tool result shown in its card.
const RESUMED_BODY_LINES: usize = 8;
/// Sessions `/resume` lists (the most recent).
const LISTED_SESSIONS: usize = 20;

/// True for turns the model saw but the user never typed: the
/// environment context and hook context.
fn is_hidden_prompt(text: &str) -> bool {
    let t = text.trim_start();
    t.is_empty() || t.starts_with("<session_context>") || t.starts_with("<hook_context>")
}

fn texts(parts: &[Part]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_thought())
        .filter_map(|p| p.text.as_deref())
        .collect()
}

/// What the user typed: a prompt's text without the files its `@path`
/// references inlined for the model.
fn typed_text(parts: &[Part]) -> String {
    let text = texts(parts);
    match text.find("\n--- Content from referenced files ---") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// What a shell call showed: its output, without the lines written for
/// the model (`Command:`, `Directory:`, `Process Group PGID:`, ...).
fn shell_output(text: &str) -> String {
    const TRAILERS: [&str; 6] = [
        "Error: ",
        "Exit Code: ",
        "Signal: ",
        "Background PIDs: ",
        "Process Group PGID: ",
        "Process Group PGID:",
    ];
    let Some(at) = text.find("Output: ") else {
        return text.to_string();
    };
    let body = &text[at + "Output: ".len()..];
    let kept: Vec<&str> = body
        .lines()
        .take_while(|l| !TRAILERS.iter().any(|t| l.starts_with(t)))
        .collect();
    let out = kept.join("\n");
    if out.trim() == "(empty)" {
        String::new()
    } else {
        out
    }
}

/// What a function response showed: its output or error as text.
fn response_text(response: &serde_json::Value) -> (bool, String) {
    let field = |k: &str| response.get(k);
    if let Some(e) = field("error") {
        let text = e.as_str().map_or_else(|| e.to_string(), str::to_string);
        return (false, text);
    }
    let text = match field("output") {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None if response.is_null() => String::new(),
        None => response.to_string(),
    };
    (true, text)
}

fn first_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    if lines.len() <= n {
        return text.trim_end().to_string();
    }
    format!(
        "{}\n... ({} more lines)",
        lines[..n].join("\n"),
        lines.len() - n
    )
}

/// Draws `history` into the scrollback as the live session drew it.
pub fn push_history(state: &mut UiState, history: &[Content]) {
    let now = Instant::now();
    let mut calls: Vec<(String, FunctionCall)> = Vec::new();
    for content in history {
        let is_user = content.role.as_deref() != Some("model");
        if is_user {
            for part in &content.parts {
                let Some(fr) = &part.function_response else {
                    continue;
                };
                let at = calls.iter().position(|(_, c)| {
                    c.id.as_deref()
                        .is_some_and(|id| Some(id) == fr.id.as_deref())
                        || c.name == fr.name
                });
                let args = at
                    .map(|i| calls.remove(i).1.args.unwrap_or_default())
                    .unwrap_or_default();
                let id = fr.id.clone().unwrap_or_default();
                let mut card = ToolCard::new(id, fr.name.clone(), &args);
                let (ok, mut text) = response_text(&fr.response);
                if fr.name == "run_shell_command" {
                    text = shell_output(&text);
                }
                card.status = if ok {
                    CardStatus::Done(Duration::ZERO)
                } else {
                    CardStatus::Failed(Duration::ZERO)
                };
                if ok {
                    card.display = Some(ToolDisplay::Text(first_lines(&text, RESUMED_BODY_LINES)));
                } else {
                    card.error = Some(text);
                }
                state.out.push(Line::default());
                let lines = card.lines(state.content_width(), now, Some(RESUMED_BODY_LINES + 1));
                state.out.extend(lines);
            }
            let text = typed_text(&content.parts);
            if !is_hidden_prompt(&text) {
                state.echo_prompt(&text);
            }
            continue;
        }
        let text = texts(&content.parts);
        if !text.trim().is_empty() {
            // `/copy` copies the last answer, resumed or not.
            state.last_answer = text.trim().to_string();
            let lines = state.message_lines(text.trim(), true, true);
            state.out.push(Line::default());
            state.out.extend(lines);
        }
        for part in &content.parts {
            if let Some(call) = &part.function_call {
                calls.push((call.id.clone().unwrap_or_default(), call.clone()));
            }
        }
    }
}

/// A listed session: its details and how many prompts it holds.
pub struct Listed {
    /// The session.
    pub info: RecordedSessionInfo,
    /// Prompts typed in it.
    pub turns: usize,
}

/// Prompts the user typed in `history`.
pub fn turns(history: &[Content]) -> usize {
    history
        .iter()
        .filter(|c| c.role.as_deref() == Some("user"))
        .filter(|c| c.parts.iter().all(|p| p.function_response.is_none()))
        .filter(|c| !is_hidden_prompt(&texts(&c.parts)))
        .count()
}

/// The most recent sessions of `all` (oldest first, as listed), numbered
/// as `--resume` numbers them.
pub fn recent(all: &[RecordedSessionInfo]) -> impl Iterator<Item = (usize, &RecordedSessionInfo)> {
    let skip = all.len().saturating_sub(LISTED_SESSIONS);
    all.iter().enumerate().skip(skip).map(|(i, s)| (i + 1, s))
}

/// `/resume`: the sessions, newest last, with date, turns and first prompt.
pub fn browser_lines(listed: &[(usize, Listed)], current: &str) -> Vec<Line<'static>> {
    let dim = Style::new().fg(Color::DarkGray);
    if listed.is_empty() {
        return vec![Line::from("No recorded sessions for this project yet.")];
    }
    let mut out = vec![Line::from(Span::styled(
        "Sessions of this project",
        Style::new().add_modifier(Modifier::BOLD).fg(Color::Cyan),
    ))];
    for (n, l) in listed {
        let date = l
            .info
            .last_updated
            .get(..16)
            .unwrap_or(&l.info.last_updated);
        let date = date.replace('T', " ");
        let first: String = l
            .info
            .title()
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(60)
            .collect();
        let here = if l.info.session_id == current {
            " (this session)"
        } else {
            ""
        };
        let turns = match l.turns {
            1 => "1 turn".to_string(),
            n => format!("{n} turns"),
        };
        out.push(Line::from(vec![
            Span::styled(
                format!("  {n:>3}. "),
                Style::new().add_modifier(Modifier::BOLD),
            ),
            Span::raw(format!("{date}  {turns:>9}  {first}")),
            Span::styled(here.to_string(), dim),
        ]));
    }
    out.push(Line::from(Span::styled(
        "Switch with /resume <number or id>; the session goes on where it stopped.",
        dim,
    )));
    out
}

/// The session `which` names: a number from the list or an id (or its
/// start).
pub fn choose<'a>(all: &'a [RecordedSessionInfo], which: &str) -> Option<&'a RecordedSessionInfo> {
    let which = which.trim();
    if let Ok(n) = which.parse::<usize>() {
        return n.checked_sub(1).and_then(|i| all.get(i));
    }
    let mut matching = all.iter().filter(|s| s.session_id.starts_with(which));
    match (matching.next(), matching.next()) {
        (Some(s), None) => Some(s),
        _ => None,
    }
}

/// `/resume`: lists the sessions, or ends this one to go on with the one
/// `which` names.
pub fn command(app: &mut App, which: Option<&str>) {
    let view = &app.ctx.info;
    let all = gemini_rs_core::list_sessions(view.paths(), view.root());
    let current = view.session_id().to_string();
    let Some(which) = which else {
        let listed: Vec<(usize, Listed)> = recent(&all)
            .map(|(n, s)| {
                let turns =
                    gemini_rs_core::session_history(view.paths(), view.root(), &s.session_id)
                        .map_or(0, |(_, h)| turns(&h));
                (
                    n,
                    Listed {
                        info: s.clone(),
                        turns,
                    },
                )
            })
            .collect();
        app.state.push_lines(browser_lines(&listed, &current));
        return;
    };
    match choose(&all, which) {
        None => app.state.error(&format!(
            "No session \"{which}\" in this project: /resume lists them by number and id."
        )),
        Some(s) if s.session_id == current => app.state.info("This is the session in use."),
        Some(s) => {
            app.resume_request = Some(s.session_id.clone());
            app.quit = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::view::wrap::line_text;
    use gemini_rs_protocol::{FunctionResponse, Role};
    use serde_json::json;

    fn call_part(name: &str, args: serde_json::Value) -> Part {
        Part {
            function_call: Some(FunctionCall {
                name: name.into(),
                args: Some(args),
                ..Default::default()
            }),
            ..Part::default()
        }
    }

    fn response_part(name: &str, response: serde_json::Value) -> Part {
        Part {
            function_response: Some(FunctionResponse {
                name: name.into(),
                response,
                ..Default::default()
            }),
            ..Part::default()
        }
    }

    #[test]
    fn a_history_is_drawn_as_prompts_answers_and_cards() {
        let mut s = crate::ui::tests::state();
        let history = vec![
            Content::new(
                Role::User,
                vec![Part::text("<session_context>env</session_context>")],
            ),
            Content::new(Role::User, vec![Part::text("list the files")]),
            Content::new(
                Role::Model,
                vec![call_part("run_shell_command", json!({"command": "ls"}))],
            ),
            Content::new(
                Role::User,
                vec![response_part(
                    "run_shell_command",
                    json!({"output": "a.txt\nb.txt"}),
                )],
            ),
            Content::new(Role::Model, vec![Part::text("There are **two** files.")]),
            Content::new(
                Role::Model,
                vec![call_part("read_file", json!({"file_path": "x"}))],
            ),
            Content::new(
                Role::User,
                vec![response_part(
                    "read_file",
                    json!({"error": "File not found: x"}),
                )],
            ),
        ];
        push_history(&mut s, &history);
        let text: Vec<String> = s.out.iter().map(line_text).collect();
        let all = text.join("\n");
        assert!(!all.contains("session_context"), "{all}");
        assert!(
            text.iter().any(|l| l.starts_with("> list the files")),
            "{all}"
        );
        assert!(
            all.contains("run_shell_command") && all.contains("a.txt"),
            "{all}"
        );
        assert!(all.contains("There are two files."), "{all}");
        assert!(all.contains("File not found: x"), "{all}");
        assert_eq!(turns(&history), 1);
    }

    #[test]
    fn a_resumed_prompt_and_shell_result_show_what_the_user_saw() {
        let llm = "Command: ls\nDirectory: (root)\nOutput: a.txt\nb.txt\nError: (none)\nExit Code: (none)\nProcess Group PGID: 42";
        assert_eq!(shell_output(llm), "a.txt\nb.txt");
        assert_eq!(shell_output("Output: hi\nProcess Group PGID: 7"), "hi");
        assert_eq!(shell_output("Output: (empty)\nProcess Group PGID: 7"), "");
        let parts = vec![
            Part::text("summarize @a.txt"),
            Part::text("\n--- Content from referenced files ---"),
            Part::text("\nContent from @a.txt:\nAAA"),
            Part::text("\n--- End of content ---"),
        ];
        assert_eq!(typed_text(&parts), "summarize @a.txt");
    }

    #[test]
    fn a_session_is_chosen_by_number_or_id() {
        let info = |id: &str| RecordedSessionInfo {
            session_id: id.into(),
            file: "f".into(),
            start_time: String::new(),
            last_updated: "2026-11-26T10:00:00.000Z".into(),
            first_prompt: "hello".into(),
            summary: None,
        };
        let all = vec![info("aaa-1"), info("bbb-2"), info("bbb-3")];
        assert_eq!(
            choose(&all, "2").map(|s| s.session_id.as_str()),
            Some("bbb-2")
        );
        assert_eq!(
            choose(&all, "aaa").map(|s| s.session_id.as_str()),
            Some("aaa-1")
        );
        assert!(choose(&all, "bbb").is_none());
        assert!(choose(&all, "4").is_none());
        assert!(choose(&all, "0").is_none());
        let listed: Vec<(usize, Listed)> = recent(&all)
            .map(|(n, s)| {
                (
                    n,
                    Listed {
                        info: s.clone(),
                        turns: 2,
                    },
                )
            })
            .collect();
        let lines: Vec<String> = browser_lines(&listed, "bbb-2")
            .iter()
            .map(line_text)
            .collect();
        assert!(
            lines[2].contains("2. 2026-11-26 10:00") && lines[2].contains("2 turns"),
            "{lines:?}"
        );
        assert!(lines[2].contains("(this session)"), "{lines:?}");
    }
}
