//! The replay of a `.responses` file: each model request takes the first
//! unused line recorded for its wire and RPC, unless a [`Fault`] comes first.

use crate::reply::Reply;
use crate::request::Request;
use serde_json::{Value, json};
use std::collections::VecDeque;

/// What to do with the next model request instead of (or before) replaying.
/// Faults apply in the order pushed, one per model request; requests served
/// by a route or the reply queue do not consume them.
#[derive(Debug, Clone, PartialEq)]
pub enum Fault {
    /// Answer with this HTTP status and JSON error body.
    Status(u16, Value),
    /// Send the stream's head and close before any chunk.
    CutBeforeFirstChunk,
    /// Take the next recorded line, send its first chunk, then close.
    CutAfterFirstChunk,
    /// Serve `after` requests normally, then hold the next one open without
    /// answering (a process can be killed mid-request).
    Hang {
        /// How many requests are served before the hang.
        after: usize,
    },
    /// Serve this request normally (to fail later ones).
    Pass,
}

/// The recorded lines and the pending faults.
#[derive(Debug, Default)]
pub(crate) struct Replay {
    /// `(method, response)` of each line, e.g. `("generateContentStream", [...])`.
    lines: Vec<(String, Value)>,
    used: Vec<bool>,
    faults: VecDeque<Fault>,
    /// Streams each recorded chunk as it is, not split
    /// ([`Replay::streamed_as_recorded`]).
    whole: bool,
}

/// The wire a model request arrived on.
enum Wire {
    /// Gemini, with its RPC (`streamGenerateContent`, `generateContent`, ...).
    Gemini(String),
    OpenAi,
    Anthropic,
}

impl Replay {
    /// Parses JSONL `{"method": ..., "response": ...}` lines (blank lines
    /// are skipped).
    ///
    /// # Panics
    /// On a line that is not such an object: the test's data is wrong.
    pub(crate) fn parse(text: &str) -> Replay {
        let lines: Vec<(String, Value)> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let v: Value = serde_json::from_str(l)
                    .unwrap_or_else(|e| panic!("a .responses line is not JSON ({e}): {l}"));
                let Some(method) = v["method"].as_str() else {
                    panic!("a .responses line has no \"method\": {l}")
                };
                (method.to_string(), v["response"].clone())
            })
            .collect();
        Replay {
            used: vec![false; lines.len()],
            lines,
            faults: VecDeque::new(),
            whole: false,
        }
    }

    /// Streams each recorded chunk as it is: no text split over two
    /// chunks, no metadata-only chunk added (what a recorder of a
    /// reference program played it).
    pub(crate) fn streamed_as_recorded(mut self) -> Replay {
        self.whole = true;
        self
    }

    /// Queues a fault for a later model request.
    pub(crate) fn push_fault(&mut self, fault: Fault) {
        self.faults.push_back(fault);
    }

    /// The answer to `request`, or `None` when it is not a model request.
    pub(crate) fn answer(&mut self, request: &Request) -> Option<Reply> {
        let wire = wire(request)?;
        let fault = match self.faults.front_mut() {
            Some(Fault::Hang { after }) if *after > 0 => {
                *after -= 1;
                None
            }
            _ => self.faults.pop_front().filter(|f| *f != Fault::Pass),
        };
        let reply = match fault {
            Some(Fault::Status(status, body)) => Reply::json(status, body),
            Some(Fault::Hang { .. }) => Reply::hang(),
            Some(Fault::CutBeforeFirstChunk) => stream(&wire, Value::Null, false).cut_after(0),
            Some(Fault::CutAfterFirstChunk) => match self.take(&wire) {
                Some(response) => stream(&wire, response, self.whole).cut_after(1),
                None => exhausted(&wire),
            },
            Some(Fault::Pass) | None => match self.take(&wire) {
                Some(response) => match &wire {
                    Wire::Gemini(rpc) if rpc != "streamGenerateContent" => {
                        Reply::json(200, response)
                    }
                    Wire::Gemini(_) | Wire::OpenAi | Wire::Anthropic => {
                        stream(&wire, response, self.whole)
                    }
                },
                None => exhausted(&wire),
            },
        };
        Some(reply)
    }

    /// Marks and returns the first unused line recorded for `wire`.
    fn take(&mut self, wire: &Wire) -> Option<Value> {
        let wanted = recorded_method(wire);
        let i = (0..self.lines.len()).find(|&i| !self.used[i] && self.lines[i].0 == wanted)?;
        self.used[i] = true;
        Some(self.lines[i].1.clone())
    }
}

