//! The MCP client side (§6): connects the configured servers concurrently,
//! turns their tools into registry tools with Gemini CLI's naming, and
//! supplies the policy rules that trust and `mcp.allowed`/`mcp.excluded`
//! imply. The client itself (connections, transports, OAuth, resources,
//! prompts, elicitation) is the `gemini-rs-mcp` crate, re-exported here;
//! [`host`] gives it what it needs of the engine.

pub use gemini_rs_mcp::{client, convert, elicitation, error, handler, naming, oauth, resources};
pub mod config;
mod host;
pub mod server_enablement;
pub mod tool;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_http;
#[cfg(test)]
mod tests_peer;
#[cfg(test)]
mod tests_pysdk;
#[cfg(test)]
mod tests_restart;

pub use client::McpConnection;
pub use config::{McpServerConfig, ServerFilter, TransportSpec};
pub use error::{ConnectError, PromptError};
pub use handler::{file_uri, file_uri_path};
pub use host::{host, sandboxed};
pub use naming::{generate_valid_name, qualified_name};
pub use tool::McpTool;

use crate::config::Settings;
use crate::policy::{Decision, PolicyRule, priority};
use crate::tools::Tool;
use gemini_rs_mcp::Host;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use tokio::sync::watch;

/// All MCP connections of a session.
pub struct McpManager {
    configs: Vec<McpServerConfig>,
    filter: ServerFilter,
    project_trusted: bool,
    host: Host,
    /// The sandbox's host and the (workspace) servers that start with it.
    sandboxed: Option<(Host, HashSet<String>)>,
    /// Connected servers, in settings order.
    connections: RwLock<Vec<Arc<McpConnection>>>,
    failures: RwLock<Vec<String>>,
    /// Servers permitted to start and not connected or failed yet.
    connecting: RwLock<Vec<McpServerConfig>>,
    changed: Arc<watch::Sender<u64>>,
    built: Mutex<Vec<Arc<McpTool>>>,
    elicitor: elicitation::ElicitorSlot,
    roots: handler::SharedRoots,
}

impl McpManager {
    #[cfg(test)]
    /// Connects every permitted server (the settings' `mcpServers`, then
    /// those of extensions, see [`crate::extensions`]) concurrently, each within its own
    /// timeout. A server that fails is left out and reported in
    /// [`McpManager::failures`]; the others keep working. Nothing is
    /// started when `admin.mcp.enabled` is false or the folder is not
    /// trusted.
    pub async fn start(
        settings: &Settings,
        workspace_dirs: &[PathBuf],
        allowed_server_names: &[String],
        project_trusted: bool,
    ) -> McpManager {
        Self::start_with(
            settings,
            host(
                &crate::config::GeminiPaths::from_env(),
                &crate::config::Env::from_process(),
            ),
            config::configured_servers(settings),
            None,
            workspace_dirs,
            allowed_server_names,
            project_trusted,
        )
        .await
    }

    /// As [`McpManager::start`], for the servers `configs` (the settings'
    /// and the extensions' servers, see [`crate::extensions::all_servers`], and a
    /// front end's own); the servers `sandboxed` names start with its host.
    #[cfg(test)]
    pub async fn start_with(
        settings: &Settings,
        host: Host,
        configs: Vec<McpServerConfig>,
        sandboxed: Option<(Host, HashSet<String>)>,
        workspace_dirs: &[PathBuf],
        allowed_server_names: &[String],
        project_trusted: bool,
    ) -> McpManager {
        let mgr = Self::new(
            settings,
            host,
            configs,
            sandboxed,
            workspace_dirs,
            allowed_server_names,
            project_trusted,
        );
        mgr.connect_all().await;
        mgr
    }

