//! The agent loop: send the conversation to the model, stream its answer,
//! run the tools it asks for, send their results back, until it stops
//! asking. Front ends watch it through [`crate::events::AgentEvent`].

mod at_path;
mod compacting;
pub mod compress;
mod context;
mod control;
pub mod edits;

mod loop_guard;
pub mod memory;
pub mod routing;
mod schema_bound;
mod stop;
mod structured;
mod subagent;

mod turn;

pub use at_path::{ReadResource, expand_with as expand_at_paths_with, references as at_references};
pub use context::{PromptFeatures, TREE_LIMIT, environment_context, system_prompt};
pub use loop_guard::{LoopGuard, LoopKind};
pub use stop::MAX_STOP_CONTINUATIONS;
pub use structured::{OutputSchema, OutputSchemaError};
pub use subagent::complete_task_declaration;

pub use crate::events::{AgentError, PromptOutcome};

use crate::events::stats::SessionStats;
use crate::events::{AgentEvent, EventSender, ToolCallStatus};
use crate::hooks::{AgentHookOutcome, Hooks};
use crate::model::{ContentGenerator, ModelError};
use crate::recording::{FinishedCall, Recording};
use crate::scheduler::{CompletedCall, Scheduler, ToolCallRequest};
use gemini_rs_protocol::{
    Content, FunctionCall, FunctionDeclaration, GenerationConfig, Part, Role,
};
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

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
    /// Loop detection on (`model.disableLoopDetection` off).
    pub loop_detection: bool,
    /// `model.compressionThreshold` (share of the context window).
    pub compression_threshold: f64,
    /// The context window of each model (the model can change).
    pub context_windows: crate::model::provider::ContextWindows,
    /// Whether `auto` may make classifier calls (not when replaying).
    pub auto_classify: bool,
    /// Declarations sent besides the registry's (a sub-agent's
    /// `complete_task`).
    pub extra_declarations: Vec<gemini_rs_protocol::FunctionDeclaration>,
    /// `--output-schema` / `--json-schema`: the final answer's schema.
    pub output_schema: Option<OutputSchema>,
    /// `--max-budget-usd`: no model request is sent once the session cost
    /// more.
    pub max_budget_usd: Option<f64>,
    /// Whether background commands that finished are reported to this
    /// agent's model (`tools.shell.backgroundCompletionBehavior`): the
    /// session's own agent, not sub-agents.
    pub background_completions: bool,
    /// `model.logprobs`: ask the model for each answer token's logprob and
    /// id (recorded in the session file and the trajectory).
    pub logprobs: bool,
}

/// The optional parts of an agent: hooks and chat recording.
#[derive(Default)]
pub struct AgentExtras {
    /// Hooks around the agent and model events.
    pub hooks: Option<Arc<dyn Hooks>>,
    /// Where the conversation is recorded (the session owns the recorder).
    pub recorder: Option<Recording>,
}

/// One conversation with the model.
pub struct Agent {
    generator: Arc<dyn ContentGenerator>,
    scheduler: Scheduler,
    config: AgentConfig,
    initial_history: Vec<Content>,
    history: Vec<Content>,
    turns: i64,
    events: EventSender,
    stats: Arc<Mutex<SessionStats>>,
    hooks: Option<Arc<dyn Hooks>>,
    recorder: Option<Recording>,
    loop_guard: LoopGuard,
    last_prompt_tokens: Option<(u64, usize)>,
    /// Set while the model is `auto`.
    routing: Option<routing::AutoRouting>,
    /// Prices of the models, for the cost in the stats.
    pricing: Option<Arc<crate::model::prices::Pricing>>,
    /// The next requests force the structured-output tool.
    force_structured: bool,
    /// The last request's declarations, lent to the next one while what
    /// they depend on stays the same.
    declarations: Option<(crate::scheduler::DeclarationsKey, Vec<FunctionDeclaration>)>,
    /// This run's file edits, for `/rewind`.
    edits: edits::EditLog,
    /// Whose requests the stats count these as: `main` or `subagent`.
    role: &'static str,
}

