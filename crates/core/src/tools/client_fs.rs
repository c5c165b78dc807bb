//! Files through a front end's client: an editor connected over ACP that
//! offers `fs/read_text_file` and `fs/write_text_file`, so tools see its
//! unsaved buffers and its undo covers their writes. The workspace boundary
//! is still checked before either is used.

use futures::future::BoxFuture;
use std::path::{Path, PathBuf};

/// Why the client could not read or write a file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientFsError {
    /// `fs/read_text_file` failed.
    #[error("the editor could not read {}: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The client's error message.
        message: String,
    },
    /// `fs/write_text_file` failed.
    #[error("the editor could not write {}: {message}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The client's error message.
        message: String,
    },
}

/// Text file access through the client.
pub trait ClientFs: Send + Sync + std::fmt::Debug {
    /// The file's text as the client has it; `Ok(None)` when it does not
    /// exist.
    fn read_text_file<'a>(
        &'a self,
        path: &'a Path,
    ) -> BoxFuture<'a, Result<Option<String>, ClientFsError>>;
    /// Writes (or creates) the file through the client.
    fn write_text_file<'a>(
        &'a self,
        path: &'a Path,
        content: &'a str,
    ) -> BoxFuture<'a, Result<(), ClientFsError>>;
}
