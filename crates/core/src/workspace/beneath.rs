//! Opening files beneath a workspace directory with a single lookup.
//!
//! The boundary check resolves a path (realpath) and says yes or no; if the
//! file were then opened by that path again, a symlink flipped in between
//! would carry the open outside the workspace. So the check yields a
//! directory and a symlink-free path below it, and the open is done
//! relative to an fd of that directory with `openat2(RESOLVE_BENEATH |
//! RESOLVE_NO_MAGICLINKS)`: the kernel refuses any resolution that leaves
//! it. Where `openat2` is missing (ENOSYS, Linux before 5.6, other Unix),
//! the path is walked one component at a time with `O_NOFOLLOW`: the path
//! was symlink-free when checked, so any symlink met now is a change and is
//! refused.

use std::ffi::CString;
use std::fs::{File, Metadata};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::FileTypeExt;
use std::path::{Component, Path, PathBuf};

/// A path split into a trusted directory (a workspace root, resolved when
/// the workspace was made) and a path below it that held no symlink and no
/// `..` when it was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Beneath {
    /// The directory the lookup may not leave.
    pub root: PathBuf,
    /// The path below `root` (empty for `root` itself).
    pub rel: PathBuf,
}

impl Beneath {
    /// The full real path (for messages and preconditions).
    pub fn real(&self) -> PathBuf {
        self.root.join(&self.rel)
    }

    /// Opens the file for reading, following no symlink out of the root
    /// and never blocking on a FIFO or a device (`O_NONBLOCK`, so the
    /// caller can `fstat` and refuse what is not a regular file).
    pub fn open_read(&self) -> io::Result<File> {
        let root = open_dir(&self.root)?;
        let flags = libc::O_RDONLY | libc::O_NONBLOCK | libc::O_NOCTTY;
        open_beneath(&root, &self.rel, flags, 0).map(File::from)
    }

    /// The file's metadata, looked up the same way (`O_PATH`, so it works
    /// for sockets, which cannot be opened).
    pub fn metadata(&self) -> io::Result<Metadata> {
        let root = open_dir(&self.root)?;
        File::from(open_beneath(&root, &self.rel, libc::O_PATH, 0)?).metadata()
    }
}

/// Opens a directory by path (a trusted root) as a file descriptor to
/// resolve beneath.
pub(crate) fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    let path = cstr(dir.as_os_str().as_bytes())?;
    // SAFETY: `path` is a valid NUL-terminated string for the call.
    let fd = unsafe {
        libc::open(
            path.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    owned(fd)
}

/// A C string of `bytes`; a NUL byte inside is an `InvalidInput` error.
pub(crate) fn cstr(bytes: &[u8]) -> io::Result<CString> {
    CString::new(bytes).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))
}

/// The fd a libc call returned, or its error.
pub(crate) fn owned(fd: libc::c_int) -> io::Result<OwnedFd> {
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a non-negative return of an open call is a new fd we own.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// True when `err` is the kernel refusing a resolution that left the root
/// (`EXDEV` from `RESOLVE_BENEATH`).
pub fn escaped(err: &io::Error) -> bool {
    err.raw_os_error() == Some(libc::EXDEV)
}

/// What a file that is neither a regular file nor a directory is, in
/// words (`None` for regular files and directories).
pub fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() || t.is_dir() {
        None
    } else if t.is_fifo() {
        Some("a FIFO")
    } else if t.is_socket() {
        Some("a socket")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_symlink() {
        Some("a symbolic link")
    } else {
        Some("not a regular file")
    }
}

/// The refusal text for a special file: `Path is not a regular file (a
/// FIFO): /w/pipe`.
pub fn not_regular_message(path: &Path, kind: &str) -> String {
    format!("Path is not a regular file ({kind}): {}", path.display())
}

/// Opens `rel` beneath the directory `dir` with `flags` (and `mode` when
/// creating): one `openat2` call that may not leave `dir` nor follow a
/// magic link, or the component walk when `openat2` is missing.
pub(crate) fn open_beneath(
    dir: &impl AsRawFd,
    rel: &Path,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    let rel = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    match openat2_beneath(dir, rel, flags, mode) {
        Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => walk_nofollow(dir, rel, flags, mode),
        other => other,
    }
}

/// `openat2(dir, rel, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`.
#[cfg(target_os = "linux")]
fn openat2_beneath(
    dir: &impl AsRawFd,
    rel: &Path,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    let path = cstr(rel.as_os_str().as_bytes())?;
    // SAFETY: `open_how` is plain data; all-zero is its documented default.
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    let flags = flags | libc::O_CLOEXEC;
    how.flags = flags as u64;
    let creates = flags & libc::O_CREAT != 0 || flags & libc::O_TMPFILE == libc::O_TMPFILE;
    how.mode = if creates { u64::from(mode) } else { 0 };
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS;
    // The kernel answers EAGAIN when a rename raced the lookup; a few
    // retries settle it.
    for _ in 0..8 {
        // SAFETY: valid fd, NUL-terminated path and a live `open_how` of
        // the size passed.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                path.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        match owned(fd as libc::c_int) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EINTR)) => continue,
            other => return other,
        }
    }
    Err(io::Error::from_raw_os_error(libc::EAGAIN))
}

