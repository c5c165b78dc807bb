//! Sessions in and out of the project: `--session-id` (is the id taken?),
//! `--session-file` (import an exported session as a new one) and
//! `/export-session` (the record as one JSON file). The file layout is the
//! recorder's and the reader's business ([`super::read_session`]); this
//! module only moves records.

use super::{
    ChatRecorder, ConversationRecord, SessionError, SessionInfo, read_session, session_files,
};
use std::path::{Path, PathBuf};

/// True when a session file of `chats_dir` records session `id`.
pub fn session_exists(chats_dir: &Path, id: &str) -> bool {
    session_files(chats_dir).any(|path| {
        std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| read_session(&t))
            .is_some_and(|r| r.session_id == id)
    })
}

/// Reads a session file: an exported record (one JSON object) or any file
/// the recorder writes.
fn read_record(file: &Path) -> Result<ConversationRecord, SessionError> {
    let unreadable = |message: String| SessionError::Unreadable {
        path: file.to_path_buf(),
        message,
    };
    // A start-up input: a regular file, opened without blocking, capped.
    let text = crate::config::input_file::read_input(
        file,
        None,
        crate::config::input_file::MAX_SESSION_BYTES,
    )
    .map_err(|e| unreadable(e.to_string()))?;
    serde_json::from_str::<ConversationRecord>(&text)
        .ok()
        .or_else(|| read_session(&text))
        .ok_or_else(|| unreadable("not a recorded or exported session".into()))
}

/// Imports `file` into `chats_dir` as the new session `session_id`: its
/// user and model messages after an `info` line naming the file, as
/// today's Gemini CLI imports them. The session can then be resumed by id.
pub fn import_session(
    chats_dir: &Path,
    file: &Path,
    session_id: &str,
    project_hash: &str,
) -> Result<SessionInfo, SessionError> {
    let record = read_record(file)?;
    let note = format!("Imported session from {}", file.display());
    copy_record(chats_dir, record, file, session_id, project_hash, &note)
}

/// ACP's `session/fork`: session `source` of `chats_dir` copied as the new
/// session `session_id` (its user and model messages after an `info` line
/// naming the source); the source is left as it is.
pub fn fork_session(
    chats_dir: &Path,
    source: &str,
    session_id: &str,
    project_hash: &str,
) -> Result<SessionInfo, SessionError> {
    let from = super::find_session(chats_dir, source)?;
    if from.record.session_id != source {
        return Err(SessionError::NotFound(source.to_string()));
    }
    let note = format!("Forked from session {source}");
    copy_record(
        chats_dir,
        from.record,
        &from.path,
        session_id,
        project_hash,
        &note,
    )
}

/// Records the user and model messages of `record` (read from `origin`)
/// as session `session_id`, after an `info` line saying where they came
/// from; the new session as read back.
fn copy_record(
    chats_dir: &Path,
    record: ConversationRecord,
    origin: &Path,
    session_id: &str,
    project_hash: &str,
    note: &str,
) -> Result<SessionInfo, SessionError> {
    let messages: Vec<_> = record
        .messages
        .into_iter()
        .filter(|m| matches!(m.kind.as_str(), "user" | "gemini") && !m.content.is_null())
        .collect();
    if !messages.iter().any(|m| m.kind == "user") {
        return Err(SessionError::Unreadable {
            path: origin.to_path_buf(),
            message: "it has no user message to continue from".into(),
        });
    }
    let recorder = ChatRecorder::new(chats_dir, session_id, project_hash);
    let recording = recorder.recording();
    recording.record_note("info", note);
    for message in messages {
        recording.record_message(&message);
    }
    let path = recorder.path().to_path_buf();
    let unreadable = |message: &str| SessionError::Unreadable {
        path: path.clone(),
        message: message.into(),
    };
    recorder
        .sync()
        .ok_or_else(|| unreadable("chat recording is off (GEMINI_RS_NO_RECORDING)"))?;
    let record = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| read_session(&t))
        .ok_or_else(|| unreadable("the copied session could not be read back"))?;
    Ok(SessionInfo { path, record })
}

/// Writes session `session_id` of `chats_dir` to `dest` as one JSON
/// object (what `--session-file` reads); the absolute path written.
pub fn export_session(
    chats_dir: &Path,
    session_id: &str,
    dest: &Path,
) -> Result<PathBuf, SessionError> {
    let info = super::find_session(chats_dir, session_id)?;
    let failed = |message: String| SessionError::Unreadable {
        path: dest.to_path_buf(),
        message,
    };
    let text = serde_json::to_string_pretty(&info.record).map_err(|e| failed(e.to_string()))?;
    crate::workspace::write_atomic(dest, text.as_bytes()).map_err(|e| failed(e.to_string()))?;
    Ok(dest.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemini_rs_protocol::Part;

    #[test]
    fn export_then_import_as_a_new_session() {
        let dir = tempfile::tempdir().unwrap();
        let chats = dir.path().join("chats");
        let recorder = ChatRecorder::new(&chats, "old-id", "h");
        let rec = recorder.recording();
        rec.record_user(&[Part::text("hello")]);
        rec.record_model(&[Part::text("hi")], None, "m", None);
        rec.record_note("warning", "dropped on import");
        rec.sync().unwrap();
        drop(recorder);
        assert!(session_exists(&chats, "old-id"));
        assert!(!session_exists(&chats, "new-id"));
        let out = dir.path().join("out.json");
        export_session(&chats, "old-id", &out).unwrap();
        let info = import_session(&chats, &out, "new-id", "h").unwrap();
        let kinds: Vec<&str> = info
            .record
            .messages
            .iter()
            .map(|m| m.kind.as_str())
            .collect();
        assert_eq!(kinds, ["info", "user", "gemini"]);
        assert!(session_exists(&chats, "new-id"));
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "{not json").unwrap();
        assert!(import_session(&chats, &bad, "x", "h").is_err());
        assert!(import_session(&chats, &dir.path().join("none.json"), "x", "h").is_err());
    }
}
