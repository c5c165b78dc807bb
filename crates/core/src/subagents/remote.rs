//! Remote agents (`kind: remote`, as Gemini CLI 0.61 declares them): the
//! model calls them with `query`; the call goes to the agent over A2A
//! 1.0's JSON-RPC binding (`SendStreamingMessage` when its card says it
//! streams, else `SendMessage`), and the answer is put together as 0.61's
//! `A2AResultReassembler` does (agent messages, then artifacts). The
//! context and task ids of one agent carry over from call to call, so a
//! conversation goes on; a finished task's id is dropped.

use futures::StreamExt;
use gemini_rs_protocol::a2a::{AgentCard, Artifact, Message, Part, StreamResponse};
use gemini_rs_protocol::jsonrpc::{Envelope, RpcErrorObject};
use gemini_rs_protocol::lenient::{from_object, typed};
use serde_json::{Value, json};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// 0.61's query when the model gives none.
pub const DEFAULT_QUERY: &str = "Get Started!";

/// Where a remote agent's card is.
#[derive(Debug, Clone, PartialEq)]
pub enum CardSource {
    /// Fetched from this URL (`agent_card_url`).
    Url(String),
    /// Given inline (`agent_card_json`).
    Json(String),
}

/// A remote agent's own part of its definition.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteAgent {
    /// Its agent card.
    pub card: CardSource,
}

/// The ids that carry a conversation with one agent from call to call.
#[derive(Debug, Default, Clone)]
pub struct Conversation {
    /// The A2A context.
    pub context_id: Option<String>,
    /// The task still open (not in a final state).
    pub task_id: Option<String>,
}

/// Why a call failed; the text is what the model reads (0.61's).
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    /// The card URL answered 404.
    #[error(
        "Agent card not found (404) at {0}. Verify the agent_card_url in your agent definition."
    )]
    CardNotFound(String),
    /// The card URL refused us.
    #[error(
        "Authentication failed ({0}) at {1}. Check the \"auth\" configuration in your agent definition."
    )]
    CardAuth(String, String),
    /// The agent could not be reached.
    #[error("Connection failed for {0}: {1}")]
    Connection(String, String),
    /// The call was cancelled.
    #[error("Operation aborted")]
    Aborted,
    /// Anything else.
    #[error("Error calling remote agent: {0}")]
    Other(String),
}

/// Puts the answer together from the A2A events (0.61's reassembler).
#[derive(Debug, Default)]
pub struct Reassembler {
    messages: Vec<String>,
    /// Artifacts by id, in order: their name and text chunks.
    artifacts: Vec<(String, Option<String>, Vec<String>)>,
}

/// The text of A2A 1.0 parts (data as JSON, files by name or URL).
fn parts_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| {
            if let Some(t) = &p.text {
                Some(t.clone())
            } else if let Some(d) = &p.data {
                Some(format!("Data: {d}"))
            } else if p.url.is_some() || p.raw.is_some() {
                let name = p.filename.as_deref().or(p.url.as_deref());
                Some(format!("File: {}", name.unwrap_or("[binary/unnamed]")))
            } else {
                None
            }
        })
        .filter(|t| !t.is_empty())
        .collect()
}

impl Reassembler {
    fn push_message(&mut self, message: Option<&Message>) {
        let Some(message) = message.filter(|m| !m.is_user()) else {
            return;
        };
        let text = parts_text(&message.parts);
        if !text.is_empty() && self.messages.last() != Some(&text) {
            self.messages.push(text);
        }
    }

    fn set_artifact(&mut self, artifact: &Artifact, append: bool) {
        let id = artifact.artifact_id.clone();
        let name = artifact.name.clone();
        let text = parts_text(&artifact.parts);
        match self.artifacts.iter_mut().find(|(i, ..)| *i == id) {
            Some((_, _, chunks)) if append => chunks.push(text),
            Some((_, old, chunks)) => {
                *old = name;
                *chunks = vec![text];
            }
            None => self.artifacts.push((id, name, vec![text])),
        }
    }

