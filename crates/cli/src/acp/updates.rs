//! Core to ACP, in one place: the session's events, its recorded history
//! and its confirmations as the SDK's typed `session/update` payloads and
//! `session/request_permission` requests. When the core's event types
//! change, this file is the one to adapt.

use super::messages::{Kind, MessageIds, UsageMeter};
use super::nested::{NestedActivity, NestedState};
use agent_client_protocol::v1::schema as acp;
use gemini_rs_core::SessionView;
use gemini_rs_protocol::Content;
use gemini_rs_protocol::events::ApprovalMode;
use gemini_rs_protocol::events::{
    AgentError, AgentEvent, ConfirmationOutcome, Finished, Op, PromptOutcome, ToolCallStatus,
};
use gemini_rs_protocol::events::{
    CommandInfo, ConfirmationDetails, TodoItem, TodoStatus, ToolDisplay, ToolKind,
};
use gemini_rs_protocol::lenient::{from_object, present};
use serde_json::Value;
use std::path::PathBuf;
use std::sync::Arc;

/// What one event of the session asks of the ACP side.
pub enum Action {
    /// Send these updates (none for events a client does not see).
    Show(Vec<acp::SessionUpdate>),
    /// Ask the client whether call `call_id` may run.
    Ask {
        /// The call waiting for the answer.
        call_id: String,
        /// The request to send.
        request: Box<acp::RequestPermissionRequest>,
    },
    /// Answer the session at once (an elicitation: ACP cannot ask).
    Submit(Op),
    /// The running prompt ended: its stop reason, or the error to answer.
    Finished(Result<acp::PromptResponse, String>),
    /// The session ended.
    Ended,
}

/// Turns one session's events into [`Action`]s.
pub struct Translator {
    info: Arc<SessionView>,
    mode: ApprovalMode,
    activity: NestedActivity,
    /// The id of the message being streamed.
    messages: MessageIds,
    /// Tokens in context, for `usage_update`.
    usage: UsageMeter,
    /// The session's last stats (its peak memory and CPU time go in the
    /// prompt's answer).
    stats: Option<Box<gemini_rs_protocol::events::SessionStats>>,
}

impl Translator {
    /// A translator for the session `info` describes.
    pub fn new(info: Arc<SessionView>) -> Self {
        Translator {
            mode: info.approval_mode(),
            usage: UsageMeter::new(info.context_window(&info.summary().model)),
            info,
            activity: NestedActivity::default(),
            messages: MessageIds::default(),
            stats: None,
        }
    }

    /// The `usage_update` after a turn (sent before the prompt's answer).
    pub fn usage_update(&self) -> acp::SessionUpdate {
        self.usage.update()
    }

