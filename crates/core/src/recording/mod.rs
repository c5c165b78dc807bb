//! Chat recording as today's Gemini CLI keeps it: one JSONL file per
//! session, `<project temp dir>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`
//! (UTC), appended to one record per message (see [`jsonl`]); 0.27.4's
//! `session-*.json` files are read too (see [`legacy`]).

mod atif;
mod history;
mod import;
mod jsonl;
mod legacy;
mod record;
pub mod retention;
pub mod saved_chats;
pub mod share;

use atif::TrajectoryFile;
pub use atif::{TrajectoryPathError, check_trajectory_path};
pub use history::history_of_messages;
pub use import::{export_session, fork_session, import_session, session_exists};
pub use record::{ConversationRecord, MessageRecord, ToolCallRecord};
pub use retention::cleanup_sessions;

use gemini_rs_protocol::{Content, Part, UsageMetadata};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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

/// Writes one session's messages to disk as they happen. The writing runs
/// on a thread of its own, so the agent loop only hands each message over;
/// [`ChatRecorder::set_synchronous`] makes every record wait until it is on
/// disk (hooks read the transcript).
pub struct ChatRecorder {
    path: PathBuf,
    worker: Option<Worker>,
    synchronous: bool,
    /// The last model message, updated in place when its calls finish.
    last_model: Option<MessageRecord>,
    /// Whether a trajectory is written too.
    trajectory: bool,
}

/// The writing thread and the way to it.
struct Worker {
    tx: std::sync::mpsc::Sender<Job>,
    thread: std::thread::JoinHandle<()>,
    /// Whether the writer may pause to gather messages (off while every
    /// record waits until written).
    gather: Arc<AtomicBool>,
}

enum Job {
    /// Append a message (or an update of one with the same id), stamped.
    Push(Box<MessageRecord>, String),
    /// Append a model message updated with its calls, then the user
    /// message of their responses (built here, off the agent's thread).
    Calls(Box<MessageRecord>, String),
    /// Answer once everything before is written.
    Sync(std::sync::mpsc::Sender<()>),
}

/// How the file starts when the first message comes.
enum Start {
    /// A new file: the metadata line first.
    New,
    /// A JSONL file already there: append (after ending a torn last line).
    Append,
    /// A 0.27.4 `.json` session carried over: the whole record first.
    Convert,
}

/// The file and its metadata (the whole record only until a carried-over
/// file is written), owned by the writing thread.
struct FileState {
    path: PathBuf,
    record: ConversationRecord,
    start: Option<Start>,
    file: Option<std::fs::File>,
    /// Whether the session file is written (off with `GEMINI_RS_NO_RECORDING`).
    session: bool,
    /// The trajectory file and every message so far (a resumed session's
    /// too), rewritten whole after each write.
    trajectory: Option<(TrajectoryFile, Vec<MessageRecord>)>,
}

impl FileState {
    fn open(&mut self) -> std::io::Result<&mut std::fs::File> {
        if let Some(start) = self.start.take() {
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let mut opts = std::fs::OpenOptions::new();
            // Created 0600: a session file holds prompts and answers.
            std::os::unix::fs::OpenOptionsExt::mode(opts.append(true).create(true), 0o600);
            match start {
                Start::Convert => jsonl::write_whole(&self.path, &self.record)?,
                Start::Append => {
                    let torn = std::fs::read(&self.path)
                        .map(|b| b.last().is_some_and(|&c| c != b'\n'))
                        .unwrap_or(false);
                    if torn {
                        std::io::Write::write_all(&mut opts.open(&self.path)?, b"\n")?;
                    }
                }
                Start::New => {
                    let header = jsonl::header_line(&self.record)?;
                    jsonl::append(&mut opts.open(&self.path)?, &[header])?;
                }
            }
            self.file = Some(opts.open(&self.path)?);
        }
        match self.file.as_mut() {
            Some(f) => Ok(f),
            None => Err(std::io::Error::other("the session file is not open")),
        }
    }

    /// Appends `msgs` with one `lastUpdated` update. The messages are not
    /// kept: the agent holds the conversation, the file holds the record.
    fn write(&mut self, msgs: Vec<(MessageRecord, String)>) -> std::io::Result<()> {
        if let Some((file, all)) = &mut self.trajectory {
            for (msg, _) in &msgs {
                match all.iter_mut().find(|m| m.id == msg.id) {
                    Some(old) => *old = msg.clone(),
                    None => all.push(msg.clone()),
                }
            }
            if let Err(e) = file.write(all) {
                tracing::warn!("could not write trajectory {}: {e}", file.path.display());
            }
        }
        if !self.session {
            return Ok(());
        }
        // Opened first: a carried-over file holds the record before these.
        self.open()?;
        self.record.messages = Vec::new();
        let mut lines = Vec::with_capacity(msgs.len() + 1);
        for (msg, stamp) in msgs {
            lines.push(jsonl::message_line(&msg)?);
            self.record.last_updated = stamp;
        }
        lines.push(jsonl::set_line(
            json!({"lastUpdated": self.record.last_updated}),
        ));
        jsonl::append(self.open()?, &lines)
    }
}