impl Agent {
    /// A new agent whose history starts with `initial_history` (normally the
    /// environment-context turn, or a resumed conversation).
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
            history: initial_history.clone(),
            initial_history,
            turns: 0,
            events,
            stats,
            hooks: None,
            recorder: None,
            loop_guard: LoopGuard::new(),
            routing: None,
            last_prompt_tokens: None,
            pricing: None,
            force_structured: false,
            declarations: None,
            edits: edits::EditLog::default(),
            role: "main",
        }
    }

    /// Counts the cost of each request from `pricing`.
    pub fn with_pricing(mut self, pricing: Arc<crate::model::prices::Pricing>) -> Self {
        self.pricing = Some(pricing);
        self
    }

    /// [`AgentError::BudgetExceeded`] once the session cost more than
    /// `--max-budget-usd`; the answers of the last calls (`next`) stay in
    /// the conversation.
    fn check_budget(&mut self, next: &Content) -> Result<(), AgentError> {
        let Some(budget) = self.config.max_budget_usd else {
            return Ok(());
        };
        let spent = match self.stats.lock() {
            Ok(stats) => stats.spent_usd(),
            Err(_) => return Ok(()),
        };
        if spent <= budget {
            return Ok(());
        }
        if next.parts.iter().any(|p| p.function_response.is_some()) {
            self.history.push(next.clone());
        }
        Err(AgentError::BudgetExceeded {
            spent_usd: spent,
            budget_usd: budget,
        })
    }

    /// Feeds the calls to loop detection: true when they repeat.
    fn calls_loop(&mut self, calls: &[FunctionCall]) -> bool {
        self.config.loop_detection
            && calls
                .iter()
                .filter_map(|c| {
                    self.loop_guard
                        .on_tool_call(&c.name, c.args.as_ref().unwrap_or(&serde_json::Value::Null))
                })
                .count()
                > 0
    }

    /// Adds hooks and chat recording.
    pub fn with_extras(mut self, extras: AgentExtras) -> Self {
        self.hooks = extras.hooks;
        self.recorder = extras.recorder;
        self
    }

    async fn emit(&self, event: AgentEvent) {
        self.events.emit(event).await;
    }

    /// Runs one user prompt to completion: BeforeAgent, the turns, the
    /// tools, AfterAgent (whose block re-prompts once with its reason).
    pub async fn run_prompt(
        &mut self,
        user_parts: Vec<Part>,
        cancel: &CancellationToken,
    ) -> Result<PromptOutcome, AgentError> {
        let prompt_text = text_of(&user_parts);
        self.edits.prompt_started();
        let mut parts = user_parts;
        if let Some(hooks) = self.hooks.clone() {
            match hooks.before_agent(&prompt_text).await {
                AgentHookOutcome::Proceed { additional_context } => {
                    if let Some(ctx) = additional_context {
                        parts.push(Part::text(format!("<hook_context>{ctx}</hook_context>")));
                    }
                }
                outcome @ AgentHookOutcome::Block { .. } => {
                    self.emit(AgentEvent::Warning {
                        message: format!(
                            "Agent execution blocked: {}",
                            outcome.message().unwrap_or("")
                        ),
                    })
                    .await;
                    return Ok(PromptOutcome::default());
                }
                outcome @ AgentHookOutcome::Stop { .. } => {
                    self.history.push(Content::new(Role::User, parts));
                    return Ok(PromptOutcome {
                        stopped: outcome.message().map(str::to_string),
                        ..PromptOutcome::default()
                    });
                }
            }
        }
        if let Some(routing) = self.routing.clone() {
            let chosen = routing
                .choose(self.generator.as_ref(), &self.history, &prompt_text, cancel)
                .await;
            self.use_routed_model(chosen).await;
        }
        let mut responses = Vec::new();
        let outcome = match self.run_turns(parts, &mut responses, cancel).await {
            Ok(outcome) => outcome,
            Err(e) => {
                if let (AgentError::Model { error }, Some(hooks)) = (&e, &self.hooks)
                    && hooks.has(crate::hooks::HookEvent::StopFailure)
                {
                    let (kind, message) = crate::hooks::claude::stop_failure(error);
                    // The transcript Claude hooks read ends with the error,
                    // as Claude Code's ends with it as the model's message.
                    if let Some(rec) = &self.recorder {
                        rec.record_note("error", &message);
                    }
                    hooks.stop_failure(kind, &message).await;
                }
                return Err(e);
            }
        };
        let outcome = self.structured_answer(outcome, cancel).await?;
        if outcome.stopped.is_some() {
            return Ok(outcome);
        }
        let Some(hooks) = self.hooks.clone() else {
            return Ok(outcome);
        };
        self.stop_hooks(hooks, &prompt_text, responses, outcome, cancel)
            .await
    }

    /// Model turns and tool batches until the model stops calling tools.
    async fn run_turns(
        &mut self,
        user_parts: Vec<Part>,
        responses: &mut Vec<String>,
        cancel: &CancellationToken,
    ) -> Result<PromptOutcome, AgentError> {
        if let Some(rec) = &self.recorder {
            rec.record_user(&user_parts);
        }
        self.loop_guard = LoopGuard::new();
        let mut user_parts = user_parts;
        self.add_completions(&mut user_parts);
        let mut next = Content::new(Role::User, user_parts);
        loop {
            if self.config.max_session_turns >= 0 && self.turns >= self.config.max_session_turns {
                return Err(AgentError::TurnLimit);
            }
            self.check_budget(&next)?;
            self.turns += 1;
            let answers_tools = next.parts.iter().any(|p| p.function_response.is_some());
            self.history.push(next);
            self.maybe_compress(cancel).await;
            let mut turn = self.model_turn_or_fall_back(cancel).await?;
            if turn.invalid.is_some() {
                turn = self.retry_empty(turn, answers_tools, cancel).await?;
            }
            if turn.invalid == Some(turn::Invalid::NoFinishReason) {
                return Err(AgentError::Model {
                    error: ModelError::StreamCut {
                        message: "the response stream ended before the model said anything"
                            .to_string(),
                    },
                });
            }
            if let Some(u) = &turn.usage
                && let Some(prompt) = u.prompt_token_count
            {
                self.last_prompt_tokens = Some((prompt, self.history.len()));
            }
            if !turn.text.is_empty() {
                responses.push(turn.text.clone());
            }
            if let Some(reason) = turn.stopped {
                return Ok(PromptOutcome::stopped(turn.text, reason));
            }
            if let Some(reason) = turn.blocked {
                self.emit(AgentEvent::Warning {
                    message: format!("Agent execution blocked: {reason}"),
                })
                .await;
                return Ok(PromptOutcome::answered(turn.text));
            }
            if !turn.parts.is_empty() {
                self.history
                    .push(Content::new(Role::Model, turn.parts.clone()));
            }
            if turn.looped.is_some() {
                self.emit(AgentEvent::Warning {
                    message: "Loop detected, stopping execution".to_string(),
                })
                .await;
                self.record_turn(&turn);
                return Ok(loop_outcome(turn.text));
            }
            if let Some(answer) = self.take_structured_call(&turn.calls) {
                self.record_turn(&turn);
                return Ok(PromptOutcome {
                    structured_output: Some(answer),
                    ..PromptOutcome::answered(turn.text)
                });
            }
            if turn.calls.is_empty() {
                self.record_turn(&turn);
                return Ok(PromptOutcome::answered(turn.text));
            }
            if self.calls_loop(&turn.calls) {
                self.emit(AgentEvent::Warning {
                    message: "Loop detected, stopping execution".to_string(),
                })
                .await;
                self.history.pop();
                self.record_turn(&turn);
                return Ok(loop_outcome(turn.text));
            }
            // The model's message is on disk before its calls run; the
            // calls update it when they finish.
            self.record_turn(&turn);
            match self.run_calls(turn.calls, turn.text, cancel).await? {
                ControlFlow::Break(outcome) => return Ok(outcome),
                ControlFlow::Continue(parts) => next = Content::new(Role::User, parts),
            }
        }
    }

    /// One model turn; a model over its quota with routing on falls back
    /// to the flash model for the rest of the session, once.
    async fn model_turn_or_fall_back(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<turn::TurnOutput, AgentError> {
        match self.model_turn(cancel).await {
            Err(AgentError::Model { error: e }) if self.should_fall_back(&e) => {
                let flash = self.routing.as_ref().map(|r| r.flash.clone());
                let flash = flash.unwrap_or_default();
                self.emit(AgentEvent::Warning {
                    message: format!(
                        "{} is over its quota ({e}); switching to {flash} for this session.",
                        self.config.model
                    ),
                })
                .await;
                self.routing = None;
                self.use_routed_model(flash).await;
                self.model_turn(cancel).await
            }
            other => other,
        }
    }

    /// Runs the model's calls as one batch: the outcome when the batch
    /// ends the prompt (cancelled, declined, fatal, stopped, a final plan),
    /// otherwise the parts of the next user message.
    async fn run_calls(
        &mut self,
        calls: Vec<FunctionCall>,
        text: String,
        cancel: &CancellationToken,
    ) -> Result<ControlFlow<PromptOutcome, Vec<Part>>, AgentError> {
        let requests = calls.into_iter().map(call_request).collect();
        let completed = self
            .scheduler
            .run_batch_with_history(requests, cancel, &self.history)
            .await;
        self.edits.note(&completed);
        self.record_calls(&completed);
        let declined = completed
            .iter()
            .all(|c| c.status == ToolCallStatus::Cancelled);
        if cancel.is_cancelled() || declined {
            // Every call the model made gets its answer in the history
            // (`[Operation Cancelled] ...`), so the next request is one the
            // API accepts; nothing is sent now.
            self.history.push(Content::new(
                Role::User,
                completed.into_iter().flat_map(|c| c.parts).collect(),
            ));
            if cancel.is_cancelled() {
                return Err(AgentError::Cancelled);
            }
            return Ok(ControlFlow::Break(PromptOutcome {
                declined: true,
                ..PromptOutcome::answered(text)
            }));
        }
        if let Some(fatal) = completed
            .iter()
            .filter_map(|c| c.result.error.as_ref())
            .find(|e| e.kind.is_fatal())
        {
            return Err(AgentError::FatalTool {
                message: fatal.message.clone(),
            });
        }
        if let Some(reason) = completed.iter().find_map(|c| c.stop_reason()) {
            return Ok(ControlFlow::Break(PromptOutcome::stopped(
                text,
                reason.to_string(),
            )));
        }
        if let Some(plan) = self.scheduler.ctx().plan.take_final_plan() {
            // Headless planning ends with the plan.
            self.history.push(Content::new(
                Role::User,
                completed.into_iter().flat_map(|c| c.parts).collect(),
            ));
            return Ok(ControlFlow::Break(PromptOutcome {
                plan: Some(plan),
                ..PromptOutcome::answered(text)
            }));
        }
        let mut parts: Vec<Part> = completed.into_iter().flat_map(|c| c.parts).collect();
        self.add_completions(&mut parts);
        Ok(ControlFlow::Continue(parts))
    }

    /// Background commands that finished since the last request go with
    /// the next one (`backgroundCompletionBehavior` `inject` or `notify`).
    fn add_completions(&self, parts: &mut Vec<Part>) {
        if !self.config.background_completions {
            return;
        }
        for done in self.scheduler.ctx().background.take_completions() {
            parts.push(Part::text(done.text));
        }
    }

    /// Records one model turn (text, thoughts, tokens, model, logprobs).
    fn record_turn(&mut self, turn: &turn::TurnOutput) {
        if let Some(rec) = self.recorder.as_ref().filter(|r| r.is_on()) {
            let logprobs = turn.logprobs.to_value();
            let (parts, usage) = (&turn.parts, turn.usage.as_ref());
            rec.record_model(parts, usage, &self.config.model, logprobs);
        }
    }

    /// Records the finished calls of the last model turn with their
    /// results, lent to the recording (which serialises them at once).
    fn record_calls(&mut self, completed: &[CompletedCall]) {
        let Some(rec) = self.recorder.as_ref().filter(|r| r.is_on()) else {
            return;
        };
        let registry = self.scheduler.registry();
        let calls: Vec<FinishedCall<'_>> = completed
            .iter()
            .map(|c| {
                // As Gemini CLI 0.61 records them: the call's own one-line
                // description, else the tool's.
                let tool = registry.get(&c.request.name);
                let described = c.description.as_deref().map(str::trim);
                let description = match (described.filter(|d| !d.is_empty()), tool) {
                    (Some(d), _) => Some(d),
                    (None, Some(tool)) => Some(tool.tool.description()),
                    (None, None) => None,
                };
                FinishedCall {
                    id: &c.request.call_id,
                    name: &c.request.name,
                    args: &c.request.args,
                    parts: &c.parts,
                    status: match c.status {
                        ToolCallStatus::Success => "success",
                        ToolCallStatus::Error => "error",
                        ToolCallStatus::Cancelled => "cancelled",
                    },
                    display: &c.result.display,
                    display_name: tool.map(|t| t.tool.display_name()),
                    description,
                    markdown: tool.is_some_and(|t| t.tool.output_is_markdown()),
                }
            })
            .collect();
        rec.record_tool_calls(&calls);
    }
}

/// Loop detection stopped the agent after `text`.
fn loop_outcome(text: String) -> PromptOutcome {
    PromptOutcome {
        loop_detected: true,
        ..PromptOutcome::answered(text)
    }
}

/// The text parts of a prompt, joined.
fn text_of(parts: &[Part]) -> String {
    parts.iter().filter_map(|p| p.text.as_deref()).collect()
}

/// The model's id, or `<name>-<ms>-<13 hex>` as Gemini CLI generates.
fn call_request(call: FunctionCall) -> ToolCallRequest {
    let call_id = call
        .id
        .clone()
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| {
            let ms = chrono::Utc::now().timestamp_millis();
            let hex = uuid::Uuid::new_v4().simple().to_string();
            format!("{}-{ms}-{}", call.name, &hex[..13])
        });
    ToolCallRequest {
        call_id,
        name: call.name,
        args: call
            .args
            .unwrap_or(serde_json::Value::Object(Default::default())),
    }
}