fn wire(request: &Request) -> Option<Wire> {
    let path = request.path_only();
    if !request.rpc().is_empty() {
        Some(Wire::Gemini(request.rpc().to_string()))
    } else if path.ends_with("/chat/completions") {
        Some(Wire::OpenAi)
    } else if path.ends_with("/messages") {
        Some(Wire::Anthropic)
    } else {
        None
    }
}

/// The `method` of the lines that answer `wire`.
fn recorded_method(wire: &Wire) -> &str {
    match wire {
        Wire::Gemini(rpc) if rpc == "streamGenerateContent" => "generateContentStream",
        Wire::Gemini(rpc) => rpc,
        Wire::OpenAi => "openai.chat.completions.stream",
        Wire::Anthropic => "anthropic.messages.stream",
    }
}

/// The event stream of one recorded streamed `response` on `wire`
/// (`whole`: Gemini's chunks as recorded, else split).
fn stream(wire: &Wire, response: Value, whole: bool) -> Reply {
    let items = match response {
        Value::Array(items) => items,
        _ => Vec::new(),
    };
    match wire {
        Wire::Gemini(_) if whole => Reply::gemini_stream(items),
        Wire::Gemini(_) => Reply::gemini_stream(split_chunks(items)),
        Wire::OpenAi => Reply::openai_stream(items),
        Wire::Anthropic => Reply::anthropic_stream(items),
    }
}

/// The answer once no recorded line is left.
fn exhausted(wire: &Wire) -> Reply {
    let name = match wire {
        Wire::Gemini(rpc) => rpc.as_str(),
        Wire::OpenAi | Wire::Anthropic => recorded_method(wire),
    };
    Reply::json(
        400,
        json!({"error": {"code": 400, "status": "FAILED_PRECONDITION",
            "message": format!("No more mock responses for {name}")}}),
    )
}

/// Splits every long text part into two chunks and adds a metadata-only
/// chunk at the end, as the real API sometimes streams.
fn split_chunks(chunks: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::new();
    for chunk in chunks {
        let parts = chunk["candidates"][0]["content"]["parts"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let text = match parts.as_slice() {
            [part] if part.get("thoughtSignature").is_none() => part["text"].as_str(),
            _ => None,
        };
        let Some(text) = text.filter(|t| t.chars().count() > 3) else {
            out.push(chunk);
            continue;
        };
        let mid = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map(|(i, _)| i)
            .unwrap_or(0);
        let mut first = chunk.clone();
        first["candidates"][0]["content"]["parts"][0]["text"] = json!(&text[..mid]);
        if let Some(obj) = first["candidates"][0].as_object_mut() {
            obj.remove("finishReason");
        }
        if let Some(obj) = first.as_object_mut() {
            obj.remove("usageMetadata");
        }
        let mut second = chunk.clone();
        second["candidates"][0]["content"]["parts"][0]["text"] = json!(&text[mid..]);
        out.push(first);
        out.push(second);
    }
    out.push(json!({"candidates": [{"content": {"role": "model", "parts": []}, "index": 0}]}));
    out
}

/// The `functionResponse` parts of the last content of each streamed
/// Gemini request: what the tools answered the model.
pub(crate) fn function_responses(requests: &[Request]) -> Vec<Value> {
    let mut out = Vec::new();
    for r in requests
        .iter()
        .filter(|r| r.rpc() == "streamGenerateContent")
    {
        let last = r.body["contents"].as_array().and_then(|c| c.last());
        let parts = last.and_then(|c| c["parts"].as_array());
        for part in parts.into_iter().flatten() {
            if part.get("functionResponse").is_some() {
                out.push(part.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_split_and_a_metadata_chunk_ends_the_stream() {
        let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "hello"}]},
            "finishReason": "STOP"}], "usageMetadata": {"totalTokenCount": 3}});
        let out = split_chunks(vec![chunk]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0]["candidates"][0]["content"]["parts"][0]["text"], "he");
        assert!(out[0]["candidates"][0].get("finishReason").is_none());
        assert_eq!(
            out[1]["candidates"][0]["content"]["parts"][0]["text"],
            "llo"
        );
        assert_eq!(out[1]["usageMetadata"]["totalTokenCount"], 3);
        assert_eq!(out[2]["candidates"][0]["content"]["parts"], json!([]));
    }
}
