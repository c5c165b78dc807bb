//! Where a hook run's span hangs in the session's tree.

use super::Observer;
use crate::telemetry::ids;
use gemini_rs_protocol::events::HookRun;
use opentelemetry::Context;
use opentelemetry::trace::{Span as _, SpanContext, TraceContextExt, TraceFlags, TraceState};

impl Observer {
    /// Where a hook's span hangs: a tool event's under its call, a model
    /// event's under the model call (of the one sub-agent at work while a
    /// call of the turn runs), any other under the turn, else the session.
    pub(super) fn hook_parent(&mut self, run: &HookRun) -> Context {
        if let Some(call_id) = &run.call_id {
            if let Some(call) = self.tools.get(call_id) {
                return call.cx.clone();
            }
            let trace_id = self.session_cx.span().span_context().trace_id();
            let span = SpanContext::new(
                trace_id,
                ids::tool_span_id(trace_id, call_id),
                TraceFlags::SAMPLED,
                false,
                TraceState::default(),
            );
            return self.session_cx.with_remote_span_context(span);
        }
        if matches!(run.event.as_str(), "BeforeModel" | "AfterModel") {
            let delegating = self.turn.as_ref().is_some_and(|t| t.open_tools > 0);
            let agent = match (delegating, self.agents.len()) {
                (true, 1) => self.agents.keys().next().cloned(),
                _ => None,
            };
            if !delegating || agent.is_some() {
                self.ensure_model_call(agent.as_deref());
                let model_call = self
                    .scope_mut(agent.as_deref())
                    .and_then(|s| s.model_call.as_ref())
                    .map(|call| call.span.span_context().clone());
                if let Some(span) = model_call {
                    return self.session_cx.with_remote_span_context(span);
                }
            }
        }
        match &self.turn {
            Some(turn) => turn.cx.clone(),
            None => self.session_cx.clone(),
        }
    }
}
