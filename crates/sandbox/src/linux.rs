//! Landlock and seccomp: built in the parent, installed in the child.

use super::mounts::{self, MountPlan};
use super::{IsolationError, LandlockMissing, SandboxError, SandboxPolicy};
use landlock::{
    ABI, AccessFs, BitFlags, PathBeneath, PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
    make_bitflags,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};
use std::collections::BTreeMap;
use std::fmt::Display;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::Arc;

/// Device files every sandboxed command may still write.
const DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// Socket families that stay allowed without network: local IPC and the
/// kernel's netlink (glibc's resolver asks it for interface addresses).
const LOCAL_FAMILIES: [libc::c_int; 2] = [libc::AF_UNIX, libc::AF_NETLINK];

/// `LANDLOCK_CREATE_RULESET_VERSION`.
const LANDLOCK_VERSION_QUERY: u32 = 1;

/// What the child installs.
#[derive(Debug)]
pub(super) struct Prepared {
    /// The Landlock ruleset (close-on-exec).
    ruleset: OwnedFd,
    /// The seccomp program; `None` when network is allowed.
    pub(super) filter: Option<BpfProgram>,
    /// The read-only mounts; `None` where namespaces are not available
    /// (then `isolation_error` says why).
    pub(super) mounts: Option<Arc<MountPlan>>,
    /// Why there is no mount isolation.
    pub(super) isolation_error: Option<IsolationError>,
}

/// Builds the ruleset and the filter (see [`SandboxPolicy::prepare`]).
pub(super) fn prepare(policy: &SandboxPolicy) -> Result<Prepared, SandboxError> {
    if policy.force_unsupported {
        return Err(SandboxError::LandlockUnavailable(LandlockMissing::Forced));
    }
    kernel_abi().map_err(SandboxError::LandlockUnavailable)?;
    let ruleset = ruleset(&policy.writable)?.ok_or(SandboxError::LandlockUnavailable(
        LandlockMissing::NoRuleset,
    ))?;
    let filter = if policy.allow_network {
        None
    } else {
        Some(network_filter()?)
    };
    let plan = Arc::new(MountPlan::new(&policy.writable));
    let (mounts, isolation_error) = match mounts::supported(&plan) {
        Ok(()) => (Some(plan), None),
        Err(why) => {
            tracing::warn!("sandbox: no mount isolation ({why})");
            (None, Some(why))
        }
    };
    Ok(Prepared {
        ruleset,
        filter,
        mounts,
        isolation_error,
    })
}

/// The running kernel's Landlock ABI version, or why there is none.
pub fn kernel_abi() -> Result<i32, LandlockMissing> {
    // SAFETY: the version query passes no pointer the kernel reads.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_VERSION_QUERY,
        )
    };
    if v >= 1 {
        return Ok(i32::try_from(v).unwrap_or(i32::MAX));
    }
    let err = io::Error::last_os_error();
    Err(match err.raw_os_error() {
        Some(libc::EOPNOTSUPP) => LandlockMissing::NotEnabled,
        Some(libc::ENOSYS) => LandlockMissing::NotBuilt,
        errno => LandlockMissing::QueryFailed(errno.unwrap_or(0)),
    })
}

/// The write rights Landlock handles (so denies outside the rules):
/// everything that changes the file system. `IoctlDev` and `ResolveUnix`
/// stay unhandled so terminals and UNIX sockets keep working.
fn write_access() -> BitFlags<AccessFs> {
    AccessFs::from_write(ABI::V10) & !make_bitflags!(AccessFs::{IoctlDev | ResolveUnix})
}

/// The ruleset fd, or `None` when the kernel does not support Landlock.
/// Missing or unopenable writable paths are skipped (writes there fail).
fn ruleset(writable: &[PathBuf]) -> Result<Option<OwnedFd>, SandboxError> {
    let access = write_access();
    // Signals and abstract UNIX sockets only reach processes of the same
    // sandbox (ABI 6; ignored by older kernels).
    let mut created = Ruleset::default()
        .handle_access(access)
        .and_then(|r| r.scope(make_bitflags!(Scope::{Signal | AbstractUnixSocket})))
        .and_then(Ruleset::create)
        .map_err(setup_error)?;
    for dir in writable {
        if let Ok(fd) = PathFd::new(dir) {
            created = created
                .add_rule(PathBeneath::new(fd, access))
                .map_err(setup_error)?;
        }
    }
    let file_access = make_bitflags!(AccessFs::{WriteFile | Truncate});
    for dev in DEVICES {
        if let Ok(fd) = PathFd::new(dev) {
            created = created
                .add_rule(PathBeneath::new(fd, file_access))
                .map_err(setup_error)?;
        }
    }
    Ok(created.into())
}

/// The seccomp program: `socket(2)` with a family other than
/// [`LOCAL_FAMILIES`] and `io_uring_setup(2)` (whose `IORING_OP_SOCKET`
/// would get around the filter) fail with EPERM; everything else is
/// allowed. Calls of another architecture (32-bit x86) kill the process,
/// as seccompiler's arch check does.
pub fn network_filter() -> Result<BpfProgram, SandboxError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(setup_error)?;
    let mut conditions = Vec::new();
    for family in LOCAL_FAMILIES {
        let family = u64::try_from(family).map_err(setup_error)?;
        conditions.push(
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family)
                .map_err(setup_error)?,
        );
    }
    let socket_rule = vec![SeccompRule::new(conditions).map_err(setup_error)?];
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    rules.insert(libc::SYS_socket, socket_rule.clone());
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    #[cfg(target_arch = "x86_64")]
    {
        // The x32 ABI shares the x86_64 audit arch; its numbers carry
        // this bit.
        const X32_SYSCALL_BIT: i64 = 0x4000_0000;
        rules.insert(X32_SYSCALL_BIT | libc::SYS_socket, socket_rule);
        rules.insert(X32_SYSCALL_BIT | libc::SYS_io_uring_setup, Vec::new());
    }
    let eperm = u32::try_from(libc::EPERM).map_err(setup_error)?;
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(eperm),
        arch,
    )
    .map_err(setup_error)?;
    BpfProgram::try_from(filter).map_err(setup_error)
}

fn setup_error(e: impl Display) -> SandboxError {
    SandboxError::Setup(e.to_string())
}

impl Prepared {
    /// `PR_SET_NO_NEW_PRIVS`, `landlock_restrict_self`, then the seccomp
    /// filter. Syscalls only: async-signal-safe.
    pub(super) fn apply(&self) -> io::Result<()> {
        // Mounts first: once restricted, Landlock refuses mount changes.
        if let Some(plan) = &self.mounts {
            plan.apply()?;
        }
        // SAFETY: prctl with constant arguments.
        if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1 as libc::c_ulong, 0, 0, 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the ruleset fd is open for as long as `self` lives.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_landlock_restrict_self,
                self.ruleset.as_raw_fd(),
                0u32,
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        if let Some(filter) = &self.filter {
            seccompiler::apply_filter(filter).map_err(|e| match e {
                seccompiler::Error::Prctl(e) | seccompiler::Error::Seccomp(e) => e,
                _ => io::Error::from_raw_os_error(libc::EINVAL),
            })?;
        }
        Ok(())
    }
}