/// How long the writer gathers messages after a write before it looks
/// for more (unless someone waits for the file).
const GATHER: std::time::Duration = std::time::Duration::from_millis(1);

/// Owns the file. Messages that arrived while it was writing go out
/// together, in one write. After a write nobody waits for, it pauses for
/// [`GATHER`] instead of sleeping on the channel: the agent's sends then
/// wake no thread, and a long session writes once a millisecond at most.
fn write_loop(mut state: FileState, rx: std::sync::mpsc::Receiver<Job>, gather: &AtomicBool) {
    // The trajectory is there (and whole) from the start.
    if let Some((file, all)) = &state.trajectory
        && let Err(e) = file.write(all)
    {
        tracing::warn!("could not write trajectory {}: {e}", file.path.display());
    }
    while let Ok(first) = rx.recv() {
        let mut msgs = Vec::new();
        let mut replies = Vec::new();
        for job in std::iter::once(first).chain(rx.try_iter()) {
            match job {
                Job::Push(msg, stamp) => msgs.push((*msg, stamp)),
                Job::Calls(msg, stamp) => {
                    let responses: Vec<Value> = msg
                        .tool_calls
                        .iter()
                        .flatten()
                        .flat_map(|c| c.result.as_array().cloned().unwrap_or_default())
                        .collect();
                    msgs.push((*msg, stamp.clone()));
                    if !responses.is_empty() {
                        let user = MessageRecord::new("user", Value::Array(responses));
                        msgs.push((user, stamp));
                    }
                }
                Job::Sync(reply) => replies.push(reply),
            }
        }
        if !msgs.is_empty()
            && let Err(e) = state.write(msgs)
        {
            tracing::warn!("could not write session file {}: {e}", state.path.display());
        }
        if replies.is_empty() && gather.load(Ordering::Relaxed) {
            std::thread::sleep(GATHER);
        }
        for reply in replies {
            let _ = reply.send(());
        }
    }
}

fn now() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S%.3fZ")
        .to_string()
}

