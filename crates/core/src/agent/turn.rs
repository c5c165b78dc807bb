//! One model request: PreCompress / BeforeModel / BeforeToolSelection
//! hooks, the streamed answer (AfterModel per chunk), events, stats and
//! loop detection.

use super::{Agent, AgentError, LoopKind};
use crate::events::AgentEvent;
use crate::hooks::{AfterModelOutcome, BeforeModelOutcome};
use crate::model::{ChunkStream, ModelError};
use futures::StreamExt;
use gemini_rs_protocol::events::StatsRequest;
use gemini_rs_protocol::{
    Content, FunctionCall, FunctionDeclaration, GenerateContentResponse, Part, Tool, UsageMetadata,
};
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// What one model request produced.
#[derive(Debug, Default)]
pub(super) struct TurnOutput {
    /// The model's parts, consolidated.
    pub parts: Vec<Part>,
    /// Its function calls, in order.
    pub calls: Vec<FunctionCall>,
    /// Its visible text.
    pub text: String,
    /// The usage of its last chunk that had one.
    pub usage: Option<UsageMetadata>,
    /// Its tokens' logprobs and ids, when the server sent them.
    pub logprobs: crate::model::logprobs::Logprobs,
    /// Set when a hook blocked the turn (no model answer).
    pub blocked: Option<String>,
    /// Set when a hook stopped the agent.
    pub stopped: Option<String>,
    /// Set when loop detection ended the turn.
    pub looped: Option<LoopKind>,
    /// Set when the stream carried neither text nor calls (the request is
    /// sent once more, as Gemini CLI does).
    pub invalid: Option<Invalid>,
}

/// Why a streamed answer is unusable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Invalid {
    /// It ended without a finish reason and without content.
    NoFinishReason,
    /// It finished without text or calls (thoughts only, or nothing).
    NoText,
}

/// What Gemini CLI 0.61 says when the model's answer stays empty.
pub const EMPTY_RESPONSE: &str = "The model returned an empty response with no text or thoughts. \
This may be a transient API issue; please try again.";

/// Gemini CLI 0.61's words added to the prompt when an empty answer is
/// asked for again.
const NO_RESPONSE_TEXT_NUDGE: &str = "[System: You previously returned an empty response with \
no text or thoughts. Please ensure you provide your final answer or call a tool now.]";

enum Source {
    Stream(ChunkStream),
    Synthetic(Box<GenerateContentResponse>),
}

impl Agent {
    /// Builds, hooks and sends one request, then streams the answer.
    pub(super) async fn model_turn(
        &mut self,
        cancel: &CancellationToken,
    ) -> Result<TurnOutput, AgentError> {
        if self.hooks.is_some() {
            let request = self.build_request();
            return self.hooked_turn(request, cancel).await;
        }
        // Without hooks nothing else looks at the request: lend it the
        // history instead of copying it (long sessions would copy it on
        // every turn), and take it back whatever happens.
        // The declarations likewise, while the tools, the mode and the
        // rules stay the same (the structured-output tool is added to them).
        let key = self
            .scheduler
            .declarations_key()
            .filter(|_| self.config.output_schema.is_none());
        let declarations = match (self.declarations.take(), &key) {
            (Some((was, decls)), Some(key)) if was == *key => decls,
            _ => self.declarations_now(),
        };
        let contents = std::mem::take(&mut self.history);
        let mut request = self.build_request_with(contents, declarations);
        let model = self.config.model.clone();
        let result = self.send(&request, &model, cancel).await;
        self.history = std::mem::take(&mut request.contents);
        let lent = request.tools.take().and_then(|t| t.into_iter().next());
        if let (Some(key), Some(decls)) = (key, lent.and_then(|t| t.function_declarations)) {
            self.declarations = Some((key, decls));
        }
        result
    }