    /// A manager with nothing connected yet: the servers permitted to start
    /// wait in [`McpManager::connecting`] until [`McpManager::connect`]
    /// (or [`McpManager::connect_all`]) takes them.
    pub fn new(
        settings: &Settings,
        host: Host,
        configs: Vec<McpServerConfig>,
        sandboxed: Option<(Host, HashSet<String>)>,
        workspace_dirs: &[PathBuf],
        allowed_server_names: &[String],
        project_trusted: bool,
    ) -> McpManager {
        let filter =
            ServerFilter::new(settings, allowed_server_names).with_enablement(&host.gemini_dir);
        let (tx, _rx) = watch::channel(0u64);
        let roots: handler::SharedRoots =
            Arc::new(std::sync::RwLock::new(handler::roots_for(workspace_dirs)));
        let to_start: Vec<McpServerConfig> = if project_trusted && config::mcp_enabled(settings) {
            configs
                .iter()
                .filter(|c| filter.permits(&c.name))
                .cloned()
                .map(with_traceparent)
                .collect()
        } else {
            Vec::new()
        };
        McpManager {
            configs,
            filter,
            project_trusted,
            host,
            sandboxed,
            connections: RwLock::new(Vec::new()),
            failures: RwLock::new(Vec::new()),
            connecting: RwLock::new(to_start),
            changed: Arc::new(tx),
            built: Mutex::new(Vec::new()),
            elicitor: elicitation::ElicitorSlot::default(),
            roots,
        }
    }

    /// Connects every server still waiting, all at once, each within its
    /// own timeout; returns when all have connected or failed.
    pub async fn connect_all(&self) {
        let names: Vec<String> = self.connecting().into_iter().collect();
        futures::future::join_all(names.iter().map(|n| self.connect(n))).await;
    }

    /// Connects the waiting server `name` (within its timeout). It joins
    /// [`McpManager::connections`] in settings order, or a failure is
    /// recorded in [`McpManager::failures`]; the others keep working.
    /// Returns that failure's message, `None` when it connected (or was
    /// not waiting).
    pub async fn connect(&self, name: &str) -> Option<String> {
        let cfg = read(&self.connecting)
            .iter()
            .find(|c| c.name == name)
            .cloned()?;
        // A workspace server starts inside the sandbox, when one is on.
        let host = match &self.sandboxed {
            Some((inside, names)) if names.contains(name) => inside.clone(),
            _ => self.host.clone(),
        };
        let handle = tokio::spawn(McpConnection::connect(
            host,
            cfg,
            self.roots.clone(),
            self.changed.clone(),
            self.elicitor.clone(),
        ));
        let result = match handle.await {
            Ok(r) => r,
            Err(e) => Err(ConnectError::from(e)),
        };
        let mut failure = None;
        match result {
            Ok(conn) => {
                let order = |n: &str| self.configs.iter().position(|c| c.name == n);
                let mut conns = write(&self.connections);
                let at = conns
                    .iter()
                    .position(|c| order(c.name()) > order(name))
                    .unwrap_or(conns.len());
                conns.insert(at, Arc::new(conn));
            }
            Err(reason) => {
                tracing::warn!(server = %name, "MCP server failed to start: {reason}");
                let message = format!("Error connecting to MCP server '{name}': {reason}");
                write(&self.failures).push(message.clone());
                failure = Some(message);
            }
        }
        write(&self.connecting).retain(|c| c.name != name);
        failure
    }

    /// The servers still connecting, in settings order.
    pub fn connecting(&self) -> Vec<String> {
        read(&self.connecting)
            .iter()
            .map(|c| c.name.clone())
            .collect()
    }
    /// Offers `dirs` as the roots from now on and tells every connected
    /// server (`notifications/roots/list_changed`).
    pub async fn set_roots(&self, dirs: &[PathBuf]) {
        if let Ok(mut roots) = self.roots.write() {
            *roots = handler::roots_for(dirs);
        }
        for conn in self.connections() {
            if let Some(peer) = conn.peer()
                && let Err(e) = peer.notify_roots_list_changed().await
            {
                tracing::debug!(server = %conn.name(), "roots/list_changed not sent: {e}");
            }
        }
    }

    /// Sets who answers the servers' `elicitation/create` requests.
    pub fn set_elicitor(&self, elicitor: elicitation::Elicitor) {
        if let Ok(mut slot) = self.elicitor.write() {
            *slot = Some(elicitor);
        }
    }

    /// The configuration of the server `name` (connected or not).
    pub fn config(&self, name: &str) -> Option<McpServerConfig> {
        self.configs.iter().find(|c| c.name == name).cloned()
    }

    /// One human-readable message per server that could not be started.
    pub fn failures(&self) -> Vec<String> {
        read(&self.failures).clone()
    }

    /// The live connections, in settings order.
    pub fn connections(&self) -> Vec<Arc<McpConnection>> {
        read(&self.connections).clone()
    }

