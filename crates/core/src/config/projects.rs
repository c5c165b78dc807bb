//! The project registry of today's Gemini CLI: `~/.gemini/projects.json`
//! maps each project root to a short slug, and the project's temp folder is
//! `~/.gemini/tmp/<slug>` (its history folder `~/.gemini/history/<slug>`).
//!
//! ```json
//! {"projects": {"/home/me/my-app": "my-app"}}
//! ```
//!
//! The slug is the root's base name, lower-cased, every run of characters
//! other than `a-z0-9` turned into one `-` (`project` when nothing is left),
//! with `-1`, `-2`, ... appended when another root owns it. Each slug folder
//! holds a `.project_root` file naming its owner. A 0.27.4 folder
//! (`tmp/<sha256 of the root>`) is copied into a new, empty slug folder, as
//! Gemini CLI 0.61 migrates it (the old folder stays). Writers take the lock
//! Gemini CLI takes (`projects.json.lock`, a directory), so both can run at
//! once.

mod behind;
mod listing;

pub use behind::{flush as flush_registrations, write_behind as write_registrations_behind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The 64-hex SHA-256 of the project root path, Gemini CLI's project id.
pub fn project_hash(root: &Path) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write;
    let digest = Sha256::digest(root.to_string_lossy().as_bytes());
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// The marker naming a slug folder's project.
const PROJECT_ROOT_FILE: &str = ".project_root";
/// How long a writer waits for the lock.
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);
/// Between tries.
const LOCK_RETRY: Duration = Duration::from_millis(100);
/// A lock older than this was left by a dead process (as proper-lockfile).
const LOCK_STALE: Duration = Duration::from_secs(10);

/// `projects.json`.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Registry {
    projects: BTreeMap<String, String>,
}

impl Registry {
    /// The file's registry; a missing, malformed or invalid file is empty,
    /// as Gemini CLI resets it.
    fn load(path: &Path) -> Registry {
        let Ok(text) = std::fs::read_to_string(path) else {
            return Registry::default();
        };
        match serde_json::from_str::<Registry>(&text) {
            Ok(r) if r.projects.values().all(|s| valid_slug(s)) => r,
            _ => {
                tracing::warn!("{} is invalid; starting it afresh", path.display());
                Registry::default()
            }
        }
    }

    fn save(&self, path: &Path) -> io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        crate::workspace::write_atomic(path, text.as_bytes())
    }
}

/// `^[a-z0-9-]+$`.
fn valid_slug(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The slug of a base name.
pub(crate) fn slugify(name: &str) -> String {
    let mut out = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_matches('-');
    if trimmed.is_empty() {
        "project".to_string()
    } else {
        trimmed.to_string()
    }
}

/// The folders that hold a slug folder per project.
fn base_dirs(gemini_dir: &Path) -> [PathBuf; 2] {
    [gemini_dir.join("tmp"), gemini_dir.join("history")]
}

/// Who owns `slug` in `base` (`None` when no marker).
fn owner(base: &Path, slug: &str) -> Option<String> {
    std::fs::read_to_string(base.join(slug).join(PROJECT_ROOT_FILE))
        .ok()
        .map(|s| s.trim().to_string())
}

/// True when no base dir says another root owns `slug`.
fn owned_by(gemini_dir: &Path, slug: &str, root: &str) -> bool {
    base_dirs(gemini_dir)
        .iter()
        .all(|b| owner(b, slug).is_none_or(|o| o == root))
}

/// True when every base dir has `slug` marked as `root`'s.
fn fully_marked(gemini_dir: &Path, slug: &str, root: &str) -> bool {
    base_dirs(gemini_dir)
        .iter()
        .all(|b| owner(b, slug).is_some_and(|o| o == root))
}

/// Creates the slug folders and their markers; an error when another root
/// got there first.
fn mark(gemini_dir: &Path, slug: &str, root: &str) -> io::Result<()> {
    for base in base_dirs(gemini_dir) {
        let dir = base.join(slug);
        let before = listing::stamp(&base);
        std::fs::create_dir_all(&dir)?;
        match owner(&base, slug) {
            Some(o) if o == root => continue,
            Some(o) => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("Slug {slug} is already owned by {o}"),
                ));
            }
            None => {}
        }
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(dir.join(PROJECT_ROOT_FILE))?;
        file.write_all(root.as_bytes())?;
        listing::marked(&base, before, slug, root);
    }
    Ok(())
}

/// The slug folder whose marker names `root`, if any.
fn find_marked(gemini_dir: &Path, root: &str) -> Option<String> {
    base_dirs(gemini_dir)
        .iter()
        .find_map(|base| listing::find_in(base, root))
}

/// A new slug for `root`: the base name's, numbered past the taken ones.
fn claim(gemini_dir: &Path, root: &Path, registry: &Registry) -> io::Result<String> {
    let base = root
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let slug = slugify(if base.is_empty() { "project" } else { &base });
    let root_text = root.to_string_lossy();
    let taken: std::collections::HashSet<&String> = registry.projects.values().collect();
    for n in 0..10_000u32 {
        let candidate = if n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        };
        if taken.contains(&candidate) || !owned_by(gemini_dir, &candidate, &root_text) {
            continue;
        }
        match mark(gemini_dir, &candidate, &root_text) {
            Ok(()) => return Ok(candidate),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!("no free slug for {root_text}")))
}

