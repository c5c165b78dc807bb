//! The session writer's thread: it owns the file, turns what the agent
//! hands over into lines (see [`super::lines`]) and appends them, several
//! at a time.

use super::atif::TrajectoryFile;
use super::jsonl;
use super::legacy::{self, SessionFormat};
use super::lines::{self, EncodedCall, ModelMessage, ModelTurn, Stamp};
use super::record::{ConversationRecord, MessageRecord};
use serde_json::value::RawValue;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

/// What the agent hands the writer: a few owned buffers (the JSON of parts
/// and arguments encoded on its side, see [`ModelTurn`]), stamped with the
/// time it happened; the writer builds the records.
pub(super) enum Job {
    /// A user message (its parts, encoded).
    User(Box<RawValue>, Stamp),
    /// A model turn (its calls follow with [`Job::Calls`]).
    Model(Box<ModelTurn>, Stamp),
    /// The finished calls of the last model turn: that message is written
    /// again with them, then the user message of their responses.
    Calls(Vec<EncodedCall>, Stamp),
    /// An info, warning or error line.
    Note(String, String, Stamp),
    /// A whole message (a session copied in).
    Message(Box<MessageRecord>, Stamp),
    /// The environment context that opens a new conversation: recorded
    /// (as 0.61 records it) just before the first message.
    Context(String, Stamp),
    /// Answer once everything before is written.
    Sync(std::sync::mpsc::Sender<()>),
    /// Write everything before, then stop.
    Close,
}

impl Job {
    /// When it happened (`None` for the writer's own jobs).
    fn stamp(&self) -> Option<Stamp> {
        match self {
            Job::User(_, at)
            | Job::Model(_, at)
            | Job::Calls(_, at)
            | Job::Note(_, _, at)
            | Job::Message(_, at)
            | Job::Context(_, at) => Some(*at),
            Job::Sync(_) | Job::Close => None,
        }
    }
}

/// How the file starts when the first message comes.
pub(super) enum Start {
    /// A new file: the metadata line first.
    New,
    /// A JSONL file already there: append (after ending a torn last line).
    Append,
    /// A 0.27.4 `.json` session carried over: the whole record first.
    Convert,
}

/// The file and its metadata (the whole record only until a carried-over
/// file is written), owned by the writing thread.
pub(super) struct FileState {
    pub path: PathBuf,
    pub record: ConversationRecord,
    pub start: Option<Start>,
    pub file: Option<std::fs::File>,
    /// Whether the session file is written (off with `GEMINI_RS_NO_RECORDING`).
    pub session: bool,
    /// How it is written.
    pub format: SessionFormat,
    /// The trajectory file and every message so far (a resumed session's
    /// too), rewritten whole after each write.
    pub trajectory: Option<(TrajectoryFile, Vec<MessageRecord>)>,
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
                    let mut header = jsonl::header_line(&self.record)?;
                    header.push('\n');
                    std::io::Write::write_all(&mut opts.open(&self.path)?, header.as_bytes())?;
                }
            }
            self.file = Some(opts.open(&self.path)?);
        }
        match self.file.as_mut() {
            Some(f) => Ok(f),
            None => Err(std::io::Error::other("the session file is not open")),
        }
    }

    /// Appends `lines` (messages and `$set` updates, each ending in a
    /// newline) in one write. The messages are not kept: the agent holds
    /// the conversation, the file holds the record (except in 0.27.4's
    /// format, rewritten whole from the record).
    fn write(&mut self, lines: &[u8], last: &Stamp) -> std::io::Result<()> {
        if let Some((file, all)) = &mut self.trajectory {
            let each = lines.split(|&b| b == b'\n').filter(|l| !l.is_empty());
            for msg in each.filter_map(|l| lines::record_of(l).ok()) {
                match all.iter_mut().find(|m| m.id == msg.id) {
                    Some(old) => *old = msg,
                    None => all.push(msg),
                }
            }
            if let Err(e) = file.write(all) {
                tracing::warn!("could not write trajectory {}: {e}", file.path.display());
            }
        }
        if !self.session {
            return Ok(());
        }
        if self.format == SessionFormat::Document {
            let stamp = lines::format_stamp(last);
            return legacy::rewrite(&self.path, &mut self.record, lines, stamp);
        }
        // Opened first: a carried-over file holds the record before these.
        self.open()?;
        self.record.messages = Vec::new();
        std::io::Write::write_all(self.open()?, lines)
    }
}

