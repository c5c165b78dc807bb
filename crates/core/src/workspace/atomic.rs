//! Atomic file writes: the bytes go to a temp file in the target's
//! directory, are fsynced and renamed over the target, so a failure never
//! leaves a half-written target.
//!
//! The directory is opened once and everything after happens relative to
//! that fd (`openat`, `renameat`), so the write lands in the directory that
//! was checked even if a path component is swapped meanwhile. The temp file
//! is an unnamed `O_TMPFILE` where the file system allows it: a crash while
//! writing then leaves nothing behind; it gets a name (`.name.XXXXXX.tmp`)
//! only for the instant between `linkat` and `renameat`. Elsewhere the temp
//! file is named from the start, and a write sweeps the stale temp files of
//! that pattern (older than [`STALE_TEMP_AGE`]) from its directory.

use super::beneath::{Beneath, cstr, open_beneath, open_dir, owned};
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Temp files of the `.name.XXXXXX.tmp` pattern older than this are
/// leftovers of a killed writer and are removed by the next write into
/// their directory; younger ones may belong to a writer still at work.
pub const STALE_TEMP_AGE: Duration = Duration::from_secs(5 * 60);

/// The process umask, read once from `/proc/self/status` (022 when
/// unknown): nothing here changes it, and the kernel formats that whole
/// file for each read (a per-write cost an ACP server with many sessions
/// paid on every tool write).
fn umask() -> u32 {
    static UMASK: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *UMASK.get_or_init(|| {
        fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("Umask:"))
                    .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
            })
            .unwrap_or(0o022)
    })
}

/// Where the bytes really go: a symlink is followed so the link survives.
fn target_of(path: &Path) -> PathBuf {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

/// Writes `bytes` to `path` atomically: parent directories are created, the
/// data goes to a temp file in the same directory, is fsynced and renamed
/// over the target. An existing file keeps its permissions (and must be
/// writable, as for a plain write); a new file gets `0666 & !umask`.
/// For paths the program chose itself; tool paths go through
/// [`write_beneath`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match write_atomic_checked(path, bytes, |_| Ok(true)) {
        Ok(()) => Ok(()),
        Err(CheckedWriteError::Io(e)) => Err(e),
        Err(CheckedWriteError::Changed) => Err(io::Error::other("target changed")),
    }
}

/// [`write_atomic`] for a file that must stay inside `root` (a settings
/// file inside its project or home folder): a symlink at `path` is
/// followed only when it leads to a place inside `root`; one that leads
/// out (`.gemini/settings.json -> ~/.bashrc`) is refused and nothing is
/// written.
pub fn write_atomic_within(path: &Path, root: &Path, bytes: &[u8]) -> io::Result<()> {
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if is_link {
        let root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let target = match fs::canonicalize(path) {
            Ok(t) => t,
            // A dangling link: where it would lead, as written.
            Err(_) => fs::read_link(path).map(|t| match path.parent() {
                Some(dir) if t.is_relative() => dir.join(t),
                _ => t,
            })?,
        };
        if !target.starts_with(&root) || target.components().any(|c| c == Component::ParentDir) {
            return Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "it is a symlink to {}, outside {}; not following it",
                    target.display(),
                    root.display()
                ),
            ));
        }
    }
    write_atomic(path, bytes)
}

/// Why [`write_atomic_checked`] did not write.
#[derive(Debug)]
pub enum CheckedWriteError {
    /// The file system refused; the target is untouched.
    Io(io::Error),
    /// The precondition found the target changed since it was read; the
    /// target is untouched.
    Changed,
}

impl From<io::Error> for CheckedWriteError {
    fn from(e: io::Error) -> Self {
        CheckedWriteError::Io(e)
    }
}

/// [`write_atomic`] with a precondition: right before the rename,
/// `unchanged` gets the real target path and says whether it still holds
/// what the caller read (`Ok(false)`: someone else changed it, so the temp
/// file is removed and the target kept as it is).
pub fn write_atomic_checked(
    path: &Path,
    bytes: &[u8],
    unchanged: impl FnOnce(&Path) -> io::Result<bool>,
) -> Result<(), CheckedWriteError> {
    let target = target_of(path);
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Some(name) = target.file_name() else {
        return Err(io::Error::from_raw_os_error(libc::EISDIR).into());
    };
    fs::create_dir_all(&dir)?;
    let dir_fd = open_dir(&dir)?;
    write_in(&dir_fd, &dir, name, &target, bytes, unchanged)
}

