use super::*;
use serde_json::json;

#[test]
fn plans_leave_out_cancelled_items() {
    let todos = [
        TodoItem {
            description: "a".into(),
            status: TodoStatus::InProgress,
        },
        TodoItem {
            description: "b".into(),
            status: TodoStatus::Cancelled,
        },
    ];
    assert_eq!(
        serde_json::to_value(plan(&todos)).unwrap(),
        json!({"sessionUpdate": "plan",
            "entries": [{"content": "a", "priority": "medium", "status": "in_progress"}]})
    );
}

#[test]
fn permission_answers_map_to_outcomes() {
    let selected = |id: &str| {
        Some(acp::RequestPermissionResponse::new(
            acp::RequestPermissionOutcome::Selected(acp::SelectedPermissionOutcome::new(
                id.to_string(),
            )),
        ))
    };
    assert_eq!(
        confirmation(selected("proceed_always_tool")),
        ConfirmationOutcome::ProceedAlwaysTool
    );
    assert_eq!(
        confirmation(selected("cancel")),
        ConfirmationOutcome::Cancel
    );
    assert_eq!(confirmation(None), ConfirmationOutcome::Cancel);
}

#[test]
fn edits_show_a_diff_with_the_old_text() {
    let d = diff("/w/a.txt", Some("old\n"), "new\n");
    assert_eq!(
        serde_json::to_value(d).unwrap(),
        json!({"type": "diff", "path": "/w/a.txt", "oldText": "old\n", "newText": "new\n"})
    );
}