/// A thought's `**subject**` and the rest, as Gemini CLI splits them.
fn thought_record(text: &str) -> Value {
    let (subject, description) = text
        .trim_start()
        .strip_prefix("**")
        .and_then(|rest| rest.split_once("**"))
        .map(|(s, d)| (s.trim(), d.trim()))
        .unwrap_or(("", text.trim()));
    json!({"subject": subject, "description": description, "timestamp": now()})
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
        let stamp = chrono::Utc::now().format("%Y-%m-%dT%H-%M");
        let short: String = session_id.chars().take(8).collect();
        let path = chats_dir.join(format!("session-{stamp}-{short}.jsonl"));
        let time = now();
        let mut extra = gemini_rs_protocol::Extra::new();
        extra.insert("kind".into(), Value::String("main".into()));
        let record = ConversationRecord {
            session_id: session_id.to_string(),
            project_hash: project_hash.to_string(),
            start_time: time.clone(),
            last_updated: time,
            messages: Vec::new(),
            extra,
        };
        ChatRecorder::start(path, record, Start::New, enabled, trajectory)
    }

    /// Continues a resumed session: a `.jsonl` file is appended to; a
    /// 0.27.4 `.json` file is carried over to `<file>.jsonl` (written whole
    /// with the first new message) and left as it was.
    /// `enabled` and `trajectory` as for [`ChatRecorder::new_session`]; the
    /// trajectory starts with the resumed messages.
    pub fn resume(
        path: PathBuf,
        record: ConversationRecord,
        enabled: bool,
        trajectory: Option<PathBuf>,
    ) -> Self {
        if path.extension().is_some_and(|e| e == "json") {
            let mut jsonl = path.into_os_string();
            jsonl.push("l");
            let path = PathBuf::from(jsonl);
            ChatRecorder::start(path, record, Start::Convert, enabled, trajectory)
        } else {
            ChatRecorder::start(path, record, Start::Append, enabled, trajectory)
        }
    }

    fn start(
        path: PathBuf,
        record: ConversationRecord,
        start: Start,
        enabled: bool,
        trajectory: Option<PathBuf>,
    ) -> Self {
        let trajectory = trajectory.map(|path| {
            let session_id = record.session_id.clone();
            (TrajectoryFile { path, session_id }, record.messages.clone())
        });
        let has_trajectory = trajectory.is_some();
        let worker = (enabled || trajectory.is_some())
            .then(|| {
                let (tx, rx) = std::sync::mpsc::channel();
                let gather = Arc::new(AtomicBool::new(true));
                let writer_gather = gather.clone();
                let state = FileState {
                    path: path.clone(),
                    record,
                    start: Some(start),
                    file: None,
                    session: enabled,
                    trajectory,
                };
                std::thread::Builder::new()
                    .name("session-writer".into())
                    .spawn(move || write_loop(state, rx, &writer_gather))
                    .map(|thread| Worker { tx, thread, gather })
                    .map_err(|e| tracing::warn!("chat recording is off: {e}"))
                    .ok()
            })
            .flatten();
        ChatRecorder {
            path,
            worker,
            synchronous: false,
            last_model: None,
            trajectory: has_trajectory,
        }
    }

    /// Makes every record wait until it is written (for readers of the
    /// file during the session, such as hooks).
    pub fn set_synchronous(&mut self, synchronous: bool) {
        self.synchronous = synchronous;
        if let Some(worker) = &self.worker {
            worker.gather.store(!synchronous, Ordering::Relaxed);
        }
    }

    /// Waits until every message so far is written (`None` when recording
    /// is off).
    pub fn sync(&self) -> Option<()> {
        let worker = self.worker.as_ref()?;
        let (tx, rx) = std::sync::mpsc::channel();
        worker.tx.send(Job::Sync(tx)).ok()?;
        rx.recv().ok()
    }

    /// Whether an ATIF trajectory is kept beside the session file.
    pub fn has_trajectory(&self) -> bool {
        self.trajectory
    }

    /// The file (the hooks' `transcript_path`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records a user message.
    pub fn record_user(&mut self, parts: &[Part]) {
        let content = serde_json::to_value(parts).unwrap_or(Value::Null);
        self.push(MessageRecord::new("user", content));
    }

    /// Records one model turn: its text, thoughts, token usage, model and
    /// (with `model.logprobs`) its `logprobs`: `{tokens, tokenIds,
    /// logprobs, promptTokenIds}`. Its tool calls follow with
    /// [`ChatRecorder::record_tool_calls`].
    pub fn record_model(
        &mut self,
        model_parts: &[Part],
        usage: Option<&UsageMetadata>,
        model: &str,
        logprobs: Option<&Value>,
    ) {
        let text: String = model_parts
            .iter()
            .filter(|p| !p.is_thought())
            .filter_map(|p| p.text.as_deref())
            .collect();
        let mut msg = MessageRecord::new("gemini", Value::String(text));
        let thoughts: Vec<Value> = model_parts
            .iter()
            .filter(|p| p.is_thought())
            .filter_map(|p| p.text.as_deref())
            .map(thought_record)
            .collect();
        msg.extra.insert("thoughts".into(), Value::Array(thoughts));
        let tokens = usage.map_or(Value::Null, |u| {
            let n = |v: Option<u64>| v.unwrap_or(0);
            json!({"input": n(u.prompt_token_count), "output": n(u.candidates_token_count),
                "cached": n(u.cached_content_token_count), "thoughts": n(u.thoughts_token_count),
                "tool": n(u.tool_use_prompt_token_count), "total": n(u.total_token_count)})
        });
        msg.extra.insert("tokens".into(), tokens);
        msg.extra
            .insert("model".into(), Value::String(model.to_string()));
        if let Some(lp) = logprobs {
            msg.extra.insert("logprobs".into(), lp.clone());
        }
        self.last_model = Some(msg.clone());
        self.push(msg);
    }

    /// Adds the finished calls (with their results) to the last model
    /// message, written again as an update of it, and records the
    /// functionResponse parts sent back as a user message, as Gemini CLI
    /// does.
    pub fn record_tool_calls(&mut self, calls: Vec<ToolCallRecord>) {
        if calls.is_empty() {
            return;
        }
        let mut msg = self
            .last_model
            .take()
            .unwrap_or_else(|| MessageRecord::new("gemini", Value::String(String::new())));
        msg.tool_calls.get_or_insert_with(Vec::new).extend(calls);
        self.send(Job::Calls(Box::new(msg), now()));
    }

    /// Records an info, warning or error line of the session.
    pub fn record_note(&mut self, kind: &str, text: &str) {
        self.push(MessageRecord::new(kind, Value::String(text.to_string())));
    }

    fn push(&mut self, msg: MessageRecord) {
        self.send(Job::Push(Box::new(msg), now()));
    }

    fn send(&mut self, job: Job) {
        let Some(worker) = &self.worker else {
            return;
        };
        if worker.tx.send(job).is_ok() && self.synchronous {
            self.sync();
        }
    }
}

impl Drop for ChatRecorder {
    /// Everything handed over is written before the recorder goes.
    fn drop(&mut self) {
        if let Some(Worker { tx, thread, .. }) = self.worker.take() {
            drop(tx);
            let _ = thread.join();
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
    record.extra.get("kind").and_then(Value::as_str) != Some("subagent")
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
