//! The model's todo list (`write_todos`): one line per item with a status
//! mark, used in the tool card and in the panel above the input.

use crate::ui::view::wrap::truncate;
use gemini_rs_protocol::events::{TodoItem, TodoStatus};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};

/// Most items the panel above the input shows.
const PANEL_ITEMS: usize = 8;

/// The spans of each item: a mark and the description, styled by status;
/// descriptions cut to `max_width` columns when given.
pub fn todo_lines(todos: &[TodoItem], max_width: Option<usize>) -> Vec<Vec<Span<'static>>> {
    todos
        .iter()
        .map(|t| {
            let (mark, style) = match t.status {
                TodoStatus::Pending => ("☐ ", Style::new()),
                TodoStatus::InProgress => (
                    "▶ ",
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                ),
                TodoStatus::Completed => ("✔ ", Style::new().fg(Color::Green)),
                TodoStatus::Blocked => ("⊘ ", Style::new().fg(Color::Yellow)),
                TodoStatus::Cancelled => (
                    "✘ ",
                    Style::new()
                        .fg(Color::DarkGray)
                        .add_modifier(Modifier::CROSSED_OUT),
                ),
            };
            vec![
                Span::styled(mark, style),
                Span::styled(
                    match max_width {
                        Some(w) => truncate(&t.description, w),
                        None => t.description.clone(),
                    },
                    style,
                ),
            ]
        })
        .collect()
}

/// The panel above the input while some item is still open: a title with
/// the progress, then the items (the in-progress one always visible).
pub fn todo_panel(todos: &[TodoItem], width: usize) -> Vec<Line<'static>> {
    let open = |t: &TodoItem| {
        matches!(
            t.status,
            TodoStatus::Pending | TodoStatus::InProgress | TodoStatus::Blocked
        )
    };
    if !todos.iter().any(open) {
        return Vec::new();
    }
    let done = todos
        .iter()
        .filter(|t| t.status == TodoStatus::Completed)
        .count();
    let dim = Style::new().fg(Color::DarkGray);
    let mut lines = vec![Line::from(vec![
        Span::styled("Todo ", Style::new().add_modifier(Modifier::BOLD)),
        Span::styled(format!("{done}/{} done", todos.len()), dim),
    ])];
    let current = todos
        .iter()
        .position(|t| t.status == TodoStatus::InProgress)
        .unwrap_or(0);
    let first = current.saturating_sub(PANEL_ITEMS / 2);
    let first = first.min(todos.len().saturating_sub(PANEL_ITEMS));
    let max = Some(width.saturating_sub(4).max(8));
    for spans in todo_lines(todos, max)
        .into_iter()
        .skip(first)
        .take(PANEL_ITEMS)
    {
        let mut line = vec![Span::raw("  ")];
        line.extend(spans);
        lines.push(Line::from(line));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(d: &str, status: TodoStatus) -> TodoItem {
        TodoItem {
            description: d.into(),
            status,
        }
    }

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn panel_shows_progress_while_work_is_open() {
        let todos = [
            item("read", TodoStatus::Completed),
            item("edit", TodoStatus::InProgress),
            item("test", TodoStatus::Pending),
        ];
        assert_eq!(
            text(&todo_panel(&todos, 40)),
            ["Todo 1/3 done", "  ✔ read", "  ▶ edit", "  ☐ test"]
        );
    }

    #[test]
    fn panel_hides_when_everything_is_settled() {
        let todos = [
            item("a", TodoStatus::Completed),
            item("b", TodoStatus::Cancelled),
        ];
        assert!(todo_panel(&todos, 40).is_empty());
        assert!(todo_panel(&[], 40).is_empty());
    }
}
