//! The copy where no overlay can be mounted: each file cloned with
//! `FICLONE` where the file system shares extents, else copied. Times
//! and permissions are kept, so an unchanged file is known by its size
//! and modification time when the changes are read back.

use super::{CopyKind, TemplateError};
use std::fs;
use std::os::fd::AsRawFd;
use std::path::Path;

/// `FICLONE` (`_IOW(0x94, 9, int)`).
const FICLONE: libc::c_ulong = 0x4004_9409;

/// Copies `from` into the new folder `to`; how (reflinks, or copies once
/// one clone was refused).
pub fn copy_tree(from: &Path, to: &Path) -> Result<CopyKind, TemplateError> {
    let mut kind = CopyKind::Reflink;
    copy_dir(from, to, &mut kind)?;
    Ok(kind)
}

fn copy_dir(from: &Path, to: &Path, kind: &mut CopyKind) -> Result<(), TemplateError> {
    fs::create_dir(to).map_err(TemplateError::io("cannot create", to))?;
    let entries = fs::read_dir(from).map_err(TemplateError::io("cannot read", from))?;
    for entry in entries {
        let entry = entry.map_err(TemplateError::io("cannot read", from))?;
        let src = entry.path();
        let dst = to.join(entry.file_name());
        let meta = fs::symlink_metadata(&src).map_err(TemplateError::io("cannot read", &src))?;
        let t = meta.file_type();
        if t.is_dir() {
            copy_dir(&src, &dst, kind)?;
        } else if t.is_symlink() {
            let target = fs::read_link(&src).map_err(TemplateError::io("cannot read", &src))?;
            std::os::unix::fs::symlink(target, &dst)
                .map_err(TemplateError::io("cannot create", &dst))?;
            continue;
        } else if t.is_file() {
            copy_file(&src, &dst, kind).map_err(TemplateError::io("cannot copy", &src))?;
        } else {
            // FIFOs, sockets and devices are not part of a workspace.
            continue;
        }
        fs::set_permissions(&dst, meta.permissions())
            .map_err(TemplateError::io("cannot set the mode of", &dst))?;
    }
    if let Ok(meta) = fs::metadata(from) {
        keep_time(to, &meta);
    }
    Ok(())
}

fn copy_file(src: &Path, dst: &Path, kind: &mut CopyKind) -> std::io::Result<()> {
    let input = fs::File::open(src)?;
    let meta = input.metadata()?;
    if *kind == CopyKind::Reflink {
        let output = fs::File::create(dst)?;
        // SAFETY: both descriptors are open for the call's duration.
        let rc = unsafe { libc::ioctl(output.as_raw_fd(), FICLONE, input.as_raw_fd()) };
        if rc == 0 {
            drop(output);
            keep_time(dst, &meta);
            return Ok(());
        }
        // This file system cannot share extents: copy from now on.
        *kind = CopyKind::Copy;
    }
    fs::copy(src, dst)?;
    keep_time(dst, &meta);
    Ok(())
}

/// Gives `path` the modification time in `meta`.
fn keep_time(path: &Path, meta: &fs::Metadata) {
    if let (Ok(file), Ok(modified)) = (fs::File::open(path), meta.modified()) {
        let _ = file.set_modified(modified);
    }
}
