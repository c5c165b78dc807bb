//! The session: one long-lived task that owns the agent loop, the
//! scheduler, the approval mode, the stats, chat recording, checkpoints and
//! the session-level hooks. Front ends (headless, the terminal UI, an
//! editor over ACP, `mcp serve`) drive it through a [`SessionHandle`]:
//! [`Op`]s in, [`AgentEvent`]s out.
//!
//! `Confirm`, `Cancel` and `SetApprovalMode` act at once, even while a
//! prompt runs; every other op waits for the one before it to finish, and
//! `Shutdown` too (send `Cancel` first to stop what runs).

mod auth;
mod automation;
mod build;
mod command_asker;
mod commands;
pub mod config;
mod control;
pub mod custom_commands;
mod elicitation;
mod hook_layer;
mod late_mcp;
mod layers;
mod model_switch;
mod profile;
mod questions;
#[cfg(test)]
mod queue_tests;
mod rewind;
mod run;
mod subagents;
pub(crate) mod tool_set;
mod view;

use control::Control;

pub use config::{SessionConfig, SessionKind, StartError, StartErrorKind, StartupNote};
pub use custom_commands::CommandFolder;
pub use elicitation::unattended_reply;
pub use view::{FileContents, FileReadError, PathEntry, PolicyListing, SessionView, WorkspaceFile};

use crate::agent::Agent;
use crate::events::stats::SessionStats;
use crate::events::{
    AgentEvent, EventReceiver, EventSender, Finished, HookMessageKind, Op, Submission,
};
use crate::hooks::Hooks;
use crate::policy::{ApprovalMode, PolicyEngine};
use crate::tools::ToolContext;
use gemini_rs_protocol::events::SessionSummary;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How many ops a session holds unread, and how many exclusive ops it
/// keeps waiting behind the one that runs. The session reads its ops
/// while an op runs (so `Cancel` and `Confirm` are never stuck behind
/// others); an op over the bound is refused with an
/// [`AgentEvent::Error`] naming its id.
pub const OP_QUEUE_CAPACITY: usize = 64;

/// Why an op could not be queued.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubmitError {
    /// The session has ended.
    #[error("the session has ended")]
    Ended,
    /// The session has [`OP_QUEUE_CAPACITY`] ops unread.
    #[error("the session has {OP_QUEUE_CAPACITY} ops unread; submit again once it answers")]
    Full,
}

/// Submits ops to a session; cheap to clone (signal handlers keep one).
/// Never waits (a front end that waited here while the session waits for
/// it to read events would deadlock): a full queue is an error.
#[derive(Clone)]
pub struct OpSender {
    tx: mpsc::Sender<Submission>,
    /// The number of the last generated op id.
    ids: Arc<AtomicU64>,
}

impl OpSender {
    /// Queues `op` under a generated id; false when the session has ended
    /// (or has [`OP_QUEUE_CAPACITY`] ops unread).
    pub fn submit(&self, op: Op) -> bool {
        self.submit_op(op).is_ok()
    }

    /// Queues `op` under a generated id (`op-1`, `op-2`, ...), which the
    /// events answering it carry; returns that id.
    pub fn submit_op(&self, op: Op) -> Result<String, SubmitError> {
        let id = format!("op-{}", self.ids.fetch_add(1, Ordering::Relaxed) + 1);
        self.send(Submission::new(id.clone(), op))?;
        Ok(id)
    }

    /// Queues an op under the front end's own id.
    pub fn send(&self, submission: Submission) -> Result<(), SubmitError> {
        self.tx.try_send(submission).map_err(|e| match e {
            mpsc::error::TrySendError::Full(_) => SubmitError::Full,
            mpsc::error::TrySendError::Closed(_) => SubmitError::Ended,
        })
    }
}

/// A running session.
pub struct SessionHandle {
    ops: OpSender,
    /// Everything the session reports, in order; ends after
    /// [`AgentEvent::SessionEnded`].
    /// Bounded ([`crate::events::EVENT_QUEUE_CAPACITY`]): a slow reader
    /// makes the session wait.
    pub events: EventReceiver,
    /// What the session is made of.
    pub view: Arc<SessionView>,
    /// Lines for the user from the start-up (show them first).
    pub notes: Vec<StartupNote>,
    task: JoinHandle<()>,
}

