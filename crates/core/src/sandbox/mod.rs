//! The native sandbox (`-s/--sandbox`, `GEMINI_SANDBOX=true`, settings
//! `tools.sandbox: true`): every command the agent starts runs under
//! Landlock, which allows writes only below the workspace directories and
//! the temp dirs, in namespaces of its own with no capabilities, and under
//! a seccomp filter that refuses the machine-changing calls and (unless
//! `tools.sandboxNetwork: true`) every socket family but `AF_UNIX` and
//! `AF_NETLINK` (see the `gemini-rs-sandbox` crate). All of it is prepared
//! in the parent and installed in the child between `fork` and `exec`.
//!
//! Gemini CLI's container sandboxes (`docker`, `podman`, `sandbox-exec`,
//! ...) are refused with a clear error, and so is a kernel without
//! Landlock: the sandbox never silently runs commands unprotected.

pub use gemini_rs_sandbox::{
    FORCE_NO_USER_NAMESPACE_ENV, FORCE_UNSUPPORTED_ENV, PreparedSandbox, Refused, SandboxError,
    SandboxPolicy, install,
};

use crate::config::{SandboxSetting, Scope, Settings};
use serde_json::Value;
use std::path::PathBuf;

/// Values Gemini CLI accepts for its container/OS sandboxes.
const CONTAINER_SANDBOXES: &[&str] = &["docker", "podman", "sandbox-exec", "runsc", "lxc"];

/// Where a sandbox setting may come from: the user's and the system's
/// files decide; the workspace's (which a sandboxed command could have
/// written) may only tighten them.
struct Layers<'a> {
    outside: Vec<&'a Value>,
    workspace: Option<&'a Value>,
}

impl<'a> Layers<'a> {
    fn of(settings: &'a Settings) -> Layers<'a> {
        let layer = |scope| settings.layer(scope).map(|(_, v)| v);
        Layers {
            // Lowest precedence first.
            outside: [Scope::SystemDefaults, Scope::User, Scope::System]
                .into_iter()
                .filter_map(layer)
                .collect(),
            workspace: layer(Scope::Workspace),
        }
    }

    /// The value outside the workspace (the highest layer that sets it).
    fn outside(&self, pointer: &str) -> Option<&'a Value> {
        self.outside.iter().rev().find_map(|v| v.pointer(pointer))
    }

    fn workspace(&self, pointer: &str) -> Option<&'a Value> {
        self.workspace.and_then(|v| v.pointer(pointer))
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.trim().to_lowercase().as_str(), "true" | "1" | "native"),
        _ => false,
    }
}

/// Decides the sandbox mode as Gemini CLI does: a non-empty
/// `GEMINI_SANDBOX` (from `env`) wins over the `-s/--sandbox` value, which
/// wins over settings `tools.sandbox`. `true`, `1` and `native` mean the
/// native sandbox, `false`, `0` or nothing mean none; container values are
/// an error. The policy allows writes to `writable` plus the system temp
/// dirs (`/tmp`, `$TMPDIR`, `/dev/shm`), and network when settings have
/// `tools.sandboxNetwork: true`.
pub fn from_settings(
    settings: &Settings,
    cli_flag: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
    writable: Vec<PathBuf>,
) -> Result<Option<SandboxPolicy>, SandboxError> {
    let layers = Layers::of(settings);
    let from_env = env("GEMINI_SANDBOX")
        .map(|v| v.trim().to_lowercase())
        .filter(|v| !v.is_empty());
    let value = match (from_env, cli_flag) {
        (Some(v), _) => v,
        (None, Some(flag)) => flag.trim().to_lowercase(),
        (None, None) => match &settings.typed().tools.sandbox {
            // A workspace `false` does not switch off what the user's or
            // the system's settings switched on.
            _ if layers.outside("/tools/sandbox").is_some_and(truthy) => "true".to_string(),
            None => return Ok(None),
            Some(SandboxSetting::Flag(b)) => b.to_string(),
            Some(SandboxSetting::Name(s)) => s.trim().to_lowercase(),
            Some(SandboxSetting::Other(other)) => {
                return Err(SandboxError::Invalid(other.to_string()));
            }
        },
    };
    match value.as_str() {
        "" | "0" | "false" => return Ok(None),
        "1" | "true" | "native" => {}
        v if CONTAINER_SANDBOXES.contains(&v) => {
            return Err(SandboxError::ContainerUnsupported(value));
        }
        _ => return Err(SandboxError::Invalid(value)),
    }
    let workspace = writable.clone();
    let mut dirs = writable;
    for extra in [
        PathBuf::from("/tmp"),
        std::env::temp_dir(),
        PathBuf::from("/dev/shm"),
    ] {
        if !dirs.contains(&extra) {
            dirs.push(extra);
        }
    }
    // Network only when the user or the system allows it and the
    // workspace does not forbid it; without layers (settings built in
    // memory), the merged value.
    let allow_network = if layers.outside.is_empty() && layers.workspace.is_none() {
        settings
            .as_value()
            .pointer("/tools/sandboxNetwork")
            .is_some_and(truthy)
    } else {
        layers.outside("/tools/sandboxNetwork").is_some_and(truthy)
            && layers.workspace("/tools/sandboxNetwork").is_none_or(truthy)
    };
    let allowed_env = if layers.outside.is_empty() && layers.workspace.is_none() {
        settings.as_value().pointer("/tools/sandboxAllowedEnv")
    } else {
        layers.outside("/tools/sandboxAllowedEnv")
    }
    .and_then(Value::as_array)
    .map(|names| {
        names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    })
    .unwrap_or_default();
    let forced = |name: &str| env(name).is_some_and(|v| !v.is_empty() && v != "0" && v != "false");
    let force_unsupported = forced(FORCE_UNSUPPORTED_ENV);
    let force_no_user_namespace = forced(FORCE_NO_USER_NAMESPACE_ENV);
    Ok(Some(SandboxPolicy {
        writable: dirs,
        allow_network,
        force_unsupported,
        force_no_user_namespace,
        allowed_env,
        workspace,
    }))
}

/// The protected paths a sandboxed command created (moved aside, see
/// [`PreparedSandbox::refuse_created`]); none without a sandbox.
pub fn refuse_created(sandbox: Option<&std::sync::Arc<PreparedSandbox>>) -> Vec<Refused> {
    sandbox.map(|s| s.refuse_created()).unwrap_or_default()
}

#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests;
