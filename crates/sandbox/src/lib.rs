//! The native sandbox: every command the agent starts runs under
//! Landlock, which allows writes only below the given directories, with no
//! capabilities (also as root), and under a seccomp filter that refuses
//! the calls that change the machine (clock, reboot, swap, modules,
//! mounts, host name) and, unless network is allowed, every socket family
//! but `AF_UNIX` and `AF_NETLINK`. Where the kernel allows it, the command
//! also gets its own user, mount, UTS and (without network) network
//! namespaces, in which the rest of the file system and the protected
//! paths are mounted read-only. Everything is prepared in the parent and
//! installed in the child between `fork` and `exec`, so a blocked action
//! fails with EACCES/EPERM/EROFS.
//!
//! A leaf crate: it knows nothing of settings (the engine decides the
//! policy) and is usable by anything that starts commands.

#![deny(missing_docs)]
// A library writes nothing to stdout: that is the front end's (and the
// protocol's, on stdio transports); its tests may print.
#![cfg_attr(not(test), deny(clippy::print_stdout))]

mod guard;
#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod mounts;

#[cfg(target_os = "linux")]
pub use linux::{filter, kernel_abi, network_filter};

pub use guard::{REFUSED_SUFFIX, Refused};

/// The paths inside a workspace folder that sandboxed commands may not
/// change or create: they load or run outside the sandbox later.
pub const PROTECTED: &[&str] = &[".gemini", ".git", ".env"];

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// Environment variable that makes [`SandboxPolicy::prepare`] behave as on
/// a kernel without Landlock (for tests of that path).
pub const FORCE_UNSUPPORTED_ENV: &str = "GEMINI_RS_SANDBOX_FORCE_UNSUPPORTED";

/// Environment variable that makes [`SandboxPolicy::prepare`] behave as on
/// a kernel that refuses user namespaces (for tests of that path).
pub const FORCE_NO_USER_NAMESPACE_ENV: &str = "GEMINI_RS_SANDBOX_FORCE_NO_USERNS";

/// Why the sandbox cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxError {
    /// A container sandbox (`docker`, `podman`, ...) was asked for.
    ContainerUnsupported(String),
    /// A sandbox value that means nothing.
    Invalid(String),
    /// The kernel has no (enabled) Landlock.
    LandlockUnavailable(LandlockMissing),
    /// Not on Linux.
    // Platform: built only where the sandbox is not Linux's.
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    NotLinux,
    /// Building the ruleset or the filter failed.
    Setup(String),
}

impl fmt::Display for SandboxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SandboxError::ContainerUnsupported(v) => write!(
                f,
                "Sandbox '{v}' is not supported: gemini-rs only provides the native Linux sandbox \
                 (Landlock and seccomp, no container). Use --sandbox, GEMINI_SANDBOX=true or \
                 \"tools\": {{\"sandbox\": true}} in settings."
            ),
            SandboxError::Invalid(v) => write!(
                f,
                "Invalid sandbox value '{v}'. Must be true, false or native (the container \
                 sandboxes docker, podman and sandbox-exec are not supported)."
            ),
            SandboxError::LandlockUnavailable(why) => write!(
                f,
                "The native sandbox needs Landlock, which this kernel does not provide ({why}). \
                 It needs Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK=y and landlock in the \
                 lsm= boot parameter. Refusing to run commands without protection; turn the \
                 sandbox off to run them unsandboxed."
            ),
            SandboxError::NotLinux => write!(f, "The native sandbox is only available on Linux."),
            SandboxError::Setup(why) => write!(f, "Could not set up the native sandbox: {why}"),
        }
    }
}

impl std::error::Error for SandboxError {}

/// Why there is no Landlock to use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LandlockMissing {
    /// `lsm=` does not list landlock.
    #[error("Landlock is built into the kernel but not enabled")]
    NotEnabled,
    /// The kernel was built without it.
    #[error("Landlock is not built into the kernel")]
    NotBuilt,
    /// The version query failed otherwise; the errno.
    #[error("the Landlock version query failed: {}", io::Error::from_raw_os_error(*.0))]
    QueryFailed(i32),
    /// The kernel answered the version but created no ruleset.
    #[error("Landlock did not create a ruleset")]
    NoRuleset,
    /// Tests asked to behave as without Landlock.
    #[error("forced by {FORCE_UNSUPPORTED_ENV}")]
    Forced,
}

/// Why commands run without the read-only mounts.
#[derive(Debug, thiserror::Error)]
pub enum IsolationError {
    /// The probe child could not set the mounts up.
    #[error("the probe exited with {0}")]
    ProbeExited(std::process::ExitStatus),
    /// The probe child did not start.
    #[error("{0}")]
    ProbeFailed(io::Error),
    /// Tests asked to behave as without user namespaces (and the caller
    /// is not root, who could do without).
    #[error("user namespaces refused (forced by {FORCE_NO_USER_NAMESPACE_ENV})")]
    NoUserNamespace,
    /// Mount namespaces are a Linux feature.
    #[error("not Linux")]
    // Platform: built only where the sandbox is not Linux's.
    #[cfg_attr(target_os = "linux", allow(dead_code))]
    NotLinux,
}

