//! Span and trace ids. Random by default; a tool call's span id is derived
//! from the trace id and the call id, so the process the call starts can
//! carry its `TRACEPARENT` before the observer has opened the span.

use opentelemetry::trace::{SpanId, TraceId};
use opentelemetry_sdk::trace::IdGenerator;
use sha2::{Digest, Sha256};
use std::cell::Cell;

thread_local! {
    /// The id the next span built on this thread takes (set just before
    /// building it, taken by the SDK while it builds).
    static NEXT_SPAN: Cell<Option<SpanId>> = const { Cell::new(None) };
}

/// The SDK's id generator: random ids, or the one [`with_span_id`] chose.
#[derive(Debug)]
pub(super) struct Ids;

impl IdGenerator for Ids {
    fn new_trace_id(&self) -> TraceId {
        TraceId::from_bytes(*uuid::Uuid::new_v4().as_bytes())
    }

    fn new_span_id(&self) -> SpanId {
        NEXT_SPAN.with(Cell::take).unwrap_or_else(random_span_id)
    }
}

/// A random, valid span id.
pub(super) fn random_span_id() -> SpanId {
    let bytes = *uuid::Uuid::new_v4().as_bytes();
    let mut id = [0u8; 8];
    id.copy_from_slice(&bytes[..8]);
    id[7] |= 1; // never the invalid all-zero id
    SpanId::from_bytes(id)
}

/// Runs `build` (which builds one span) so that the span takes `id`.
pub(super) fn with_span_id<T>(id: SpanId, build: impl FnOnce() -> T) -> T {
    NEXT_SPAN.with(|next| next.set(Some(id)));
    let built = build();
    NEXT_SPAN.with(|next| next.set(None));
    built
}

/// The span id of call `call_id` in trace `trace_id`.
pub(super) fn tool_span_id(trace_id: TraceId, call_id: &str) -> SpanId {
    let mut hash = Sha256::new();
    hash.update(trace_id.to_bytes());
    hash.update(b"tool_call\0");
    hash.update(call_id.as_bytes());
    let digest = hash.finalize();
    let mut id = [0u8; 8];
    id.copy_from_slice(&digest[..8]);
    id[7] |= 1;
    SpanId::from_bytes(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_are_stable_and_chosen_ids_are_taken_once() {
        let trace = TraceId::from_bytes([7; 16]);
        assert_eq!(tool_span_id(trace, "a"), tool_span_id(trace, "a"));
        assert_ne!(tool_span_id(trace, "a"), tool_span_id(trace, "b"));
        let chosen = tool_span_id(trace, "c");
        let got = with_span_id(chosen, || Ids.new_span_id());
        assert_eq!(got, chosen);
        assert_ne!(Ids.new_span_id(), chosen);
        assert_ne!(Ids.new_span_id(), SpanId::INVALID);
    }
}