    /// Takes in one `StreamResponse` (or `SendMessageResponse`).
    pub fn update(&mut self, event: &StreamResponse) {
        if let Some(message) = &event.message {
            self.push_message(Some(message));
        } else if let Some(update) = &event.status_update {
            self.push_message(update.status.message.as_ref());
        } else if let Some(update) = &event.artifact_update {
            self.set_artifact(&update.artifact, update.append);
        } else if let Some(task) = &event.task {
            self.push_message(task.status.message.as_ref());
            for artifact in task.artifacts.iter().flatten() {
                self.set_artifact(artifact, false);
            }
            if task.status.is_final()
                && self.messages.is_empty()
                && self.artifacts.is_empty()
                && let Some(last) = task.history.iter().flatten().rev().find(|m| m.is_agent())
            {
                self.push_message(Some(last));
            }
        }
    }

    /// The answer: the messages, then each artifact under its name.
    pub fn text(&self) -> String {
        let messages = self.messages.concat();
        let artifacts: Vec<String> = self
            .artifacts
            .iter()
            .map(|(_, name, chunks)| match name {
                Some(name) => format!("Artifact ({name}):\n{}", chunks.concat()),
                None => format!("Artifact:\n{}", chunks.concat()),
            })
            .collect();
        let artifacts = artifacts.join("\n\n");
        match (messages.is_empty(), artifacts.is_empty()) {
            (false, false) => format!("{messages}\n\n{artifacts}"),
            (true, _) => artifacts,
            (false, true) => messages,
        }
    }
}

/// Notes the ids an event carries (0.61's `extractIdsFromResponse`).
fn track(conversation: &mut Conversation, event: &StreamResponse) {
    let (context, task, done) = if let Some(t) = &event.task {
        (Some(&*t.context_id), Some(&*t.id), t.status.is_final())
    } else if let Some(u) = &event.status_update {
        (Some(&*u.context_id), Some(&*u.task_id), u.status.is_final())
    } else if let Some(u) = &event.artifact_update {
        (Some(&*u.context_id), Some(&*u.task_id), false)
    } else if let Some(m) = &event.message {
        (m.context_id.as_deref(), m.task_id.as_deref(), false)
    } else {
        return;
    };
    if let Some(c) = context.filter(|c| !c.is_empty()) {
        conversation.context_id = Some(c.to_string());
    }
    if done {
        conversation.task_id = None;
    } else if let Some(t) = task.filter(|t| !t.is_empty()) {
        conversation.task_id = Some(t.to_string());
    }
}

/// A JSON text read as `T`; the error, after `what`, names the field
/// that does not fit.
fn read<T: serde::de::DeserializeOwned>(what: &str, text: &[u8]) -> Result<T, RemoteError> {
    let value: Value = serde_json::from_slice(text)
        .map_err(|e| RemoteError::Other(format!("{what}: not JSON: {e}")))?;
    typed(value).map_err(|e| RemoteError::Other(format!("{what}: {e}")))
}

/// The agent's card.
async fn load_card(http: &reqwest::Client, source: &CardSource) -> Result<AgentCard, RemoteError> {
    let url = match source {
        CardSource::Json(text) => {
            return read("agent_card_json", text.as_bytes());
        }
        CardSource::Url(url) => url,
    };
    let response = http
        .get(url)
        .header("Accept", "application/json")
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .map_err(|e| RemoteError::Connection(url.clone(), e.to_string()))?;
    match response.status().as_u16() {
        404 => return Err(RemoteError::CardNotFound(url.clone())),
        401 => {
            return Err(RemoteError::CardAuth(
                "401 Unauthorized".into(),
                url.clone(),
            ));
        }
        403 => return Err(RemoteError::CardAuth("403 Forbidden".into(), url.clone())),
        s if !(200..300).contains(&s) => {
            return Err(RemoteError::Other(format!(
                "the agent card request returned HTTP {s} for {url}"
            )));
        }
        _ => {}
    }
    let body = response
        .bytes()
        .await
        .map_err(|e| RemoteError::Connection(url.clone(), e.to_string()))?;
    read(&format!("the agent card at {url}"), &body)
}

