//! The overlay mount: the template as the read-only lower layer, the
//! session's changes in `upper/`, the merged view in `merged/`.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// True when `dir` and everything below it belong to `uid` and `gid`.
fn all_owned(dir: &Path, uid: u32, gid: u32) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::symlink_metadata(dir) else {
        return false;
    };
    if meta.uid() != uid || meta.gid() != gid {
        return false;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    for entry in entries {
        let Ok(entry) = entry else { return false };
        let Ok(meta) = entry.metadata() else {
            return false;
        };
        if meta.is_dir() {
            if !all_owned(&entry.path(), uid, gid) {
                return false;
            }
        } else if meta.uid() != uid || meta.gid() != gid {
            return false;
        }
    }
    true
}

fn cstring(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the path"))
}

/// True for a path overlay's option string can carry as it is (`,` ends
/// an option, `:` separates lower layers, `\` escapes).
fn plain(path: &Path) -> bool {
    !path
        .as_os_str()
        .as_bytes()
        .iter()
        .any(|b| matches!(b, b',' | b':' | b'\\'))
}

/// Mounts an overlay of `template` at `merged`, with `dir/upper` and
/// `dir/work`. Fails (and the caller copies instead) where gemini-rs may
/// not mount or the kernel has no overlayfs.
pub fn mount(template: &Path, dir: &Path, merged: &Path) -> io::Result<()> {
    let upper = dir.join("upper");
    let work = dir.join("work");
    if !plain(template) || !plain(&upper) || !plain(&work) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a path overlay cannot carry",
        ));
    }
    for d in [&upper, &work, &merged.to_path_buf()] {
        std::fs::create_dir_all(d)?;
    }
    let base = format!(
        "lowerdir={},upperdir={},workdir={}",
        template.display(),
        upper.display(),
        work.display()
    );
    // Without metacopy every changed file is whole in `upper/`; a kernel
    // that does not know the options gets the plain form.
    let mut last = io::Error::from_raw_os_error(libc::EINVAL);
    for options in [format!("{base},redirect_dir=off,metacopy=off"), base] {
        match mount_overlay(merged, &options) {
            Ok(()) => return Ok(()),
            Err(e) => last = e,
        }
    }
    Err(last)
}

fn mount_overlay(target: &Path, options: &str) -> io::Result<()> {
    let source = c"overlay";
    let fstype = c"overlay";
    let target = cstring(target)?;
    let data = CString::new(options)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL in the options"))?;
    // SAFETY: every pointer is a valid NUL-terminated string that outlives
    // the call.
    let rc = unsafe {
        libc::mount(
            source.as_ptr(),
            target.as_ptr(),
            fstype.as_ptr(),
            0,
            data.as_ptr().cast(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Detaches the overlay at `merged` (lazily: what is still inside keeps
/// its view until it leaves).
pub fn unmount(merged: &Path) {
    if let Ok(target) = cstring(merged) {
        // SAFETY: a valid NUL-terminated path.
        unsafe { libc::umount2(target.as_ptr(), libc::MNT_DETACH) };
    }
}

/// Moves this process into a user and mount namespace of its own, in
/// which it may mount an overlay of `template` without being root; the
/// user and group ids stay as they are. True when it did: not for root
/// (who needs none), nor for a template with an entry that is not the
/// user's own (user and group: copying such a file up fails with
/// EOVERFLOW, as its owner has no id in the namespace), nor where the
/// kernel refuses unprivileged user namespaces (the error). Only for a
/// process that runs one thread still (before any runtime starts).
pub fn enter_user_namespace(template: &Path) -> io::Result<bool> {
    // SAFETY: plain queries.
    let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
    if uid == 0 || !all_owned(template, uid, gid) {
        return Ok(false);
    }
    // SAFETY: unshare changes only this (single-threaded) process.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) } != 0 {
        return Err(io::Error::last_os_error());
    }
    std::fs::write("/proc/self/setgroups", "deny")?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1"))?;
    // Mounts made here stay here.
    let root = c"/";
    // SAFETY: a valid path; no data.
    let rc = unsafe {
        libc::mount(
            std::ptr::null(),
            root.as_ptr(),
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(true)
}