    /// What `event` means for the client.
    pub fn translate(&mut self, event: AgentEvent) -> Action {
        let update = match event {
            AgentEvent::ElicitationRequested { id, request } => {
                let reply = gemini_rs_core::unattended_reply(&request, self.mode);
                return Action::Submit(Op::AnswerElicitation { id, reply });
            }
            // ACP sessions do not declare ask_user; nobody would answer.
            AgentEvent::QuestionsAsked { id, .. } => {
                let reply = gemini_rs_protocol::events::QuestionsReply::Dismiss;
                return Action::Submit(Op::AnswerQuestions { id, reply });
            }
            AgentEvent::Nested {
                parent_call_id,
                event,
            } => return self.nested(parent_call_id, *event),
            AgentEvent::ToolAwaitingApproval {
                call_id,
                name,
                details,
            } => return self.ask(call_id, &name, &details),
            AgentEvent::ToolFinished(done) => {
                self.activity.forget(&done.call_id);
                let status = match done.status {
                    ToolCallStatus::Success => acp::ToolCallStatus::Completed,
                    ToolCallStatus::Error | ToolCallStatus::Cancelled => {
                        acp::ToolCallStatus::Failed
                    }
                };
                let error = done.error.as_ref().map(|e| e.message.as_str());
                let fields = acp::ToolCallUpdateFields::new()
                    .status(status)
                    .content(result_content(&done.display, error));
                let mut shown = vec![call_update(done.call_id, fields)];
                if let ToolDisplay::Todos(todos) = &done.display {
                    shown.push(plan(todos));
                }
                return Action::Show(shown);
            }
            AgentEvent::Finished {
                finished: Finished::Prompt(result),
                ..
            } => {
                self.messages.end();
                return Action::Finished(stop_reason(result, self.stats.as_deref()));
            }
            AgentEvent::SessionEnded => return Action::Ended,
            AgentEvent::Stats(stats) => {
                self.stats = Some(stats);
                return Action::Show(Vec::new());
            }
            AgentEvent::Content { text: t } => {
                acp::SessionUpdate::AgentMessageChunk(self.messages.chunk(Kind::Agent, t))
            }
            AgentEvent::Thought { text: t } => {
                acp::SessionUpdate::AgentThoughtChunk(self.messages.chunk(Kind::Thought, t))
            }
            AgentEvent::ToolCallRequested {
                call_id,
                name,
                args,
            } => {
                self.messages.end();
                acp::SessionUpdate::ToolCall(tool_call(&self.info, &call_id, &name, &args))
            }
            AgentEvent::Usage { usage, .. } => {
                self.usage.observe(&usage);
                return Action::Show(Vec::new());
            }
            AgentEvent::ModelChanged { context_window, .. } => {
                self.usage.resize(context_window);
                return Action::Show(Vec::new());
            }
            AgentEvent::ModelTurnFinished | AgentEvent::PromptStarted { .. } => {
                self.messages.end();
                return Action::Show(Vec::new());
            }
            AgentEvent::ToolRunning { call_id } => call_update(
                call_id,
                acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::InProgress),
            ),
            AgentEvent::ToolOutput { call_id, chunk } => call_update(
                call_id,
                acp::ToolCallUpdateFields::new().content(vec![text_content(&chunk)]),
            ),
            AgentEvent::ApprovalModeChanged { mode } => {
                self.mode = mode;
                acp::SessionUpdate::CurrentModeUpdate(acp::CurrentModeUpdate::new(mode.as_str()))
            }
            AgentEvent::Warning { message: text } | AgentEvent::Error { message: text, .. } => {
                tracing::warn!(session = %self.info.session_id(), "{text}");
                return Action::Show(Vec::new());
            }
            AgentEvent::Info { .. }
            | AgentEvent::HookMessage { .. }
            | AgentEvent::HookRan(_)
            | AgentEvent::ModelRetry { .. }
            | AgentEvent::SessionStarted { .. }
            | AgentEvent::HistoryReplaced { .. }
            | AgentEvent::McpServersChanged { .. }
            | AgentEvent::Finished { .. }
            | AgentEvent::Acknowledged { .. } => return Action::Show(Vec::new()),
        };
        Action::Show(vec![update])
    }

    /// A sub-agent's event: its tool calls are listed as the content of the
    /// delegating call; its permission requests are asked as any.
    fn nested(&mut self, parent: String, event: AgentEvent) -> Action {
        // Events that trail a delegating call that already ended (it was
        // cancelled) are dropped.
        if self.activity.ended(&parent) {
            return Action::Show(Vec::new());
        }
        match event {
            AgentEvent::ToolCallRequested { call_id, name, .. } => {
                self.activity.started(&parent, call_id, name)
            }
            AgentEvent::ToolRunning { call_id } => {
                self.activity.set(&parent, &call_id, NestedState::Running)
            }
            AgentEvent::ToolFinished(done) => {
                let state = match done.status {
                    ToolCallStatus::Success => NestedState::Done,
                    ToolCallStatus::Error | ToolCallStatus::Cancelled => NestedState::Failed,
                };
                self.activity.set(&parent, &done.call_id, state)
            }
            AgentEvent::ToolAwaitingApproval {
                call_id,
                name,
                details,
            } => return self.ask(call_id, &name, &details),
            AgentEvent::Nested {
                parent_call_id,
                event,
            } => return self.nested(parent_call_id, *event),
            _ => return Action::Show(Vec::new()),
        }
        let text = self.activity.text(&parent);
        let fields = acp::ToolCallUpdateFields::new().content(vec![text_content(&text)]);
        Action::Show(vec![call_update(parent, fields)])
    }

    /// The permission request for a confirmation: the proposal (a diff for
    /// edits) and the answers the terminal offers.
    fn ask(&self, call_id: String, name: &str, details: &ConfirmationDetails) -> Action {
        let kind = self
            .info
            .tool(name)
            .map_or(acp::ToolKind::Other, |t| kind(t.kind));
        let fields = acp::ToolCallUpdateFields::new()
            .title(details.title().to_string())
            .kind(kind)
            .locations(Vec::new())
            .content(confirmation_content(details));
        let request = acp::RequestPermissionRequest::new(
            self.info.session_id().to_string(),
            acp::ToolCallUpdate::new(call_id.clone(), fields),
            options(details),
        );
        Action::Ask {
            call_id,
            request: Box::new(request),
        }
    }
}