#[cfg(not(target_os = "linux"))]
fn openat2_beneath(
    _dir: &impl AsRawFd,
    _rel: &Path,
    _flags: libc::c_int,
    _mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    Err(io::Error::from_raw_os_error(libc::ENOSYS))
}

/// The fallback: each directory of `rel` opened with `O_NOFOLLOW`, then the
/// last component with `flags | O_NOFOLLOW`. A `..` is refused as an
/// escape (`EXDEV`), as `RESOLVE_BENEATH` would.
pub(crate) fn walk_nofollow(
    dir: &impl AsRawFd,
    rel: &Path,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> io::Result<OwnedFd> {
    let names: Vec<&std::ffi::OsStr> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(Ok(n)),
            Component::CurDir => None,
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                Some(Err(io::Error::from_raw_os_error(libc::EXDEV)))
            }
        })
        .collect::<io::Result<_>>()?;
    let Some((last, dirs)) = names.split_last() else {
        return openat(dir.as_raw_fd(), b".", flags, mode);
    };
    let mut cur: Option<OwnedFd> = None;
    for name in dirs {
        let base = cur.as_ref().map_or(dir.as_raw_fd(), AsRawFd::as_raw_fd);
        let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_NOFOLLOW;
        cur = Some(openat(base, name.as_bytes(), flags, 0)?);
    }
    let base = cur.as_ref().map_or(dir.as_raw_fd(), AsRawFd::as_raw_fd);
    openat(base, last.as_bytes(), flags | libc::O_NOFOLLOW, mode)
}

/// Plain `openat` with `O_CLOEXEC`.
fn openat(dir: RawFd, name: &[u8], flags: libc::c_int, mode: libc::mode_t) -> io::Result<OwnedFd> {
    let name = cstr(name)?;
    // SAFETY: valid fd and NUL-terminated name.
    let fd = unsafe {
        libc::openat(
            dir,
            name.as_ptr(),
            flags | libc::O_CLOEXEC,
            libc::c_uint::from(mode),
        )
    };
    owned(fd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    fn read(dir: &OwnedFd, rel: &str, walk: bool) -> io::Result<String> {
        let flags = libc::O_RDONLY | libc::O_NONBLOCK;
        let fd = if walk {
            walk_nofollow(dir, Path::new(rel), flags, 0)?
        } else {
            open_beneath(dir, Path::new(rel), flags, 0)?
        };
        let mut s = String::new();
        File::from(fd).read_to_string(&mut s)?;
        Ok(s)
    }

    #[test]
    fn lookups_never_leave_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("root");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/in.txt"), "in").unwrap();
        std::fs::write(base.join("secret"), "secret").unwrap();
        symlink(base.join("secret"), root.join("abs_link")).unwrap();
        symlink("../secret", root.join("rel_link")).unwrap();
        symlink(&base, root.join("dir_link")).unwrap();
        symlink("sub/in.txt", root.join("inner_link")).unwrap();
        let fd = open_dir(&root).unwrap();
        assert_eq!(read(&fd, "sub/in.txt", false).unwrap(), "in");
        assert_eq!(read(&fd, "sub/in.txt", true).unwrap(), "in");
        // A symlink that stays inside is followed by openat2 only.
        assert_eq!(read(&fd, "inner_link", false).unwrap(), "in");
        assert!(read(&fd, "inner_link", true).is_err());
        for rel in ["abs_link", "rel_link", "dir_link/secret", "../secret"] {
            for walk in [false, true] {
                let err = read(&fd, rel, walk).unwrap_err();
                let code = err.raw_os_error();
                assert!(
                    matches!(code, Some(libc::EXDEV | libc::ELOOP | libc::ENOTDIR)),
                    "{rel} walk={walk}: {err}"
                );
            }
        }
        // The magic links of /proc are refused even beneath /proc.
        let proc_fd = open_dir(Path::new("/proc")).unwrap();
        assert!(read(&proc_fd, "self/root/etc/hostname", false).is_err());
    }

    #[test]
    fn fifos_open_without_blocking_and_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let fifo = cstr(root.join("pipe").as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let b = Beneath {
            root: root.clone(),
            rel: PathBuf::from("pipe"),
        };
        let meta = b.open_read().unwrap().metadata().unwrap();
        assert_eq!(special_kind(&meta), Some("a FIFO"));
        let meta = std::fs::metadata(&root).unwrap();
        assert_eq!(special_kind(&meta), None);
        assert_eq!(
            not_regular_message(Path::new("/w/pipe"), "a FIFO"),
            "Path is not a regular file (a FIFO): /w/pipe"
        );
    }
}
