//! Which slug folder's marker names a root. A new project is looked for
//! among the markers before it gets a slug (a lost `projects.json` is
//! rebuilt from them); a process that registers many projects (an ACP
//! server with a session per folder) keeps what it listed of each base
//! folder while the folder is unchanged, so a new project costs a `stat`,
//! not a listing of every project and a read of every marker.

use super::owner;
use std::collections::HashMap;
use std::os::unix::fs::{DirEntryExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, PoisonError};

/// A folder's identity and last change (an entry added or removed).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct DirStamp {
    dev: u64,
    ino: u64,
    mtime_ns: i128,
}

/// `dir`'s stamp now.
pub(super) fn stamp(dir: &Path) -> Option<DirStamp> {
    let m = std::fs::metadata(dir).ok()?;
    Some(DirStamp {
        dev: m.dev(),
        ino: m.ino(),
        mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
    })
}

/// What a listing of one base folder found.
struct Listing {
    /// The folder as it was just before it was listed.
    stamp: DirStamp,
    /// The slug folder of each root with a marker.
    slugs: HashMap<String, String>,
    /// Slug folders without a marker yet (looked at again each time), by
    /// name and inode.
    unmarked: Vec<(String, u64)>,
    /// Every marker read, by slug folder and inode: a marker is written
    /// once (`create_new`) and never changed, so a listing made again
    /// reads only the new ones.
    owners: HashMap<(String, u64), String>,
}

static LISTINGS: LazyLock<Mutex<HashMap<PathBuf, Listing>>> = LazyLock::new(Default::default);

fn listings() -> std::sync::MutexGuard<'static, HashMap<PathBuf, Listing>> {
    LISTINGS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The slug folder in `base` whose marker names `root`, if any.
pub(super) fn find_in(base: &Path, root: &str) -> Option<String> {
    let now = stamp(base)?;
    let mut all = listings();
    let current = all.get(base).is_some_and(|l| l.stamp == now);
    if !current {
        let owners = all.remove(base).map(|l| l.owners).unwrap_or_default();
        all.insert(base.to_path_buf(), list(base, now, owners));
    }
    let listing = all.get_mut(base)?;
    // A folder made before its marker: look again.
    let mut still = Vec::new();
    for (slug, ino) in std::mem::take(&mut listing.unmarked) {
        match owner(base, &slug) {
            Some(o) => {
                listing.owners.insert((slug.clone(), ino), o.clone());
                listing.slugs.entry(o).or_insert(slug);
            }
            None => still.push((slug, ino)),
        }
    }
    listing.unmarked = still;
    listing.slugs.get(root).cloned()
}

/// Lists `base` (as it was at `stamp`), reading the markers not in
/// `owners` yet.
fn list(base: &Path, stamp: DirStamp, mut owners: HashMap<(String, u64), String>) -> Listing {
    let mut slugs = HashMap::new();
    let mut unmarked = Vec::new();
    let mut seen = HashMap::new();
    for entry in std::fs::read_dir(base).into_iter().flatten().flatten() {
        let Some(slug) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let key = (slug, entry.ino());
        let found = match owners.remove(&key) {
            Some(o) => Some(o),
            None => owner(base, &key.0),
        };
        match found {
            Some(o) => {
                slugs.entry(o.clone()).or_insert_with(|| key.0.clone());
                seen.insert(key, o);
            }
            None => unmarked.push(key),
        }
    }
    Listing {
        stamp,
        slugs,
        unmarked,
        owners: seen,
    }
}

/// Notes that this process marked `base/slug` as `root`'s, the folder
/// having been at `before` until then: a listing current at `before`
/// stays current (markers are made under the registry's lock, so nobody
/// else added a folder meanwhile).
pub(super) fn marked(base: &Path, before: Option<DirStamp>, slug: &str, root: &str) {
    let (Some(before), Some(now)) = (before, stamp(base)) else {
        return;
    };
    let ino = std::fs::metadata(base.join(slug)).map_or(0, |m| m.ino());
    let mut all = listings();
    if let Some(listing) = all.get_mut(base).filter(|l| l.stamp == before) {
        listing.stamp = now;
        listing
            .slugs
            .entry(root.to_string())
            .or_insert(slug.to_string());
        listing
            .owners
            .insert((slug.to_string(), ino), root.to_string());
        listing.unmarked.retain(|(s, _)| s != slug);
    }
}
