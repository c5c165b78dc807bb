//! MCP servers the terminal UI does not wait for: they connect while the
//! user types, and the registry is built again as each one arrives, so the
//! next model request declares its tools. The registry is built again too
//! whenever a connected server's tool list changes.

use super::custom_commands::{self, CustomCommand};
use super::tool_set::RegistryRecipe;
use super::view::SessionView;
use crate::events::{AgentEvent, EventSender};
use crate::policy::PolicyEngine;
use crate::tools::LiveRegistry;
use crate::tools::mcp::McpManager;
use std::sync::Arc;
use tokio::sync::watch;

/// The servers still to connect and what taking them in needs.
pub(super) struct LateMcp {
    pub mcp: Arc<McpManager>,
    pub recipe: RegistryRecipe,
    pub live: LiveRegistry,
    pub policy: Arc<PolicyEngine>,
}

impl LateMcp {
    /// Connects every waiting server at once. As each connects the
    /// registry is built again over the servers connected so far and its
    /// prompts become slash commands; a
    /// failure is reported as a warning. Either way the servers' state is
    /// reported (`McpServersChanged`), never before `started` turns true
    /// (the session's first event comes first).
    pub async fn run(
        self,
        view: Arc<SessionView>,
        events: EventSender,
        started: watch::Receiver<bool>,
    ) {
        let mut changes = self.mcp.changes();
        let names = self.mcp.connecting();
        let this = &self;
        let arrivals = names.iter().map(|name| {
            let mut started = started.clone();
            let events = events.clone();
            let view = view.clone();
            async move {
                let failure = this.mcp.connect(name).await;
                let prompts = match failure {
                    None => this.prompts_of(name).await,
                    Some(_) => Vec::new(),
                };
                // A dropped sender means the session is ending; report anyway.
                let _ = started.wait_for(|s| *s).await;
                // Synchronous from here: the futures run on one task, so two
                // arrivals never interleave their rebuilds.
                match failure {
                    None => {
                        this.rebuild();
                        view.add_commands(prompts);
                    }
                    Some(message) => {
                        events.emit(AgentEvent::Warning { message }).await;
                    }
                }
                events
                    .emit(AgentEvent::McpServersChanged {
                        servers: view.mcp_servers(),
                    })
                    .await;
            }
        });
        futures::future::join_all(arrivals).await;
        // A server's tool list changed (`tools/list_changed`, on a 2026
        // server's listen stream): the next request declares the new list.
        while changes.changed().await.is_ok() {
            self.rebuild();
        }
    }

    /// The prompts of the server `name`, just connected, as slash commands.
    async fn prompts_of(&self, name: &str) -> Vec<CustomCommand> {
        match self
            .mcp
            .connections()
            .into_iter()
            .find(|c| c.name() == name)
        {
            Some(conn) => custom_commands::connection_prompt_commands(&conn).await,
            None => Vec::new(),
        }
    }

    /// The registry over the servers connected now, in place for the next
    /// request.
    fn rebuild(&self) {
        let registry = self.recipe.build(&self.policy, Some(&self.mcp));
        self.live.replace(Arc::new(registry));
    }
}