/// Holds `projects.json.lock` (a directory, as proper-lockfile makes it),
/// and this process's turn at it.
struct Lock {
    dir: PathBuf,
    _turn: std::sync::MutexGuard<'static, ()>,
}

/// This process's holders of a registry lock take turns here first: a
/// thread of the process waiting for another (a registration and the
/// writer behind it) is woken when the lock is let go, not 100 ms later
/// by the retry that waits for other processes.
static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Lock {
    fn take(registry: &Path) -> io::Result<Lock> {
        let turn = TURN
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut dir = registry.as_os_str().to_owned();
        dir.push(".lock");
        let dir = PathBuf::from(dir);
        let deadline = SystemTime::now() + LOCK_TIMEOUT;
        loop {
            match std::fs::create_dir(&dir) {
                Ok(()) => return Ok(Lock { dir, _turn: turn }),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let stale = std::fs::metadata(&dir)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|t| t.elapsed().ok())
                        .is_some_and(|age| age > LOCK_STALE);
                    if stale {
                        let _ = std::fs::remove_dir(&dir);
                        continue;
                    }
                    if SystemTime::now() > deadline {
                        return Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            format!("{} is held by another process", dir.display()),
                        ));
                    }
                    std::thread::sleep(LOCK_RETRY);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The slug of `root`, registered (and its folders marked) if new.
pub(crate) fn short_id(gemini_dir: &Path, root: &Path) -> io::Result<String> {
    short_id_in(gemini_dir, root, behind::is_behind())
}

/// [`short_id`], a new registration written `behind` (see [`behind`]) or
/// before returning.
fn short_id_in(gemini_dir: &Path, root: &Path, behind: bool) -> io::Result<String> {
    let path = gemini_dir.join("projects.json");
    let root_text = root.to_string_lossy().to_string();
    // Nothing to write: no lock needed.
    if let Some(slug) = behind::slug_of(&path, &root_text)
        && fully_marked(gemini_dir, &slug, &root_text)
    {
        return Ok(slug);
    }
    std::fs::create_dir_all(gemini_dir)?;
    let _lock = Lock::take(&path)?;
    let mut registry = behind::load(&path);
    if let Some(slug) = registry.projects.get(&root_text).cloned() {
        if owned_by(gemini_dir, &slug, &root_text) {
            mark(gemini_dir, &slug, &root_text)?;
            return Ok(slug);
        }
        registry.projects.remove(&root_text);
    }
    let slug = match find_marked(gemini_dir, &root_text) {
        Some(slug) => {
            mark(gemini_dir, &slug, &root_text)?;
            slug
        }
        None => claim(gemini_dir, root, &registry)?,
    };
    if behind {
        behind::register(&path, root_text, slug.clone());
    } else {
        registry.projects.insert(root_text, slug.clone());
        behind::save(&path, &registry)?;
    }
    Ok(slug)
}

/// Copies a 0.27.4 hash folder into the slug folder when that holds
/// nothing but its marker.
fn migrate(old: &Path, new: &Path) -> io::Result<()> {
    if !old.is_dir() {
        return Ok(());
    }
    if let Ok(entries) = std::fs::read_dir(new) {
        let names: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        if names.iter().any(|n| n != PROJECT_ROOT_FILE) {
            return Ok(());
        }
    }
    copy_tree(old, new)
}

fn copy_tree(from: &Path, to: &Path) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(entry.path())?;
            let _ = std::fs::remove_file(&target);
            std::os::unix::fs::symlink(link, &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The project roots `projects.json` registers (ACP's `session/list`
/// without a `cwd` lists the sessions of each).
pub(crate) fn registered_roots(gemini_dir: &Path) -> Vec<PathBuf> {
    behind::load(&gemini_dir.join("projects.json"))
        .projects
        .into_keys()
        .map(PathBuf::from)
        .collect()
}

/// `~/.gemini/tmp/<slug>` for `root`, registered and migrated; the 0.27.4
/// hash folder when the registry cannot be written (a read-only home).
pub(crate) fn project_temp_dir(gemini_dir: &Path, root: &Path) -> PathBuf {
    let hash = project_hash(root);
    match short_id(gemini_dir, root) {
        Ok(slug) => {
            for base in base_dirs(gemini_dir) {
                if let Err(e) = migrate(&base.join(&hash), &base.join(&slug)) {
                    tracing::warn!("could not migrate {}: {e}", base.join(&hash).display());
                }
            }
            gemini_dir.join("tmp").join(slug)
        }
        Err(e) => {
            tracing::warn!("project registry unavailable ({e}); using the hash folder");
            gemini_dir.join("tmp").join(hash)
        }
    }
}

#[cfg(test)]
mod tests;
