//! gemini-rs's fields in `session/new`'s (and `session/load`'s,
//! `session/fork`'s) `_meta`: `trajectory`, the file that keeps the
//! session's ATIF trajectory (a relative path is taken from the session's
//! `cwd`).

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{Error, ErrorCode};
use std::path::{Path, PathBuf};

/// `_meta.trajectory`, checked (an existing file must be a regular one,
/// and its folder must be able to hold it); a wrong value is refused with
/// `-32602` naming it.
pub fn trajectory(meta: Option<&acp::Meta>, cwd: &Path) -> Result<Option<PathBuf>, Error> {
    let invalid = |message: String| Error::new(ErrorCode::INVALID_PARAMS, message);
    let Some(value) = meta.and_then(|m| m.get("trajectory")) else {
        return Ok(None);
    };
    let Some(text) = value.as_str().filter(|t| !t.trim().is_empty()) else {
        return Err(invalid(format!(
            "`_meta.trajectory` must be a file path (a non-empty string), not {value}"
        )));
    };
    let path = cwd.join(text);
    gemini_rs_core::check_trajectory_path(&path)
        .map(Some)
        .map_err(|e| invalid(format!("`_meta.trajectory`: {e}")))
}