/// How a prompt's end is told: a stop reason, or an error message. A
/// resource limit has no stop reason of its own in ACP: it answers
/// `cancelled` with `_meta.stopReason` `resource_limit` and the limit;
/// `_meta.usage` carries the peak memory and CPU time when measured.
fn stop_reason(
    result: Result<PromptOutcome, AgentError>,
    stats: Option<&gemini_rs_protocol::events::SessionStats>,
) -> Result<acp::PromptResponse, String> {
    let mut meta = serde_json::Map::new();
    if let Some(stats) = stats
        && (stats.peak_memory_mb.is_some() || stats.cpu_ms.is_some())
    {
        meta.insert(
            "usage".into(),
            serde_json::json!({"peakMemoryMb": stats.peak_memory_mb, "cpuMs": stats.cpu_ms}),
        );
    }
    let reason = match result {
        Ok(_) => acp::StopReason::EndTurn,
        Err(AgentError::Cancelled) => acp::StopReason::Cancelled,
        Err(AgentError::TurnLimit) => acp::StopReason::MaxTurnRequests,
        Err(AgentError::ResourceLimit { limit, message }) => {
            meta.insert("stopReason".into(), "resource_limit".into());
            meta.insert("limit".into(), limit.into());
            meta.insert("message".into(), message.into());
            acp::StopReason::Cancelled
        }
        Err(e) => return Err(e.to_string()),
    };
    let response = acp::PromptResponse::new(reason);
    Ok(match meta.is_empty() {
        true => response,
        false => response.meta(meta),
    })
}

/// The answers a client can give, as the terminal offers them.
fn options(details: &ConfirmationDetails) -> Vec<acp::PermissionOption> {
    use acp::PermissionOptionKind::{AllowAlways, AllowOnce, RejectOnce};
    let option =
        |id: &str, name: String, kind| acp::PermissionOption::new(id.to_string(), name, kind);
    if let ConfirmationDetails::ExitPlanMode { .. } = details {
        return vec![
            option(
                "proceed_always",
                "Yes, automatically accept edits".into(),
                AllowAlways,
            ),
            option(
                "proceed_once",
                "Yes, manually accept edits".into(),
                AllowOnce,
            ),
            option("cancel", "No, keep planning".into(), RejectOnce),
        ];
    }
    let mut list = vec![option("proceed_once", "Allow once".into(), AllowOnce)];
    match details {
        ConfirmationDetails::Mcp {
            server_name,
            tool_display_name,
            ..
        } => {
            list.push(option(
                "proceed_always_tool",
                format!("Always allow {tool_display_name}"),
                AllowAlways,
            ));
            list.push(option(
                "proceed_always_server",
                format!("Always allow all tools of {server_name}"),
                AllowAlways,
            ));
        }
        ConfirmationDetails::Exec { root_commands, .. } => list.push(option(
            "proceed_always",
            format!("Always allow {}", root_commands.join(", ")),
            AllowAlways,
        )),
        ConfirmationDetails::Edit { .. }
        | ConfirmationDetails::Info { .. }
        | ConfirmationDetails::ExitPlanMode { .. } => {
            list.push(option("proceed_always", "Always allow".into(), AllowAlways));
        }
    }
    list.push(option("cancel", "Reject".into(), RejectOnce));
    list
}

/// The session's outcome for the client's answer to a permission request
/// (`None` when it never answered: the connection closed).
pub fn confirmation(answer: Option<acp::RequestPermissionResponse>) -> ConfirmationOutcome {
    let chosen = match answer.map(|a| a.outcome) {
        Some(acp::RequestPermissionOutcome::Selected(selected)) => Some(selected.option_id),
        _ => None,
    };
    match chosen.as_ref().map(|id| &*id.0) {
        Some("proceed_once") => ConfirmationOutcome::ProceedOnce,
        Some("proceed_always") => ConfirmationOutcome::ProceedAlways,
        Some("proceed_always_server") => ConfirmationOutcome::ProceedAlwaysServer,
        Some("proceed_always_tool") => ConfirmationOutcome::ProceedAlwaysTool,
        _ => ConfirmationOutcome::Cancel,
    }
}

