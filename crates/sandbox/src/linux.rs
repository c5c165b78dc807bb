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
    /// The seccomp program.
    pub(super) filter: BpfProgram,
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
    let filter = filter(policy.allow_network)?;
    let (mounts, isolation_error) = match mounts::choose(
        &policy.writable,
        !policy.allow_network,
        policy.force_no_user_namespace,
    ) {
        Ok(plan) => (Some(plan), None),
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

/// Calls that change the machine rather than files: the clock, reboot and
/// kexec, swap, kernel modules, mounts (old and new API), the host name,
/// process accounting. Refused with EPERM also where the command would
/// hold the capability.
const PRIVILEGED: &[libc::c_long] = &[
    libc::SYS_reboot,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_clock_settime,
    libc::SYS_clock_adjtime,
    libc::SYS_adjtimex,
    libc::SYS_settimeofday,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_mount_setattr,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_acct,
];

/// The seccomp program of a sandbox without network: see [`filter`].
pub fn network_filter() -> Result<BpfProgram, SandboxError> {
    filter(false)
}

/// The seccomp program: the [`PRIVILEGED`] calls fail with EPERM and,
/// without network, so do `socket(2)` with a family other than
/// [`LOCAL_FAMILIES`] and `io_uring_setup(2)` (whose `IORING_OP_SOCKET`
/// would get around the filter); everything else is allowed. Calls of
/// another architecture (32-bit x86) kill the process, as seccompiler's
/// arch check does.
pub fn filter(allow_network: bool) -> Result<BpfProgram, SandboxError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(setup_error)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for call in PRIVILEGED {
        rules.insert(*call, Vec::new());
        #[cfg(target_arch = "x86_64")]
        rules.insert(X32_SYSCALL_BIT | *call, Vec::new());
    }
    if !allow_network {
        network_rules(&mut rules)?;
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

/// The x32 ABI shares the x86_64 audit arch; its numbers carry this bit.
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: i64 = 0x4000_0000;

/// Adds the socket and io_uring rules of a sandbox without network.
fn network_rules(rules: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), SandboxError> {
    let mut conditions = Vec::new();
    for family in LOCAL_FAMILIES {
        let family = u64::try_from(family).map_err(setup_error)?;
        conditions.push(
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, family)
                .map_err(setup_error)?,
        );
    }
    let socket_rule = vec![SeccompRule::new(conditions).map_err(setup_error)?];
    rules.insert(libc::SYS_socket, socket_rule.clone());
    rules.insert(libc::SYS_io_uring_setup, Vec::new());
    #[cfg(target_arch = "x86_64")]
    {
        rules.insert(X32_SYSCALL_BIT | libc::SYS_socket, socket_rule);
        rules.insert(X32_SYSCALL_BIT | libc::SYS_io_uring_setup, Vec::new());
    }
    Ok(())
}

fn setup_error(e: impl Display) -> SandboxError {
    SandboxError::Setup(e.to_string())
}

impl Prepared {
    /// The namespaces and mounts, an empty capability set,
    /// `PR_SET_NO_NEW_PRIVS`, `landlock_restrict_self`, then the seccomp
    /// filter. Syscalls only: async-signal-safe.
    pub(super) fn apply(&self) -> io::Result<()> {
        // Mounts first: once restricted, Landlock refuses mount changes.
        if let Some(plan) = &self.mounts {
            plan.apply()?;
        }
        drop_capabilities()?;
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
        seccompiler::apply_filter(&self.filter).map_err(|e| match e {
            seccompiler::Error::Prctl(e) | seccompiler::Error::Seccomp(e) => e,
            _ => io::Error::from_raw_os_error(libc::EINVAL),
        })?;
        Ok(())
    }
}

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// `struct __user_cap_header_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

/// `struct __user_cap_data_struct`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Leaves the process no capability, now or after `exec` (also as root):
/// empties the bounding and ambient sets, locks `SECBIT_NOROOT` (uid 0
/// gains nothing at `exec`) and clears the effective, permitted and
/// inheritable sets. A process that may not change its bounding set or
/// secure bits (an unprivileged one outside a user namespace) has no
/// capability to lose there, so EPERM on those is not an error.
fn drop_capabilities() -> io::Result<()> {
    for cap in 0..64 {
        // SAFETY: prctl with integer arguments.
        if unsafe { libc::prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong, 0, 0, 0) } != 0 {
            match io::Error::last_os_error().raw_os_error() {
                // Past the kernel's last capability.
                Some(libc::EINVAL) => break,
                Some(libc::EPERM) => break,
                _ => return Err(io::Error::last_os_error()),
            }
        }
    }
    let bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED;
    // SAFETY: prctl with integer arguments.
    unsafe {
        if libc::prctl(libc::PR_SET_SECUREBITS, bits as libc::c_ulong, 0, 0, 0) != 0
            && io::Error::last_os_error().raw_os_error() != Some(libc::EPERM)
        {
            return Err(io::Error::last_os_error());
        }
        let clear = libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong;
        if libc::prctl(libc::PR_CAP_AMBIENT, clear, 0, 0, 0) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    let mut header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let data = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: a version-3 header and the two data structs it asks for,
    // alive for the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_capset,
            &mut header as *mut CapHeader,
            data.as_ptr(),
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `SECBIT_NOROOT`: uid 0 gets no capabilities at `exec`.
const SECBIT_NOROOT: u32 = 1 << 0;
/// `SECBIT_NOROOT_LOCKED`.
const SECBIT_NOROOT_LOCKED: u32 = 1 << 1;
