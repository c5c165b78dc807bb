//! What a hostile repository cannot do at start-up (issue 30, second
//! pass): start-up inputs are bounded regular files, credentials go only
//! where the user sent them, and search stays within memory.

mod closed_output;
mod credentials;
mod inputs;
mod load;
mod private_files;
mod search;
mod startup_files;
mod stream;
mod untrusted_context;
mod zero_size_tui;

use crate::support::{Output, Sandbox};
use std::path::Path;
use std::time::{Duration, Instant};

/// Makes a FIFO at `path`.
pub fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

/// Runs the binary and fails the test (killing it) when it takes longer
/// than `limit`: a FIFO read would hang forever.
pub fn run_guarded(sb: &Sandbox, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Output {
    let mut cmd = sb.command(args, env);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("gemini-rs {args:?} still ran after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