/// What sandboxed commands may do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxPolicy {
    /// Directories below which writes are allowed (missing ones are
    /// skipped). Everything else stays readable and executable.
    pub writable: Vec<PathBuf>,
    /// Whether internet sockets (`AF_INET`, `AF_INET6`, ...) are allowed.
    pub allow_network: bool,
    /// Behave as on a kernel without Landlock (see
    /// [`FORCE_UNSUPPORTED_ENV`]).
    pub force_unsupported: bool,
    /// Behave as on a kernel that refuses user namespaces (see
    /// [`FORCE_NO_USER_NAMESPACE_ENV`]).
    pub force_no_user_namespace: bool,
    /// Variables with a secret's name (see [`is_secret_name`]) that
    /// sandboxed commands still get (`tools.sandboxAllowedEnv`).
    pub allowed_env: Vec<String>,
    /// The workspace folders (also in `writable`): their [`PROTECTED`]
    /// paths that are missing at [`SandboxPolicy::prepare`] are watched
    /// (see [`PreparedSandbox::refuse_created`]).
    pub workspace: Vec<PathBuf>,
}

/// Words that mark a variable as a credential, wherever they stand in its
/// name (`AWS_SECRET_ACCESS_KEY`, `GH_TOKEN`, `PGPASSWORD`, ...).
pub const SECRET_WORDS: &[&str] = &["KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH"];

/// True for names of variables that hold credentials: the name contains
/// one of [`SECRET_WORDS`], in any case.
pub fn is_secret_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_WORDS.iter().any(|w| upper.contains(w))
}

impl SandboxPolicy {
    /// Opens the writable directories, builds the Landlock ruleset and
    /// compiles the seccomp program, all in the parent. Fails when the
    /// kernel has no Landlock at all (or [`Self::force_unsupported`]).
    pub fn prepare(&self) -> Result<PreparedSandbox, SandboxError> {
        #[cfg(target_os = "linux")]
        {
            linux::prepare(self).map(|inner| PreparedSandbox {
                inner,
                allowed_env: self.allowed_env.clone(),
                watched: std::sync::Mutex::new(guard::missing(&self.workspace, PROTECTED)),
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(SandboxError::NotLinux)
        }
    }
}

/// A sandbox ready to be installed in children: an open Landlock ruleset,
/// a compiled seccomp program and the namespace plan.
#[derive(Debug)]
pub struct PreparedSandbox {
    #[cfg(target_os = "linux")]
    inner: linux::Prepared,
    allowed_env: Vec<String>,
    watched: std::sync::Mutex<Vec<PathBuf>>,
}

impl PreparedSandbox {
    /// Restricts the calling process: the namespaces and mounts, an empty
    /// capability set, `PR_SET_NO_NEW_PRIVS`, Landlock's `restrict_self`,
    /// then the seccomp filter. Only syscalls, no allocation: safe between
    /// `fork` and `exec`.
    pub fn apply_in_child(&self) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            self.inner.apply()
        }
        #[cfg(not(target_os = "linux"))]
        {
            Err(io::Error::from_raw_os_error(libc::ENOSYS))
        }
    }

    /// Moves aside the [`PROTECTED`] paths that were missing when the
    /// sandbox was prepared and exist now (a sandboxed command made them);
    /// call it once a sandboxed command has ended. Each one is reported;
    /// it is watched again afterwards.
    pub fn refuse_created(&self) -> Vec<Refused> {
        match self.watched.lock() {
            Ok(watched) => guard::refuse_created(&watched),
            Err(_) => Vec::new(),
        }
    }

    /// Stops watching the [`PROTECTED`] paths that exist now: gemini-rs
    /// itself made them (a file tool the user let write there), so they
    /// are not moved aside later. They stay unprotected until the next
    /// session (the mounts are planned at the start).
    pub fn accept_created(&self) {
        if let Ok(mut watched) = self.watched.lock() {
            watched.retain(|p| p.symlink_metadata().is_err());
        }
    }

    /// Why commands run without the read-only mounts (no user or mount
    /// namespaces here), or `None` when they have them.
    pub fn isolation_error(&self) -> Option<&IsolationError> {
        #[cfg(target_os = "linux")]
        {
            self.inner.isolation_error.as_ref()
        }
        #[cfg(not(target_os = "linux"))]
        {
            Some(&IsolationError::NotLinux)
        }
    }
}

/// Makes `cmd` install `prepared` in the child before `exec` (after any
/// hooks added earlier). For a `tokio::process::Command` pass
/// `cmd.as_std_mut()`.
pub fn install(cmd: &mut std::process::Command, prepared: Arc<PreparedSandbox>) {
    use std::os::unix::process::CommandExt;
    // Credentials stay with gemini-rs: a sandboxed command gets none of
    // the provider keys, unless the user's settings list them.
    let inherited = std::env::vars_os().map(|(k, _)| k);
    let set = cmd
        .get_envs()
        .map(|(k, _)| k.to_os_string())
        .collect::<Vec<_>>();
    for name in inherited.chain(set) {
        let Some(text) = name.to_str() else { continue };
        if is_secret_name(text) && !prepared.allowed_env.iter().any(|a| a == text) {
            cmd.env_remove(&name);
        }
    }
    // SAFETY: the hook only reads `prepared` (built before the fork) and
    // makes raw syscalls; it allocates nothing and takes no locks.
    unsafe {
        cmd.pre_exec(move || prepared.apply_in_child());
    }
}
