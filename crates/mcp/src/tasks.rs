//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, MCP
//! 2026-07-28): a server that declares it in `server/discover` may answer a
//! long `tools/call` with `resultType: "task"` instead of the result. The
//! client then polls `tasks/get` (at the server's `pollIntervalMs`) until the
//! task ends, shows each `statusMessage` as the call's live output, answers
//! in-task input requests with `tasks/update`, and sends `tasks/cancel` when
//! the call is given up (a cancelled turn, a timeout). rmcp 3.11 carries the
//! types and the three requests; this is the loop over them.

use super::handler::Handler;
use rmcp::model::{
    CallToolResult, CancelTaskParams, CreateTaskResult, ErrorCode, ErrorData, GetTaskParams,
    InputResponses, TaskPayload, UpdateTaskParams,
};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// Where a running call reports its progress: the lines shown so far
/// (the latest view, replacing the previous one).
pub type ProgressSink = Arc<dyn Fn(String) + Send + Sync>;

/// How many status lines the live view keeps.
const SHOWN_LINES: usize = 10;
/// The poll interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_millis(500);
/// The bounds put on a server's suggested interval.
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(5);
/// How long a `tasks/cancel` sent for an abandoned call may take.
const CANCEL_LIMIT: Duration = Duration::from_secs(5);

/// Sends `tasks/cancel` for the task when dropped armed: the call's future
/// is dropped when the turn is cancelled or the call times out.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    task_id: Option<String>,
}

impl CancelOnDrop {
    fn disarm(&mut self) {
        self.task_id = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(task_id) = self.task_id.take() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let cancel = peer.cancel_task(CancelTaskParams::new(task_id.clone()));
            match tokio::time::timeout(CANCEL_LIMIT, cancel).await {
                Ok(Ok(())) => tracing::debug!(task = %task_id, "MCP task cancelled"),
                Ok(Err(e)) => tracing::debug!(task = %task_id, "tasks/cancel failed: {e}"),
                Err(_) => tracing::debug!(task = %task_id, "tasks/cancel timed out"),
            }
        });
    }
}

/// The status lines of one task, as the live view shows them.
#[derive(Default)]
struct StatusLines {
    lines: Vec<String>,
}

impl StatusLines {
    /// Adds `message` when it differs from the last one; the view to show.
    fn push(&mut self, message: Option<&str>) -> Option<String> {
        let message = message.map(str::trim).filter(|m| !m.is_empty())?;
        if self.lines.last().is_some_and(|l| l == message) {
            return None;
        }
        self.lines.push(message.to_string());
        let skip = self.lines.len().saturating_sub(SHOWN_LINES);
        Some(self.lines[skip..].join("\n"))
    }
}

/// The interval the server asks for, within bounds.
fn poll_interval(suggested: Option<u64>) -> Duration {
    suggested
        .map(Duration::from_millis)
        .unwrap_or(DEFAULT_POLL)
        .clamp(MIN_POLL, MAX_POLL)
}

/// Follows the task `created` to its end: the tool's result, or the
/// task's error. Dropping the future cancels the task on the server.
pub(crate) async fn await_task(
    peer: &Peer<RoleClient>,
    handler: &Handler,
    created: CreateTaskResult,
    progress: Option<&ProgressSink>,
) -> Result<CallToolResult, ServiceError> {
    let task_id = created.task.task_id.clone();
    tracing::debug!(server = %handler.server, task = %task_id, "tools/call became a task");
    let mut guard = CancelOnDrop {
        peer: peer.clone(),
        task_id: Some(task_id.clone()),
    };
    let mut shown = StatusLines::default();
    let show = |shown: &mut StatusLines, message: Option<&str>| {
        if let (Some(sink), Some(view)) = (progress, shown.push(message)) {
            sink(view);
        }
    };
    show(&mut shown, created.task.status_message.as_deref());
    let mut interval = poll_interval(created.task.poll_interval_ms);
    loop {
        tokio::time::sleep(interval).await;
        let got = peer.get_task(GetTaskParams::new(task_id.clone())).await?;
        let task = got.task;
        show(&mut shown, task.task.status_message.as_deref());
        interval = poll_interval(task.task.poll_interval_ms);
        match task.payload {
            TaskPayload::Working => {}
            TaskPayload::InputRequired { input_requests } => {
                let mut responses = InputResponses::new();
                for (key, request) in input_requests {
                    responses.insert(key, super::mrtr::answer(handler, request).await?);
                }
                let update = UpdateTaskParams::new(task_id.clone(), responses);
                peer.update_task(update).await?;
            }
            TaskPayload::Completed { result } => {
                guard.disarm();
                return serde_json::from_value(Value::Object(result)).map_err(|e| {
                    ServiceError::McpError(ErrorData::internal_error(
                        format!("the result of task {task_id} is not a tool result: {e}"),
                        None,
                    ))
                });
            }
            TaskPayload::Failed { error } => {
                guard.disarm();
                return Err(ServiceError::McpError(task_error(&task_id, error)));
            }
            TaskPayload::Cancelled => {
                guard.disarm();
                return Err(ServiceError::McpError(ErrorData::internal_error(
                    format!("the server cancelled task {task_id}"),
                    None,
                )));
            }
            // A status of a later revision: keep polling.
            _ => {}
        }
    }
}

/// The JSON-RPC error a failed task carries, or one naming the task.
fn task_error(task_id: &str, error: serde_json::Map<String, Value>) -> ErrorData {
    serde_json::from_value(Value::Object(error.clone())).unwrap_or_else(|_| {
        ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            format!("task {task_id} failed: {}", Value::Object(error)),
            None,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_lines_skip_repeats_and_keep_the_last_ten() {
        let mut lines = StatusLines::default();
        assert_eq!(lines.push(Some("a")).as_deref(), Some("a"));
        assert_eq!(lines.push(Some("a")), None);
        assert_eq!(lines.push(Some("  ")), None);
        assert_eq!(lines.push(None), None);
        for i in 0..12 {
            lines.push(Some(&format!("step {i}")));
        }
        let view = lines.push(Some("last")).unwrap();
        assert_eq!(view.lines().count(), SHOWN_LINES);
        assert!(view.ends_with("step 11\nlast"), "{view}");
    }

    #[test]
    fn poll_intervals_are_bounded() {
        assert_eq!(poll_interval(None), DEFAULT_POLL);
        assert_eq!(poll_interval(Some(0)), MIN_POLL);
        assert_eq!(poll_interval(Some(60_000)), MAX_POLL);
        assert_eq!(poll_interval(Some(200)), Duration::from_millis(200));
    }

    #[test]
    fn a_failed_task_keeps_its_error() {
        let error = serde_json::json!({"code": -32602, "message": "bad steps"});
        let got = task_error("t1", error.as_object().unwrap().clone());
        assert_eq!(got.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(got.message, "bad steps");
        let odd = serde_json::json!({"why": "no"});
        let got = task_error("t1", odd.as_object().unwrap().clone());
        assert!(got.message.contains("task t1 failed"), "{}", got.message);
    }
}
