//! Tests of the atomic writes.
use super::*;
use std::os::unix::fs::symlink;

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

/// Takes this thread's file-system identity to `nobody` until dropped.
/// Linux keeps the file-system uid per thread, and moving it off 0 clears
/// the thread's DAC-override capabilities, so root is refused by directory
/// permissions like anyone else; other test threads keep running as root.
struct AsNobody;

impl AsNobody {
    fn new() -> Self {
        // SAFETY: setfsuid only changes the calling thread's credentials.
        unsafe { libc::setfsuid(65534) };
        AsNobody
    }
}

impl Drop for AsNobody {
    fn drop(&mut self) {
        // SAFETY: as above; returns the thread to its real uid.
        unsafe { libc::setfsuid(libc::getuid()) };
    }
}

/// A full file system (`/dev/full` cannot hold a directory, so a tiny
/// tmpfs would be needed) is not available in the test sandbox; a
/// read-only directory stands in for it. As root (CI runs as root) the
/// write is made as `nobody`, whom the directory's mode refuses.
#[test]
fn a_refused_write_keeps_the_original_and_leaves_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let sub = dir.path().join("ro");
    fs::create_dir(&sub).unwrap();
    let p = sub.join("f.txt");
    fs::write(&p, "original").unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o644)).unwrap();
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o555)).unwrap();
    let err = {
        let _nobody = (unsafe { libc::geteuid() } == 0).then(AsNobody::new);
        write_atomic(&p, b"new").unwrap_err()
    };
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

#[test]
fn temp_names_are_recognised() {
    assert!(is_temp_name(b".a.txt.Ab12Cd.tmp"));
    assert!(is_temp_name(&temp_name(b"x")));
    for other in [
        &b".a.tmp"[..],
        b"a.txt.Ab12Cd.tmp",
        b".a.txt.Ab1-Cd.tmp",
        b"..Ab12Cd.tmp",
    ] {
        assert!(!is_temp_name(other), "{}", String::from_utf8_lossy(other));
    }
}

/// Sets `path`'s modification time `secs` seconds in the past.
fn age(path: &Path, secs: u64) {
    let f = File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn a_write_sweeps_stale_temp_files_and_keeps_fresh_ones() {
    let dir = tempfile::tempdir().unwrap();
    let stale = dir.path().join(".a.txt.Ab12Cd.tmp");
    let fresh = dir.path().join(".b.txt.Xy34Zw.tmp");
    let other = dir.path().join(".notes.tmp");
    for p in [&stale, &fresh, &other] {
        fs::write(p, "partial").unwrap();
    }
    age(&stale, STALE_TEMP_AGE.as_secs() + 60);
    age(&other, STALE_TEMP_AGE.as_secs() + 60);
    age(&fresh, 30);
    write_atomic(&dir.path().join("c.txt"), b"c").unwrap();
    assert!(!stale.exists());
    assert!(fresh.exists());
    assert!(other.exists());
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".b.txt.Xy34Zw.tmp", ".notes.tmp", "c.txt"]);
}

#[test]
fn a_symlink_flipped_after_the_check_cannot_carry_the_write_outside() {
    let dir = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(dir.path()).unwrap();
    let root = base.join("root");
    let outside = base.join("outside");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::create_dir_all(&outside).unwrap();
    for rel in ["sub/x.txt", "sub/new/deeper/x.txt"] {
        // Checked while `sub` is a directory of the workspace ...
        let path = Beneath {
            root: root.clone(),
            rel: PathBuf::from(rel),
        };
        // ... then `sub` becomes a link out of it.
        fs::rename(root.join("sub"), root.join("sub_real")).unwrap();
        symlink(&outside, root.join("sub")).unwrap();
        let err = write_beneath(&path, b"x", |_| Ok(true)).unwrap_err();
        let CheckedWriteError::Io(err) = err else {
            panic!("not an I/O error");
        };
        assert!(
            matches!(
                err.raw_os_error(),
                Some(libc::EXDEV | libc::ELOOP | libc::ENOTDIR)
            ),
            "{err}"
        );
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0, "{rel}");
        fs::remove_file(root.join("sub")).unwrap();
        fs::rename(root.join("sub_real"), root.join("sub")).unwrap();
    }
    // Unflipped, the same writes go where they were checked.
    let path = Beneath {
        root: root.clone(),
        rel: PathBuf::from("sub/new/deeper/x.txt"),
    };
    write_beneath(&path, b"in", |_| Ok(true)).unwrap();
    assert_eq!(
        fs::read_to_string(root.join("sub/new/deeper/x.txt")).unwrap(),
        "in"
    );
}

#[test]
fn a_fifo_target_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let c = cstr(fifo.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let err = write_atomic(&fifo, b"x").unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
}
