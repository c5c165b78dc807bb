//! Our side of the protocol: identity and capabilities, roots,
//! `elicitation/create`, and the tool-list refresh on
//! `notifications/tools/list_changed`.
// rmcp marks roots deprecated (SEP-2577); Gemini CLI v0.27.4 offers them.
#![allow(deprecated)]

use super::line_guard::Overflow;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ListRootsResult, ProtocolVersion, Root,
    RootsCapabilities, Tool as RmcpTool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use tokio::sync::watch;

/// The client name Gemini CLI announces.
pub const CLIENT_NAME: &str = "gemini-cli-mcp-client";

/// Our side of the protocol: identity, roots, and tool-list refresh.
#[derive(Clone)]
pub(crate) struct Handler {
    pub(crate) server: String,
    pub(crate) roots: SharedRoots,
    pub(crate) tools: Arc<RwLock<Vec<RmcpTool>>>,
    pub(crate) resources: Arc<RwLock<super::resources::ResourceList>>,
    pub(crate) changed: Arc<watch::Sender<u64>>,
    /// Why the stdio guard last ended the stream (a reply over the limit).
    pub(crate) overflow: Overflow,
    /// The server's last auth challenge (HTTP).
    pub(crate) challenges: super::oauth::ChallengeSlot,
    /// Who answers `elicitation/create`.
    pub(crate) elicitor: super::elicitation::ElicitorSlot,
    /// The program's side (token file, HTTP clients, processes).
    pub(crate) host: crate::host::Host,
    /// The connection's `subscriptions/listen` stream (2026 servers).
    pub(crate) listener: super::listen::ListenerSlot,
    /// The running calls that show `notifications/progress`, by token.
    pub(crate) progress: super::progress::ProgressRoutes,
}

impl Handler {
    /// Asks the session's elicitor (the form, the ACP client, or the
    /// headless refusal) for what `request` wants: the answer to an
    /// `elicitation/create` request, or to one of a 2026 `input_required`.
    pub(crate) async fn elicit(
        &self,
        request: rmcp::model::ElicitRequestParams,
    ) -> rmcp::model::ElicitResult {
        use super::elicitation::{ElicitationReply, ElicitationRequest};
        use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
        let decline = ElicitResult::new(ElicitationAction::Decline);
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return decline;
        };
        let elicitor = self.elicitor.read().ok().and_then(|e| e.clone());
        let Some(elicitor) = elicitor else {
            return decline;
        };
        let asked = ElicitationRequest {
            server: self.server.clone(),
            message,
            schema: serde_json::to_value(&requested_schema).unwrap_or(Value::Null),
        };
        match elicitor(asked).await {
            ElicitationReply::Accept(values) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(values))
            }
            ElicitationReply::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationReply::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        }
    }

    /// The roots offered to the server now.
    pub(crate) fn roots(&self) -> ListRootsResult {
        let roots = self.roots.read().map(|r| r.clone()).unwrap_or_default();
        ListRootsResult::new(roots)
    }
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        let mut roots = RootsCapabilities::default();
        roots.list_changed = Some(true);
        let mut caps = ClientCapabilities::default();
        caps.roots = Some(roots);
        let mut elicitation = rmcp::model::ElicitationCapability::default();
        elicitation.form = Some(Default::default());
        caps.elicitation = Some(elicitation);
        // Long calls may become tasks (2026 servers; see `tasks.rs`).
        let mut extensions = rmcp::model::ExtensionCapabilities::new();
        extensions.insert(
            rmcp::model::TASKS_EXTENSION_ID.to_string(),
            Default::default(),
        );
        caps.extensions = Some(extensions);
        ClientConfig::new(
            caps,
            Implementation::new(CLIENT_NAME, env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(self.roots())
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, ErrorData> {
        Ok(self.elicit(request).await)
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.deliver(&params);
    }

    async fn on_tool_list_changed(&self, context: NotificationContext<RoleClient>) {
        let peer = context.peer;
        let this = self.clone();
        tokio::spawn(async move { this.refresh_tools(&peer).await });
    }
}

impl Handler {
    /// Lists the server's tools again and tells the session (after
    /// `tools/list_changed`, by notification or on a listen stream).
    pub(crate) async fn refresh_tools(&self, peer: &rmcp::Peer<RoleClient>) {
        match peer.list_all_tools().await {
            Ok(tools) => {
                if let Ok(mut guard) = self.tools.write() {
                    *guard = tools;
                }
                self.changed.send_modify(|g| *g += 1);
                tracing::debug!(server = %self.server, "MCP tool list refreshed");
            }
            Err(e) => {
                tracing::warn!(server = %self.server, "MCP tool list refresh failed: {e}")
            }
        }
    }

    /// Lists the server's resources again (after `resources/list_changed`).
    pub(crate) async fn refresh_resources(&self, peer: &rmcp::Peer<RoleClient>) {
        let listed = super::resources::list(peer).await;
        if let Ok(mut guard) = self.resources.write() {
            *guard = listed;
        }
        tracing::debug!(server = %self.server, "MCP resource list refreshed");
    }
}

/// A `file://` URI for a directory, percent-encoded like Node's
/// `pathToFileURL`.
pub fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path a `file://` URI names (the inverse of [`file_uri`]).
pub fn file_uri_path(uri: &str) -> Option<PathBuf> {
    url::Url::parse(uri).ok()?.to_file_path().ok()
}

/// The roots every connection of a session offers (they change with
/// `/directory add`).
pub type SharedRoots = Arc<RwLock<Vec<Root>>>;

/// The roots offered to servers: the workspace dirs, named by basename.
pub fn roots_for(dirs: &[PathBuf]) -> Vec<Root> {
    dirs.iter()
        .map(|d| {
            let mut root = Root::new(file_uri(d));
            root.name = d.file_name().map(|n| n.to_string_lossy().into_owned());
            root
        })
        .collect()
}