/// The writer: the file, the last model message (written again when its
/// calls finish) and the context line waiting for the first message.
struct Writer {
    state: FileState,
    last_model: Option<ModelMessage>,
    context: Option<Vec<u8>>,
}

impl Writer {
    /// Appends the lines of one job to `out`, each new message followed
    /// by a `lastUpdated` update as 0.61 writes them (a model message
    /// updated with its calls is not: the user message of their responses
    /// is, after it). The job's time is formatted once.
    fn lines_of(&mut self, job: Job, out: &mut Vec<u8>) -> std::io::Result<()> {
        if let Job::Context(text, at) = job {
            self.context = Some(lines::context_line(&text, &at)?);
            return Ok(());
        }
        let Some(at) = job.stamp() else {
            return Ok(());
        };
        if let Some(context) = self.context.take() {
            out.extend_from_slice(&context);
        }
        let stamp = lines::format_stamp(&at);
        match job {
            Job::User(parts, _) => lines::user_line(out, &parts, &stamp)?,
            Job::Note(kind, text, _) => lines::note_line(out, &kind, &text, &stamp)?,
            Job::Message(msg, _) => jsonl::push_line(out, &msg)?,
            Job::Model(turn, _) => {
                let msg = ModelMessage::new(*turn, &stamp);
                msg.line(out)?;
                self.last_model = Some(msg);
            }
            Job::Calls(calls, _) => {
                let last = self.last_model.take();
                let mut msg = last.unwrap_or_else(|| ModelMessage::bare(&stamp));
                msg.add_calls(calls, &stamp);
                msg.line(out)?;
                if !msg.responses_line(out, &stamp)? {
                    return Ok(());
                }
            }
            Job::Context(..) | Job::Sync(_) | Job::Close => return Ok(()),
        }
        jsonl::last_updated_line(out, &stamp)
    }
}

/// How long the writer gathers messages after a write before it looks
/// for more. Someone waiting for the file (a sync, the close) wakes it at
/// once; only a crash can lose what it holds, at most this much.
const GATHER: std::time::Duration = std::time::Duration::from_millis(10);

/// The most buffer capacity kept between writes (a large batch's is let go).
const KEEP_BUFFER: usize = 1 << 20;

/// The writer's nice value: its work is throughput, never in a session's
/// way; the agent's threads go first when a core is contended (on a busy
/// two-core machine the writer's runs were delaying the turns).
const NICE: libc::c_int = 10;

/// Owns the file. Messages that arrived while it was writing go out
/// together, in one write. After a write nobody waits for, it pauses for
/// [`GATHER`] (parked: the agent's sends wake no thread; a sync or the
/// close unparks it) instead of sleeping on the channel, so a long session
/// writes once per pause at most. Ends at [`Job::Close`] or when every
/// sender is gone.
pub(super) fn write_loop(
    state: FileState,
    rx: std::sync::mpsc::Receiver<Job>,
    synchronous: &AtomicBool,
) {
    // SAFETY: plain syscalls on this thread (Linux's priority is per thread).
    // A failure leaves the default priority.
    #[cfg(target_os = "linux")]
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid);
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, NICE);
    }
    // The trajectory is there (and whole) from the start.
    if let Some((file, all)) = &state.trajectory
        && let Err(e) = file.write(all)
    {
        tracing::warn!("could not write trajectory {}: {e}", file.path.display());
    }
    let mut writer = Writer {
        state,
        last_model: None,
        context: None,
    };
    let mut open = true;
    // The lines of one write, kept (with its capacity) from write to write.
    let mut lines = Vec::new();
    while open && let Ok(first) = rx.recv() {
        if lines.capacity() > KEEP_BUFFER {
            lines = Vec::new();
        }
        lines.clear();
        let mut replies = Vec::new();
        let mut last = None;
        for job in std::iter::once(first).chain(rx.try_iter()) {
            match job {
                Job::Sync(reply) => replies.push(reply),
                Job::Close => {
                    open = false;
                    break;
                }
                job => {
                    last = job.stamp().or(last);
                    if let Err(e) = writer.lines_of(job, &mut lines) {
                        tracing::warn!("could not record a message: {e}");
                    }
                }
            }
        }
        if let Some(last) = last.filter(|_| !lines.is_empty())
            && let Err(e) = writer.state.write(&lines, &last)
        {
            let path = writer.state.path.display();
            tracing::warn!("could not write session file {path}: {e}");
        }
        if open && replies.is_empty() && !synchronous.load(Ordering::Relaxed) {
            std::thread::park_timeout(GATHER);
        }
        for reply in replies {
            let _ = reply.send(());
        }
    }
}