impl SessionHandle {
    /// Queues `op`; false when the session has ended.
    pub fn submit(&self, op: Op) -> bool {
        self.ops.submit(op)
    }

    /// Queues an op under the front end's own id (see [`OpSender::send`]).
    pub fn send(&self, submission: Submission) -> Result<(), SubmitError> {
        self.ops.send(submission)
    }

    /// Splits the handle into its sender, its event stream, its info and
    /// the task (for front ends that keep them in different places).
    pub fn into_parts(self) -> (OpSender, EventReceiver, Arc<SessionView>, JoinHandle<()>) {
        (self.ops, self.events, self.view, self.task)
    }
}

/// Starts sessions.
pub struct Session;

impl Session {
    /// Builds the session (model client, tools, MCP servers, hooks,
    /// recording) and starts its task, which first reports
    /// [`AgentEvent::SessionStarted`] and runs the SessionStart hooks.
    pub async fn start(config: SessionConfig) -> Result<SessionHandle, StartError> {
        let (events_tx, events_rx) = crate::events::event_channel();
        let (telemetry, telemetry_notes) = start_telemetry(&config)?;
        let paths = config.paths.clone();
        let extensions = config.extensions.clone();
        let env = config.env.clone();
        let interactive = config.interactive;
        let trusted = config.trusted;
        let meter = crate::limits::Meter::new(config.limits, config.limit_scope);
        let owner = meter.owner();
        // What the build starts (MCP servers, discovered tools) is the
        // session's, as is everything its task starts.
        let parts = crate::process::OWNER
            .scope(owner, build::build(config, events_tx.clone()))
            .await?;
        let elicitations = elicitation::Pending::default();
        if let Some(mcp) = &parts.mcp {
            mcp.set_elicitor(elicitation::elicitor(
                interactive,
                parts.mode.clone(),
                events_tx.clone(),
                elicitations.clone(),
            ));
        }
        let approval_mode = parts
            .mode
            .read()
            .map(|m| *m)
            .unwrap_or(ApprovalMode::Default);
        let info = Arc::new(SessionView {
            summary: SessionSummary {
                session_id: parts.session_id.clone(),
                model: parts.model.clone(),
                resumed: parts.resumed,
                approval_mode,
                root: parts.ctx.workspace.target_dir().to_path_buf(),
                project_temp_dir: parts.ctx.workspace.project_temp_dir().to_path_buf(),
            },
            workspace: parts.ctx.workspace.clone(),
            settings: parts.settings.clone(),
            trusted,
            paths,
            env,
            extensions,
            tools: parts.tools.clone(),
            mcp: parts.mcp.clone(),
            background: parts.ctx.background.clone(),
            hooks: parts.hook_config.clone(),
            checkpointer: parts.checkpointer.clone(),
            custom_commands: RwLock::new(parts.custom_commands.clone()),
            command_folders: parts.command_folders.clone(),
            context_windows: parts.context_windows.clone(),
            policy: parts.policy.clone(),
            skills: parts.skills.clone(),
            agents: parts.agents.clone(),
            context_files: RwLock::new(parts.context_files),
        });
        let mut notes = telemetry_notes;
        notes.extend(parts.notes);
        let events_rx = match telemetry {
            Some(telemetry) => crate::telemetry::observe(telemetry, events_rx),
            None => events_rx,
        };
        let engine = Engine {
            agent: parts.agent,
            recorder: parts.recorder,
            hooks: parts.hooks,
            events: events_tx.clone(),
            stats: parts.stats,
            policy: parts.policy,
            ctx: parts.ctx,
            mode: parts.mode.clone(),
            info: info.clone(),
            hook_context: None,
            shell_calls: 0,
            op_id: None,
            live_model: parts.live_model,
            meter: meter.clone(),
        };
        let control = Control {
            confirmations: parts.confirmations,
            elicitations,
            questions: parts.questions,
            mode: parts.mode,
            events: events_tx,
            mcp: parts.mcp,
            background: engine.ctx.background.clone(),
            trusted,
        };
        let notices = control.events.clone();
        control.background.set_notifier(Some(Box::new(move |text| {
            notices.emit_detached(AgentEvent::Info { message: text });
        })));
        let (started_tx, started_rx) = tokio::sync::watch::channel(false);
        let late = parts.late_mcp.map(|late| {
            tokio::spawn(crate::process::OWNER.scope(
                owner,
                late.run(info.clone(), control.events.clone(), started_rx),
            ))
        });
        let (ops, ops_rx) = op_queue(&meter);
        let task = tokio::spawn(
            crate::process::OWNER
                .scope(owner, run::run(engine, control, ops_rx, (started_tx, late))),
        );
        Ok(SessionHandle {
            ops,
            events: events_rx,
            view: info,
            notes,
            task,
        })
    }
}

