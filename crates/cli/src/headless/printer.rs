//! Writes agent events as they arrive, in the chosen output format.

use crate::args::OutputFormat;
use gemini_rs_core::HeadlessShape;
use gemini_rs_protocol::events::{
    AgentEvent, ErrorEvent, ErrorInfo, HookMessageKind, MessageEvent, MessageRole, ResultEvent,
    Severity, Status, StreamEvent, ToolCallFinished, ToolCallStatus, ToolDisplay, ToolResultEvent,
    ToolUseEvent,
};
use std::io::Write;

/// ISO-8601 UTC with milliseconds, as JavaScript prints dates.
pub fn iso_now() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// Output state of a headless run.
pub struct Printer {
    format: OutputFormat,
    raw: bool,
    at_line_start: bool,
    /// Calls that finished (a sub-agent's events trailing them are dropped).
    finished: std::collections::HashSet<String>,
    /// Text output holds back the model's text (an output schema: the
    /// JSON answer is printed alone at the end).
    quiet_text: bool,
    /// What the dialect's output holds.
    shape: &'static HeadlessShape,
}

impl Printer {
    /// A printer for `format`, in the dialect's `shape`.
    pub fn new(
        format: OutputFormat,
        raw: bool,
        quiet_text: bool,
        shape: &'static HeadlessShape,
    ) -> Self {
        Printer {
            format,
            raw,
            at_line_start: true,
            finished: Default::default(),
            quiet_text,
            shape,
        }
    }

    /// Writes one stream-json line on stdout.
    pub fn json_line(&mut self, event: &StreamEvent) {
        self.write_line(&serde_json::to_string(event).unwrap_or_default());
    }

    /// Writes the `result` line, its stats as the dialect holds them
    /// (0.27.4's had no `models`).
    pub fn result_line(&mut self, event: ResultEvent) {
        let mut value = serde_json::to_value(StreamEvent::Result(event)).unwrap_or_default();
        if !self.shape.stream_models
            && let Some(stats) = value.get_mut("stats").and_then(|s| s.as_object_mut())
        {
            stats.remove("models");
        }
        self.write_line(&value.to_string());
    }