    /// Ticks whenever a server's tool list changed (`tools/list_changed`).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// The registry tools, servers in settings order, each server's tools
    /// in its own order, after `includeTools`/`excludeTools`. A tool keeps
    /// `generateValidName(<tool>)` unless `already_registered` says that name
    /// is taken or an earlier MCP tool took it; then it is
    /// `<server>__<validName>`.
    pub fn tools(&self, already_registered: &dyn Fn(&str) -> bool) -> Vec<Arc<dyn Tool>> {
        let mut taken: HashSet<String> = HashSet::new();
        let mut built: Vec<Arc<McpTool>> = Vec::new();
        for conn in self.connections() {
            let trusted = conn.config.trust && self.project_trusted;
            for t in conn.tools() {
                if !conn.config.tool_enabled(&t.name) {
                    continue;
                }
                let valid = generate_valid_name(&t.name);
                let name = if already_registered(&valid) || taken.contains(&valid) {
                    qualified_name(conn.name(), &t.name)
                } else {
                    valid
                };
                taken.insert(name.clone());
                let annotations = t
                    .annotations
                    .as_ref()
                    .and_then(|a| serde_json::to_value(a).ok())
                    .and_then(|v| match v {
                        Value::Object(map) => Some(map),
                        _ => None,
                    })
                    .unwrap_or_default();
                built.push(Arc::new(
                    McpTool::new(
                        conn.clone(),
                        name,
                        &t.name,
                        t.description.as_deref(),
                        Some(t.input_schema.as_ref()),
                        trusted,
                    )
                    .with_annotations(annotations),
                ));
            }
        }
        if let Ok(mut guard) = self.built.lock() {
            *guard = built.clone();
        }
        built.into_iter().map(|t| t as Arc<dyn Tool>).collect()
    }

    /// The annotations of the tools of the last [`McpManager::tools`], by
    /// policy name, for policy rules with `toolAnnotations`.
    pub fn tool_annotations(&self) -> Vec<(String, Map<String, Value>)> {
        let Ok(built) = self.built.lock() else {
            return Vec::new();
        };
        built
            .iter()
            .map(|t| (t.policy_name(), t.annotations().clone()))
            .collect()
    }

    #[cfg(test)]
    fn find_qualified(&self, name: &str) -> Option<Arc<McpTool>> {
        if !name.contains("__") {
            return None;
        }
        let built = self.built.lock().ok()?;
        built.iter().find(|t| t.qualified_name() == name).cloned()
    }

    #[cfg(test)]
    /// §5.3's fallback: the MCP tool (from the last [`McpManager::tools`])
    /// whose `<server>__<validName>` is `name`.
    pub fn qualified_lookup(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.find_qualified(name).map(|t| t as Arc<dyn Tool>)
    }

    #[cfg(test)]
    /// The registry name of the tool [`McpManager::qualified_lookup`] finds,
    /// so the registry can use its own entry (and compiled schema).
    pub fn qualified_lookup_name(&self, name: &str) -> Option<String> {
        self.find_qualified(name).map(|t| t.name().to_string())
    }

    /// For the last [`McpManager::tools`]: `(qualified, registry name)` for
    /// every tool whose `<server>__<validName>` differs from its registry
    /// name, i.e. the aliases §5.3's `getTool` fallback accepts.
    pub fn qualified_aliases(&self) -> Vec<(String, String)> {
        let Ok(built) = self.built.lock() else {
            return Vec::new();
        };
        built
            .iter()
            .map(|t| (t.qualified_name(), t.name().to_string()))
            .filter(|(q, n)| q != n)
            .collect()
    }

    /// For the last [`McpManager::tools`]: `(mcp_<server>_<tool>, registry
    /// name)` for every tool, the form later Gemini CLI releases use,
    /// accepted on lookup. A form that is itself some tool's registry name
    /// is left out (that tool wins).
    pub fn mcp_prefixed_aliases(&self) -> Vec<(String, String)> {
        let Ok(built) = self.built.lock() else {
            return Vec::new();
        };
        let names: HashSet<&str> = built.iter().map(|t| t.name()).collect();
        built
            .iter()
            .map(|t| (t.mcp_prefixed_name(), t.name().to_string()))
            .filter(|(alias, _)| !names.contains(alias.as_str()))
            .collect()
    }

    #[cfg(test)]
    /// For the last [`McpManager::tools`]: `(registry name, policy name)`.
    pub fn policy_names(&self) -> Vec<(String, String)> {
        let Ok(built) = self.built.lock() else {
            return Vec::new();
        };
        built
            .iter()
            .map(|t| (t.name().to_string(), t.policy_name()))
            .collect()
    }

