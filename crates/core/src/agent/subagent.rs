//! The sub-agent executor: an [`Agent`] whose scheduler holds only the
//! agent's tools runs turns until the model calls `complete_task` with a
//! valid output. Out of turns, out of time, or stopped without calling it,
//! the model gets one grace turn (a minute) to finish; then the run ends
//! with Gemini CLI's termination reason and text.

use super::{Agent, AgentError};
use crate::events::{AgentEvent, ToolCallFinished, ToolCallStatus};
use crate::scheduler::ToolCallRequest;
use crate::subagents::{
    AgentDefinition, AgentOutput, COMPLETE_TASK, OutputError, TerminateReason, validate_output,
};
use crate::tools::{SubagentOutcome, ToolDisplay, ToolError, ToolErrorKind};
use gemini_rs_protocol::{Content, FunctionCall, FunctionResponse, Part, Role};
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// How long the grace turn may take.
const GRACE: Duration = Duration::from_secs(60);

/// Why a sub-agent run broke off (rather than ending with a reason).
#[derive(Debug, thiserror::Error)]
pub enum SubagentError {
    /// The model call failed.
    #[error(transparent)]
    Model(#[from] AgentError),
    /// A hook stopped the run.
    #[error("Agent execution stopped by hook: {0}")]
    StoppedByHook(String),
}

/// Why a call the scheduler never sees was refused; the model reads the
/// text as the call's error.
#[derive(Debug, thiserror::Error)]
enum CompletionError {
    /// A second `complete_task` in one turn.
    #[error("Task already marked complete in this turn. Ignoring duplicate call.")]
    Duplicate,
    /// A tool outside the agent's list.
    #[error("Unauthorized tool call: '{0}' is not available to this agent.")]
    Unauthorized(String),
    /// `complete_task` without `report`.
    #[error("Missing required argument 'report' for completion.")]
    MissingReport,
    /// The report does not fit the agent's schema.
    #[error("Output validation failed: {0}")]
    InvalidOutput(#[from] OutputError),
    /// `complete_task` without a `result`.
    #[error(
        "Missing required \"result\" argument. You must provide your findings when calling complete_task."
    )]
    MissingResult,
}

/// What one sub-agent turn led to.
enum Step {
    /// Tool results to send next.
    Continue(Vec<Part>),
    /// `complete_task` accepted this output; the turn's answers (sent on
    /// when a SubagentStop hook sends the agent on).
    Done(String, Vec<Part>),
    /// The model answered without calling any tool.
    NoCalls,
    /// The turn's token fired.
    Interrupted(Vec<Part>),
}

/// The declaration of `complete_task` for `agent`.
pub fn complete_task_declaration(
    agent: &AgentDefinition,
) -> gemini_rs_protocol::FunctionDeclaration {
    let (description, parameters) = match &agent.output {
        AgentOutput::Report { schema, .. } => (
            "Submits your final answer and ends the task. Calling it is the only way to finish.",
            json!({"type": "object", "properties": {"report": schema}, "required": ["report"]}),
        ),
        AgentOutput::Result => (
            "Submits your findings and ends the task. Calling it is the only way to finish.",
            json!({"type": "object", "properties": {"result": {"type": "string",
                "description": "Your complete findings or result for the agent that delegated the task, in the format your instructions ask for."}},
                "required": ["result"]}),
        ),
    };
    gemini_rs_protocol::FunctionDeclaration {
        name: COMPLETE_TASK.to_string(),
        description: Some(description.to_string()),
        parameters_json_schema: Some(parameters),
        ..Default::default()
    }
}

