//! The editor's file system, for clients that offer `fs/read_text_file`
//! and `fs/write_text_file`: tools read its buffers and write through it.

use super::Connection;
use agent_client_protocol::ErrorCode;
use agent_client_protocol::v1::schema as acp;
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

impl ClientFs for AcpFs {
    fn read_text_file<'a>(
        &'a self,
        path: &'a Path,
    ) -> BoxFuture<'a, Result<Option<String>, ClientFsError>> {
        Box::pin(async move {
            let request = acp::ReadTextFileRequest::new(self.session_id.clone(), path);
            match self.cx.send_request(request).block_task().await {
                Ok(answer) => Ok(Some(answer.content)),
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
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map(|_| ())
                .map_err(|e| ClientFsError::Write {
                    path: path.to_path_buf(),
                    message: e.message,
                })
        })
    }
}