    #[cfg(test)]
    /// `<server>__<original tool name>` for a registry name of an MCP tool.
    pub fn policy_name_of(&self, registry_name: &str) -> Option<String> {
        let built = self.built.lock().ok()?;
        built
            .iter()
            .find(|t| t.name() == registry_name)
            .map(|t| t.policy_name())
    }

    /// The settings-derived MCP policy rules (§8): trusted server ALLOW
    /// `<server>__*` at 2.2, `mcp.allowed` ALLOW at 2.1, `mcp.excluded`
    /// DENY at 2.9. They match policy names of the form
    /// `<server>__<original tool name>`.
    pub fn policy_rules(&self) -> Vec<PolicyRule> {
        let mut rules = Vec::new();
        if self.project_trusted {
            for c in self.configs.iter().filter(|c| c.trust) {
                rules.push(
                    PolicyRule::tool(
                        &format!("{}__*", c.name),
                        Decision::Allow,
                        priority::TRUSTED_MCP_SERVER,
                    )
                    .sourced("Settings (MCP Trusted)"),
                );
            }
        }
        for a in &self.filter.allowed {
            rules.push(
                PolicyRule::tool(&format!("{a}__*"), Decision::Allow, priority::MCP_ALLOWED)
                    .sourced("Settings (MCP Allowed)"),
            );
        }
        for e in &self.filter.excluded {
            rules.push(
                PolicyRule::tool(&format!("{e}__*"), Decision::Deny, priority::MCP_EXCLUDED)
                    .sourced("Settings (MCP Excluded)"),
            );
        }
        rules
    }

    /// Connects one server (within `limit` or its own timeout, whichever
    /// is shorter), lists its tools and disconnects: `gemini-rs mcp list`.
    /// The error is the reason the connection failed.
    pub async fn probe(
        host: Host,
        config: McpServerConfig,
        workspace_dirs: &[PathBuf],
        limit: std::time::Duration,
    ) -> Result<Vec<String>, ConnectError> {
        let mut config = config;
        let limit = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        config.connect_timeout_ms = config.connect_timeout_ms.min(limit).max(1);
        let (tx, _rx) = watch::channel(0u64);
        let roots = Arc::new(std::sync::RwLock::new(handler::roots_for(workspace_dirs)));
        let conn =
            McpConnection::connect(host, config, roots, Arc::new(tx), Default::default()).await?;
        let names = conn
            .tools()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        conn.shutdown().await;
        Ok(names)
    }

    /// Closes every connection (stdio servers are stopped).
    pub async fn shutdown(&self) {
        let conns = self.connections();
        futures::future::join_all(conns.iter().map(|c| c.shutdown())).await;
    }
}

impl McpManager {
    /// The connection and URI an `@server:uri` reference names: the server
    /// must be connected and list that resource.
    pub fn find_resource(&self, reference: &str) -> Option<(Arc<McpConnection>, String)> {
        let (server, uri) = reference.split_once(':')?;
        let conn = self
            .connections()
            .into_iter()
            .find(|c| c.name() == server)?;
        let list = conn.resources();
        let listed = list.resources.iter().any(|(u, _, _)| u == uri);
        let templated = list
            .templates
            .iter()
            .any(|(t, _)| resources::template_matches(t, uri));
        (listed || templated).then(|| (conn.clone(), uri.to_string()))
    }

    /// Every listed resource as `server:uri` with its name (completion).
    pub fn resource_references(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for conn in self.connections() {
            let list = conn.resources();
            for (uri, name, _) in &list.resources {
                out.push((format!("{}:{uri}", conn.name()), name.clone()));
            }
            for (template, name) in &list.templates {
                out.push((format!("{}:{template}", conn.name()), name.clone()));
            }
        }
        out
    }
}

/// With telemetry on, a stdio server's process gets the session span's
/// `TRACEPARENT` (unless its configuration sets one).
fn with_traceparent(mut config: McpServerConfig) -> McpServerConfig {
    if let TransportSpec::Stdio { env, .. } = &mut config.transport
        && let Some(traceparent) = crate::telemetry::session_traceparent()
    {
        env.entry("TRACEPARENT".to_string()).or_insert(traceparent);
    }
    config
}

/// The value behind `lock`, also when a panicking writer poisoned it.
fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// As [`read`], for writing.
fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
