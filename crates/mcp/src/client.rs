//! One connection to one MCP server: transport selection (§6.2), the
//! login when the server asks for it, tool listing and calls.
// rmcp marks roots deprecated (SEP-2577); Gemini CLI v0.27.4 offers them.
#![allow(deprecated)]

use super::config::{McpServerConfig, TransportSpec};
use super::convert::transport_error_response;
use super::error::{ConnectError, McpLoginError, service_error_text};
use super::handler::Handler;
use super::line_guard::Overflow;
use super::sse::SseClientTransport;
use super::stdio::StdioTransport;
use crate::host::Host;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use rmcp::model::{CallToolRequestParams, Tool as RmcpTool};
use rmcp::service::ClientServiceExt;
use rmcp::service::{RunningService, ServiceError};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use tokio::io::AsyncBufReadExt;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// The outcome of one `tools/call`.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// The raw result object, or `{"error":{"message",isError:true}}` for a
    /// transport or protocol failure.
    Response(Value),
    /// Cancelled by the caller (`notifications/cancelled` was sent).
    Aborted,
}

/// A live connection. A server that died (its transport closed) is
/// reconnected on the next call; see [`McpConnection::call_tool`].
pub struct McpConnection {
    /// The server's configuration.
    pub config: McpServerConfig,
    peer: RwLock<Peer<RoleClient>>,
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    tools: Arc<RwLock<Vec<RmcpTool>>>,
    resources: Arc<RwLock<super::resources::ResourceList>>,
    handler: Handler,
    generation: AtomicU64,
    shut_down: AtomicBool,
}

fn header_map(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HeaderMap, ConnectError> {
    let mut map = HeaderMap::new();
    for (k, v) in headers {
        let name = HeaderName::try_from(k.as_str()).map_err(|source| ConnectError::HeaderName {
            name: k.clone(),
            source,
        })?;
        let value =
            HeaderValue::try_from(v.as_str()).map_err(|source| ConnectError::HeaderValue {
                name: k.clone(),
                source,
            })?;
        map.insert(name, value);
    }
    Ok(map)
}

/// The HTTP client for `handler`'s server.
fn http(handler: &Handler) -> Result<reqwest::Client, ConnectError> {
    handler.host.http_client().map_err(ConnectError::Client)
}

async fn serve_http(
    handler: Handler,
    server: &McpServerConfig,
    url: &str,
    headers: &HeaderMap,
) -> Result<RunningService<RoleClient, Handler>, ConnectError> {
    let custom: HashMap<HeaderName, HeaderValue> = headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    if headers.contains_key(reqwest::header::AUTHORIZATION) {
        // The user's own credentials: no OAuth.
        let transport = StreamableHttpClientTransport::with_client(http(&handler)?, config);
        return modern(handler, transport).await;
    }
    let slot = handler.challenges.clone();
    if !super::oauth::has_tokens(&handler.host, &server.name, url) {
        // Nothing to send yet: a plain client that notes a challenge.
        let client = super::oauth::recorder::ChallengeRecorder::new(http(&handler)?, slot);
        let transport = StreamableHttpClientTransport::with_client(client, config);
        return modern(handler, transport).await;
    }
    let client = super::oauth::client(
        &handler.host,
        &server.name,
        url,
        &server.oauth,
        http(&handler)?,
        slot,
    )
    .await?;
    let transport = StreamableHttpClientTransport::with_client(client, config);
    modern(handler, transport).await
}

/// Opens `transport` as [`super::era`] says: `server/discover` first,
/// `initialize` when the server does not know it.
async fn modern<T>(
    handler: Handler,
    transport: T,
) -> Result<RunningService<RoleClient, Handler>, ConnectError>
where
    T: rmcp::transport::Transport<RoleClient> + 'static,
{
    let probe = super::era::EraProbe::new(transport);
    Ok(handler
        .serve_with_lifecycle(probe, super::era::lifecycle())
        .await?)
}

async fn serve_sse(
    handler: Handler,
    server: &McpServerConfig,
    url: &str,
    headers: &HeaderMap,
) -> Result<RunningService<RoleClient, Handler>, ConnectError> {
    let mut headers = headers.clone();
    if !headers.contains_key(reqwest::header::AUTHORIZATION)
        && let Some(token) =
            super::oauth::stored_token(&handler.host, &server.name, url, &server.oauth).await
    {
        let value = HeaderValue::try_from(format!("Bearer {token}"))
            .map_err(ConnectError::AuthorizationHeader)?;
        headers.insert(reqwest::header::AUTHORIZATION, value);
    }
    match SseClientTransport::connect(http(&handler)?, url, headers).await {
        Ok(transport) => Ok(handler.serve(transport).await?),
        Err(e) => {
            // A 401 is a challenge to log in with, as for streamable HTTP.
            if let super::sse::SseError::Unauthorized(challenge) = &e
                && let Ok(mut slot) = handler.challenges.lock()
            {
                *slot = Some(super::oauth::Challenge::Unauthorized(challenge.clone()));
            }
            Err(e.into())
        }
    }
}

async fn serve_stdio(
    handler: Handler,
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&Path>,
) -> Result<RunningService<RoleClient, Handler>, ConnectError> {
    let mut cmd = tokio::process::Command::new(command);
    for (name, _) in std::env::vars_os() {
        if let Some(name) = name.to_str()
            && (handler.host.withheld_env)(name)
            && !env.contains_key(name)
        {
            cmd.env_remove(name);
        }
    }
    cmd.args(args).envs(env);
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    let (transport, stderr) = StdioTransport::spawn(
        cmd,
        &handler.server,
        handler.overflow.clone(),
        handler.host.processes.as_ref(),
    )
    .map_err(|source| ConnectError::Spawn {
        command: command.to_string(),
        source,
    })?;
    if let Some(stderr) = stderr {
        let server = handler.server.clone();
        tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %server, "MCP server stderr: {line}");
            }
        });
    }
    modern(handler, transport).await
}

