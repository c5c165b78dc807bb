//! Which MCP era a server speaks: 2026-07-28's stateless lifecycle
//! (`server/discover`, then self-contained requests with `_meta`) or the
//! `initialize` handshake of 2025-11-25 and before. rmcp's
//! [`ClientLifecycleMode::Auto`] probes with `server/discover` and falls
//! back to `initialize` when the server answers it with an error. What it
//! leaves out, and [`EraProbe`] adds beside it: a lax server that answers
//! every method it does not know with an empty result (`{}`) is legacy too,
//! not a failed connection.

use rmcp::RoleClient;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, ProtocolVersion, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::ClientLifecycleMode;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use std::future::Future;
use std::sync::{Arc, Mutex};

/// The lifecycle every connection opens with: `server/discover` offering
/// 2026-07-28, `initialize` (2025-11-25) when the server does not know it.
pub(crate) fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// A transport that watches the answer to the first `server/discover`: a
/// result that is not a discovery result becomes a `-32601` error, which
/// rmcp reads as "a legacy server" and answers with `initialize`.
pub(crate) struct EraProbe<T> {
    inner: T,
    /// The id of the `server/discover` request whose answer is awaited.
    pending: Arc<Mutex<Option<RequestId>>>,
}

impl<T> EraProbe<T> {
    pub(crate) fn new(inner: T) -> Self {
        EraProbe {
            inner,
            pending: Arc::default(),
        }
    }
}

/// `message` with a non-discovery answer to `pending` made an error.
fn checked(
    message: ServerJsonRpcMessage,
    pending: &Mutex<Option<RequestId>>,
) -> ServerJsonRpcMessage {
    let Ok(mut slot) = pending.lock() else {
        return message;
    };
    let Some(id) = slot.as_ref() else {
        return message;
    };
    let ServerJsonRpcMessage::Response(response) = &message else {
        if matches!(&message, ServerJsonRpcMessage::Error(e) if e.id.as_ref() == Some(id)) {
            *slot = None;
        }
        return message;
    };
    if &response.id != id {
        return message;
    }
    *slot = None;
    if matches!(response.result, ServerResult::DiscoverResult(_)) {
        return message;
    }
    tracing::debug!("server/discover answered without a discovery result: a legacy server");
    let error = ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        "server/discover is not supported by this server",
        None,
    );
    ServerJsonRpcMessage::error(error, Some(response.id.clone()))
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for EraProbe<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ClientJsonRpcMessage::Request(request) = &item
            && matches!(request.request, ClientRequest::DiscoverRequest(_))
            && let Ok(mut slot) = self.pending.lock()
        {
            *slot = Some(request.id.clone());
        }
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let pending = self.pending.clone();
        let next = self.inner.receive();
        async move { next.await.map(|m| checked(m, &pending)) }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: serde_json::Value) -> ServerJsonRpcMessage {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_empty_answer_to_discover_is_a_legacy_server() {
        let pending = Mutex::new(Some(RequestId::Number(0)));
        let out = checked(
            parse(json!({"jsonrpc": "2.0", "id": 0, "result": {}})),
            &pending,
        );
        assert!(
            matches!(out, ServerJsonRpcMessage::Error(e) if e.error.code == ErrorCode::METHOD_NOT_FOUND)
        );
        assert!(pending.lock().unwrap().is_none());
    }

    #[test]
    fn a_discovery_result_and_other_ids_pass() {
        let pending = Mutex::new(Some(RequestId::Number(0)));
        let other = checked(
            parse(json!({"jsonrpc": "2.0", "id": 7, "result": {}})),
            &pending,
        );
        assert!(matches!(other, ServerJsonRpcMessage::Response(_)));
        let found = parse(json!({"jsonrpc": "2.0", "id": 0, "result": {
            "resultType": "complete", "ttlMs": 0, "cacheScope": "private",
            "supportedVersions": ["2026-07-28"], "capabilities": {}}}));
        let out = checked(found, &pending);
        assert!(
            matches!(out, ServerJsonRpcMessage::Response(r) if matches!(r.result, ServerResult::DiscoverResult(_)))
        );
    }
}
