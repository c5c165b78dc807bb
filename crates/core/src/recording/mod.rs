//! Chat recording as today's Gemini CLI keeps it: one JSONL file per
//! session, `<project temp dir>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`
//! (UTC), appended to one record per message (see [`jsonl`]); in the `0.27`
//! dialect as 0.27.4 kept it, one `session-*.json` document rewritten as
//! the session grows (see [`legacy`]). Both are read in every dialect.

mod atif;
mod history;
mod import;
mod jsonl;
mod legacy;
mod lines;
mod record;
pub mod retention;
pub mod saved_chats;
pub mod share;
mod writer;

use atif::TrajectoryFile;
pub use atif::{TrajectoryPathError, check_trajectory_path};
pub use history::history_of_messages;
pub use import::{export_session, fork_session, import_session, session_exists};
pub use legacy::SessionFormat;
pub use lines::FinishedCall;
pub use record::{ConversationRecord, MessageRecord};
pub use retention::cleanup_sessions;

use gemini_rs_protocol::{Content, Part, UsageMetadata};
use lines::ModelMessage;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use writer::{FileState, Job, Pending, Start};

/// A session that could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// No recorded session to resume.
    #[error("No previous sessions found for this project.")]
    NoSessions,
    /// The index or id names no session.
    #[error(
        "Invalid session identifier \"{0}\". Use --list-sessions to see the available sessions."
    )]
    NotFound(String),
    /// The file could not be read or parsed.
    #[error("Could not read session file {path}: {message}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
}

/// Writes one session's messages to disk as they happen, on a thread of
/// its own: the session owns it (built with the session, flushed after
/// each prompt, closed at its end) and lends its agent a [`Recording`].
pub struct ChatRecorder {
    worker: Option<Worker>,
    handle: Recording,
}

/// The writing thread.
struct Worker {
    thread: std::thread::JoinHandle<()>,
}

/// The agent's side of a [`ChatRecorder`]: it serialises each record from
/// what the agent holds onto the lines waiting for the writer, which
/// writes them. Every clone writes to the same file.
#[derive(Clone)]
pub struct Recording {
    path: PathBuf,
    tx: Option<std::sync::mpsc::Sender<Job>>,
    /// The lines waiting for the writer (with its thread's state).
    pending: Arc<std::sync::Mutex<Pending>>,
    /// Whether every record waits until it is written (hooks read the
    /// transcript); the writer gathers messages only while it is off.
    synchronous: Arc<AtomicBool>,
    /// The writing thread, woken when someone waits for the file.
    writer: Option<std::thread::Thread>,
}

impl ChatRecorder {
    /// A recorder for a new session in `chats_dir` (the file appears with
    /// the first message).
    pub fn new(chats_dir: &Path, session_id: &str, project_hash: &str) -> Self {
        Self::new_session(chats_dir, session_id, project_hash, true, None)
    }

    /// [`ChatRecorder::new`], writing no session file unless `enabled` (the
    /// session's `GEMINI_RS_NO_RECORDING` switches recording off), and an
    /// ATIF trajectory in the file `trajectory` when asked for.
    pub fn new_session(
        chats_dir: &Path,
        session_id: &str,
        project_hash: &str,
        enabled: bool,
        trajectory: Option<PathBuf>,
    ) -> Self {
        let ids = (session_id, project_hash);
        Self::new_in(SessionFormat::Jsonl, chats_dir, ids, enabled, trajectory)
    }

    /// [`ChatRecorder::new_session`] writing `format`: today's JSONL, or
    /// 0.27.4's one document (`session-*.json`, no `kind`). `ids` are the
    /// session id and the project hash.
    pub fn new_in(
        format: SessionFormat,
        chats_dir: &Path,
        (session_id, project_hash): (&str, &str),
        enabled: bool,
        trajectory: Option<PathBuf>,
    ) -> Self {
        let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M");
        let short: String = session_id.chars().take(8).collect();
        let ext = format.extension();
        let path = chats_dir.join(format!("session-{stamp}-{short}.{ext}"));
        let time = lines::format_stamp(&chrono::Utc::now());
        let mut extra = gemini_rs_protocol::Extra::new();
        if format == SessionFormat::Jsonl {
            extra.insert("kind".into(), Value::String("main".into()));
        }
        let record = ConversationRecord {
            session_id: session_id.to_string(),
            project_hash: project_hash.to_string(),
            start_time: time.clone(),
            last_updated: time,
            messages: Vec::new(),
            extra,
        };
        let start = (Start::New, format);
        ChatRecorder::start(path, record, start, enabled, trajectory)
    }