/// The longest [`McpConnection::shutdown`] waits for a connection to
/// close (a stdio server's own ending takes at most about 300 ms).
pub const SHUTDOWN_LIMIT: std::time::Duration = std::time::Duration::from_millis(500);

/// How many logins one connection or call may run (a server that keeps
/// asking for more scopes is given up on).
const MAX_LOGINS: usize = 3;

/// Opens the connection; when the server asks for authorization, logs in
/// (see [`super::oauth`]) and tries again. All within the server's
/// start-up timeout.
async fn open(
    config: &McpServerConfig,
    handler: &Handler,
) -> Result<(Peer<RoleClient>, RunningService<RoleClient, Handler>), ConnectError> {
    let work = async {
        let mut logins = 0;
        loop {
            super::oauth::recorder::take(&handler.challenges);
            let err = match open_once(config, handler).await {
                Ok(done) => return Ok(done),
                Err(e) => e,
            };
            let challenge = super::oauth::recorder::take(&handler.challenges);
            match challenge {
                Some(c) if logins < MAX_LOGINS => {
                    logins += 1;
                    login(&handler.host, config, c.header(), None).await?;
                }
                _ => return Err(err),
            }
        }
    };
    match tokio::time::timeout(config.connect_timeout(), work).await {
        Ok(r) => r,
        Err(_) => Err(ConnectError::TimedOut {
            ms: config.connect_timeout_ms,
        }),
    }
}

/// The server's URL, for the transports that have one.
pub fn server_url(config: &McpServerConfig) -> Option<&str> {
    match &config.transport {
        TransportSpec::Http(u) | TransportSpec::Sse(u) | TransportSpec::HttpThenSse(u) => Some(u),
        TransportSpec::Stdio { .. } | TransportSpec::Invalid => None,
    }
}

/// Logs in to `config`'s server after its `challenge` (`None`: no browser
/// means "needs authentication").
pub async fn login(
    host: &Host,
    config: &McpServerConfig,
    challenge: &str,
    show_url: Option<&(dyn Fn(&str) + Sync)>,
) -> Result<(), McpLoginError> {
    let Some(url) = server_url(config) else {
        return Err(McpLoginError::NotRemote);
    };
    let prompt = super::oauth::Prompt {
        show_url,
        wait: config.timeout(),
    };
    let challenge = (!challenge.is_empty()).then_some(challenge);
    Ok(super::oauth::login(host, &config.name, url, &config.oauth, challenge, &prompt).await?)
}