/// ACP's tool kind for one of ours (ACP has no "communicate").
pub fn kind(kind: ToolKind) -> acp::ToolKind {
    match kind {
        ToolKind::Read => acp::ToolKind::Read,
        ToolKind::Edit => acp::ToolKind::Edit,
        ToolKind::Delete => acp::ToolKind::Delete,
        ToolKind::Move => acp::ToolKind::Move,
        ToolKind::Search => acp::ToolKind::Search,
        ToolKind::Execute => acp::ToolKind::Execute,
        ToolKind::Think => acp::ToolKind::Think,
        ToolKind::Fetch => acp::ToolKind::Fetch,
        ToolKind::Communicate | ToolKind::Other => acp::ToolKind::Other,
    }
}

/// The argument that says most about a call, for its title.
const SUBJECT_ARGS: [&str; 9] = [
    "file_path",
    "absolute_path",
    "dir_path",
    "path",
    "command",
    "pattern",
    "url",
    "query",
    "fact",
];

/// A new call with its title, kind and locations (absolute, relative ones
/// taken from `root`).
pub fn tool_call(view: &SessionView, call_id: &str, name: &str, args: &Value) -> acp::ToolCall {
    let root = view.root();
    let tool = view.tool(name);
    let display = tool.as_ref().map_or(name, |t| t.display_name.as_str());
    let subject = SUBJECT_ARGS
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str));
    let title = match subject {
        Some(s) => format!("{display}: {s}"),
        None => display.to_string(),
    };
    let locations = ["file_path", "absolute_path", "dir_path", "path"]
        .iter()
        .filter_map(|k| args.get(*k).and_then(Value::as_str))
        .map(|p| acp::ToolCallLocation::new(root.join(p)))
        .collect();
    acp::ToolCall::new(call_id.to_string(), title)
        .kind(tool.map_or(acp::ToolKind::Other, |t| kind(t.kind)))
        .status(acp::ToolCallStatus::Pending)
        .locations(locations)
        .raw_input(args.clone())
}

fn call_update(call_id: String, fields: acp::ToolCallUpdateFields) -> acp::SessionUpdate {
    acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(call_id, fields))
}

fn text(text: impl Into<String>) -> acp::ContentBlock {
    acp::ContentBlock::Text(acp::TextContent::new(text))
}

/// A text tool-call content item.
pub fn text_content(t: &str) -> acp::ToolCallContent {
    acp::ToolCallContent::Content(acp::Content::new(text(t)))
}

fn diff(path: impl Into<PathBuf>, old: Option<&str>, new: &str) -> acp::ToolCallContent {
    acp::ToolCallContent::Diff(acp::Diff::new(path, new).old_text(old.map(str::to_string)))
}

/// What a confirmation shows as tool-call content (a diff for edits).
fn confirmation_content(details: &ConfirmationDetails) -> Vec<acp::ToolCallContent> {
    match details {
        ConfirmationDetails::Edit {
            file_path,
            original_content,
            new_content,
            ..
        } => vec![diff(
            file_path.clone(),
            original_content.as_deref(),
            new_content,
        )],
        ConfirmationDetails::Exec { command, .. } => vec![text_content(command)],
        ConfirmationDetails::Mcp {
            server_name,
            tool_name,
            ..
        } => vec![text_content(&format!(
            "{tool_name} (MCP server {server_name})"
        ))],
        ConfirmationDetails::Info { prompt, .. } => vec![text_content(prompt)],
        ConfirmationDetails::ExitPlanMode { plan, .. } => vec![text_content(plan)],
    }
}

/// The content of a finished call.
fn result_content(display: &ToolDisplay, error: Option<&str>) -> Vec<acp::ToolCallContent> {
    if let Some(e) = error {
        return vec![text_content(e)];
    }
    match display {
        ToolDisplay::Text(t) if t.is_empty() => Vec::new(),
        ToolDisplay::Text(t) => vec![text_content(t)],
        ToolDisplay::FileDiff(d) => vec![diff(
            &d.file_path,
            d.original_content.as_deref(),
            &d.new_content,
        )],
        ToolDisplay::Todos(todos) => vec![text_content(&format!("{} todo(s)", todos.len()))],
    }
}