    /// Continues a resumed session in a dialect writing `format`: a
    /// `.jsonl` file is appended to (whatever the format: 0.27.4 cannot
    /// read it either way). A 0.27.4 `.json` file is carried over to
    /// `<file>.jsonl` (written whole with the first new message) and left
    /// as it was, as 0.61 does; with [`SessionFormat::Document`] (the
    /// `0.27` dialect) it is rewritten in place, as 0.27.4 does.
    /// `enabled` and `trajectory` as for [`ChatRecorder::new_session`]; the
    /// trajectory starts with the resumed messages.
    pub fn resume(
        format: SessionFormat,
        path: PathBuf,
        record: ConversationRecord,
        enabled: bool,
        trajectory: Option<PathBuf>,
    ) -> Self {
        let is_json = path.extension().is_some_and(|e| e == "json");
        let (path, start) = match (is_json, format) {
            (false, _) => (path, (Start::Append, SessionFormat::Jsonl)),
            (true, SessionFormat::Document) => (path, (Start::Append, format)),
            (true, SessionFormat::Jsonl) => {
                let mut jsonl = path.into_os_string();
                jsonl.push("l");
                (PathBuf::from(jsonl), (Start::Convert, format))
            }
        };
        ChatRecorder::start(path, record, start, enabled, trajectory)
    }

    fn start(
        path: PathBuf,
        record: ConversationRecord,
        (start, format): (Start, SessionFormat),
        enabled: bool,
        trajectory: Option<PathBuf>,
    ) -> Self {
        let trajectory = trajectory.map(|path| {
            let session_id = record.session_id.clone();
            (TrajectoryFile { path, session_id }, record.messages.clone())
        });
        let has_trajectory = trajectory.is_some();
        let synchronous = Arc::new(AtomicBool::new(false));
        let pending = Arc::new(std::sync::Mutex::new(Pending::default()));
        let (tx, rx) = std::sync::mpsc::channel();
        let worker = (enabled || has_trajectory)
            .then(|| {
                let writer_sync = synchronous.clone();
                let writer_pending = pending.clone();
                let state = FileState {
                    path: path.clone(),
                    record,
                    start: Some(start),
                    file: None,
                    session: enabled,
                    format,
                    trajectory,
                };
                std::thread::Builder::new()
                    .name("session-writer".into())
                    .spawn(move || writer::write_loop(state, &writer_pending, rx, &writer_sync))
                    .map(|thread| Worker { thread })
                    .map_err(|e| tracing::warn!("chat recording is off: {e}"))
                    .ok()
            })
            .flatten();
        let handle = Recording {
            path,
            tx: worker.as_ref().map(|_| tx),
            pending,
            synchronous,
            writer: worker.as_ref().map(|w| w.thread.thread().clone()),
        };
        ChatRecorder { worker, handle }
    }

    /// The agent's side of this recorder.
    pub fn recording(&self) -> Recording {
        self.handle.clone()
    }

    /// The agent's side, every record waiting until it is written when
    /// `synchronous` (hooks read the transcript).
    pub fn recording_synchronous(&self, synchronous: bool) -> Recording {
        self.set_synchronous(synchronous);
        self.recording()
    }

    /// Makes every record wait until it is written (for readers of the
    /// file during the session, such as hooks).
    pub fn set_synchronous(&self, synchronous: bool) {
        self.handle
            .synchronous
            .store(synchronous, Ordering::Relaxed);
    }

    /// Waits until every message so far is written (`None` when recording
    /// is off).
    pub fn sync(&self) -> Option<()> {
        self.handle.sync()
    }

    /// The file (the hooks' `transcript_path`).
    pub fn path(&self) -> &Path {
        &self.handle.path
    }