/// The session's op queue. A crossed limit stops what runs and ends the
/// session (waiting for room: that task reads nothing the session sends).
fn op_queue(meter: &crate::limits::Meter) -> (OpSender, mpsc::Receiver<Submission>) {
    let (tx, rx) = mpsc::channel(OP_QUEUE_CAPACITY);
    let limit_ops = tx.clone();
    meter.start(move |_| {
        tokio::spawn(async move {
            for op in [Op::Cancel, Op::Shutdown] {
                let _ = limit_ops.send(Submission::new("limit", op)).await;
            }
        });
    });
    let ids = Arc::default();
    (OpSender { tx, ids }, rx)
}

/// Starts telemetry when the settings or variables enable it (nothing is
/// set up otherwise): its warnings become start-up notes, a value Gemini
/// CLI refuses stops the start, an exporter that cannot start is a warning.
fn start_telemetry(
    config: &SessionConfig,
) -> Result<(Option<crate::telemetry::SessionTelemetry>, Vec<StartupNote>), StartError> {
    let resolved = crate::telemetry::resolve(&config.settings, &config.env)
        .map_err(|e| StartError::new(StartErrorKind::Config, "FatalConfigError", e.to_string()))?;
    let Some(resolved) = resolved else {
        return Ok((None, Vec::new()));
    };
    let warning = |text: String| StartupNote {
        text,
        warning: true,
    };
    let mut notes: Vec<StartupNote> = resolved.warnings.iter().cloned().map(warning).collect();
    match crate::telemetry::start(&resolved, &config.session_id, &config.env) {
        Ok(telemetry) => Ok((Some(telemetry), notes)),
        Err(e) => {
            notes.push(warning(format!("Telemetry is off: {e}")));
            Ok((None, notes))
        }
    }
}

/// The parts an exclusive op works on.
pub(crate) struct Engine {
    agent: Agent,
    /// The session's chat recording: flushed after each prompt (a kept
    /// trajectory), closed once the SessionEnd hooks have run.
    recorder: crate::recording::ChatRecorder,
    hooks: Option<Arc<dyn Hooks>>,
    events: EventSender,
    stats: Arc<Mutex<SessionStats>>,
    policy: Arc<PolicyEngine>,
    ctx: ToolContext,
    mode: Arc<RwLock<ApprovalMode>>,
    info: Arc<SessionView>,
    /// The SessionStart hook's context, put in front of the next prompt.
    hook_context: Option<String>,
    /// How many `!` commands ran (their call ids).
    shell_calls: u64,
    /// The id of the exclusive op that runs: stamped on the events that
    /// answer it ([`AgentEvent::stamp`]).
    op_id: Option<String>,
    /// False when a recording answers (no server to ask about `/model`).
    live_model: bool,
    /// The session's resource limits and what it used.
    meter: crate::limits::Meter,
}

/// True for the modes an untrusted folder may use (`default`, `plan`):
/// neither approves anything by itself.
pub fn mode_allowed_untrusted(mode: ApprovalMode) -> bool {
    matches!(mode, ApprovalMode::Default | ApprovalMode::Plan)
}

/// Why `mode` is refused in an untrusted folder.
pub fn untrusted_mode_refusal(mode: ApprovalMode) -> String {
    format!(
        "The {} approval mode is not available in an untrusted folder; trust the folder to use it (the mode stays as it is).",
        mode.as_str()
    )
}

impl Engine {
    /// Sends `event`, naming the running op when it is an answer to it.
    pub(crate) async fn emit(&self, mut event: AgentEvent) {
        if let Some(id) = &self.op_id {
            event.stamp(id);
        }
        self.events.emit(event).await;
    }

