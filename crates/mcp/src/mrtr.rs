//! Multi-round tool calls (MCP 2026-07-28, SEP-2322): a server that needs
//! input answers `tools/call` with `resultType: "input_required"` and its
//! `inputRequests`; the client answers each (elicitation through the
//! session's elicitor, roots from the workspace) and sends the call again,
//! with a fresh id, the answers as `inputResponses` and the server's
//! `requestState` echoed unchanged. rmcp drives these rounds only on its
//! `RunningService`, which a connection shares between concurrent calls
//! behind a lock; this is the same loop over a [`Peer`].

use super::handler::Handler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, DEFAULT_MRTR_MAX_ROUNDS, ErrorData,
    InputRequest, InputRequiredResult, InputResponses,
};
use rmcp::service::ServiceError;
use rmcp::{Peer, RoleClient};
use serde_json::Value;
use std::time::Duration;

/// Calls a tool, answering the server's `input_required` rounds; a call
/// the server makes a task is followed to its end ([`super::tasks`]), its
/// status messages going to `progress`.
pub(crate) async fn call_tool(
    peer: &Peer<RoleClient>,
    handler: &Handler,
    mut params: CallToolRequestParams,
    progress: Option<&super::tasks::ProgressSink>,
) -> Result<CallToolResult, ServiceError> {
    let mut waits = 0u32;
    for _ in 0..DEFAULT_MRTR_MAX_ROUNDS {
        let once =
            super::progress::call_tool_once(peer, &handler.progress, params.clone(), progress);
        let asked = match once.await? {
            CallToolResponse::Complete(result) => return Ok(result),
            CallToolResponse::InputRequired(asked) => asked,
            CallToolResponse::Task(created) => {
                return super::tasks::await_task(peer, handler, created, progress).await;
            }
            _ => return Err(ServiceError::UnexpectedResponse),
        };
        let InputRequiredResult {
            input_requests,
            request_state,
            ..
        } = asked;
        let requests = input_requests.unwrap_or_default();
        if requests.is_empty() {
            // Only state: the server is still working; ask again shortly.
            let millis = (50u64 << waits.min(3)).min(250);
            tokio::time::sleep(Duration::from_millis(millis)).await;
            waits += 1;
        } else {
            waits = 0;
        }
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            responses.insert(key, answer(handler, request).await?);
        }
        params.input_responses = (!responses.is_empty()).then_some(responses);
        params.request_state = request_state;
    }
    Err(ServiceError::InputRequiredRoundsExceeded {
        max_rounds: DEFAULT_MRTR_MAX_ROUNDS,
    })
}

/// The answer to one input request, as its result object.
pub(crate) async fn answer(
    handler: &Handler,
    request: InputRequest,
) -> Result<Value, ServiceError> {
    let value = match request {
        InputRequest::Elicitation(request) => {
            serde_json::to_value(handler.elicit(request.params).await)
        }
        InputRequest::ListRoots(_) => serde_json::to_value(handler.roots()),
        // We declare no sampling capability: a server that asks anyway
        // gets the call failed with a reason.
        _ => {
            return Err(ServiceError::McpError(ErrorData::invalid_params(
                "the server asked for sampling, which gemini-rs does not offer",
                None,
            )));
        }
    };
    value.map_err(|e| ServiceError::McpError(ErrorData::internal_error(e.to_string(), None)))
}
