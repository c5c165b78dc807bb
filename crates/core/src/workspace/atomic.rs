//! Atomic file writes: a temp file in the same directory, fsync, rename.
//! A failure never leaves a half-written target.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The process umask, read from `/proc/self/status` (022 when unknown).
#[cfg(unix)]
fn umask() -> u32 {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
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
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    match write_atomic_checked(path, bytes, |_| Ok(true)) {
        Ok(()) => Ok(()),
        Err(CheckedWriteError::Io(e)) => Err(e),
        Err(CheckedWriteError::Changed) => Err(io::Error::other("target changed")),
    }
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
    fs::create_dir_all(&dir)?;
    let existing = match fs::metadata(&target) {
        Ok(meta) if meta.is_dir() => {
            return Err(io::Error::from_raw_os_error(libc::EISDIR).into());
        }
        Ok(meta) => {
            // Same permission check a plain write would do.
            fs::OpenOptions::new().write(true).open(&target)?;
            Some(meta.permissions())
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e.into()),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(&dir)?;
    // Through the plain `File`, so errors carry the OS code and not the
    // temp file's name.
    tmp.as_file_mut().write_all(bytes)?;
    tmp.as_file_mut().flush()?;
    match existing {
        Some(perms) => fs::set_permissions(tmp.path(), perms)?,
        None => set_new_file_permissions(tmp.path())?,
    }
    tmp.as_file().sync_all()?;
    if !unchanged(&target)? {
        return Err(CheckedWriteError::Changed);
    }
    tmp.persist(&target).map_err(|e| e.error)?;
    // Make the rename durable; failure here is not a failed write.
    if let Ok(d) = fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Gives a new file the mode a plain create would: `0666 & !umask`.
#[cfg(unix)]
fn set_new_file_permissions(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o666 & !umask()))
}

#[cfg(not(unix))]
fn set_new_file_permissions(_path: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn creates_parents_and_writes_exact_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.txt");
        write_atomic(&p, b"x\ny\n").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"x\ny\n");
        let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask());
        // No temp files left behind.
        assert_eq!(fs::read_dir(dir.path().join("a/b")).unwrap().count(), 1);
    }

    #[test]
    fn keeps_permissions_and_follows_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.sh");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o751)).unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o751
        );
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&p, &link).unwrap();
        write_atomic(&link, b"via link").unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&p).unwrap(), "via link");
    }

    #[test]
    fn a_failed_precondition_keeps_the_target_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        fs::write(&p, "theirs").unwrap();
        let r = write_atomic_checked(&p, b"ours", |t| {
            assert_eq!(t, p.as_path());
            Ok(false)
        });
        assert!(matches!(r, Err(CheckedWriteError::Changed)));
        assert_eq!(fs::read_to_string(&p).unwrap(), "theirs");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        let r = write_atomic_checked(&p, b"ours", |_| Err(io::Error::other("boom")));
        assert!(matches!(r, Err(CheckedWriteError::Io(_))));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// A full file system (`/dev/full` cannot hold a directory, so a tiny
    /// tmpfs would be needed) is not available in the test sandbox; a
    /// read-only directory stands in for it, which only refuses writes
    /// when not running as root.
    #[test]
    fn a_refused_write_keeps_the_original_and_leaves_no_temp_file() {
        if unsafe { libc::geteuid() } == 0 {
            eprintln!("skipped: root ignores directory permissions");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("ro");
        fs::create_dir(&sub).unwrap();
        let p = sub.join("f.txt");
        fs::write(&p, "original").unwrap();
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o555)).unwrap();
        let err = write_atomic(&p, b"new").unwrap_err();
        fs::set_permissions(&sub, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        assert_eq!(fs::read_to_string(&p).unwrap(), "original");
        assert_eq!(fs::read_dir(&sub).unwrap().count(), 1);
    }

    #[test]
    fn directory_target_is_eisdir() {
        let dir = tempfile::tempdir().unwrap();
        let err = write_atomic(dir.path(), b"x").unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EISDIR));
    }
}
