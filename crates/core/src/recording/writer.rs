//! The session writer's thread: it owns the file and appends the lines
//! the agent serialised (see [`super::lines`]), everything recorded since
//! its last write in one write.

use super::atif::TrajectoryFile;
use super::jsonl;
use super::legacy::{self, SessionFormat};
use super::lines::{self, ModelMessage, Stamp};
use super::record::{ConversationRecord, MessageRecord};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// What wakes the writer (the lines themselves wait in [`Pending`]).
pub(super) enum Job {
    /// Lines arrived while it was idle.
    Wake,
    /// Answer once everything recorded before is written.
    Sync(std::sync::mpsc::Sender<()>),
    /// Write everything recorded before, then stop.
    Close,
}

/// What the agent has recorded and the writer has not taken yet, shared
/// by both under a mutex held only to append or to swap the buffer.
/// Serialising on the agent's thread, from what it holds, costs less than
/// handing the writer anything to serialise: measured, the hand-over of
/// owned jobs (a channel send, their frees on another thread, which
/// contend for the allocator's lock) cost as much as the records.
#[derive(Default)]
pub(super) struct Pending {
    /// Lines waiting to be written, each ending in a newline.
    pub lines: Vec<u8>,
    /// When the last of them happened.
    pub last: Option<Stamp>,
    /// The last model message, written again when its calls finish.
    pub last_model: Option<ModelMessage>,
    /// The environment context line, written just before the first message.
    pub context: Option<Vec<u8>>,
    /// The writer found nothing and sleeps until a [`Job::Wake`].
    pub idle: bool,
    /// The writer has stopped: nothing more is kept.
    pub closed: bool,
}

/// The pending lines, locked (a panic elsewhere leaves them usable).
pub(super) fn lock(pending: &Mutex<Pending>) -> MutexGuard<'_, Pending> {
    pending.lock().unwrap_or_else(PoisonError::into_inner)
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
            for msg in jsonl::each_line(lines).filter_map(|l| lines::record_of(l).ok()) {
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

/// Owns the file. Everything recorded while it was writing goes out
/// together, in one write. After a write nobody waits for, it pauses for
/// [`GATHER`] (parked: recording wakes no thread; a sync or the close
/// unparks it); when it finds nothing, it sleeps until the agent records
/// something ([`Job::Wake`], sent only then), a sync or the close. Ends at
/// [`Job::Close`] or when every sender is gone, after a last write.
pub(super) fn write_loop(
    mut state: FileState,
    pending: &Mutex<Pending>,
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
    // The lines of one write, swapped with the agent's (capacity kept).
    let mut lines = Vec::new();
    let mut replies = Vec::new();
    let mut woken: Option<Job> = None;
    let mut open = true;
    loop {
        for job in woken.take().into_iter().chain(rx.try_iter()) {
            match job {
                Job::Sync(reply) => replies.push(reply),
                Job::Close => open = false,
                Job::Wake => {}
            }
        }
        if lines.capacity() > KEEP_BUFFER {
            lines = Vec::new();
        }
        lines.clear();
        let last = {
            let mut pending = lock(pending);
            std::mem::swap(&mut pending.lines, &mut lines);
            pending.idle = lines.is_empty() && open;
            pending.closed = !open;
            pending.last.take()
        };
        let wrote = !lines.is_empty();
        if let Some(last) = last.filter(|_| wrote)
            && let Err(e) = state.write(&lines, &last)
        {
            let path = state.path.display();
            tracing::warn!("could not write session file {path}: {e}");
        }
        for reply in replies.drain(..) {
            let _ = reply.send(());
        }
        if !open {
            break;
        }
        if wrote {
            if !synchronous.load(Ordering::Relaxed) {
                std::thread::park_timeout(GATHER);
            }
            continue;
        }
        match rx.recv() {
            Ok(job) => woken = Some(job),
            // Every recording is gone: write what is left, then stop.
            Err(_) => open = false,
        }
    }
}