/// The JSON-RPC endpoint of a card (A2A 1.0's `supportedInterfaces`).
fn endpoint(card: &AgentCard) -> Result<String, RemoteError> {
    card.jsonrpc_url().map(str::to_string).ok_or_else(|| {
        RemoteError::Other(
            "the agent card lists no JSONRPC interface in supportedInterfaces (gemini-rs calls remote agents over A2A 1.0's JSON-RPC binding)".into(),
        )
    })
}

/// The `result` of a JSON-RPC answer, or its error.
fn result(answer: Value) -> Result<StreamResponse, RemoteError> {
    let envelope = Envelope::of(&answer);
    if let Some(error) = envelope.error {
        let error: RpcErrorObject = from_object(&error);
        let message = error.message.as_deref().unwrap_or("unknown error");
        return Err(RemoteError::Other(format!(
            "JSON-RPC Error {}: {message}",
            error.code
        )));
    }
    let result = envelope
        .result
        .ok_or_else(|| RemoteError::Other("the answer has neither result nor error".into()))?;
    typed(result).map_err(|e| RemoteError::Other(format!("the answer's result: {e}")))
}

/// Sends `query` to the agent, feeding `answer` with what comes back and
/// `conversation` with the ids.
pub async fn call(
    http: &reqwest::Client,
    agent: &RemoteAgent,
    query: &str,
    conversation: &mut Conversation,
    answer: &mut Reassembler,
    cancel: &CancellationToken,
) -> Result<(), RemoteError> {
    let card = load_card(http, &agent.card).await?;
    let url = endpoint(&card)?;
    let streaming = card.capabilities.streaming == Some(true);
    let message = Message {
        message_id: Some(uuid::Uuid::new_v4().to_string()),
        role: Some("ROLE_USER".into()),
        parts: vec![Part::text(query)],
        context_id: conversation.context_id.clone(),
        task_id: conversation.task_id.clone(),
        extra: Default::default(),
    };
    let method = match streaming {
        true => "SendStreamingMessage",
        false => "SendMessage",
    };
    let body = json!({"jsonrpc": "2.0", "id": uuid::Uuid::new_v4().to_string(),
        "method": method, "params": {"message": message}});
    let exchange = async {
        let response = http
            .post(&url)
            .header("A2A-Version", "1.0")
            .header(
                "Accept",
                if streaming {
                    "text/event-stream"
                } else {
                    "application/json"
                },
            )
            .json(&body)
            .send()
            .await
            .map_err(|e| RemoteError::Connection(url.clone(), e.to_string()))?;
        let status = response.status();
        if !status.is_success() {
            return Err(RemoteError::Other(format!("HTTP {status} from {url}")));
        }
        if !streaming {
            let answer_json: Value = response
                .json()
                .await
                .map_err(|e| RemoteError::Other(format!("the answer is not JSON: {e}")))?;
            let event = result(answer_json)?;
            track(conversation, &event);
            answer.update(&event);
            return Ok(());
        }
        let mut stream = response.bytes_stream();
        // SSE lines may end in CRLF (sse-starlette's default).
        let mut pending: Vec<u8> = Vec::new();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| RemoteError::Connection(url.clone(), e.to_string()))?;
            pending.extend(chunk.iter().filter(|&&b| b != b'\r'));
            while let Some(end) = pending.windows(2).position(|w| w == b"\n\n") {
                let block: Vec<u8> = pending.drain(..end + 2).collect();
                let block = String::from_utf8_lossy(&block);
                let data: String = block
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect::<Vec<_>>()
                    .join("\n");
                if data.is_empty() {
                    continue;
                }
                let parsed: Value = serde_json::from_str(&data).map_err(|e| {
                    RemoteError::Other(format!("Invalid JSON-RPC response in SSE stream: {e}"))
                })?;
                let event = result(parsed)?;
                track(conversation, &event);
                answer.update(&event);
            }
        }
        Ok(())
    };
    tokio::select! {
        done = exchange => done,
        () = cancel.cancelled() => Err(RemoteError::Aborted),
    }
}

#[cfg(test)]
#[path = "remote_tests.rs"]
mod tests;
