//! `mcp list` and `mcp auth`: the configured servers (settings, then
//! extensions) probed with a real connection, and logging in to one. They
//! cost the servers' connections and nothing more: no session, no hooks,
//! no context files.

use crate::extensions::merge_servers;
use crate::startup::Startup;
use crate::tools::mcp::client::{login as oauth_login, server_url};
use crate::tools::mcp::{
    McpManager, McpServerConfig, TransportSpec, config, oauth, server_enablement,
};
use gemini_rs_mcp::Host;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

/// How long `mcp list` waits for one server.
const PROBE_LIMIT: Duration = Duration::from_secs(10);

/// What a probe of one server found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerProbe {
    /// It connected; its tools.
    Connected(Vec<String>),
    /// It asks for an OAuth login first.
    NeedsAuthentication,
    /// It could not be used: why.
    Disconnected(String),
    /// `mcp disable` switched it off (not probed).
    Disabled,
}

/// One configured server, as `mcp list` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerListing {
    /// The name under `mcpServers`.
    pub name: String,
    /// The extension it comes from, when not from settings.
    pub extension: Option<String>,
    /// `<command args> (stdio)`, `<url> (http)`, `<url> (sse)`.
    pub transport: String,
    /// What the probe found.
    pub probe: ServerProbe,
}

/// Why `mcp auth` could not log in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpAuthError {
    /// No server of that name.
    #[error("no MCP server named '{0}' is configured.")]
    UnknownServer(String),
    /// A stdio server has nothing to log in to.
    #[error("'{0}' is a stdio server; only HTTP and SSE servers log in.")]
    Stdio(String),
    /// Forgetting the tokens failed.
    #[error("{0}")]
    Logout(String),
    /// The login failed.
    #[error("MCP server '{server}' {message}")]
    Login {
        /// The server.
        server: String,
        /// What went wrong.
        message: String,
    },
}

/// Every configured server (settings, then extensions), in order.
fn servers(startup: &Startup) -> Vec<McpServerConfig> {
    merge_servers(
        config::configured_servers(&startup.settings),
        &startup.extensions,
    )
}

/// What `mcp list` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerList {
    /// Every configured server, in order.
    pub servers: Vec<ServerListing>,
    /// What the sandbox moved aside: `.env`, `.gemini` or `.git` a
    /// sandboxed server created where none was (one line each).
    pub refused: Vec<String>,
}

/// Probes every configured server concurrently (each within 10 s).
pub async fn list_servers(startup: &Startup) -> ServerList {
    let servers = servers(startup);
    let in_settings = |name: &str| startup.settings.typed().mcp_servers.contains_key(name);
    let from_extension = |name: &str| {
        startup
            .extensions
            .iter()
            .find(|e| e.servers.iter().any(|s| s.name == name))
            .map(|e| e.name.clone())
            .filter(|_| !in_settings(name))
    };
    let dirs = [startup.root.clone()];
    let host = crate::tools::mcp::host(&startup.paths, &startup.env);
    let sandboxed = sandboxed_host(startup, &host);
    let disabled = server_enablement::disabled(&startup.paths.gemini_dir);
    let is_disabled =
        |c: &McpServerConfig| disabled.contains(&server_enablement::normalize(&c.name));
    let probes = servers.iter().map(|c| {
        // A server the workspace declared runs in the sandbox, as in a
        // session; without a sandbox that works, it does not run at all.
        let host = match &sandboxed {
            Some(s) if s.names.contains(&c.name) => s.host.clone(),
            _ => Ok(host.clone()),
        };
        let disabled = is_disabled(c);
        let (config, dirs) = (c.clone(), &dirs);
        async move {
            if disabled {
                return ServerProbe::Disabled;
            }
            let host = match host {
                Ok(host) => host,
                Err(why) => return ServerProbe::Disconnected(why.to_string()),
            };
            match McpManager::probe(host, config, dirs, PROBE_LIMIT).await {
                Ok(tools) => ServerProbe::Connected(tools),
                Err(e) if e.needs_authentication() => ServerProbe::NeedsAuthentication,
                Err(e) => ServerProbe::Disconnected(e.to_string()),
            }
        }
    });
    let results = futures::future::join_all(probes).await;
    // As after each command in a session: what a sandboxed server created
    // where the sandbox cannot mount is moved aside.
    let refused = sandboxed
        .and_then(|s| s.prepared)
        .map(|p| p.refuse_created().iter().map(ToString::to_string).collect())
        .unwrap_or_default();
    let servers = servers
        .iter()
        .zip(results)
        .map(|(server, probe)| ServerListing {
            name: server.name.clone(),
            extension: from_extension(&server.name),
            transport: describe(server),
            probe,
        })
        .collect();
    ServerList { servers, refused }
}

/// `mcp list` in a folder that is not trusted, as Gemini CLI 0.61 lists
/// it: every server the user's and the folder's settings (and the user's
/// extensions) declare, all disabled, none started. The folder's settings
/// are read for their names only.
pub fn list_untrusted(startup: &Startup) -> Result<Vec<ServerListing>, crate::ConfigError> {
    let raw = |k: &str| startup.env.raw(k);
    let with_project =
        crate::config::Settings::load(&startup.root, &startup.paths, true, &raw)?.settings;
    let servers = merge_servers(
        config::configured_servers(&with_project),
        &startup.extensions,
    );
    let in_settings = |name: &str| with_project.typed().mcp_servers.contains_key(name);
    Ok(servers
        .iter()
        .map(|server| ServerListing {
            name: server.name.clone(),
            extension: startup
                .extensions
                .iter()
                .find(|e| e.servers.iter().any(|s| s.name == server.name))
                .map(|e| e.name.clone())
                .filter(|_| !in_settings(&server.name)),
            transport: describe(server),
            probe: ServerProbe::Disabled,
        })
        .collect())
}

