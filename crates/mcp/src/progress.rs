//! `notifications/progress` for a running `tools/call`: as Gemini CLI 0.61
//! does, each call carries a `progressToken` in its `_meta` (rmcp puts one
//! on every request), and the server's progress notifications for that
//! token become the call's live output, drawn as 0.61's
//! `McpProgressIndicator` draws them: a bar of 20 cells and the percentage
//! (the raw progress when there is no total), the message on the next line.

use super::tasks::ProgressSink;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult,
    CancelledNotification, CancelledNotificationParam, ClientNotification, ClientRequest,
    NumberOrString, ProgressNotificationParam, ProgressToken, RequestId, ServerResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use rmcp::{Peer, RoleClient};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The width of the progress bar, in cells.
const BAR_WIDTH: usize = 20;

/// The calls of a connection that wait for progress, by token.
#[derive(Clone, Default)]
pub(crate) struct ProgressRoutes {
    sinks: Arc<Mutex<HashMap<String, ProgressSink>>>,
}

/// A routed token; dropping it forgets the token.
pub(crate) struct Registered {
    routes: ProgressRoutes,
    key: String,
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut sinks) = self.routes.sinks.lock() {
            sinks.remove(&self.key);
        }
    }
}

fn key(token: &ProgressToken) -> String {
    match &token.0 {
        NumberOrString::Number(n) => format!("n:{n}"),
        NumberOrString::String(s) => format!("s:{s}"),
    }
}

impl ProgressRoutes {
    /// Sends the notifications for `token` to `sink` until the returned
    /// registration is dropped.
    pub(crate) fn route(&self, token: &ProgressToken, sink: ProgressSink) -> Registered {
        let key = key(token);
        if let Ok(mut sinks) = self.sinks.lock() {
            sinks.insert(key.clone(), sink);
        }
        Registered {
            routes: self.clone(),
            key,
        }
    }

    /// Shows `params` on its call's live output (unknown tokens are
    /// ignored: the call has ended).
    pub(crate) fn deliver(&self, params: &ProgressNotificationParam) {
        let sink = self
            .sinks
            .lock()
            .ok()
            .and_then(|s| s.get(&key(&params.progress_token)).cloned());
        if let Some(sink) = sink {
            sink(render(
                params.progress,
                params.total,
                params.message.as_deref(),
            ));
        }
    }
}

/// Sends `notifications/cancelled` for the request when dropped armed (the
/// caller stopped waiting: a cancelled turn, a timeout).
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        let reason = Some("request abandoned by the caller".to_string());
        let cancelled =
            CancelledNotification::new(CancelledNotificationParam::new(Some(id), reason));
        runtime.spawn(async move {
            let _ = peer
                .send_notification(ClientNotification::CancelledNotification(cancelled))
                .await;
        });
    }
}

/// One `tools/call` whose progress notifications go to `progress` (rmcp's
/// `call_tool_once` does not say which token it sent).
pub(crate) async fn call_tool_once(
    peer: &Peer<RoleClient>,
    routes: &ProgressRoutes,
    params: CallToolRequestParams,
    progress: Option<&ProgressSink>,
) -> Result<CallToolResponse, ServiceError> {
    let Some(sink) = progress else {
        return peer.call_tool_once(params).await;
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    let _routed = routes.route(&handle.progress_token, sink.clone());
    let mut guard = CancelOnDrop {
        peer: peer.clone(),
        id: Some(handle.id.clone()),
    };
    let result = handle.await_response().await;
    guard.id = None;
    match result? {
        ServerResult::CallToolResult(result) => Ok(CallToolResponse::Complete(result)),
        ServerResult::InputRequiredResult(asked) => Ok(CallToolResponse::InputRequired(asked)),
        ServerResult::CreateTaskResult(created) => Ok(CallToolResponse::Task(created)),
        ServerResult::EmptyResult(_) => Ok(CallToolResponse::Complete(CallToolResult::success(
            Vec::new(),
        ))),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// 0.61's indicator as text: `████░░░… 20%`, then the message.
fn render(progress: f64, total: Option<f64>, message: Option<&str>) -> String {
    let total = total.filter(|t| *t > 0.0);
    let raw = match total {
        Some(t) => (progress / t * BAR_WIDTH as f64).round(),
        None => (progress.floor() % (BAR_WIDTH as f64 + 1.0)).floor(),
    };
    let filled = if raw.is_finite() {
        raw.clamp(0.0, BAR_WIDTH as f64) as usize
    } else {
        0
    };
    let mut out = "\u{2588}".repeat(filled) + &"\u{2591}".repeat(BAR_WIDTH - filled);
    out.push(' ');
    match total {
        Some(t) => {
            let percent = (progress / t * 100.0).round().min(100.0);
            out.push_str(&format!("{percent}%"));
        }
        None => out.push_str(&progress.to_string()),
    }
    if let Some(message) = message.filter(|m| !m.is_empty()) {
        out.push('\n');
        out.push_str(message);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_is_drawn_as_gemini_cli_draws_it() {
        let bar = |f: usize| "\u{2588}".repeat(f) + &"\u{2591}".repeat(BAR_WIDTH - f);
        assert_eq!(render(1.0, Some(4.0), None), format!("{} 25%", bar(5)));
        assert_eq!(
            render(4.0, Some(4.0), Some("done")),
            format!("{} 100%\ndone", bar(20))
        );
        assert_eq!(render(3.0, None, None), format!("{} 3", bar(3)));
        assert_eq!(render(2.5, Some(0.0), None), format!("{} 2.5", bar(2)));
    }

    #[test]
    fn notifications_reach_the_registered_call_only_while_it_runs() {
        let routes = ProgressRoutes::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = seen.clone();
        let sink: ProgressSink = Arc::new(move |s| into.lock().unwrap().push(s));
        let mine = ProgressToken(NumberOrString::Number(3));
        let registered = routes.route(&mine, sink);
        let params =
            |token: ProgressToken| ProgressNotificationParam::new(token, 1.0).with_total(2.0);
        routes.deliver(&params(mine.clone()));
        routes.deliver(&params(ProgressToken(NumberOrString::Number(7))));
        drop(registered);
        routes.deliver(&params(mine));
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "{seen:?}");
        assert!(seen[0].ends_with(" 50%"), "{seen:?}");
    }
}