/// One attempt at opening: transport, initialize, tools. The error is the
/// reason, without the server name.
async fn open_once(
    config: &McpServerConfig,
    handler: &Handler,
) -> Result<(Peer<RoleClient>, RunningService<RoleClient, Handler>), ConnectError> {
    let listening = handler.clone();
    let handler = handler.clone();
    let tools = handler.tools.clone();
    let resources = handler.resources.clone();
    let work = async {
        let mut headers = header_map(&config.headers)?;
        if config.auth_provider.is_some()
            && let Some(url) = server_url(config)
            && let Some(auth) = super::oauth::google::authorization(
                config,
                url,
                &http(&handler)?,
                handler.host.google.as_ref(),
            )
            .await
        {
            let value = HeaderValue::try_from(auth?).map_err(ConnectError::AuthorizationHeader)?;
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        let service = match &config.transport {
            TransportSpec::Stdio {
                command,
                args,
                env,
                cwd,
            } => serve_stdio(handler, command, args, env, cwd.as_deref()).await?,
            TransportSpec::Http(url) => serve_http(handler, config, url, &headers).await?,
            TransportSpec::Sse(url) => serve_sse(handler, config, url, &headers).await?,
            TransportSpec::HttpThenSse(url) => {
                match serve_http(handler.clone(), config, url, &headers).await {
                    Ok(s) => s,
                    Err(http_err) => {
                        tracing::debug!(server = %config.name, "streamable HTTP failed ({http_err}); trying SSE");
                        serve_sse(handler, config, url, &headers)
                            .await
                            .map_err(|sse_err| ConnectError::Fallback {
                                http: Box::new(http_err),
                                sse: Box::new(sse_err),
                            })?
                    }
                }
            }
            TransportSpec::Invalid => return Err(ConnectError::InvalidConfig),
        };
        let peer = service.peer().clone();
        let has_tools = peer
            .peer_info()
            .is_some_and(|i| i.capabilities.tools.is_some());
        if has_tools {
            let list = peer
                .list_all_tools()
                .await
                .map_err(ConnectError::ListTools)?;
            if let Ok(mut guard) = tools.write() {
                *guard = list;
            }
        }
        let listed = super::resources::list(&peer).await;
        if let Ok(mut guard) = resources.write() {
            *guard = listed;
        }
        super::listen::start(&peer, &listening);
        Ok::<_, ConnectError>((peer, service))
    };
    work.await
}

impl McpConnection {
    /// Connects, initializes and lists the tools, all within the server's
    /// start-up timeout. The error is the reason, without the server name.
    pub async fn connect(
        host: Host,
        config: McpServerConfig,
        roots: super::handler::SharedRoots,
        changed: Arc<watch::Sender<u64>>,
        elicitor: super::elicitation::ElicitorSlot,
    ) -> Result<McpConnection, ConnectError> {
        let tools = Arc::new(RwLock::new(Vec::new()));
        let resources = Arc::new(RwLock::new(super::resources::ResourceList::default()));
        let handler = Handler {
            resources: resources.clone(),
            server: config.name.clone(),
            roots,
            tools: tools.clone(),
            changed,
            overflow: Overflow::default(),
            challenges: Default::default(),
            elicitor,
            host,
            listener: Default::default(),
            progress: Default::default(),
        };
        let (peer, service) = open(&config, &handler).await?;
        Ok(McpConnection {
            config,
            peer: RwLock::new(peer),
            service: tokio::sync::Mutex::new(Some(service)),
            tools,
            resources,
            handler,
            generation: AtomicU64::new(0),
            shut_down: AtomicBool::new(false),
        })
    }

    /// Reads `uri` from this server into prompt parts (`@server:uri`).
    pub async fn read_resource(
        &self,
        uri: &str,
    ) -> Result<Vec<gemini_rs_protocol::Part>, super::resources::ReadError> {
        super::resources::read(self.peer(), self.name(), self.config.timeout(), uri).await
    }

    /// rmcp's peer of the live connection (`None` once it is gone).
    pub fn peer(&self) -> Option<Peer<RoleClient>> {
        self.peer.read().ok().map(|p| p.clone())
    }

    /// Reconnects a server whose transport closed (a stdio server that
    /// exited, an HTTP session that is gone). `seen` is the generation the
    /// caller saw fail: when another call already restarted the server,
    /// nothing happens. Refused after [`McpConnection::shutdown`].
    pub async fn restart(&self, seen: u64) -> Result<(), ConnectError> {
        let mut service = self.service.lock().await;
        if self.shut_down.load(Ordering::SeqCst) {
            return Err(ConnectError::ShutDown);
        }
        if self.generation.load(Ordering::SeqCst) != seen {
            return Ok(());
        }
        let before: Vec<String> = self
            .tools()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        tracing::info!(server = %self.config.name, "MCP server connection closed; restarting it");
        self.handler.overflow.take();
        let (peer, fresh) = open(&self.config, &self.handler).await?;
        if let Ok(mut guard) = self.peer.write() {
            *guard = peer;
        }
        let old = service.replace(fresh);
        self.generation.fetch_add(1, Ordering::SeqCst);
        drop(service);
        if let Some(mut old) = old {
            let _ = old
                .close_with_timeout(std::time::Duration::from_secs(1))
                .await;
        }
        let after: Vec<String> = self
            .tools()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        if before != after {
            self.handler.changed.send_modify(|g| *g += 1);
        }
        Ok(())
    }

    /// Reconnects now (after a login, say).
    pub async fn reconnect(&self) -> Result<(), ConnectError> {
        self.restart(self.generation.load(Ordering::SeqCst)).await
    }

    /// The server name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The server's tools as last listed (after `tools/list_changed`, the
    /// fresh list), unfiltered.
    pub fn tools(&self) -> Vec<RmcpTool> {
        self.tools.read().map(|t| t.clone()).unwrap_or_default()
    }

    /// The server's resources as listed at connection time.
    pub fn resources(&self) -> super::resources::ResourceList {
        self.resources.read().map(|r| r.clone()).unwrap_or_default()
    }

    /// Calls a tool with the server's timeout. Cancelling `cancel` drops the
    /// request, which sends `notifications/cancelled`. When the transport
    /// is closed (before the call, or the call fails with it closed), the
    /// server is restarted once and the call retried once.
    pub async fn call_tool(
        &self,
        name: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
    ) -> CallOutcome {
        self.call_tool_with_progress(name, args, cancel, None).await
    }

    /// [`McpConnection::call_tool`], with the status messages of a call the
    /// server runs as a task (see [`super::tasks`]) sent to `progress`.
    /// Cancelling `cancel` then also sends the task's `tasks/cancel`.
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
        progress: Option<super::tasks::ProgressSink>,
    ) -> CallOutcome {
        let progress = progress.as_ref();
        let seen = self.generation.load(Ordering::SeqCst);
        if self.is_closed() {
            if let Err(e) = self.restart(seen).await {
                return CallOutcome::Response(transport_error_response(&format!(
                    "MCP error -32000: Connection closed; restarting the server failed: {e}"
                )));
            }
            return self.call_once(name, args, cancel, progress).await.0;
        }
        let (mut outcome, mut transport_closed) =
            self.call_once(name, args, cancel, progress).await;
        let mut logins = 0;
        while let Some(challenge) = super::oauth::recorder::take(&self.handler.challenges) {
            if logins == MAX_LOGINS || outcome == CallOutcome::Aborted {
                break;
            }
            logins += 1;
            if let Err(e) = login(&self.handler.host, &self.config, challenge.header(), None).await
            {
                return CallOutcome::Response(transport_error_response(&format!(
                    "MCP server '{}' {e}",
                    self.config.name
                )));
            }
            let seen = self.generation.load(Ordering::SeqCst);
            if let Err(e) = self.restart(seen).await {
                return CallOutcome::Response(transport_error_response(&e.to_string()));
            }
            (outcome, transport_closed) = self.call_once(name, args, cancel, progress).await;
        }
        if !transport_closed {
            return outcome;
        }
        match self.restart(seen).await {
            Ok(()) => self.call_once(name, args, cancel, progress).await.0,
            Err(e) => {
                tracing::warn!(server = %self.config.name, "restarting the MCP server failed: {e}");
                outcome
            }
        }
    }

    /// One attempt; the flag says the failure was a closed transport.
    async fn call_once(
        &self,
        name: &str,
        args: &Map<String, Value>,
        cancel: &CancellationToken,
        progress: Option<&super::tasks::ProgressSink>,
    ) -> (CallOutcome, bool) {
        let Some(peer) = self.peer() else {
            return (
                CallOutcome::Response(transport_error_response(
                    "MCP error -32000: Connection closed",
                )),
                false,
            );
        };
        let mut params = CallToolRequestParams::new(name.to_string());
        params.arguments = Some(args.clone());
        let rounds = super::mrtr::call_tool(&peer, &self.handler, params, progress);
        let call = tokio::time::timeout(self.config.timeout(), rounds);
        let result = tokio::select! {
            r = call => r,
            _ = cancel.cancelled() => return (CallOutcome::Aborted, false),
        };
        let mut closed = false;
        let value = match result {
            Ok(Ok(res)) => serde_json::to_value(&res)
                .unwrap_or_else(|e| transport_error_response(&e.to_string())),
            Ok(Err(e)) => {
                closed = matches!(
                    e,
                    ServiceError::TransportClosed | ServiceError::TransportSend(_)
                ) || peer.is_transport_closed();
                match self.handler.overflow.take() {
                    // The server sent more than the transport takes; a
                    // retry would only do it again. The next call restarts.
                    Some(reason) if closed => {
                        return (
                            CallOutcome::Response(transport_error_response(&reason.to_string())),
                            false,
                        );
                    }
                    _ => transport_error_response(&service_error_text(&e)),
                }
            }
            Err(_) => transport_error_response("MCP error -32001: Request timed out"),
        };
        (CallOutcome::Response(value), closed)
    }

    /// True once the transport is gone (the server exited).
    pub fn is_closed(&self) -> bool {
        self.peer().is_none_or(|p| p.is_transport_closed())
    }

    /// Closes the connection (a stdio server is stopped: stdin closed,
    /// then TERM and KILL, see the stdio transport), within
    /// [`SHUTDOWN_LIMIT`]; what is still running then is left to the
    /// host's process groups.
    pub async fn shutdown(&self) {
        self.shut_down.store(true, Ordering::SeqCst);
        super::listen::stop(&self.handler.listener);
        let service = self.service.lock().await.take();
        if let Some(mut service) = service {
            let _ = service.close_with_timeout(SHUTDOWN_LIMIT).await;
        }
    }
}
