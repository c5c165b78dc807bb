//! The agent loop: send the conversation to the model, stream its answer,
//! run the tools it asks for, send their results back, until it stops
//! asking. Front ends watch it through [`events::AgentEvent`].

mod context;
pub mod events;
pub mod stats;

pub use context::{environment_context, system_prompt};

use crate::model::{ContentGenerator, ModelError};
use crate::scheduler::{Scheduler, ToolCallRequest};
use crate::tools::ToolErrorKind;
use events::{AgentEvent, EventSender};
use futures::StreamExt;
use gemini_rs_protocol::{
    Content, FunctionCall, GenerateContentRequest, GenerationConfig, Part, Role, Tool,
    UsageMetadata,
};
use stats::SessionStats;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// Why a prompt could not complete.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// `model.maxSessionTurns` was reached.
    #[error(
        "Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json."
    )]
    TurnLimit,
    /// The model call failed.
    #[error("{0}")]
    Model(#[from] ModelError),
    /// The user cancelled.
    #[error("Operation cancelled.")]
    Cancelled,
    /// A tool failed in a way that ends the session (disk full).
    #[error("{0}")]
    FatalTool(String),
}

impl AgentError {
    /// Gemini CLI's exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            AgentError::TurnLimit => 53,
            AgentError::Model(_) => 1,
            AgentError::Cancelled => 130,
            AgentError::FatalTool(_) => 54,
        }
    }
}

/// How a prompt ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptOutcome {
    /// The text of the last model turn.
    pub last_turn_text: String,
    /// Set when a hook stopped the agent: the reason.
    pub stopped: Option<String>,
}

/// Static settings of an agent.
pub struct AgentConfig {
    /// Model id.
    pub model: String,
    /// The system instruction.
    pub system_instruction: String,
    /// Sampling settings.
    pub generation_config: GenerationConfig,
    /// `model.maxSessionTurns` (negative = unlimited).
    pub max_session_turns: i64,
}

/// One conversation with the model.
pub struct Agent {
    generator: Arc<dyn ContentGenerator>,
    scheduler: Scheduler,
    config: AgentConfig,
    history: Vec<Content>,
    turns: i64,
    events: EventSender,
    stats: Arc<Mutex<SessionStats>>,
}

impl Agent {
    /// A new agent whose history starts with `initial_history` (normally the
    /// environment-context turn).
    pub fn new(
        generator: Arc<dyn ContentGenerator>,
        scheduler: Scheduler,
        config: AgentConfig,
        initial_history: Vec<Content>,
        events: EventSender,
        stats: Arc<Mutex<SessionStats>>,
    ) -> Self {
        Agent {
            generator,
            scheduler,
            config,
            history: initial_history,
            turns: 0,
            events,
            stats,
        }
    }

    /// The conversation so far.
    pub fn history(&self) -> &[Content] {
        &self.history
    }

    fn emit(&self, event: AgentEvent) {
        let _ = self.events.send(event);
    }

    fn build_request(&self) -> GenerateContentRequest {
        let declarations = self.scheduler.registry().declarations();
        GenerateContentRequest {
            contents: self.history.clone(),
            system_instruction: Some(Content {
                role: Some("user".to_string()),
                parts: vec![Part::text(self.config.system_instruction.clone())],
                ..Content::default()
            }),
            tools: (!declarations.is_empty()).then(|| {
                vec![Tool {
                    function_declarations: Some(declarations),
                    ..Tool::default()
                }]
            }),
            generation_config: Some(self.config.generation_config.clone()),
            ..GenerateContentRequest::default()
        }
    }

    /// Runs one user prompt to completion.
    pub async fn run_prompt(
        &mut self,
        user_parts: Vec<Part>,
        cancel: &CancellationToken,
    ) -> Result<PromptOutcome, AgentError> {
        let mut next = Content::new(Role::User, user_parts);
        loop {
            if self.config.max_session_turns >= 0 && self.turns >= self.config.max_session_turns {
                return Err(AgentError::TurnLimit);
            }
            self.turns += 1;
            self.history.push(next);
            let (parts, calls, text) = self.stream_turn(cancel).await?;
            if !parts.is_empty() {
                self.history.push(Content::new(Role::Model, parts));
            }
            if calls.is_empty() {
                return Ok(PromptOutcome {
                    last_turn_text: text,
                    stopped: None,
                });
            }
            let requests = calls.into_iter().map(call_request).collect();
            let completed = self.scheduler.run_batch(requests, cancel).await;
            if cancel.is_cancelled() {
                return Err(AgentError::Cancelled);
            }
            if let Some(fatal) = completed
                .iter()
                .filter_map(|c| c.result.error.as_ref())
                .find(|e| e.kind == ToolErrorKind::NoSpaceLeft)
            {
                return Err(AgentError::FatalTool(fatal.message.clone()));
            }
            if let Some(reason) = completed.iter().find_map(|c| c.stop_reason()) {
                return Ok(PromptOutcome {
                    last_turn_text: text,
                    stopped: Some(reason.to_string()),
                });
            }
            next = Content::new(
                Role::User,
                completed.into_iter().flat_map(|c| c.parts).collect(),
            );
        }
    }