/// The todo list as a `plan` update (ACP has no "cancelled": those entries
/// are left out).
pub fn plan(todos: &[TodoItem]) -> acp::SessionUpdate {
    let entries = todos
        .iter()
        .filter_map(|t| {
            let status = match t.status {
                // ACP has no "blocked": such an entry is still to do.
                TodoStatus::Pending | TodoStatus::Blocked => acp::PlanEntryStatus::Pending,
                TodoStatus::InProgress => acp::PlanEntryStatus::InProgress,
                TodoStatus::Completed => acp::PlanEntryStatus::Completed,
                TodoStatus::Cancelled => return None,
            };
            Some(acp::PlanEntry::new(
                t.description.clone(),
                acp::PlanEntryPriority::Medium,
                status,
            ))
        })
        .collect();
    acp::SessionUpdate::Plan(acp::Plan::new(entries))
}

/// The modes a client can pick, and the current one.
pub fn modes(current: ApprovalMode) -> acp::SessionModeState {
    let mode = |id: &str, name: &str, description: &str| {
        acp::SessionMode::new(id.to_string(), name).description(description.to_string())
    };
    acp::SessionModeState::new(
        current.as_str(),
        vec![
            mode("default", "Default", "Ask before edits and commands"),
            mode("auto_edit", "Auto edit", "Edit files without asking"),
            mode("yolo", "YOLO", "Run every tool without asking"),
            mode(
                "plan",
                "Plan",
                "Read-only: research and write a plan to approve",
            ),
        ],
    )
}

/// The slash commands a client can offer: the user's custom commands
/// (sent as prompts, which the session expands).
pub fn available_commands(custom: &[CommandInfo]) -> acp::SessionUpdate {
    let commands = custom
        .iter()
        .map(|c| {
            acp::AvailableCommand::new(c.name.clone(), c.description.clone()).input(
                acp::AvailableCommandInput::Unstructured(acp::UnstructuredCommandInput::new(
                    "arguments",
                )),
            )
        })
        .collect();
    acp::SessionUpdate::AvailableCommandsUpdate(acp::AvailableCommandsUpdate::new(commands))
}

/// A recorded conversation as the updates that show it again
/// (`session/load`): user and agent text, thoughts, and each call with its
/// result.
pub fn history(view: &SessionView, contents: &[Content]) -> Vec<acp::SessionUpdate> {
    let mut out = Vec::new();
    let mut ids = MessageIds::default();
    for content in contents {
        let user = !content.is_model();
        ids.end();
        for part in &content.parts {
            if let Some(t) = part.text.as_deref().filter(|t| !t.is_empty()) {
                out.push(match (user, part.is_thought()) {
                    (true, _) => acp::SessionUpdate::UserMessageChunk(ids.chunk(Kind::User, t)),
                    (false, true) => {
                        acp::SessionUpdate::AgentThoughtChunk(ids.chunk(Kind::Thought, t))
                    }
                    (false, false) => {
                        acp::SessionUpdate::AgentMessageChunk(ids.chunk(Kind::Agent, t))
                    }
                });
            }
            if let Some(call) = &part.function_call {
                ids.end();
                let id = call.id.clone().unwrap_or_else(|| call.name.clone());
                let args = call.args.clone().unwrap_or(Value::Null);
                let shown = tool_call(view, &id, &call.name, &args);
                out.push(acp::SessionUpdate::ToolCall(shown));
            }
            if let Some(fr) = &part.function_response {
                let id = fr.id.clone().unwrap_or_else(|| fr.name.clone());
                let outcome: ToolOutcome = from_object(&fr.response);
                let failed = outcome.error.is_some();
                let shown = outcome
                    .output
                    .or(outcome.error)
                    .as_ref()
                    .and_then(Value::as_str)
                    .map_or_else(|| fr.response.to_string(), str::to_string);
                let status = match failed {
                    true => acp::ToolCallStatus::Failed,
                    false => acp::ToolCallStatus::Completed,
                };
                let fields = acp::ToolCallUpdateFields::new()
                    .status(status)
                    .content(vec![text_content(&shown)]);
                out.push(call_update(id, fields));
            }
        }
    }
    out
}

/// A tool's response as gemini-rs records it: `{"output": ..}` or
/// `{"error": ..}`.
#[derive(Default, serde::Deserialize)]
struct ToolOutcome {
    #[serde(default, deserialize_with = "present")]
    output: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

#[cfg(test)]
mod tests;
