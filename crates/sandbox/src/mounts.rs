//! Namespaces for sandboxed commands, as bubblewrap sets them up: a user
//! namespace (also for root: the host's capabilities then count for
//! nothing), a UTS namespace (the host name), a network namespace holding
//! only a loopback when network is off, and a private mount namespace in
//! which every mount is read-only except the writable folders, and in
//! which the protected paths inside them (`.gemini/`, `.git`, `.env`) are
//! read-only again. Owners need no capability to `chmod`, `chown`,
//! `setxattr` or `mknod`, and Landlock does not cover those: a read-only
//! mount refuses them all (EROFS). gemini-rs's own `/proc/<pid>/environ`
//! is hidden behind `/dev/null`. Where user namespaces are not available,
//! root still gets the other namespaces (it may create them itself).
//!
//! Everything the child needs is prepared before `fork` as NUL-terminated
//! bytes: the child only makes syscalls.

use super::IsolationError;
use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::PROTECTED;

/// `MOUNT_ATTR_RDONLY`.
const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// `struct mount_attr` of `mount_setattr(2)`.
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}

/// What the child mounts, prepared in the parent.
#[derive(Debug)]
pub(crate) struct MountPlan {
    writable: Vec<CString>,
    protected: Vec<CString>,
    /// `/proc/<gemini-rs pid>/environ`.
    hidden_environ: CString,
    /// With a user namespace: its maps (`uid uid 1`, the caller's own
    /// ids, so files keep their owners).
    user_maps: Option<(Vec<u8>, Vec<u8>)>,
    /// Whether the command gets a network namespace of its own.
    new_net: bool,
}

fn c_path(p: &Path) -> Option<CString> {
    CString::new(p.as_os_str().as_bytes()).ok()
}

impl MountPlan {
    /// The plan for these writable folders (missing ones are skipped), in
    /// a user namespace or not, with a network namespace or not.
    pub(crate) fn new(writable: &[PathBuf], user_ns: bool, new_net: bool) -> MountPlan {
        let existing: Vec<PathBuf> = writable
            .iter()
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| p.is_dir())
            .collect();
        let protected = existing
            .iter()
            .flat_map(|dir| PROTECTED.iter().map(move |rel| dir.join(rel)))
            .filter(|p| {
                p.symlink_metadata()
                    .is_ok_and(|m| !m.file_type().is_symlink())
            })
            .filter_map(|p| c_path(&p))
            .collect();
        // SAFETY: plain getters.
        let (uid, gid) = unsafe { (libc::geteuid(), libc::getegid()) };
        let user_maps = user_ns.then(|| {
            (
                format!("{uid} {uid} 1\n").into_bytes(),
                format!("{gid} {gid} 1\n").into_bytes(),
            )
        });
        MountPlan {
            writable: existing.iter().filter_map(|p| c_path(p)).collect(),
            protected,
            hidden_environ: CString::new(format!("/proc/{}/environ", std::process::id()))
                .unwrap_or_default(),
            user_maps,
            new_net,
        }
    }

    /// Applies the plan in the calling process (the child, before `exec`).
    pub(crate) fn apply(&self) -> io::Result<()> {
        let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWUTS;
        if self.user_maps.is_some() {
            flags |= libc::CLONE_NEWUSER;
        }
        if self.new_net {
            flags |= libc::CLONE_NEWNET;
        }
        // SAFETY: unshare with constant flags.
        check(unsafe { libc::unshare(flags) })?;
        if let Some((uid_map, gid_map)) = &self.user_maps {
            write_file(c"/proc/self/setgroups", b"deny")?;
            write_file(c"/proc/self/uid_map", uid_map)?;
            write_file(c"/proc/self/gid_map", gid_map)?;
        }
        mount(None, c"/", libc::MS_REC | libc::MS_PRIVATE)?;
        for dir in &self.writable {
            mount(Some(dir), dir, libc::MS_BIND | libc::MS_REC)?;
        }
        for path in &self.protected {
            mount(Some(path), path, libc::MS_BIND | libc::MS_REC)?;
        }
        setattr(c"/", libc::AT_RECURSIVE as u32, MOUNT_ATTR_RDONLY, 0)?;
        for dir in &self.writable {
            setattr(dir, libc::AT_RECURSIVE as u32, 0, MOUNT_ATTR_RDONLY)?;
        }
        for path in &self.protected {
            setattr(path, libc::AT_RECURSIVE as u32, MOUNT_ATTR_RDONLY, 0)?;
        }
        // Best effort: without it the environ stays unreadable through
        // Landlock's ptrace rule anyway.
        let _ = mount(Some(c"/dev/null"), &self.hidden_environ, libc::MS_BIND);
        // The working directory still points into the mount it was opened
        // on (now read-only): enter it again by path, on the new mounts.
        let mut cwd = [0u8; 4096];
        // SAFETY: getcwd writes at most `cwd.len()` bytes, NUL-terminated;
        // chdir reads that path.
        unsafe {
            if !libc::getcwd(cwd.as_mut_ptr().cast(), cwd.len()).is_null() {
                check(libc::chdir(cwd.as_ptr().cast()))?;
            }
        }
        Ok(())
    }
}