    /// Writes everything handed over so far and stops the writer; later
    /// records (from a [`Recording`] still held) are dropped.
    pub fn close(&mut self) {
        if let Some(Worker { thread }) = self.worker.take() {
            if let Some(tx) = &self.handle.tx {
                let _ = tx.send(Job::Close);
            }
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

impl Drop for ChatRecorder {
    /// Everything handed over is written before the recorder goes.
    fn drop(&mut self) {
        self.close();
    }
}

impl Recording {
    /// Waits until every message so far is written (`None` when recording
    /// is off or closed).
    pub fn sync(&self) -> Option<()> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.tx.as_ref()?.send(Job::Sync(tx)).ok()?;
        if let Some(writer) = &self.writer {
            writer.unpark();
        }
        rx.recv().ok()
    }

    /// Whether anything is written (callers skip gathering what would be
    /// dropped).
    pub fn is_on(&self) -> bool {
        self.tx.is_some()
    }

    /// Records the environment context a new conversation opens with
    /// (written just before its first message, as 0.61 records its
    /// `<session_context>`; 0.27.4's format leaves it out).
    pub fn record_context(&self, text: &str) {
        if !self.is_on() {
            return;
        }
        let stamp = lines::format_stamp(&chrono::Utc::now());
        match lines::context_line(text, &stamp) {
            Ok(line) => writer::lock(&self.pending).context = Some(line),
            Err(e) => tracing::warn!("could not record the context: {e}"),
        }
    }

    /// Records a user message.
    pub fn record_user(&self, parts: &[Part]) {
        self.record(|out, _, stamp| {
            lines::user_line(out, parts, stamp)?;
            Ok(true)
        });
    }

    /// Records one model turn: its text, thoughts, token usage, model and
    /// (with `model.logprobs`) its `logprobs`: `{tokens, tokenIds,
    /// logprobs, promptTokenIds}`. Its tool calls follow with
    /// [`Recording::record_tool_calls`].
    pub fn record_model(
        &self,
        parts: &[Part],
        usage: Option<&UsageMetadata>,
        model: &str,
        logprobs: Option<Value>,
    ) {
        self.record(|out, last_model, stamp| {
            let msg = ModelMessage::new(parts, usage, (model, logprobs.as_ref()), stamp)?;
            msg.line(out);
            *last_model = Some(msg);
            Ok(true)
        });
    }

    /// Adds the finished calls (with their results) to the last model
    /// message, written again as an update of it, and records the
    /// functionResponse parts sent back as a user message, as Gemini CLI
    /// does.
    pub fn record_tool_calls(&self, calls: &[FinishedCall<'_>]) {
        if calls.is_empty() {
            return;
        }
        self.record(|out, last_model, stamp| {
            let msg = match last_model.take() {
                Some(msg) => msg,
                None => ModelMessage::bare(stamp)?,
            };
            lines::calls_lines(out, &msg, calls, stamp)
        });
    }

    /// Records an info, warning or error line of the session.
    pub fn record_note(&self, kind: &str, text: &str) {
        self.record(|out, _, stamp| {
            lines::note_line(out, kind, text, stamp)?;
            Ok(true)
        });
    }

    /// Records a whole message as it is (a session copied in).
    fn record_message(&self, msg: &MessageRecord) {
        self.record(|out, _, _| {
            jsonl::push_line(out, msg)?;
            Ok(true)
        });
    }

    /// Appends what `build` serialises (given the lines, the last model
    /// message and the time, formatted) to the lines waiting for the
    /// writer, the context first when it waits for a message, and a
    /// `lastUpdated` update after when `build` says so (a model message
    /// updated with its calls gets none unless their responses follow),
    /// as 0.61 writes them. Wakes the writer only when it sleeps.
    fn record(
        &self,
        build: impl FnOnce(&mut Vec<u8>, &mut Option<ModelMessage>, &str) -> std::io::Result<bool>,
    ) {
        let Some(tx) = &self.tx else {
            return;
        };
        let at = chrono::Utc::now();
        let stamp = lines::format_stamp(&at);
        let wake = {
            let mut pending = writer::lock(&self.pending);
            if pending.closed {
                return;
            }
            let Pending {
                lines,
                last_model,
                context,
                ..
            } = &mut *pending;
            if let Some(context) = context.take() {
                lines.extend_from_slice(&context);
            }
            let start = lines.len();
            match build(lines, last_model, &stamp) {
                Ok(true) => jsonl::last_updated_line(lines, &stamp),
                Ok(false) => {}
                Err(e) => {
                    // Nothing half-written: the record's lines go whole or not at all.
                    lines.truncate(start);
                    tracing::warn!("could not record a message: {e}");
                }
            }
            pending.last = Some(at);
            std::mem::take(&mut pending.idle)
        };
        if wake {
            let _ = tx.send(Job::Wake);
        }
        if self.synchronous.load(Ordering::Relaxed) {
            self.sync();
        }
    }
}

/// A session on disk.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    /// The file.
    pub path: PathBuf,
    /// The parsed record.
    pub record: ConversationRecord,
}

/// The session files (`session-*.json` and `session-*.jsonl`) in
/// `chats_dir`, in no order (sub-agents' files live in folders below).
pub(crate) fn session_files(chats_dir: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(chats_dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("session-") && (n.ends_with(".json") || n.ends_with(".jsonl"))
            })
        })
}

