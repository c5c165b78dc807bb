//! `subscriptions/listen` (MCP 2026-07-28): a stateless server sends its
//! list-changed notifications only on a stream the client opens with this
//! request (it replaces `resources/subscribe` and the HTTP GET stream). On a
//! 2026 connection whose server declares `tools.listChanged` or
//! `resources.listChanged`, one stream is kept open for the connection's
//! life; each notification on it lists the tools (or resources) again, as
//! a 2025 server's `notifications/tools/list_changed` does. gemini-rs
//! reads resources when asked and caches no contents, so it subscribes to
//! no resource URIs.

use super::handler::Handler;
use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::{Peer, RoleClient};
use std::sync::{Arc, Mutex};
use tokio::task::AbortHandle;

/// The listening task of a connection, ended when the connection is
/// opened again or shut down.
pub(crate) type ListenerSlot = Arc<Mutex<Option<AbortHandle>>>;

/// What to listen for on `peer`'s server: `None` for a 2025 server (its
/// notifications come unasked) or one that declares no list changes.
fn filter(peer: &Peer<RoleClient>) -> Option<SubscriptionFilter> {
    let info = peer.peer_info()?;
    if info.protocol_version.has_initialize() {
        return None;
    }
    let caps = &info.capabilities;
    let tools = caps
        .tools
        .as_ref()
        .is_some_and(|t| t.list_changed == Some(true));
    let resources = caps
        .resources
        .as_ref()
        .is_some_and(|r| r.list_changed == Some(true));
    let mut builder = SubscriptionFilter::builder();
    if tools {
        builder = builder.tools_list_changed();
    }
    if resources {
        builder = builder.resources_list_changed();
    }
    (tools || resources).then(|| builder.build())
}

/// Opens the listen stream of a 2026 connection in a task of its own (the
/// previous one of the connection is ended first).
pub(crate) fn start(peer: &Peer<RoleClient>, handler: &Handler) {
    stop(&handler.listener);
    let Some(filter) = filter(peer) else {
        return;
    };
    let peer = peer.clone();
    let this = handler.clone();
    let task = tokio::spawn(async move { listen(peer, this, filter).await });
    if let Ok(mut slot) = handler.listener.lock() {
        *slot = Some(task.abort_handle());
    }
}

/// Ends the connection's listen stream, if any.
pub(crate) fn stop(slot: &ListenerSlot) {
    if let Some(task) = slot.lock().ok().and_then(|mut s| s.take()) {
        task.abort();
    }
}

async fn listen(peer: Peer<RoleClient>, handler: Handler, filter: SubscriptionFilter) {
    let server = handler.server.clone();
    let mut subscription = match peer.listen(filter).await {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(server = %server, "subscriptions/listen failed: {e}");
            return;
        }
    };
    tracing::debug!(server = %server, "listening for the server's list changes");
    loop {
        match subscription.next().await {
            Ok(Some(ServerNotification::ToolListChangedNotification(_))) => {
                handler.refresh_tools(&peer).await
            }
            Ok(Some(ServerNotification::ResourceListChangedNotification(_))) => {
                handler.refresh_resources(&peer).await
            }
            Ok(Some(other)) => {
                tracing::debug!(server = %server, "ignored on the listen stream: {other:?}")
            }
            Ok(None) => {
                tracing::debug!(server = %server, "listen stream ended: {:?}", subscription.end());
                return;
            }
            Err(e) => {
                tracing::warn!(server = %server, "listen stream failed: {e}");
                return;
            }
        }
    }
}