    fn write_line(&mut self, line: &str) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }

    /// Writes `text` and a newline on stdout (the structured answer).
    pub fn print_line(&mut self, text: &str) {
        self.ensure_newline();
        self.text(text);
        self.text("\n");
    }

    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        let clean = if self.raw {
            std::borrow::Cow::Borrowed(text)
        } else {
            strip_ansi(text)
        };
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(clean.as_bytes());
        let _ = out.flush();
        self.at_line_start = clean.ends_with('\n');
    }

    fn ensure_newline(&mut self) {
        if !self.at_line_start {
            self.text("\n");
        }
    }

    /// Ends text output with a newline if it lacks one.
    pub fn finish_text(mut self) {
        if self.format == OutputFormat::Text {
            self.ensure_newline();
        }
    }

    /// Writes one event as the format shows it.
    pub fn handle(&mut self, event: AgentEvent) {
        let stream = self.format == OutputFormat::StreamJson;
        match event {
            AgentEvent::Content { text: t } => match self.format {
                OutputFormat::Text if !self.quiet_text => self.text(&t),
                OutputFormat::StreamJson => {
                    self.json_line(&StreamEvent::Message(assistant_chunk(t, None)))
                }
                OutputFormat::Text | OutputFormat::Json => {}
            },
            AgentEvent::ToolCallRequested {
                call_id,
                name,
                args,
            } => match self.format {
                OutputFormat::Text => self.ensure_newline(),
                OutputFormat::StreamJson => self.json_line(&StreamEvent::ToolUse(ToolUseEvent {
                    timestamp: iso_now(),
                    tool_name: name,
                    tool_id: call_id,
                    parameters: args,
                    parent_tool_id: None,
                })),
                OutputFormat::Json => {}
            },
            AgentEvent::ToolFinished(done) => {
                self.finished.insert(done.call_id.clone());
                if let Some(event) = self.tool_finished(&done, true) {
                    self.json_line(&StreamEvent::ToolResult(event));
                }
            }
            AgentEvent::Nested {
                parent_call_id,
                event,
            } => self.nested(&parent_call_id, *event),
            AgentEvent::Warning { message: w } => {
                eprintln!("[WARNING] {w}");
                if stream {
                    self.json_line(&StreamEvent::Error(ErrorEvent {
                        timestamp: iso_now(),
                        severity: Severity::Warning,
                        message: w,
                    }));
                }
            }
            AgentEvent::Info { message: note } => tracing::info!("{note}"),
            AgentEvent::ModelRetry {
                attempt,
                max_attempts,
                delay_ms,
                reason,
            } => eprintln!("{}", retry_notice(attempt, max_attempts, delay_ms, &reason)),
            AgentEvent::Error { message: e, .. } => eprintln!("{e}"),
            AgentEvent::HookMessage { kind, text } => match kind {
                HookMessageKind::Warning => eprintln!("[WARNING] {text}"),
                HookMessageKind::SystemMessage | HookMessageKind::Info => eprintln!("{text}"),
            },
            // Shown by the caller (init, the user message, the result), or
            // not part of headless output.
            AgentEvent::Thought { .. }
            | AgentEvent::ToolAwaitingApproval { .. }
            | AgentEvent::ElicitationRequested { .. }
            | AgentEvent::QuestionsAsked { .. }
            | AgentEvent::ToolRunning { .. }
            | AgentEvent::ToolOutput { .. }
            | AgentEvent::Usage { .. }
            | AgentEvent::ModelTurnFinished
            | AgentEvent::Stats(_)
            | AgentEvent::HookRan(_)
            | AgentEvent::SessionStarted { .. }
            | AgentEvent::PromptStarted { .. }
            | AgentEvent::ApprovalModeChanged { .. }
            | AgentEvent::ModelChanged { .. }
            | AgentEvent::HistoryReplaced { .. }
            | AgentEvent::McpServersChanged { .. }
            | AgentEvent::Finished { .. }
            | AgentEvent::Acknowledged { .. }
            | AgentEvent::SessionEnded => {}
        }
    }

    /// A sub-agent's event: stream-json shows its messages and tool calls
    /// marked with `parent_tool_id`; the other formats only its warnings.
    fn nested(&mut self, parent: &str, event: AgentEvent) {
        if self.finished.contains(parent) {
            return;
        }
        let stream = self.format == OutputFormat::StreamJson;
        let parent = Some(parent.to_string());
        let line = match event {
            AgentEvent::Content { text: t } if stream => {
                StreamEvent::Message(assistant_chunk(t, parent))
            }
            AgentEvent::ToolCallRequested {
                call_id,
                name,
                args,
            } if stream => StreamEvent::ToolUse(ToolUseEvent {
                timestamp: iso_now(),
                tool_name: name,
                tool_id: call_id,
                parameters: args,
                parent_tool_id: parent,
            }),
            AgentEvent::ToolFinished(done) if stream => match self.tool_finished(&done, false) {
                Some(line) => StreamEvent::ToolResult(ToolResultEvent {
                    parent_tool_id: parent,
                    ..line
                }),
                None => return,
            },
            AgentEvent::Warning { message: w } => {
                eprintln!("[WARNING] {w}");
                return;
            }
            AgentEvent::Nested {
                parent_call_id,
                event,
            } => return self.nested(&parent_call_id, *event),
            _ => return,
        };
        self.json_line(&line);
    }

    /// Reports a finished call (`top`: one of the main agent's): its error
    /// on stderr, and the stream-json event to print.
    fn tool_finished(&mut self, done: &ToolCallFinished, top: bool) -> Option<ToolResultEvent> {
        let display = match &done.display {
            ToolDisplay::Text(t) => Some(t.clone()),
            ToolDisplay::FileDiff(_) | ToolDisplay::Todos(_) => None,
        };
        if let Some(err) = done.error.as_ref().filter(|_| top) {
            let shown = display
                .clone()
                .filter(|d| !d.is_empty())
                .unwrap_or_else(|| err.message.clone());
            eprintln!("Error executing tool {}: {shown}", done.name);
        }
        if self.format != OutputFormat::StreamJson {
            return None;
        }
        let status = match done.status {
            ToolCallStatus::Success => Status::Success,
            ToolCallStatus::Error | ToolCallStatus::Cancelled => Status::Error,
        };
        let output = match &done.error {
            Some(err) => Some(
                display
                    .filter(|d| !d.is_empty())
                    .unwrap_or_else(|| err.message.clone()),
            ),
            None => display.filter(|_| self.shape.shows_output(&done.name)),
        };
        Some(ToolResultEvent {
            timestamp: iso_now(),
            tool_id: done.call_id.clone(),
            status,
            output,
            error: done.error.as_ref().map(|err| ErrorInfo {
                stop_reason: None,
                limit: None,
                kind: err.kind.as_str().to_string(),
                message: err.message.clone(),
            }),
            parent_tool_id: None,
        })
    }
}

/// A chunk of the model's answer.
fn assistant_chunk(content: String, parent_tool_id: Option<String>) -> MessageEvent {
    MessageEvent {
        timestamp: iso_now(),
        role: MessageRole::Assistant,
        content,
        delta: Some(true),
        parent_tool_id,
    }
}

/// Removes ANSI escape sequences (CSI and OSC) from model text.
fn strip_ansi(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' || (c == '\u{1b}' && chars.peek() == Some(&'\\')) {
                        if c == '\u{1b}' {
                            chars.next();
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The stderr line of a retry wait: `Attempt 1 of 5 failed: <why>.
/// Retrying in 1.0 s.`
fn retry_notice(attempt: u32, max_attempts: u32, delay_ms: u64, reason: &str) -> String {
    format!(
        "Attempt {attempt} of {max_attempts} failed: {reason} Retrying in {:.1} s.",
        delay_ms as f64 / 1000.0
    )
}

#[cfg(test)]
mod tests {
    use super::strip_ansi;

    #[test]
    fn strips_color_and_osc() {
        assert_eq!(strip_ansi("\u{1b}[31mred\u{1b}[0m ok"), "red ok");
        assert_eq!(strip_ansi("a\u{1b}]0;title\u{7}b"), "ab");
        assert_eq!(strip_ansi("plain"), "plain");
    }
}