/// [`write_atomic_checked`] for a path checked against a workspace root:
/// the parent directories are found (and made) beneath the root, never
/// through a symlink that leaves it, and the file is written in the
/// directory so found.
pub fn write_beneath(
    path: &Beneath,
    bytes: &[u8],
    unchanged: impl FnOnce(&Path) -> io::Result<bool>,
) -> Result<(), CheckedWriteError> {
    let Some(name) = path.rel.file_name() else {
        return Err(io::Error::from_raw_os_error(libc::EISDIR).into());
    };
    let parent = path.rel.parent().unwrap_or(Path::new(""));
    let dir_fd = open_parent_beneath(&path.root, parent)?;
    write_in(
        &dir_fd,
        &path.root.join(parent),
        name,
        &path.real(),
        bytes,
        unchanged,
    )
}

/// Opens (creating what is missing) the directory `rel` beneath `root`.
fn open_parent_beneath(root: &Path, rel: &Path) -> io::Result<OwnedFd> {
    let root_fd = open_dir(root)?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY;
    match open_beneath(&root_fd, rel, flags, 0) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        other => return other,
    }
    let mut cur = root_fd;
    for c in rel.components() {
        let Component::Normal(name) = c else {
            return Err(io::Error::from_raw_os_error(libc::EXDEV));
        };
        let next = match open_beneath(&cur, Path::new(name), flags, 0) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let cname = cstr(name.as_bytes())?;
                // SAFETY: valid dir fd and NUL-terminated name.
                let r = unsafe { libc::mkdirat(cur.as_raw_fd(), cname.as_ptr(), 0o777) };
                if r != 0 {
                    let e = io::Error::last_os_error();
                    if e.raw_os_error() != Some(libc::EEXIST) {
                        return Err(e);
                    }
                }
                open_beneath(&cur, Path::new(name), flags, 0)?
            }
            other => other?,
        };
        cur = next;
    }
    Ok(cur)
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`.
fn stat_at(dir: &OwnedFd, name: &[u8]) -> io::Result<libc::stat> {
    let cname = cstr(name)?;
    // SAFETY: `stat` is plain data filled by the call.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: valid fd, NUL-terminated name, live out-pointer.
    let r = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            cname.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(st)
}

/// `unlinkat(dir, name)`, errors ignored (cleanup only).
fn unlink_at(dir: &OwnedFd, name: &[u8]) {
    if let Ok(cname) = cstr(name) {
        // SAFETY: valid fd and NUL-terminated name.
        unsafe { libc::unlinkat(dir.as_raw_fd(), cname.as_ptr(), 0) };
    }
}

/// The permissions the target keeps, or `None` for a new file. A directory
/// is EISDIR; a FIFO, socket or device is refused (writing one would block
/// or reach a device); a symlink in the last place (dangling, or swapped in
/// after the check) is replaced, never followed.
fn existing_mode(dir: &OwnedFd, name: &[u8]) -> io::Result<Option<u32>> {
    let st = match stat_at(dir, name) {
        Ok(st) => st,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    match st.st_mode & libc::S_IFMT {
        libc::S_IFDIR => Err(io::Error::from_raw_os_error(libc::EISDIR)),
        libc::S_IFLNK => Ok(None),
        libc::S_IFREG => {
            // Same permission check a plain write would do.
            let flags = libc::O_WRONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK;
            super::beneath::walk_nofollow(dir, Path::new(OsStr::from_bytes(name)), flags, 0)?;
            Ok(Some(st.st_mode & 0o7777))
        }
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        )),
    }
}

/// Six random alphanumerics for a temp name.
fn random_suffix() -> String {
    uuid::Uuid::new_v4().simple().to_string()[..6].to_string()
}

/// `.name.XXXXXX.tmp`.
fn temp_name(name: &[u8]) -> Vec<u8> {
    let mut out = b".".to_vec();
    out.extend_from_slice(name);
    out.push(b'.');
    out.extend_from_slice(random_suffix().as_bytes());
    out.extend_from_slice(b".tmp");
    out
}

/// Whether `name` has the `.name.XXXXXX.tmp` pattern of our temp files
/// (and of the `tempfile` names earlier versions used).
pub(crate) fn is_temp_name(name: &[u8]) -> bool {
    let Some(stem) = name
        .strip_prefix(b".")
        .and_then(|n| n.strip_suffix(b".tmp"))
    else {
        return false;
    };
    stem.len() >= 8
        && stem[stem.len() - 7] == b'.'
        && stem[stem.len() - 6..].iter().all(u8::is_ascii_alphanumeric)
}

/// True the first time this process writes into `dir_path`: the sweep
/// below lists the whole directory, which is once per directory, not once
/// per write (a session editing one file in a folder of thousands). A temp
/// file goes stale only after minutes; the set is cleared when it grows
/// large, so a long-running process sweeps again.
fn first_write_in(dir_path: &Path) -> bool {
    const MAX_REMEMBERED: usize = 4096;
    static SWEPT: std::sync::LazyLock<std::sync::Mutex<std::collections::HashSet<PathBuf>>> =
        std::sync::LazyLock::new(Default::default);
    let mut swept = SWEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if swept.contains(dir_path) {
        return false;
    }
    if swept.len() >= MAX_REMEMBERED {
        swept.clear();
    }
    swept.insert(dir_path.to_path_buf())
}

/// Removes the stale temp files (see [`STALE_TEMP_AGE`]) of `dir`, listed
/// by `dir_path` but checked and removed through the fd, so only entries
/// of the directory being written can go.
fn sweep_stale(dir: &OwnedFd, dir_path: &Path) {
    if !first_write_in(dir_path) {
        return;
    }
    let Ok(entries) = fs::read_dir(dir_path) else {
        return;
    };
    let Some(cutoff) = SystemTime::now().checked_sub(STALE_TEMP_AGE) else {
        return;
    };
    let cutoff = cutoff
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        let name = name.as_bytes();
        if !is_temp_name(name) {
            continue;
        }
        let Ok(st) = stat_at(dir, name) else {
            continue;
        };
        // `time_t` is 32 bits on some targets.
        #[allow(clippy::unnecessary_cast)]
        let mtime = st.st_mtime as i64;
        if st.st_mode & libc::S_IFMT == libc::S_IFREG && mtime < cutoff {
            unlink_at(dir, name);
        }
    }
}

/// A temp file in `dir`: unnamed (`O_TMPFILE`) when the file system
/// supports it, else created under a fresh temp name (returned).
fn create_temp(dir: &OwnedFd, name: &[u8]) -> io::Result<(File, Option<Vec<u8>>)> {
    #[cfg(target_os = "linux")]
    {
        let cdot = cstr(b".")?;
        // SAFETY: valid fd and NUL-terminated name.
        let fd = unsafe {
            libc::openat(
                dir.as_raw_fd(),
                cdot.as_ptr(),
                libc::O_TMPFILE | libc::O_WRONLY | libc::O_CLOEXEC,
                0o600 as libc::c_uint,
            )
        };
        if let Ok(fd) = owned(fd) {
            return Ok((File::from(fd), None));
        }
    }
    create_named_temp(dir, name).map(|(f, n)| (f, Some(n)))
}

/// A new temp file `.name.XXXXXX.tmp` in `dir` (`O_EXCL`, mode 0600).
fn create_named_temp(dir: &OwnedFd, name: &[u8]) -> io::Result<(File, Vec<u8>)> {
    let mut last = io::Error::from_raw_os_error(libc::EEXIST);
    for _ in 0..16 {
        let tmp = temp_name(name);
        let ctmp = cstr(&tmp)?;
        let flags = libc::O_CREAT | libc::O_EXCL | libc::O_WRONLY | libc::O_NOFOLLOW;
        // SAFETY: valid fd and NUL-terminated name.
        let fd = unsafe {
            libc::openat(
                dir.as_raw_fd(),
                ctmp.as_ptr(),
                flags | libc::O_CLOEXEC,
                0o600 as libc::c_uint,
            )
        };
        match owned(fd) {
            Ok(fd) => return Ok((File::from(fd), tmp)),
            Err(e) if e.raw_os_error() == Some(libc::EEXIST) => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

/// Gives the unnamed temp file `file` a temp name in `dir`: `linkat` with
/// `AT_EMPTY_PATH` (needs CAP_DAC_READ_SEARCH), else through
/// `/proc/self/fd`.
#[cfg(target_os = "linux")]
fn link_temp(file: &File, dir: &OwnedFd, name: &[u8]) -> io::Result<Vec<u8>> {
    let empty = cstr(b"")?;
    let proc_path = cstr(format!("/proc/self/fd/{}", file.as_raw_fd()).as_bytes())?;
    let mut last = io::Error::from_raw_os_error(libc::EEXIST);
    for _ in 0..16 {
        let tmp = temp_name(name);
        let ctmp = cstr(&tmp)?;
        // SAFETY: valid fds and NUL-terminated names.
        let r = unsafe {
            libc::linkat(
                file.as_raw_fd(),
                empty.as_ptr(),
                dir.as_raw_fd(),
                ctmp.as_ptr(),
                libc::AT_EMPTY_PATH,
            )
        };
        if r == 0 {
            return Ok(tmp);
        }
        // SAFETY: as above.
        let r = unsafe {
            libc::linkat(
                libc::AT_FDCWD,
                proc_path.as_ptr(),
                dir.as_raw_fd(),
                ctmp.as_ptr(),
                libc::AT_SYMLINK_FOLLOW,
            )
        };
        if r == 0 {
            return Ok(tmp);
        }
        last = io::Error::last_os_error();
        if last.raw_os_error() != Some(libc::EEXIST) {
            break;
        }
    }
    Err(last)
}

#[cfg(not(target_os = "linux"))]
fn link_temp(_file: &File, _dir: &OwnedFd, _name: &[u8]) -> io::Result<Vec<u8>> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// Writes, fsyncs and gives `file` its mode.
fn fill(file: &mut File, bytes: &[u8], mode: u32) -> io::Result<()> {
    file.write_all(bytes)?;
    file.flush()?;
    file.set_permissions(fs::Permissions::from_mode(mode))?;
    file.sync_all()
}

/// The atomic write into the open directory `dir` (listed as `dir_path`)
/// under `name`; `target` is the full path the precondition reads.
fn write_in(
    dir: &OwnedFd,
    dir_path: &Path,
    name: &OsStr,
    target: &Path,
    bytes: &[u8],
    unchanged: impl FnOnce(&Path) -> io::Result<bool>,
) -> Result<(), CheckedWriteError> {
    let name = name.as_bytes();
    let mode = existing_mode(dir, name)?.unwrap_or(0o666 & !umask());
    sweep_stale(dir, dir_path);
    let (mut file, mut tmp) = create_temp(dir, name)?;
    let filled = fill(&mut file, bytes, mode);
    if let Err(e) = filled {
        if let Some(t) = &tmp {
            unlink_at(dir, t);
        }
        return Err(e.into());
    }
    let proceed = unchanged(target);
    if !matches!(proceed, Ok(true)) {
        if let Some(t) = &tmp {
            unlink_at(dir, t);
        }
        return Err(match proceed {
            Err(e) => e.into(),
            Ok(_) => CheckedWriteError::Changed,
        });
    }
    if tmp.is_none() {
        match link_temp(&file, dir, name) {
            Ok(t) => tmp = Some(t),
            Err(_) => {
                // No way to name the unnamed file: write a named one.
                let (mut named, t) = create_named_temp(dir, name)?;
                if let Err(e) = fill(&mut named, bytes, mode) {
                    unlink_at(dir, &t);
                    return Err(e.into());
                }
                tmp = Some(t);
            }
        }
    }
    let Some(tmp) = tmp else {
        return Err(io::Error::other("temp file has no name").into());
    };
    let (ctmp, cname) = (cstr(&tmp)?, cstr(name)?);
    // SAFETY: valid fds and NUL-terminated names.
    let r = unsafe {
        libc::renameat(
            dir.as_raw_fd(),
            ctmp.as_ptr(),
            dir.as_raw_fd(),
            cname.as_ptr(),
        )
    };
    if r != 0 {
        let e = io::Error::last_os_error();
        unlink_at(dir, &tmp);
        return Err(e.into());
    }
    // Make the rename durable; failure here is not a failed write.
    // SAFETY: valid fd.
    unsafe { libc::fsync(dir.as_raw_fd()) };
    Ok(())
}

#[cfg(test)]
mod tests;