    /// A turn with hooks around the model call.
    async fn hooked_turn(
        &mut self,
        mut request: gemini_rs_protocol::GenerateContentRequest,
        cancel: &CancellationToken,
    ) -> Result<TurnOutput, AgentError> {
        let mut model = self.config.model.clone();
        if let Some(hooks) = self.hooks.clone() {
            if !self.history.is_empty() {
                hooks.turn_pre_compress().await;
            }
            match hooks.before_model(&request, &model).await {
                BeforeModelOutcome::Proceed {
                    request: r,
                    model: m,
                } => {
                    if let Some(r) = r {
                        request = *r;
                    }
                    if let Some(m) = m.filter(|m| !m.is_empty()) {
                        model = m;
                    }
                }
                BeforeModelOutcome::Block {
                    reason,
                    system_message,
                } => {
                    return Ok(TurnOutput {
                        blocked: Some(system_message.filter(|s| !s.is_empty()).unwrap_or(reason)),
                        ..TurnOutput::default()
                    });
                }
                BeforeModelOutcome::Stop {
                    reason,
                    system_message,
                } => {
                    return Ok(TurnOutput {
                        stopped: Some(system_message.filter(|s| !s.is_empty()).unwrap_or(reason)),
                        ..TurnOutput::default()
                    });
                }
                BeforeModelOutcome::Respond { response } => {
                    return self
                        .consume(&request, &model, Source::Synthetic(response), cancel)
                        .await;
                }
            }
            if request.tools.is_some()
                && let Some(tool_config) = hooks.before_tool_selection(&request, &model).await
            {
                request.tool_config = Some(tool_config);
            }
        }
        self.send(&request, &model, cancel).await
    }

    /// Opens the stream for `request` and consumes it.
    async fn send(
        &mut self,
        request: &gemini_rs_protocol::GenerateContentRequest,
        model: &str,
        cancel: &CancellationToken,
    ) -> Result<TurnOutput, AgentError> {
        self.warn_if_too_large(request, model).await;
        let started = Instant::now();
        let opened = tokio::select! {
            s = self.generator.generate_stream(model, request, cancel.clone()) => s,
            _ = cancel.cancelled() => return Err(AgentError::Cancelled),
        };
        let stream = match opened {
            Ok(s) => s,
            Err(mut e) => {
                self.record_request(model, started, None, Some(e.error_type()), false);
                crate::model::overflow::fill(
                    &mut e,
                    self.config.context_windows.get(model),
                    crate::model::estimate::request_tokens(request),
                );
                return Err(e.into());
            }
        };
        self.consume_timed(request, model, Source::Stream(stream), cancel, started)
            .await
    }

    /// Says so before sending when `request` is larger than `model`'s
    /// known context window: an OpenAI-compatible (often local) server may
    /// cut it without an error. The Gemini and Anthropic APIs refuse an
    /// oversized request with an error of their own, so their requests are
    /// not estimated (an estimate walks the whole history every turn).
    async fn warn_if_too_large(
        &self,
        request: &gemini_rs_protocol::GenerateContentRequest,
        model: &str,
    ) {
        let windows = &self.config.context_windows;
        if windows.wire(model) != crate::model::provider::Wire::OpenAiChat {
            return;
        }
        let Some(window) = windows.known(model) else {
            return;
        };
        let tokens = crate::model::estimate::request_tokens(request);
        if tokens > window {
            self.emit(AgentEvent::Warning {
                message: format!(
                    "The request (about {tokens} tokens) does not fit {model}'s context window of {window} tokens: the server may cut it short or refuse it. Give the server a larger window, or send less (model.profile \"lean\", a shorter prompt)."
                ),
            }).await;
        }
    }

    async fn consume(
        &mut self,
        request: &gemini_rs_protocol::GenerateContentRequest,
        model: &str,
        source: Source,
        cancel: &CancellationToken,
    ) -> Result<TurnOutput, AgentError> {
        self.consume_timed(request, model, source, cancel, Instant::now())
            .await
    }