fn check(rc: libc::c_int) -> io::Result<()> {
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn mount(
    source: Option<&std::ffi::CStr>,
    target: &std::ffi::CStr,
    flags: libc::c_ulong,
) -> io::Result<()> {
    let source = source.map_or(std::ptr::null(), std::ffi::CStr::as_ptr);
    // SAFETY: NUL-terminated paths that outlive the call; no data argument.
    check(unsafe {
        libc::mount(
            source,
            target.as_ptr(),
            std::ptr::null(),
            flags,
            std::ptr::null(),
        )
    })
}

fn setattr(target: &std::ffi::CStr, flags: u32, set: u64, clr: u64) -> io::Result<()> {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clr,
        propagation: 0,
        userns_fd: 0,
    };
    // SAFETY: a NUL-terminated path and a `struct mount_attr` of the size
    // passed, both alive for the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            target.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> io::Result<()> {
    // SAFETY: open/write/close on a NUL-terminated path and a live buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let n = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
        let err = io::Error::last_os_error();
        libc::close(fd);
        if usize::try_from(n).ok() != Some(bytes.len()) {
            return Err(err);
        }
    }
    Ok(())
}

/// The plan this machine allows: with a user namespace where the kernel
/// lets this user create one, else (root only) without; `Err` with the
/// first refusal when neither works.
pub(crate) fn choose(
    writable: &[PathBuf],
    new_net: bool,
    no_user_namespace: bool,
) -> Result<std::sync::Arc<MountPlan>, IsolationError> {
    let refused = if no_user_namespace {
        IsolationError::NoUserNamespace
    } else {
        let with_user = std::sync::Arc::new(MountPlan::new(writable, true, new_net));
        match supported(&with_user) {
            Ok(()) => return Ok(with_user),
            Err(why) => why,
        }
    };
    // SAFETY: a plain getter.
    if unsafe { libc::geteuid() } == 0 {
        let without = std::sync::Arc::new(MountPlan::new(writable, false, new_net));
        if supported(&without).is_ok() {
            tracing::warn!("sandbox: no user namespace ({refused}); root's namespaces only");
            return Ok(without);
        }
    }
    Err(refused)
}

/// Whether this machine lets a child set up the plan: a probe child runs
/// `true` with it (a few milliseconds, once per session with `-s`).
fn supported(plan: &std::sync::Arc<MountPlan>) -> Result<(), IsolationError> {
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new("/bin/true");
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let probe = plan.clone();
    // SAFETY: the hook only makes syscalls on data prepared before the fork.
    unsafe {
        cmd.pre_exec(move || probe.apply());
    }
    match cmd.status() {
        Ok(s) if s.success() => Ok(()),
        Ok(s) => Err(IsolationError::ProbeExited(s)),
        Err(e) => Err(IsolationError::ProbeFailed(e)),
    }
}