impl Agent {
    /// Runs this agent as the sub-agent `def`, starting with `query`.
    /// `agent_id` prefixes the ids of calls that come without one. `Err`
    /// is a model failure.
    pub async fn run_subagent(
        &mut self,
        def: &AgentDefinition,
        query: String,
        agent_id: &str,
        cancel: &CancellationToken,
    ) -> Result<SubagentOutcome, SubagentError> {
        self.role = "subagent";
        if let Some(hooks) = self.hooks.clone()
            && hooks.has(crate::hooks::HookEvent::SubagentStart)
        {
            hooks.subagent_start(&def.name, agent_id).await;
        }
        let run = cancel.child_token();
        let timer = {
            let run = run.clone();
            let limit = Duration::from_secs_f64((def.timeout_mins * 60.0).max(0.0));
            tokio::spawn(async move {
                tokio::time::sleep(limit).await;
                run.cancel();
            })
        };
        let interrupted = || {
            if cancel.is_cancelled() {
                TerminateReason::Aborted
            } else {
                TerminateReason::Timeout
            }
        };
        let mut next = vec![Part::text(query)];
        let mut turn: u32 = 0;
        let mut stops: u32 = 0;
        let reason = loop {
            if def.max_turns.is_some_and(|max| turn >= max) {
                break TerminateReason::MaxTurns;
            }
            if run.is_cancelled() {
                break interrupted();
            }
            let prompt_id = format!("{agent_id}#{turn}");
            let step = self
                .sub_turn(std::mem::take(&mut next), def, &prompt_id, &run)
                .await;
            turn += 1;
            match step {
                Err(e) if run.is_cancelled() => {
                    tracing::debug!("sub-agent turn ended by its token: {e}");
                    break interrupted();
                }
                Err(e) => {
                    timer.abort();
                    return Err(e);
                }
                Ok(Step::Continue(parts)) => next = parts,
                Ok(Step::Done(output, answers)) => {
                    if let Some(parts) = self
                        .subagent_stop_hooks(def, agent_id, &output, answers, &mut stops)
                        .await
                    {
                        next = parts;
                        continue;
                    }
                    timer.abort();
                    return Ok(SubagentOutcome {
                        reason: TerminateReason::Goal,
                        result: output,
                    });
                }
                Ok(Step::NoCalls) => break TerminateReason::NoCompleteTask,
                Ok(Step::Interrupted(parts)) => {
                    next = parts;
                    break interrupted();
                }
            }
        };
        timer.abort();
        if reason == TerminateReason::Aborted {
            return Ok(SubagentOutcome {
                reason,
                result: "Agent execution was terminated before completion.".to_string(),
            });
        }
        // The grace turn: the results still owed to the model, then the
        // warning (the wires other than Gemini refuse a call left unanswered).
        let why = match reason {
            TerminateReason::Timeout => "You have exceeded the time limit.",
            TerminateReason::MaxTurns => "You have exceeded the maximum number of turns.",
            _ => "You have stopped calling tools without finishing.",
        };
        next.push(Part::text(format!(
            "{why} You have one final chance to complete the task with a short grace period. You MUST call `{COMPLETE_TASK}` immediately with your best answer and explain that your investigation was interrupted. Do not call any other tools."
        )));
        let grace = cancel.child_token();
        let grace_timer = {
            let grace = grace.clone();
            tokio::spawn(async move {
                tokio::time::sleep(GRACE).await;
                grace.cancel();
            })
        };
        let prompt_id = format!("{agent_id}#{turn}");
        let step = self.sub_turn(next, def, &prompt_id, &grace).await;
        grace_timer.abort();
        if let Ok(Step::Done(output, _)) = step {
            return Ok(SubagentOutcome {
                reason: TerminateReason::Goal,
                result: output,
            });
        }
        if cancel.is_cancelled() {
            return Ok(SubagentOutcome {
                reason: TerminateReason::Aborted,
                result: "Agent execution was terminated before completion.".to_string(),
            });
        }
        let result = match reason {
            TerminateReason::Timeout => {
                format!("Agent timed out after {} minutes.", def.timeout_mins)
            }
            TerminateReason::MaxTurns => format!(
                "Agent reached max turns limit ({}).",
                def.max_turns.unwrap_or_default()
            ),
            _ => format!("Agent stopped calling tools but did not call '{COMPLETE_TASK}'."),
        };
        Ok(SubagentOutcome { reason, result })
    }

    /// SubagentStop hooks on `output`: `Some` (the turn's answers and the
    /// hook's reason) when one blocks and the sub-agent goes on; at most
    /// [`super::MAX_STOP_CONTINUATIONS`] times in a row.
    async fn subagent_stop_hooks(
        &self,
        def: &AgentDefinition,
        agent_id: &str,
        output: &str,
        mut answers: Vec<Part>,
        stops: &mut u32,
    ) -> Option<Vec<Part>> {
        let hooks = self.hooks.clone()?;
        if !hooks.has(crate::hooks::HookEvent::SubagentStop) {
            return None;
        }
        let outcome = hooks
            .subagent_stop(&def.name, agent_id, output, *stops > 0)
            .await;
        let crate::hooks::AgentHookOutcome::Block { reason, .. } = outcome else {
            return None;
        };
        if *stops >= super::MAX_STOP_CONTINUATIONS {
            self.events
                .emit(crate::events::AgentEvent::Warning {
                    message: format!(
                        "SubagentStop hooks blocked {} times in a row; {} ends here: {reason}",
                        super::MAX_STOP_CONTINUATIONS,
                        def.name
                    ),
                })
                .await;
            return None;
        }
        *stops += 1;
        answers.push(Part::text(reason));
        Some(answers)
    }