    async fn consume_timed(
        &mut self,
        request: &gemini_rs_protocol::GenerateContentRequest,
        model: &str,
        source: Source,
        cancel: &CancellationToken,
        started: Instant,
    ) -> Result<TurnOutput, AgentError> {
        let mut out = TurnOutput::default();
        let streamed = matches!(source, Source::Stream(_));
        let mut finished = false;
        let (mut stream, mut synthetic) = match source {
            Source::Stream(s) => (Some(s), None),
            Source::Synthetic(r) => (None, Some(r)),
        };
        let result: Result<(), AgentError> = async {
            loop {
                let chunk = match (&mut stream, synthetic.take()) {
                    (_, Some(r)) => *r,
                    (Some(s), None) => {
                        let next = tokio::select! {
                            c = s.next() => c,
                            _ = cancel.cancelled() => return Err(AgentError::Cancelled),
                        };
                        match next {
                            Some(c) => c?,
                            None => break,
                        }
                    }
                    (None, None) => break,
                };
                let Some(mut chunk) = self.after_model(request, model, chunk, &mut out).await
                else {
                    return Ok(());
                };
                if chunk.usage_metadata.is_some() {
                    out.usage = chunk.usage_metadata.take();
                }
                let Some(candidate) = chunk.candidates.and_then(|c| c.into_iter().next()) else {
                    continue;
                };
                out.logprobs.add(&candidate);
                finished |= candidate.finish_reason.is_some();
                let Some(content) = candidate.content else {
                    continue;
                };
                for part in content.parts {
                    self.take_part(part, &mut out).await;
                }
                if out.looped.is_some() {
                    return Ok(());
                }
            }
            if streamed {
                judge_stream_end(finished, &mut out)?;
            }
            Ok(())
        }
        .await;
        let failed = match &result {
            Err(AgentError::Model { error }) => Some(error.error_type()),
            _ => None,
        };
        // A server that sent no usage (many local ones) gets an estimate,
        // marked as such, so the stats and the context left still move.
        let estimated = out.usage.is_none() && result.is_ok();
        if estimated {
            out.usage = Some(crate::model::estimate::usage(request, &out.parts));
        }
        self.record_request(model, started, out.usage.as_ref(), failed, estimated);
        if let Some(u) = &out.usage {
            self.emit(AgentEvent::Usage {
                model: model.to_string(),
                usage: u.clone(),
                estimated,
            })
            .await;
        }
        self.emit(AgentEvent::ModelTurnFinished).await;
        result?;
        if crate::model::is_gemini_3(model)
            && let Some(first) = out.parts.iter_mut().find(|p| p.function_call.is_some())
            && first.thought_signature.is_none()
        {
            first.thought_signature = Some("skip_thought_signature_validator".to_string());
        }
        Ok(out)
    }

    /// Runs the AfterModel hook on one chunk: the chunk to go on with
    /// (the hook's replacement, if any), or `None` when the hook blocked or
    /// stopped the turn (its reason is then in `out`).
    async fn after_model(
        &self,
        request: &gemini_rs_protocol::GenerateContentRequest,
        model: &str,
        chunk: GenerateContentResponse,
        out: &mut TurnOutput,
    ) -> Option<GenerateContentResponse> {
        let Some(hooks) = self.hooks.clone() else {
            return Some(chunk);
        };
        match hooks.after_model(request, model, &chunk).await {
            AfterModelOutcome::Proceed { response: Some(r) } => Some(*r),
            AfterModelOutcome::Proceed { response: None } => Some(chunk),
            AfterModelOutcome::Block {
                reason,
                system_message,
            } => {
                out.blocked = Some(system_message.filter(|s| !s.is_empty()).unwrap_or(reason));
                None
            }
            AfterModelOutcome::Stop {
                reason,
                system_message,
            } => {
                out.stopped = Some(system_message.filter(|s| !s.is_empty()).unwrap_or(reason));
                None
            }
        }
    }

    /// Takes one part of the answer: its text is shown (and watched for
    /// loops), its call queued, and the part kept for the history.
    async fn take_part(&mut self, mut part: Part, out: &mut TurnOutput) {
        match (&part.text, part.is_thought()) {
            (Some(t), true) => self.emit(AgentEvent::Thought { text: t.clone() }).await,
            (Some(t), false) if !t.is_empty() => {
                out.text.push_str(t);
                self.emit(AgentEvent::Content { text: t.clone() }).await;
                if self.config.loop_detection && out.looped.is_none() {
                    out.looped = self.loop_guard.on_content(t);
                }
            }
            _ => {}
        }
        if let Some(call) = &mut part.function_call {
            out.calls.push(call.clone());
            // Arguments that were not JSON reach the tool as
            // text (its error tells the model what it sent);
            // the history keeps `{}`, which every API accepts.
            if matches!(call.args, Some(serde_json::Value::String(_))) {
                call.args = Some(serde_json::Value::Object(Default::default()));
            }
        }
        push_consolidated(&mut out.parts, part);
    }