/// A session file of either era, parsed; `None` when it is neither.
pub(crate) fn read_session(text: &str) -> Option<ConversationRecord> {
    jsonl::parse(text).or_else(|| legacy::parse(text))
}

/// True when a session has a prompt, an answer or a tool call to resume
/// (and is not a sub-agent's).
fn resumable(record: &ConversationRecord) -> bool {
    record.meta().kind.as_deref() != Some("subagent")
        && record.messages.iter().any(history::is_resumable)
}

/// The recorded sessions of a project that can be resumed, oldest first
/// (by start time); of several files of one session (a 0.27.4 file and
/// the `.jsonl` it was carried over to) the last updated one.
pub fn list_sessions(chats_dir: &Path) -> Vec<SessionInfo> {
    let mut by_id: std::collections::HashMap<String, SessionInfo> = Default::default();
    for path in session_files(chats_dir) {
        let Some(record) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|t| read_session(&t))
            .filter(resumable)
        else {
            continue;
        };
        let newer = by_id
            .get(&record.session_id)
            .is_none_or(|s| record.last_updated > s.record.last_updated);
        if newer {
            by_id.insert(record.session_id.clone(), SessionInfo { path, record });
        }
    }
    let mut out: Vec<SessionInfo> = by_id.into_values().collect();
    out.sort_by(|a, b| a.record.start_time.cmp(&b.record.start_time));
    out
}

/// Shortest id prefix `--resume` / `--delete-session` accept (a whole id
/// always works).
const MIN_ID_PREFIX: usize = 4;

/// Finds a session by `latest`, a 1-based index of [`list_sessions`] or
/// a session id (or its prefix).
pub fn find_session(chats_dir: &Path, which: &str) -> Result<SessionInfo, SessionError> {
    let sessions = list_sessions(chats_dir);
    if sessions.is_empty() {
        return Err(SessionError::NoSessions);
    }
    let which = which.trim();
    let found = match which {
        "" | "latest" => sessions.last().cloned(),
        w => {
            // A whole id, an index, or a prefix long enough not to match by chance.
            let by_id = || sessions.iter().find(|s| s.record.session_id == w).cloned();
            let by_index = || {
                w.parse::<usize>()
                    .ok()
                    .filter(|i| (1..=sessions.len()).contains(i) && i.to_string() == w)
                    .and_then(|i| sessions.get(i - 1).cloned())
            };
            let by_prefix = || {
                (w.len() >= MIN_ID_PREFIX)
                    .then(|| sessions.iter().find(|s| s.record.session_id.starts_with(w)))
                    .flatten()
                    .cloned()
            };
            by_id().or_else(by_index).or_else(by_prefix)
        }
    };
    found.ok_or_else(|| SessionError::NotFound(which.to_string()))
}

/// The first prompt of a session (as listings show it): the text of its
/// first user message Gemini CLI would resume.
pub fn first_prompt(record: &ConversationRecord) -> String {
    record
        .messages
        .iter()
        .filter(|m| m.kind == "user")
        .filter(|m| !history::is_ignored_user_text(&history::text_of(&m.content)))
        .map(|m| history::prompt_text(&m.content))
        .find(|t| !t.trim().is_empty())
        .unwrap_or_default()
}

/// Rebuilds the model-facing history of a recorded session.
pub fn history_of(record: &ConversationRecord) -> Vec<Content> {
    history_of_messages(&record.messages)
}

/// Deletes a session by index or id: every file of it (a 0.27.4 file and
/// the `.jsonl` it was carried over to).
pub fn delete_session(chats_dir: &Path, which: &str) -> Result<SessionInfo, SessionError> {
    let info = find_session(chats_dir, which)?;
    let id = &info.record.session_id;
    let short: String = id.chars().take(8).collect();
    let files = session_files(chats_dir).filter(|p| {
        *p == info.path
            || p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                (n.ends_with(&format!("-{short}.json")) || n.ends_with(&format!("-{short}.jsonl")))
                    && std::fs::read_to_string(p)
                        .ok()
                        .and_then(|t| read_session(&t))
                        .is_some_and(|r| r.session_id == *id)
            })
    });
    for file in files {
        std::fs::remove_file(&file).map_err(|e| SessionError::Unreadable {
            path: file.clone(),
            message: e.to_string(),
        })?;
    }
    Ok(info)
}

#[cfg(test)]
mod tests;