    /// One turn: send `parts`, then answer the calls.
    async fn sub_turn(
        &mut self,
        parts: Vec<Part>,
        def: &AgentDefinition,
        prompt_id: &str,
        token: &CancellationToken,
    ) -> Result<Step, SubagentError> {
        self.history.push(Content::new(Role::User, parts));
        self.maybe_compress(token).await;
        let mut turn = self.model_turn(token).await?;
        if turn.invalid.is_some() && !token.is_cancelled() {
            turn = self.model_turn(token).await?;
        }
        if let Some(reason) = turn.stopped {
            return Err(SubagentError::StoppedByHook(reason));
        }
        if !turn.parts.is_empty() {
            self.history
                .push(Content::new(Role::Model, turn.parts.clone()));
        }
        if token.is_cancelled() {
            return Ok(Step::Interrupted(Vec::new()));
        }
        if turn.calls.is_empty() {
            return Ok(Step::NoCalls);
        }
        let allowed = self.scheduler.registry();
        let mut answers: Vec<Option<Part>> = Vec::with_capacity(turn.calls.len());
        let mut requests = Vec::new();
        let mut slots = Vec::new();
        let mut output: Option<String> = None;
        for (i, call) in turn.calls.into_iter().enumerate() {
            let FunctionCall { id, name, args, .. } = call;
            let call_id = id
                .filter(|id| !id.is_empty())
                .unwrap_or_else(|| format!("{prompt_id}-{i}"));
            let args = args.unwrap_or_else(|| json!({}));
            if name == COMPLETE_TASK {
                let answer = if output.is_some() {
                    Err(CompletionError::Duplicate)
                } else {
                    accept_output(def, &args).map(|(text, response)| {
                        output = Some(text);
                        response
                    })
                };
                answers.push(Some(
                    self.answer_directly(&call_id, &name, args, answer).await,
                ));
            } else if allowed.get(&name).is_none() {
                let answer = Err(CompletionError::Unauthorized(name.clone()));
                answers.push(Some(
                    self.answer_directly(&call_id, &name, args, answer).await,
                ));
            } else {
                answers.push(None);
                slots.push(answers.len() - 1);
                requests.push(ToolCallRequest {
                    call_id,
                    name,
                    args,
                });
            }
        }
        if !requests.is_empty() {
            let completed = self.scheduler.run_batch(requests, token).await;
            for (slot, call) in slots.into_iter().zip(completed) {
                answers[slot] = call.parts.into_iter().next();
            }
        }
        let mut parts: Vec<Part> = answers.into_iter().flatten().collect();
        if let Some(output) = output {
            return Ok(Step::Done(output, parts));
        }
        if token.is_cancelled() {
            return Ok(Step::Interrupted(parts));
        }
        if parts.is_empty() {
            parts.push(Part::text(
                "All tool calls failed or were unauthorized. Please analyze the errors and try an alternative approach.",
            ));
        }
        Ok(Step::Continue(parts))
    }

    /// Answers a call the scheduler never sees (`complete_task`, a tool the
    /// agent may not use), telling the front end as for any call.
    async fn answer_directly(
        &self,
        call_id: &str,
        name: &str,
        args: Value,
        answer: Result<Value, CompletionError>,
    ) -> Part {
        self.emit(AgentEvent::ToolCallRequested {
            call_id: call_id.to_string(),
            name: name.to_string(),
            args: args.clone(),
        })
        .await;
        let (response, status, display, error) = match answer {
            Ok(response) => {
                let shown = response
                    .as_object()
                    .and_then(|o| o.values().next())
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                (response, ToolCallStatus::Success, shown, None)
            }
            Err(e) => {
                let e = e.to_string();
                (
                    json!({"error": e}),
                    ToolCallStatus::Error,
                    e.clone(),
                    Some(ToolError::new(ToolErrorKind::ExecutionFailed, e)),
                )
            }
        };
        self.emit(AgentEvent::ToolFinished(ToolCallFinished {
            call_id: call_id.to_string(),
            name: name.to_string(),
            args,
            status,
            display: ToolDisplay::Text(display),
            error,
            duration: Duration::ZERO,
        }))
        .await;
        Part::function_response(FunctionResponse {
            id: Some(call_id.to_string()),
            name: name.to_string(),
            response,
            ..FunctionResponse::default()
        })
    }
}

/// `complete_task`'s arguments: `report` (a null one is present) or
/// `result`, by the agent's output.
#[derive(Debug, Default, Deserialize)]
struct CompleteArgs {
    #[serde(default, deserialize_with = "present")]
    report: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
}

/// A field that is there, `null` included.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The output a `complete_task` call hands back and the response it gets,
/// or the error the model sees.
fn accept_output(def: &AgentDefinition, args: &Value) -> Result<(String, Value), CompletionError> {
    let CompleteArgs { report, result } = CompleteArgs::deserialize(args).unwrap_or_default();
    match &def.output {
        AgentOutput::Report { schema, .. } => {
            let Some(report) = report else {
                return Err(CompletionError::MissingReport);
            };
            validate_output(schema, &report)?;
            let text = match report {
                Value::String(s) => s,
                other => serde_json::to_string_pretty(&other).unwrap_or_default(),
            };
            Ok((
                text,
                json!({"result": "Output submitted and task completed."}),
            ))
        }
        AgentOutput::Result => match result {
            None | Some(Value::Null) => Err(CompletionError::MissingResult),
            Some(Value::String(s)) if s.is_empty() => Err(CompletionError::MissingResult),
            Some(Value::String(s)) => {
                Ok((s, json!({"status": "Result submitted and task completed."})))
            }
            Some(other) => Ok((
                serde_json::to_string_pretty(&other).unwrap_or_default(),
                json!({"status": "Result submitted and task completed."}),
            )),
        },
    }
}
