//! `write_todos`: the model's plan for the current request, replaced whole
//! on every call. The result text and the validation messages are Gemini
//! CLI v0.27.4's; the user sees the list (the UI above the input, ACP as a
//! `plan` update).

use super::common::parse_params;
use super::{Builtin, Make};
use crate::catalogue::builtins::WRITE_TODOS as SPEC;
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    TodoItem, TodoStatus, Tool, ToolContext, ToolDisplay, ToolError, ToolInvocation, ToolResult,
};
use futures::future::BoxFuture;
use gemini_rs_protocol::{FunctionDeclaration, Part};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::sync::LazyLock;
use tokio_util::sync::CancellationToken;

const DESCRIPTION: &str = "Keeps a visible checklist of the subtasks of the user's current request, so that nothing is forgotten and the user can follow your progress.

Call it when a request needs several distinct steps (planning, editing several files, running and fixing tests): first with every subtask as `pending`, then again whenever a subtask starts, ends or stops being needed. Each call sends the whole list, which replaces the previous one; an empty list clears it.

Skip it for requests that take one or two steps or can be answered directly.

Statuses:
- pending: not started yet.
- in_progress: being worked on now. At most one subtask may be in progress at a time; mark it just before you start it.
- completed: finished without open problems. If more work turned up, add it as new subtasks instead.
- cancelled: no longer needed.
- blocked: cannot go on until something outside your reach happens (an answer, an access, another task); say what it waits for.

Update the list as soon as a status changes rather than in batches.";

/// The statuses in the order the reference lists them.
const STATUSES: [&str; 5] = [
    "pending",
    "in_progress",
    "completed",
    "cancelled",
    "blocked",
];

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "description": "Every subtask of the current request; this list replaces the previous one.",
                "items": {
                    "type": "object",
                    "description": "One subtask.",
                    "properties": {
                        "description": {"type": "string", "description": "What the subtask is."},
                        "status": {
                            "type": "string",
                            "description": "Where the subtask stands.",
                            "enum": STATUSES
                        }
                    },
                    "required": ["description", "status"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["todos"],
        "additionalProperties": false
    })
});

/// The declared shape of the result (`responseJsonSchema`), as the
/// reference declares it.
static RESPONSE_SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "description": {"type": "string"},
                        "status": {"type": "string", "enum": STATUSES}
                    },
                    "required": ["description", "status"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["todos"],
        "additionalProperties": false
    })
});

/// The `write_todos` tool (display name `WriteTodos`, kind other).
pub struct WriteTodosTool;

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(WriteTodosTool)),
};

impl Tool for WriteTodosTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn parameter_schema(&self) -> &Value {
        &SCHEMA
    }
    fn declaration(&self) -> FunctionDeclaration {
        let mut extra = Map::new();
        extra.insert("responseJsonSchema".into(), RESPONSE_SCHEMA.clone());
        FunctionDeclaration {
            name: self.name().to_string(),
            description: Some(DESCRIPTION.to_string()),
            parameters_json_schema: Some(SCHEMA.clone()),
            parameters: None,
            extra,
        }
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let params: Params = parse_params(args, &[])?;
        let mut todos = Vec::with_capacity(params.todos.len());
        for raw in params.todos {
            if raw.description.trim().is_empty() {
                return Err(ToolError::invalid_params(
                    "Each todo must have a non-empty description string",
                ));
            }
            let status = TodoStatus::parse(&raw.status).ok_or_else(|| {
                ToolError::invalid_params(format!(
                    "Each todo must have a valid status ({})",
                    STATUSES.join(", ")
                ))
            })?;
            todos.push(TodoItem {
                description: raw.description,
                status,
            });
        }
        let in_progress = todos
            .iter()
            .filter(|t| t.status == TodoStatus::InProgress)
            .count();
        if in_progress > 1 {
            return Err(ToolError::invalid_params(
                "Invalid parameters: Only one task can be \"in_progress\" at a time.",
            ));
        }
        Ok(Box::new(WriteTodosInvocation { todos }))
    }
}

/// The arguments, after schema validation.
#[derive(Debug, Deserialize)]
struct Params {
    todos: Vec<RawTodo>,
}

/// One item as sent; the status is checked into [`TodoStatus`] in `build`.
#[derive(Debug, Deserialize)]
struct RawTodo {
    description: String,
    status: String,
}

/// One validated call.
struct WriteTodosInvocation {
    todos: Vec<TodoItem>,
}

impl ToolInvocation for WriteTodosInvocation {
    fn description(&self) -> String {
        match self.todos.len() {
            0 => "Cleared todo list".to_string(),
            n => format!("Set {n} todo(s)"),
        }
    }

    fn execute<'a>(
        &'a self,
        _ctx: &'a ToolContext,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let llm = if self.todos.is_empty() {
                "Successfully cleared the todo list.".to_string()
            } else {
                let lines: Vec<String> = self
                    .todos
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("{}. [{}] {}", i + 1, t.status.as_str(), t.description))
                    .collect();
                format!(
                    "Successfully updated the todo list. The current list is now:\n{}",
                    lines.join("\n")
                )
            };
            ToolResult::parts(
                vec![Part::text(llm)],
                ToolDisplay::Todos(self.todos.clone()),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::builtin::test_fixture::ToolFixture;
    use std::sync::Arc;

    fn fixture() -> ToolFixture {
        ToolFixture::new(Arc::new(WriteTodosTool), &[])
    }

    #[tokio::test]
    async fn lists_the_todos_as_the_reference_does() {
        let fx = fixture();
        let r = fx
            .run(json!({"todos": [
                {"description": "a", "status": "pending"},
                {"description": "b", "status": "completed"}
            ]}))
            .await;
        assert_eq!(
            r.llm_text(),
            "Successfully updated the todo list. The current list is now:\n1. [pending] a\n2. [completed] b"
        );
        match r.display {
            ToolDisplay::Todos(t) => assert_eq!(t.len(), 2),
            other => panic!("{other:?}"),
        }
        let cleared = fx.call(json!({"todos": []})).await;
        assert_eq!(cleared.unwrap(), "Successfully cleared the todo list.");
    }

    #[tokio::test]
    async fn refuses_what_the_reference_refuses() {
        let fx = fixture();
        let two = fx
            .call(json!({"todos": [
                {"description": "a", "status": "in_progress"},
                {"description": "b", "status": "in_progress"}
            ]}))
            .await;
        assert_eq!(
            two.unwrap_err(),
            "Invalid parameters: Only one task can be \"in_progress\" at a time."
        );
        let blank = fx
            .call(json!({"todos": [{"description": "  ", "status": "pending"}]}))
            .await;
        assert_eq!(
            blank.unwrap_err(),
            "Each todo must have a non-empty description string"
        );
        let missing = fx.call(json!({})).await;
        assert_eq!(
            missing.unwrap_err(),
            "params must have required property 'todos'"
        );
    }

    #[test]
    fn declares_the_response_schema() {
        let d = WriteTodosTool.declaration();
        assert!(d.description.is_some());
        assert!(d.extra.contains_key("responseJsonSchema"));
    }
}