    async fn emit_stats(&self) {
        let usage = self.meter.usage();
        let stats = self
            .stats
            .lock()
            .map(|mut s| {
                s.peak_memory_mb = usage.peak_memory_mb;
                s.cpu_ms = usage.cpu_ms;
                s.clone()
            })
            .unwrap_or_default();
        self.emit(AgentEvent::Stats(Box::new(stats))).await;
    }

    /// SessionStart (`startup` or `resume`).
    async fn started(&mut self) {
        self.emit(AgentEvent::SessionStarted {
            session_id: self.info.summary.session_id.clone(),
            model: self.info.summary.model.clone(),
            resumed: self.info.summary.resumed,
        })
        .await;
        let source = if self.info.summary.resumed {
            "resume"
        } else {
            "startup"
        };
        self.session_start(source).await;
    }

    /// Runs SessionStart hooks: their message is shown, their context goes
    /// in front of the next prompt.
    async fn session_start(&mut self, source: &str) {
        let Some(hooks) = self.hooks.clone() else {
            return;
        };
        let start = hooks.session_start(source).await;
        if let Some(text) = start.system_message {
            self.emit(AgentEvent::HookMessage {
                kind: HookMessageKind::Info,
                text,
            })
            .await;
        }
        self.hook_context = start.additional_context;
    }

    /// SessionEnd (`exit`).
    async fn ended(&mut self) {
        if let Some(hooks) = self.hooks.clone() {
            hooks.session_end("exit").await;
        }
    }
}

impl Engine {
    /// Runs one op that needs the conversation to itself.
    async fn execute(&mut self, op: Op, cancel: CancellationToken) -> Finished {
        match op {
            Op::Prompt { parts } => {
                // Skills activated by a prompt limit its calls only.
                let active = self.policy.active_skills();
                active.clear();
                let outcome = self.prompt(parts, &cancel).await;
                active.clear();
                // A prompt's answer means its records (and trajectory)
                // are on disk.
                self.recorder.sync();
                Finished::Prompt(outcome)
            }
            Op::Compress => Finished::Compress {
                compressed: self.agent.compress_now(&cancel).await,
            },
            Op::Clear => {
                self.clear().await;
                Finished::Clear
            }
            Op::Rewind {
                back,
                conversation,
                files,
            } => self.rewind(back, conversation, files).await,
            Op::Restore { id } => {
                self.restore(&id).await;
                Finished::Command
            }
            Op::SaveChat { tag } => {
                self.save_chat(&tag).await;
                Finished::Command
            }
            Op::ShareChat { path } => {
                self.share_chat(&path).await;
                Finished::Command
            }
            Op::ResumeChat { tag } => {
                self.resume_chat(&tag).await;
                Finished::Command
            }
            Op::RefreshMemory { fact } => {
                self.refresh_memory(fact).await;
                Finished::Command
            }
            Op::SetModel { model } => {
                self.switch_model(model).await;
                Finished::Command
            }
            Op::Shell { command } => {
                self.shell(command, &cancel).await;
                Finished::Command
            }
            Op::AddDirectories { paths } => {
                self.add_directories(&paths).await;
                Finished::Command
            }
            Op::McpAuth { server } => {
                self.mcp_auth(&server, &cancel).await;
                Finished::Command
            }
            Op::AcknowledgeAgents => {
                self.acknowledge_agents().await;
                Finished::Command
            }
            Op::RunTool {
                call_id,
                name,
                args,
            } => {
                let request = crate::scheduler::ToolCallRequest {
                    call_id: call_id.clone(),
                    name,
                    args,
                };
                match self.agent.run_tool(request, &cancel).await {
                    Some(done) => Finished::Tool {
                        call_id,
                        status: done.status,
                        result: Box::new(done.result),
                    },
                    None => Finished::Command,
                }
            }
            // Handled by the task before an op gets here.
            Op::Confirm(_)
            | Op::AnswerElicitation { .. }
            | Op::AnswerQuestions { .. }
            | Op::Cancel
            | Op::SetApprovalMode { .. }
            | Op::StopBackgroundProcess { .. }
            | Op::Shutdown => Finished::Command,
        }
    }
}