    /// One model request: streams it, emitting events, and returns the
    /// model's parts, its function calls and its text.
    async fn stream_turn(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<(Vec<Part>, Vec<FunctionCall>, String), AgentError> {
        let request = self.build_request();
        let model = self.config.model.clone();
        let started = Instant::now();
        let mut usage: Option<UsageMetadata> = None;
        let result = async {
            let mut stream = tokio::select! {
                s = self.generator.generate_stream(&model, &request, cancel.clone()) => s?,
                _ = cancel.cancelled() => return Err(AgentError::Cancelled),
            };
            let mut parts: Vec<Part> = Vec::new();
            let mut calls = Vec::new();
            let mut text = String::new();
            loop {
                let chunk = tokio::select! {
                    c = stream.next() => c,
                    _ = cancel.cancelled() => return Err(AgentError::Cancelled),
                };
                let Some(chunk) = chunk else { break };
                let chunk = chunk?;
                if chunk.usage_metadata.is_some() {
                    usage = chunk.usage_metadata.clone();
                }
                let Some(content) = chunk.first_candidate().and_then(|c| c.content.clone()) else {
                    continue;
                };
                for part in content.parts {
                    match (&part.text, part.is_thought()) {
                        (Some(t), true) => self.emit(AgentEvent::Thought(t.clone())),
                        (Some(t), false) if !t.is_empty() => {
                            text.push_str(t);
                            self.emit(AgentEvent::Content(t.clone()));
                        }
                        _ => {}
                    }
                    if let Some(call) = &part.function_call {
                        calls.push(call.clone());
                    }
                    push_consolidated(&mut parts, part);
                }
            }
            Ok((parts, calls, text))
        }
        .await;
        let failed = matches!(result, Err(AgentError::Model(_)));
        if let Ok(mut stats) = self.stats.lock() {
            stats.record_request(&model, started.elapsed(), usage.as_ref(), failed);
        }
        if let Some(u) = usage {
            self.emit(AgentEvent::Usage { model: model.clone(), usage: u });
        }
        self.emit(AgentEvent::ModelTurnFinished);
        let (mut parts, calls, text) = result?;
        if model.starts_with("gemini-3")
            && let Some(first) = parts.iter_mut().find(|p| p.function_call.is_some())
            && first.thought_signature.is_none()
        {
            first.thought_signature = Some("skip_thought_signature_validator".to_string());
        }
        Ok((parts, calls, text))
    }
}

/// Merges a text part into the previous one when both are plain text of
/// the same kind (thought or not) and carry no signature.
fn push_consolidated(parts: &mut Vec<Part>, part: Part) {
    let plain = |p: &Part| {
        p.text.is_some()
            && p.thought_signature.is_none()
            && p.function_call.is_none()
            && p.inline_data.is_none()
            && p.extra.is_empty()
    };
    if plain(&part)
        && let Some(last) = parts.last_mut()
        && plain(last)
        && last.is_thought() == part.is_thought()
        && let (Some(a), Some(b)) = (last.text.as_mut(), part.text.as_ref())
    {
        a.push_str(b);
        return;
    }
    parts.push(part);
}

/// The model's id, or `<name>-<ms>-<13 hex>` as Gemini CLI generates.
fn call_request(call: FunctionCall) -> ToolCallRequest {
    let call_id = call.id.clone().filter(|id| !id.is_empty()).unwrap_or_else(|| {
        let ms = chrono::Utc::now().timestamp_millis();
        let hex = uuid::Uuid::new_v4().simple().to_string();
        format!("{}-{ms}-{}", call.name, &hex[..13])
    });
    ToolCallRequest {
        call_id,
        name: call.name,
        args: call.args.unwrap_or(serde_json::Value::Object(Default::default())),
    }
}
