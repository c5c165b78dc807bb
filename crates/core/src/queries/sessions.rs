//! The recorded sessions of a project (`--list-sessions`,
//! `--delete-session`, `/chat list`, ACP's `session/load`), read from the
//! project's temp folder.

use crate::config::GeminiPaths;
use crate::recording::{self, ConversationRecord};
use gemini_rs_protocol::Content;
use gemini_rs_protocol::events::RecordedSessionInfo;
use std::path::{Path, PathBuf};

pub use crate::recording::SessionError;

fn chats_dir(paths: &GeminiPaths, root: &Path) -> PathBuf {
    paths.project_temp_dir(root).join("chats")
}

fn info(path: PathBuf, record: &ConversationRecord) -> RecordedSessionInfo {
    RecordedSessionInfo {
        session_id: record.session_id.clone(),
        file: path,
        start_time: record.start_time.clone(),
        last_updated: record.last_updated.clone(),
        first_prompt: recording::first_prompt(record),
        summary: record.meta().summary,
    }
}

/// The project's recorded sessions with at least one prompt, oldest first.
pub fn list_sessions(paths: &GeminiPaths, root: &Path) -> Vec<RecordedSessionInfo> {
    recording::list_sessions(&chats_dir(paths, root))
        .into_iter()
        .map(|s| info(s.path.clone(), &s.record))
        .collect()
}

/// Deletes the session `which` (`latest`, an index from
/// [`list_sessions`] or an id).
pub fn delete_session(
    paths: &GeminiPaths,
    root: &Path,
    which: &str,
) -> Result<RecordedSessionInfo, SessionError> {
    let s = recording::delete_session(&chats_dir(paths, root), which)?;
    Ok(info(s.path.clone(), &s.record))
}

/// ACP's `session/fork`: copies session `source` of the project as the
/// new session `session_id`, ready to be resumed by that id.
pub fn fork_session(
    paths: &GeminiPaths,
    root: &Path,
    source: &str,
    session_id: &str,
) -> Result<RecordedSessionInfo, SessionError> {
    let hash = crate::config::project_hash(root);
    let s = recording::fork_session(&chats_dir(paths, root), source, session_id, &hash)?;
    Ok(info(s.path.clone(), &s.record))
}

/// The project roots with a registered temp folder, for listing the
/// sessions of every project.
pub fn recorded_projects(paths: &GeminiPaths) -> Vec<PathBuf> {
    crate::config::projects::registered_roots(&paths.gemini_dir)
}

/// The session `which` and its conversation, as the model saw it.
pub fn session_history(
    paths: &GeminiPaths,
    root: &Path,
    which: &str,
) -> Result<(RecordedSessionInfo, Vec<Content>), SessionError> {
    let s = recording::find_session(&chats_dir(paths, root), which)?;
    let history = recording::history_of(&s.record);
    Ok((info(s.path.clone(), &s.record), history))
}

/// True when a session of this project already has the id `id`
/// (`--session-id` must name a new one).
pub fn session_exists(paths: &GeminiPaths, root: &Path, id: &str) -> bool {
    recording::session_exists(&chats_dir(paths, root), id)
}

/// `--session-file`: imports an exported session as the new session
/// `session_id` of this project, ready to be resumed by that id.
pub fn import_session(
    paths: &GeminiPaths,
    root: &Path,
    file: &Path,
    session_id: &str,
) -> Result<RecordedSessionInfo, SessionError> {
    let hash = crate::config::project_hash(root);
    let s = recording::import_session(&chats_dir(paths, root), file, session_id, &hash)?;
    Ok(info(s.path.clone(), &s.record))
}

/// `/export-session`: writes session `session_id` to `dest` as one JSON
/// object; the path written.
pub fn export_session(
    paths: &GeminiPaths,
    root: &Path,
    session_id: &str,
    dest: &Path,
) -> Result<PathBuf, SessionError> {
    recording::export_session(&chats_dir(paths, root), session_id, dest)
}
