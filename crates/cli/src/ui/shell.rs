//! Shell mode: `!command` runs directly in the project root, its output
//! shown as a card. Cancelling kills the whole process group.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio::io::AsyncReadExt;
use tokio_util::sync::CancellationToken;

/// How a shell command ended.
#[derive(Debug)]
pub struct ShellResult {
    /// Combined output.
    pub output: String,
    /// Exit code (None: killed or failed to start).
    pub code: Option<i32>,
    /// True when cancelled.
    pub cancelled: bool,
    /// How long it ran.
    pub duration: Duration,
}

/// Runs `command` with `bash -c` (or `sh -c`) in `dir`.
pub async fn run(command: String, dir: PathBuf, cancel: CancellationToken) -> ShellResult {
    let started = Instant::now();
    let shell = if std::path::Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/bin/sh"
    };
    let mut cmd = tokio::process::Command::new(shell);
    cmd.arg("-c")
        .arg(format!("{command} 2>&1"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return ShellResult {
                output: format!("Failed to start {shell}: {e}"),
                code: None,
                cancelled: false,
                duration: started.elapsed(),
            };
        }
    };
    let pid = child.id();
    let mut out = Vec::new();
    let mut stdout = child.stdout.take();
    let read = async {
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut out).await;
        }
        child.wait().await
    };
    let (code, cancelled) = tokio::select! {
        status = read => (status.ok().and_then(|s| s.code()), false),
        _ = cancel.cancelled() => {
            if let Some(pid) = pid {
                // SAFETY: signalling the process group we created.
                unsafe { libc::kill(-(pid as i32), libc::SIGKILL) };
            }
            (None, true)
        }
    };
    ShellResult {
        output: String::from_utf8_lossy(&out).into_owned(),
        code,
        cancelled,
        duration: started.elapsed(),
    }
}
