//! What a process hosting many sessions (an ACP server, `serve`) does to
//! keep `projects.json` cheap: the parsed file is kept while it stays the
//! same file (same inode, size and modification time), and new
//! registrations are written behind, several at a time, by one thread per
//! file, instead of once per `session/new` (each atomic replace costs a
//! millisecond or more of wall time here, in the session's start).
//!
//! Writing behind loses nothing that matters: the slug folders' markers
//! are written at once, and they are what a registration is rebuilt from
//! when `projects.json` lacks it (by this process, Gemini CLI or a later
//! run); [`flush`] lands whatever is pending before the server exits.

use super::{Lock, Registry};
use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

/// Whether registrations are written behind (off: each one is written
/// before the session starts, as a one-session process does).
static BEHIND: AtomicBool = AtomicBool::new(false);

/// Per `projects.json`: the registrations not written yet, and the thread
/// writing them.
#[derive(Default)]
struct Pending {
    entries: BTreeMap<String, String>,
    /// The registrations being written now: still seen by readers until
    /// the file holds them.
    writing: BTreeMap<String, String>,
    /// Whether a writer runs (it says it stops under the same lock the
    /// registrations are queued under, so none is left unwritten).
    running: bool,
    writer: Option<std::thread::JoinHandle<()>>,
}

static PENDING: LazyLock<Mutex<HashMap<PathBuf, Pending>>> = LazyLock::new(Default::default);

/// The registry last read or written, by file, with the identity of the
/// file it came from.
static READ: LazyLock<Mutex<HashMap<PathBuf, (Stamp, Registry)>>> = LazyLock::new(Default::default);

/// A file's identity: an atomic replace makes a new inode.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i128,
}

fn stamp_of(path: &Path) -> Option<Stamp> {
    let m = std::fs::metadata(path).ok()?;
    Some(Stamp {
        dev: m.dev(),
        ino: m.ino(),
        len: m.len(),
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
    })
}

fn locked<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Writes this process's new registrations behind from now on.
pub fn write_behind() {
    BEHIND.store(true, Ordering::Relaxed);
}

/// Whether registrations are written behind.
pub(super) fn is_behind() -> bool {
    BEHIND.load(Ordering::Relaxed)
}

/// Waits until every registration made so far is in its `projects.json`
/// (written here when no writer could be started).
pub fn flush() {
    let writers: Vec<_> = locked(&PENDING)
        .values_mut()
        .filter_map(|p| p.writer.take())
        .collect();
    for writer in writers {
        let _ = writer.join();
    }
    let left: Vec<PathBuf> = locked(&PENDING)
        .iter()
        .filter(|(_, p)| !p.entries.is_empty())
        .map(|(path, _)| path.clone())
        .collect();
    for path in left {
        write_loop(&path);
    }
}

/// The slug `path`'s registry (or this process's pending registrations)
/// gives `root`, without copying the registry.
pub(super) fn slug_of(path: &Path, root: &str) -> Option<String> {
    if let Some(p) = locked(&PENDING).get(path)
        && let Some(slug) = p.entries.get(root).or_else(|| p.writing.get(root))
    {
        return Some(slug.clone());
    }
    let now = stamp_of(path)?;
    if let Some((then, registry)) = locked(&READ).get(path)
        && *then == now
    {
        return registry.projects.get(root).cloned();
    }
    load(path).projects.remove(root)
}

/// `path`'s registry with this process's pending registrations, read
/// again only when the file changed.
pub(super) fn load(path: &Path) -> Registry {
    let stamp = stamp_of(path);
    let cached = stamp.and_then(|now| {
        let read = locked(&READ);
        let (then, registry) = read.get(path)?;
        (*then == now).then(|| registry.clone())
    });
    let mut registry = cached.unwrap_or_else(|| {
        let registry = Registry::load(path);
        if let Some(now) = stamp {
            locked(&READ).insert(path.to_path_buf(), (now, registry.clone()));
        }
        registry
    });
    if let Some(p) = locked(&PENDING).get(path) {
        let mine = (p.writing.iter()).chain(&p.entries);
        registry
            .projects
            .extend(mine.map(|(k, v)| (k.clone(), v.clone())));
    }
    registry
}

/// Saves `registry` to `path` (under its lock) and keeps it as read.
pub(super) fn save(path: &Path, registry: &Registry) -> std::io::Result<()> {
    registry.save(path)?;
    if let Some(now) = stamp_of(path) {
        locked(&READ).insert(path.to_path_buf(), (now, registry.clone()));
    }
    Ok(())
}

/// Queues `root`'s registration under `slug` for `path`, starting its
/// writer when none runs.
pub(super) fn register(path: &Path, root: String, slug: String) {
    let mut pending = locked(&PENDING);
    let p = pending.entry(path.to_path_buf()).or_default();
    p.entries.insert(root, slug);
    if p.running {
        return;
    }
    let file = path.to_path_buf();
    match std::thread::Builder::new()
        .name("projects-writer".into())
        .spawn(move || write_loop(&file))
    {
        Ok(handle) => {
            p.running = true;
            // A writer before it has stopped (joined by nobody now).
            p.writer = Some(handle);
        }
        // The markers keep the registration; the next writer or the flush
        // writes it.
        Err(e) => tracing::warn!("could not start the project registry writer: {e}"),
    }
}

/// Writes the pending registrations of `path` until none are left.
fn write_loop(path: &Path) {
    loop {
        let entries = {
            let mut pending = locked(&PENDING);
            let Some(p) = pending.get_mut(path) else {
                return;
            };
            if p.entries.is_empty() {
                p.running = false;
                return;
            }
            p.writing = std::mem::take(&mut p.entries);
            p.writing.clone()
        };
        let written = Lock::take(path).and_then(|_lock| {
            let mut registry = load(path);
            registry.projects.extend(entries);
            save(path, &registry)
        });
        if let Some(p) = locked(&PENDING).get_mut(path) {
            p.writing.clear();
        }
        if let Err(e) = written {
            // The markers keep them: a later start rebuilds them.
            tracing::warn!("could not write {}: {e}", path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{registered_roots, short_id_in};
    use std::path::Path;

    #[test]
    fn registrations_written_behind_land_by_the_flush_and_are_seen_before() {
        let home = tempfile::tempdir().unwrap();
        let g = home.path().join(".gemini");
        let behind = |root: &str| short_id_in(&g, Path::new(root), true).unwrap();
        assert_eq!(behind("/w/a"), "a");
        assert_eq!(behind("/v/a"), "a-1");
        // Seen before the file is written, and the same slug again.
        assert_eq!(behind("/v/a"), "a-1");
        assert_eq!(registered_roots(&g).len(), 2);
        super::flush();
        let text = std::fs::read_to_string(g.join("projects.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["projects"]["/w/a"], "a");
        assert_eq!(v["projects"]["/v/a"], "a-1");
        assert!(!g.join("projects.json.lock").exists());
    }
}
