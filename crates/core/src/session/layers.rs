//! The layers every agent of a session runs on: the model client and what
//! a tool call goes through (policy, hooks, approval mode, confirmations,
//! stats, checkpoints). The session's own agent and each sub-agent run are
//! built from the same [`SharedLayers`], so there is one wiring of the
//! engine.

use crate::agent::{Agent, AgentConfig, AgentExtras};
use crate::checkpoint::Checkpointer;
use crate::events::EventSender;
use crate::events::stats::SessionStats;
use crate::hooks::{Hooks, NoHooks};
use crate::model::ContentGenerator;
use crate::model::provider::ContextWindows;
use crate::policy::{ApprovalMode, PolicyEngine};
use crate::recording::Recording;
use crate::scheduler::{Scheduler, SchedulerParts, SharedConfirmations};
use crate::tools::{LiveRegistry, ToolContext};
use crate::workspace::Workspace;
use gemini_rs_protocol::Content;
use std::sync::{Arc, Mutex, RwLock};

/// What every agent of a session shares.
#[derive(Clone)]
pub(super) struct SharedLayers {
    pub generator: Arc<dyn ContentGenerator>,
    pub policy: Arc<PolicyEngine>,
    pub hooks: Option<Arc<dyn Hooks>>,
    pub mode: Arc<RwLock<ApprovalMode>>,
    /// Whether the folder is trusted ("always" on an edit may then switch
    /// the mode to auto_edit).
    pub trusted: bool,
    pub confirmations: SharedConfirmations,
    pub stats: Arc<Mutex<SessionStats>>,
    pub checkpointer: Option<Checkpointer>,
    pub workspace: Arc<Workspace>,
    pub context_windows: ContextWindows,
    pub compression_threshold: f64,
    pub pricing: Arc<crate::model::prices::Pricing>,
}

/// What makes one agent different from another on the same layers.
pub(super) struct AgentSeed {
    /// Its tools.
    pub registry: LiveRegistry,
    /// Its tool context (model, sub-agent runner, client file system).
    pub ctx: ToolContext,
    /// Its model, prompt and limits.
    pub config: AgentConfig,
    /// The conversation it starts from.
    pub history: Vec<Content>,
    /// Where it and its scheduler report.
    pub events: EventSender,
    /// Its side of the chat recording (the session's agent only).
    pub recorder: Option<Recording>,
}

impl SharedLayers {
    /// An agent on these layers, with a scheduler of its own.
    pub fn agent(&self, seed: AgentSeed) -> Agent {
        let scheduler = Scheduler::new(SchedulerParts {
            registry: seed.registry,
            policy: self.policy.clone(),
            hooks: self.hooks.clone().unwrap_or_else(|| Arc::new(NoHooks)),
            ctx: seed.ctx,
            mode: self.mode.clone(),
            trusted: self.trusted,
            events: seed.events.clone(),
            confirmations: self.confirmations.clone(),
            stats: self.stats.clone(),
            checkpointer: self.checkpointer.clone(),
        });
        Agent::new(
            self.generator.clone(),
            scheduler,
            seed.config,
            seed.history,
            seed.events,
            self.stats.clone(),
        )
        .with_pricing(self.pricing.clone())
        .with_extras(AgentExtras {
            hooks: self.hooks.clone(),
            recorder: seed.recorder,
        })
    }
}