/// With the sandbox on: the servers the workspace declared, and the host
/// that starts them inside it (or why the sandbox cannot be set up).
struct SandboxedServers {
    names: HashSet<String>,
    host: Result<Host, SandboxUnavailable>,
    prepared: Option<Arc<crate::sandbox::PreparedSandbox>>,
}

/// Why a server the workspace declared does not run: no sandbox for it.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the sandbox cannot start it: {0}")]
struct SandboxUnavailable(crate::sandbox::SandboxError);

/// The [`SandboxedServers`] when the sandbox is on (`GEMINI_SANDBOX`,
/// `tools.sandbox`).
fn sandboxed_host(startup: &Startup, host: &Host) -> Option<SandboxedServers> {
    let env = |k: &str| startup.env.raw(k);
    let writable = vec![startup.root.clone()];
    let prepared = match crate::sandbox::from_settings(&startup.settings, None, &env, writable) {
        Ok(None) => return None,
        Ok(Some(policy)) => policy.prepare(),
        Err(e) => Err(e),
    };
    let names = crate::session::tool_set::workspace_servers(
        &startup.settings,
        &startup.extensions,
        &startup.root,
    );
    let prepared = prepared.map(Arc::new);
    let host = prepared
        .as_ref()
        .map(|s| crate::tools::mcp::sandboxed(host, s.clone()))
        .map_err(|e| SandboxUnavailable(e.clone()));
    Some(SandboxedServers {
        names,
        host,
        prepared: prepared.ok(),
    })
}

/// Why `mcp enable|disable` could not switch a server.
#[derive(Debug, thiserror::Error)]
pub enum McpSwitchError {
    /// No server of that name (settings or extensions).
    #[error("Server '{0}' not found. `gemini-rs mcp list` shows the configured servers.")]
    UnknownServer(String),
    /// The enablement file could not be written.
    #[error("cannot write {file}: {source}")]
    Write {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
}

/// Switches server `name` on or off for every folder in Gemini CLI's
/// `~/.gemini/mcp-server-enablement.json`; whether anything changed.
pub fn set_server_enabled(startup: &Startup, name: &str, on: bool) -> Result<bool, McpSwitchError> {
    let wanted = server_enablement::normalize(name);
    if !servers(startup)
        .iter()
        .any(|c| server_enablement::normalize(&c.name) == wanted)
    {
        return Err(McpSwitchError::UnknownServer(name.to_string()));
    }
    let dir = &startup.paths.gemini_dir;
    server_enablement::set_enabled(dir, name, on).map_err(|source| McpSwitchError::Write {
        file: dir.join("mcp-server-enablement.json").display().to_string(),
        source,
    })
}

/// `<command args> (stdio)`, `<url> (http)`, `<url> (sse)`.
fn describe(c: &McpServerConfig) -> String {
    match &c.transport {
        TransportSpec::Stdio { command, args, .. } => {
            format!("{command} {} (stdio)", args.join(" "))
        }
        TransportSpec::Http(url) | TransportSpec::HttpThenSse(url) => format!("{url} (http)"),
        TransportSpec::Sse(url) => format!("{url} (sse)"),
        TransportSpec::Invalid => "(invalid configuration)".to_string(),
    }
}

/// An HTTP or SSE server that can log in.
#[derive(Clone)]
pub struct OAuthServer(McpServerConfig, Host);

/// The HTTP or SSE server `name` of the start-up's configuration.
pub fn oauth_server(startup: &Startup, name: &str) -> Result<OAuthServer, McpAuthError> {
    let server = servers(startup)
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| McpAuthError::UnknownServer(name.to_string()))?;
    if server_url(&server).is_none() {
        return Err(McpAuthError::Stdio(name.to_string()));
    }
    Ok(OAuthServer(
        server,
        crate::tools::mcp::host(&startup.paths, &startup.env),
    ))
}

impl OAuthServer {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// Logs in (the authorization URL goes to `show_url` when no browser
    /// opens), keeping the tokens where both CLIs find them.
    pub async fn login(&self, show_url: &(dyn Fn(&str) + Sync)) -> Result<(), McpAuthError> {
        oauth_login(&self.1, &self.0, "", Some(show_url))
            .await
            .map_err(|e| McpAuthError::Login {
                server: self.0.name.clone(),
                message: text(e),
            })
    }

    /// Forgets its tokens.
    pub async fn logout(&self) -> Result<(), McpAuthError> {
        let url = server_url(&self.0).unwrap_or_default().to_string();
        oauth::logout(&self.1, &self.0.name, &url)
            .await
            .map_err(|e| McpAuthError::Logout(text(e)))
    }
}

/// The message of an error of the MCP client, whatever its type.
fn text(e: impl std::fmt::Display) -> String {
    e.to_string()
}
