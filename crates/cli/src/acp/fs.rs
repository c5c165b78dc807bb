//! The editor's file system, for clients that offer `fs/read_text_file`
//! and `fs/write_text_file`: tools read its buffers and write through it.

use super::Connection;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{ErrorCode, UntypedMessage};
use futures::future::BoxFuture;
use gemini_rs_core::{ClientFs, ClientFsError};
use std::path::Path;

/// File access through one session's client.
#[derive(Clone)]
pub struct AcpFs {
    /// The connection.
    pub cx: Connection,
    /// The session the calls are made for.
    pub session_id: String,
}

impl std::fmt::Debug for AcpFs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AcpFs")
            .field("session_id", &self.session_id)
            .finish()
    }
}

impl AcpFs {
    /// Sends `request` as `method` and returns the client's answer as
    /// JSON: the typed decoding is ours, so an answer that does not match
    /// the schema becomes an error for this one call (the SDK's own
    /// decoding would leave nothing to tell the tool).
    async fn ask(
        &self,
        method: &str,
        request: impl serde::Serialize,
    ) -> Result<serde_json::Value, agent_client_protocol::Error> {
        let message = UntypedMessage::new(method, request)?;
        self.cx.send_request(message).block_task().await
    }
}

impl ClientFs for AcpFs {
    fn read_text_file<'a>(
        &'a self,
        path: &'a Path,
    ) -> BoxFuture<'a, Result<Option<String>, ClientFsError>> {
        Box::pin(async move {
            let request = acp::ReadTextFileRequest::new(self.session_id.clone(), path);
            match self.ask("fs/read_text_file", request).await {
                Ok(answer) => match serde_json::from_value::<acp::ReadTextFileResponse>(answer) {
                    Ok(answer) => Ok(Some(answer.content)),
                    Err(e) => Err(ClientFsError::Read {
                        path: path.to_path_buf(),
                        message: format!(
                            "the client's answer to fs/read_text_file does not decode: {e}"
                        ),
                    }),
                },
                // "Resource not found": the file does not exist yet.
                Err(e) if e.code == ErrorCode::RESOURCE_NOT_FOUND => Ok(None),
                Err(e) => Err(ClientFsError::Read {
                    path: path.to_path_buf(),
                    message: e.message,
                }),
            }
        })
    }

    fn write_text_file<'a>(
        &'a self,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, Result<(), ClientFsError>> {
        Box::pin(async move {
            let request = acp::WriteTextFileRequest::new(self.session_id.clone(), path, content);
            let failed = |message: String| ClientFsError::Write {
                path: path.to_path_buf(),
                message,
            };
            let answer = self
                .ask("fs/write_text_file", request)
                .await
                .map_err(|e| failed(e.message))?;
            // Every field of the answer is optional: `null` (Gemini CLI
            // accepts it) is an empty answer.
            if answer.is_null() || answer.is_object() {
                Ok(())
            } else {
                Err(failed(format!(
                    "the client's answer to fs/write_text_file does not decode: expected an object, got {answer}"
                )))
            }
        })
    }
}