    /// An answer with nothing in it: asked for once more (with Gemini CLI
    /// 0.61's nudge after a prompt of the user's). An empty answer to
    /// tool results ends the turn quietly, as in Gemini CLI; one to the
    /// user's prompt that stays empty is reported ([`EMPTY_RESPONSE`]) and
    /// counted as a `NO_RESPONSE_TEXT` error of the model.
    pub(super) async fn retry_empty(
        &mut self,
        turn: TurnOutput,
        answers_tools: bool,
        cancel: &CancellationToken,
    ) -> Result<TurnOutput, AgentError> {
        if answers_tools && turn.invalid == Some(Invalid::NoText) {
            return Ok(TurnOutput {
                invalid: None,
                ..turn
            });
        }
        let nudged = !answers_tools
            && match self.history.last_mut() {
                Some(last) => {
                    last.parts
                        .push(Part::text(format!("\n{NO_RESPONSE_TEXT_NUDGE}")));
                    true
                }
                None => false,
            };
        let retried = self.model_turn(cancel).await;
        if nudged && let Some(last) = self.history.last_mut() {
            last.parts.pop();
        }
        let retried = retried?;
        if retried.invalid == Some(Invalid::NoText) && !answers_tools {
            if let Ok(mut stats) = self.stats.lock() {
                stats.record_error_type(&self.config.model, "NO_RESPONSE_TEXT");
            }
            self.emit(AgentEvent::Warning {
                message: EMPTY_RESPONSE.to_string(),
            })
            .await;
        }
        Ok(retried)
    }

    /// Counts one request in the stats; `error`: the type of its failure.
    fn record_request(
        &self,
        model: &str,
        started: Instant,
        usage: Option<&UsageMetadata>,
        error: Option<&str>,
        estimated: bool,
    ) {
        let cost = self.pricing.as_ref().and_then(|p| p.cost(model, usage));
        if let Ok(mut stats) = self.stats.lock() {
            let request = StatsRequest {
                model,
                role: self.role,
                latency: started.elapsed(),
                error,
            };
            stats.record(&request, usage, estimated);
            if let Some(usd) = cost {
                stats.record_cost(model, usd);
            }
        }
    }

    /// The request for the current history (a copy of it).
    pub(super) fn build_request(&self) -> gemini_rs_protocol::GenerateContentRequest {
        self.build_request_with(self.history.clone(), self.declarations_now())
    }

    /// The declarations of the tools for a request now.
    fn declarations_now(&self) -> Vec<FunctionDeclaration> {
        let mut declarations = self.scheduler.declarations();
        declarations.extend(self.config.extra_declarations.iter().cloned());
        declarations
    }

    /// The request for `contents` declaring `declarations`.
    fn build_request_with(
        &self,
        contents: Vec<Content>,
        declarations: Vec<FunctionDeclaration>,
    ) -> gemini_rs_protocol::GenerateContentRequest {
        let mut request = gemini_rs_protocol::GenerateContentRequest {
            contents,
            system_instruction: Some(Content {
                role: Some("user".to_string()),
                parts: vec![Part::text(
                    match self.scheduler.ctx().plan.prompt_section() {
                        Some(planning) => {
                            format!("{}\n\n{planning}", self.config.system_instruction)
                        }
                        None => self.config.system_instruction.clone(),
                    },
                )],
                ..Content::default()
            }),
            tools: (!declarations.is_empty()).then(|| {
                vec![Tool {
                    function_declarations: Some(declarations),
                    ..Tool::default()
                }]
            }),
            generation_config: Some(self.config.generation_config.clone()),
            ..Default::default()
        };
        if self.config.logprobs
            && let Some(config) = request.generation_config.as_mut()
        {
            let key = crate::model::logprobs::REQUEST_KEY;
            config.extra.insert(key.into(), true.into());
        }
        self.add_structured(&mut request);
        request
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

/// Judges how a model's stream ended: cut before the model finished (an
/// error), or finished with nothing said (an invalid answer, retried).
fn judge_stream_end(finished: bool, out: &mut TurnOutput) -> Result<(), AgentError> {
    let nothing_said = out.text.is_empty() && out.calls.is_empty();
    if !finished && !nothing_said {
        return Err(AgentError::Model {
            error: ModelError::StreamCut {
                message: "the response stream ended before the model finished its answer"
                    .to_string(),
            },
        });
    }
    if nothing_said && out.blocked.is_none() && out.stopped.is_none() {
        out.invalid = Some(if finished {
            Invalid::NoText
        } else {
            Invalid::NoFinishReason
        });
    }
    Ok(())
}
