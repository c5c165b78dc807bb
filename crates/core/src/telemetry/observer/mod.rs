//! The session's event stream turned into telemetry: spans (session, its
//! turns, their llm_call and tool_call spans, sub_agent spans under the
//! calls that delegate), log records with Gemini CLI's event names and
//! attributes, and metrics. It taps the stream between the
//! session task and the front end, so nothing in the engine calls it.

mod hook_parent;

use super::metrics::Metrics;
use super::{Exporters, SessionTelemetry, ids, logs};
use crate::events::EventReceiver;
use gemini_rs_protocol::UsageMetadata;
use gemini_rs_protocol::events::{
    AgentError, AgentEvent, Finished, ToolCallFinished, ToolCallStatus,
};
use opentelemetry::trace::{Span as _, SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::trace::Span;
use serde_json::Value;
use std::collections::HashMap;
use std::time::{Instant, SystemTime};

/// Passes `events` on unchanged while recording them; at
/// [`AgentEvent::SessionEnded`] it ends the session span and flushes
/// (at most [`super::FLUSH_BOUND`]) before passing the end on, so the
/// front end exits after the export. Bounded as the session's stream: a
/// slow front end makes it, and so the session, wait; a front end gone
/// ends it, which ends the session.
pub fn observe(telemetry: SessionTelemetry, mut events: EventReceiver) -> EventReceiver {
    let (tx, rx) = crate::events::event_channel();
    tokio::spawn(async move {
        let exporters = telemetry.exporters;
        let mut observer = Observer::new(telemetry);
        while let Some(event) = events.recv().await {
            let last = matches!(event, AgentEvent::SessionEnded);
            observer.event(&event, None);
            if last {
                observer.end_session();
                exporters.flush().await;
            }
            if !tx.emit(event).await && !last {
                // The front end is gone: the session ends; record its end.
                break;
            }
            if last {
                return;
            }
        }
        observer.end_session();
        exporters.flush().await;
    });
    rx
}

/// A model request in flight.
struct ModelCall {
    span: Span,
    started: Instant,
    usage: Option<(String, UsageMetadata)>,
}

/// Where model calls and tool calls hang: the turn, or a sub-agent run.
struct Scope {
    span: Span,
    cx: Context,
    started: Instant,
    model_call: Option<ModelCall>,
    /// When the next model request was sent (the prompt, or the last
    /// tool result of a batch); its span opens at its first event.
    next_call: Option<(SystemTime, Instant)>,
    open_tools: usize,
    /// The sub-agent's name (its call's tool name); `None` for the turn.
    agent: Option<String>,
    turns: u64,
}

/// A tool call in flight.
struct ToolCall {
    span: Span,
    cx: Context,
    name: String,
    awaited: bool,
    parent: Option<String>,
}

pub(super) struct Observer {
    ex: &'static Exporters,
    metrics: Option<Metrics>,
    session: Option<Span>,
    session_cx: Context,
    session_id: String,
    model: String,
    prompts: u64,
    prompt_id: String,
    turn: Option<Scope>,
    agents: HashMap<String, Scope>,
    tools: HashMap<String, ToolCall>,
    cost_usd: Option<f64>,
    /// How the last turn ended (the session span's `outcome`).
    last_outcome: Option<&'static str>,
}

impl Observer {
    fn new(telemetry: SessionTelemetry) -> Observer {
        let metrics = telemetry.exporters.metrics.as_ref().map(Metrics::new);
        Observer {
            ex: telemetry.exporters,
            metrics,
            session: Some(telemetry.session),
            session_cx: telemetry.session_cx,
            session_id: String::new(),
            model: String::new(),
            prompts: 0,
            prompt_id: String::new(),
            turn: None,
            agents: HashMap::new(),
            tools: HashMap::new(),
            cost_usd: None,
            last_outcome: None,
        }
    }

    fn logs(&self) -> logs::Logs<'_> {
        logs::Logs {
            logger: &self.ex.logger,
            session_id: &self.session_id,
            prompt_id: &self.prompt_id,
            log_prompts: self.ex.log_prompts,
        }
    }

    fn start_span(&self, name: &'static str, parent: &Context, attrs: Vec<KeyValue>) -> Span {
        self.start_span_at(name, parent, attrs, SystemTime::now())
    }

    fn start_span_at(
        &self,
        name: &'static str,
        parent: &Context,
        attrs: Vec<KeyValue>,
        at: SystemTime,
    ) -> Span {
        let builder = self
            .ex
            .tracer
            .span_builder(name)
            .with_kind(SpanKind::Internal)
            .with_start_time(at)
            .with_attributes(attrs);
        self.ex.tracer.build_with_context(builder, parent)
    }

    fn scope_mut(&mut self, nested: Option<&str>) -> Option<&mut Scope> {
        match nested {
            Some(parent) => self.agents.get_mut(parent),
            None => self.turn.as_mut(),
        }
    }

    /// Records one event; `nested` is the call that runs the sub-agent
    /// which reported it.
    fn event(&mut self, event: &AgentEvent, nested: Option<&str>) {
        match event {
            AgentEvent::SessionStarted {
                session_id,
                model,
                resumed,
            } => {
                self.session_id.clone_from(session_id);
                self.model.clone_from(model);
                if let Some(span) = &mut self.session {
                    span.set_attributes([
                        KeyValue::new("session.id", session_id.clone()),
                        KeyValue::new("gen_ai.request.model", model.clone()),
                        KeyValue::new("session.resumed", *resumed),
                    ]);
                }
                if let Some(m) = &self.metrics {
                    m.session_count
                        .add(1, &[KeyValue::new("session.id", session_id.clone())]);
                }
            }
            AgentEvent::ModelChanged { model, .. } => self.model.clone_from(model),
            AgentEvent::PromptStarted { text, .. } => self.prompt_started(text),
            AgentEvent::Content { .. } | AgentEvent::Thought { .. } => {
                self.ensure_model_call(nested);
            }
            AgentEvent::Usage { model, usage, .. } => {
                self.ensure_model_call(nested);
                if let Some(call) = self.scope_mut(nested).and_then(|s| s.model_call.as_mut()) {
                    call.usage = Some((model.clone(), usage.clone()));
                }
            }
            AgentEvent::ModelTurnFinished => self.end_model_call(nested, None),
            AgentEvent::ModelRetry {
                attempt, reason, ..
            } => {
                self.ensure_model_call(nested);
                let model = self.model.clone();
                if let Some(mut call) = self.scope_mut(nested).and_then(|s| s.model_call.take()) {
                    call.span.add_event(
                        "retry",
                        vec![
                            KeyValue::new("attempt", i64::from(*attempt)),
                            KeyValue::new("error.message", reason.clone()),
                        ],
                    );
                    let duration = call.started.elapsed().as_millis();
                    self.logs().api_error(&model, reason, duration, &call.span);
                    if let Some(scope) = self.scope_mut(nested) {
                        scope.model_call = Some(call);
                    }
                }
                if let Some(m) = &self.metrics {
                    m.api_error(&model);
                }
            }
            AgentEvent::ToolCallRequested {
                call_id,
                name,
                args,
            } => {
                self.tool_requested(call_id, name, args, nested);
            }
            AgentEvent::ToolAwaitingApproval { call_id, .. } => {
                if let Some(call) = self.tools.get_mut(call_id) {
                    call.awaited = true;
                }
            }
            AgentEvent::ToolFinished(done) => self.tool_finished(done, nested),
            AgentEvent::HookRan(run) => {
                let parent = self.hook_parent(run);
                super::hook_span::record(self.ex, &self.logs(), &parent, run);
            }
            AgentEvent::Stats(stats) => {
                let cost: Option<f64> = stats
                    .models
                    .values()
                    .filter_map(|m| m.cost_usd)
                    .reduce(|a, b| a + b);
                self.cost_usd = cost.or(self.cost_usd);
            }
            AgentEvent::Nested {
                parent_call_id,
                event,
            } => {
                self.ensure_agent(parent_call_id);
                self.event(event, Some(parent_call_id));
            }
            AgentEvent::Finished {
                finished: Finished::Prompt(result),
                ..
            } if nested.is_none() => {
                self.turn_finished(result.as_ref().err(), result.as_ref().ok());
            }
            _ => {}
        }
    }

    fn prompt_started(&mut self, text: &str) {
        self.end_turn("superseded");
        self.prompts += 1;
        self.prompt_id = format!("{}########{}", self.session_id, self.prompts);
        let span = self.start_span(
            "turn",
            &self.session_cx,
            vec![
                KeyValue::new("session.id", self.session_id.clone()),
                KeyValue::new("prompt_id", self.prompt_id.clone()),
                KeyValue::new("gen_ai.request.model", self.model.clone()),
            ],
        );
        let cx = self
            .session_cx
            .with_remote_span_context(span.span_context().clone());
        self.logs().user_prompt(text, &span);
        self.turn = Some(Scope {
            span,
            cx,
            started: Instant::now(),
            model_call: None,
            next_call: Some((SystemTime::now(), Instant::now())),
            open_tools: 0,
            agent: None,
            turns: 0,
        });
    }

    /// Opens the scope's model call at its first event (Content, Thought,
    /// a call, usage, a retry), dated from when it was sent.
    fn ensure_model_call(&mut self, nested: Option<&str>) {
        let model = self.model.clone();
        let Some(scope) = self.scope_mut(nested) else {
            return;
        };
        if scope.model_call.is_some() {
            return;
        }
        scope.turns += 1;
        let cx = scope.cx.clone();
        let (sent, started) = scope
            .next_call
            .take()
            .unwrap_or_else(|| (SystemTime::now(), Instant::now()));
        let role = if nested.is_some() { "subagent" } else { "main" };
        let span = self.start_span_at(
            "llm_call",
            &cx,
            vec![
                KeyValue::new("gen_ai.operation.name", "llm_call"),
                KeyValue::new("gen_ai.request.model", model.clone()),
                KeyValue::new("gen_ai.provider.name", super::provider_of(&model)),
                KeyValue::new("gen_ai.conversation.id", self.session_id.clone()),
                KeyValue::new("role", role),
            ],
            sent,
        );
        self.logs().api_request(&model, role, &span);
        if let Some(scope) = self.scope_mut(nested) {
            scope.model_call = Some(ModelCall {
                span,
                started,
                usage: None,
            });
        }
    }

    fn end_model_call(&mut self, nested: Option<&str>, error: Option<&str>) {
        let fallback = self.model.clone();
        let Some(mut call) = self.scope_mut(nested).and_then(|s| s.model_call.take()) else {
            return;
        };
        let duration = call.started.elapsed();
        let (model, usage) = call
            .usage
            .take()
            .unwrap_or((fallback, UsageMetadata::default()));
        call.span
            .set_attributes(super::usage_attributes(&model, &usage));
        match error {
            Some(message) => {
                call.span.set_status(Status::error(message.to_string()));
                self.logs()
                    .api_error(&model, message, duration.as_millis(), &call.span);
                if let Some(m) = &self.metrics {
                    m.api_error(&model);
                }
            }
            None => {
                call.span.set_status(Status::Ok);
                self.logs()
                    .api_response(&model, &usage, duration.as_millis(), &call.span);
                if let Some(m) = &self.metrics {
                    m.api_response(&model, &usage, duration);
                }
            }
        }
        call.span.end();
    }

    fn ensure_agent(&mut self, parent_call_id: &str) {
        if self.agents.contains_key(parent_call_id) {
            return;
        }
        let Some(call) = self.tools.get(parent_call_id) else {
            return;
        };
        let cx = call.cx.clone();
        let name = call.name.clone();
        let span = self.start_span(
            "sub_agent",
            &cx,
            vec![
                KeyValue::new("gen_ai.operation.name", "invoke_agent"),
                KeyValue::new("gen_ai.agent.name", name.clone()),
                KeyValue::new("agent_id", parent_call_id.to_string()),
            ],
        );
        self.logs().agent_start(&name, parent_call_id, &span);
        let agent_cx = cx.with_remote_span_context(span.span_context().clone());
        self.agents.insert(
            parent_call_id.to_string(),
            Scope {
                span,
                cx: agent_cx,
                started: Instant::now(),
                model_call: None,
                next_call: Some((SystemTime::now(), Instant::now())),
                open_tools: 0,
                agent: Some(name),
                turns: 0,
            },
        );
    }

    fn end_agent(&mut self, parent_call_id: &str, status: ToolCallStatus) {
        let Some(mut scope) = self.agents.remove(parent_call_id) else {
            return;
        };
        if let Some(mut call) = scope.model_call.take() {
            call.span.end();
        }
        // How the delegating call ended (its text says why the agent stopped).
        let reason = match status {
            ToolCallStatus::Success => "success",
            ToolCallStatus::Error => "error",
            ToolCallStatus::Cancelled => "cancelled",
        };
        scope.span.set_attributes([
            KeyValue::new("status", reason),
            KeyValue::new("turn_count", scope.turns as i64),
        ]);
        let name = scope.agent.clone().unwrap_or_default();
        let duration = scope.started.elapsed().as_millis();
        self.logs().agent_finish(
            &name,
            parent_call_id,
            reason,
            duration,
            scope.turns,
            &scope.span,
        );
        scope.span.end();
    }

    fn tool_requested(&mut self, call_id: &str, name: &str, args: &Value, nested: Option<&str>) {
        // Outside a turn (a `!cmd`), the call hangs under the session.
        let cx = match self.scope_mut(nested) {
            Some(scope) => {
                scope.open_tools += 1;
                scope.cx.clone()
            }
            None => self.session_cx.clone(),
        };
        let trace_id = cx.span().span_context().trace_id();
        let mut attrs = vec![
            KeyValue::new("gen_ai.operation.name", "tool_call"),
            KeyValue::new("gen_ai.tool.name", name.to_string()),
            KeyValue::new("gen_ai.tool.call_id", call_id.to_string()),
            KeyValue::new("gen_ai.conversation.id", self.session_id.clone()),
            KeyValue::new("tool_type", super::tool_type(name)),
        ];
        if self.ex.log_prompts {
            attrs.push(KeyValue::new("function_args", args.to_string()));
        }
        let span = ids::with_span_id(ids::tool_span_id(trace_id, call_id), || {
            self.start_span("tool_call", &cx, attrs)
        });
        let call_cx = cx.with_remote_span_context(span.span_context().clone());
        self.tools.insert(
            call_id.to_string(),
            ToolCall {
                span,
                cx: call_cx,
                name: name.to_string(),
                awaited: false,
                parent: nested.map(str::to_string),
            },
        );
    }

    fn tool_finished(&mut self, done: &ToolCallFinished, nested: Option<&str>) {
        self.end_agent(&done.call_id, done.status);
        if !self.tools.contains_key(&done.call_id) {
            // A call the model did not request (`!cmd`): its span starts now.
            self.tool_requested(&done.call_id, &done.name, &done.args, nested);
        }
        let Some(mut call) = self.tools.remove(&done.call_id) else {
            return;
        };
        let decision = match (done.status, call.awaited) {
            (ToolCallStatus::Cancelled, _) => "reject",
            (_, true) => "accept",
            (_, false) => "auto_accept",
        };
        let success = done.status == ToolCallStatus::Success;
        let duration = done.duration;
        call.span.set_attributes([
            KeyValue::new("decision", decision),
            KeyValue::new("success", success),
            KeyValue::new("duration_ms", duration.as_millis() as i64),
        ]);
        let error = done.error.as_ref().map(|e| e.message.clone());
        if let Some(message) = &error {
            call.span.set_status(Status::error(message.clone()));
        } else if success {
            call.span.set_status(Status::Ok);
        }
        self.logs().tool_call(done, decision, &call.span);
        if let Some(m) = &self.metrics {
            m.tool_call(&done.name, success, decision, duration);
        }
        call.span.end();
        let parent = call.parent.clone();
        if let Some(scope) = self.scope_mut(parent.as_deref()) {
            scope.open_tools = scope.open_tools.saturating_sub(1);
            if scope.open_tools == 0 && scope.model_call.is_none() {
                // The results go back to the model at once.
                scope.next_call = Some((SystemTime::now(), Instant::now()));
            }
        }
    }

    fn turn_finished(
        &mut self,
        error: Option<&AgentError>,
        outcome: Option<&gemini_rs_protocol::events::PromptOutcome>,
    ) {
        let message = error.map(ToString::to_string);
        let model_error = match error {
            Some(AgentError::Model { .. }) => message.as_deref(),
            _ => None,
        };
        if model_error.is_some() {
            // A request that failed before its first chunk still gets its span.
            self.ensure_model_call(None);
        }
        self.end_model_call(None, model_error);
        let outcome_name = match (error, outcome) {
            (Some(e), _) => super::error_kind(e),
            (None, Some(o)) if o.loop_detected => "loop_detected",
            (None, Some(o)) if o.stopped.is_some() => "stopped_by_hook",
            (None, Some(o)) if o.declined => "declined",
            _ => "answered",
        };
        if let (Some(message), Some(turn)) = (&message, self.turn.as_mut()) {
            turn.span.set_status(Status::error(message.clone()));
        }
        self.end_turn(outcome_name);
    }

    fn end_turn(&mut self, outcome: &'static str) {
        let Some(mut turn) = self.turn.take() else {
            return;
        };
        if let Some(mut call) = turn.model_call.take() {
            call.span.end();
        }
        turn.span.set_attribute(KeyValue::new("outcome", outcome));
        if outcome != "session_ended" {
            self.last_outcome = Some(outcome);
        }
        turn.span.set_attribute(KeyValue::new(
            "duration_ms",
            turn.started.elapsed().as_millis() as i64,
        ));
        if let Some(cost) = self.cost_usd {
            turn.span.set_attribute(KeyValue::new("cost_usd", cost));
        }
        turn.span.end();
    }

    /// Ends whatever is open and the session span.
    fn end_session(&mut self) {
        let open: Vec<String> = self.agents.keys().cloned().collect();
        for id in open {
            self.end_agent(&id, ToolCallStatus::Cancelled);
        }
        for (_, mut call) in self.tools.drain() {
            call.span
                .set_status(Status::error("the session ended first"));
            call.span.end();
        }
        self.end_turn("session_ended");
        if let Some(mut span) = self.session.take() {
            span.set_attribute(KeyValue::new("prompt_count", self.prompts as i64));
            if let Some(outcome) = self.last_outcome {
                span.set_attribute(KeyValue::new("outcome", outcome));
            }
            if let Some(cost) = self.cost_usd {
                span.set_attribute(KeyValue::new("cost_usd", cost));
            }
            span.end();
        }
    }
}
