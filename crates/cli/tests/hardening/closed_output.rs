//! A closed stdout or stderr ends gemini-rs quietly (issue 41, item 7):
//! `completion bash | head -c 10`, `--list-sessions | head -3` and a
//! headless answer into a closed pipe exit 141 (as a shell reports
//! SIGPIPE) or 0, never 101 with a panic and a backtrace.

use crate::e2e::{lines, text};
use crate::support::Sandbox;
use std::process::Stdio;

/// Runs `args` with stdout (or stderr, when `stderr` is set) a pipe whose
/// reading end is already closed; (exit code, what went to the other
/// stream).
fn run_closed(sb: &Sandbox, args: &[&str], stderr: bool) -> (i32, String) {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut cmd = sb.command(args, &[("RUST_BACKTRACE", "1")]);
    cmd.stdin(Stdio::null());
    if stderr {
        cmd.stderr(writer).stdout(Stdio::piped());
    } else {
        cmd.stdout(writer).stderr(Stdio::piped());
    }
    let out = cmd.output().unwrap();
    let other = if stderr { &out.stdout } else { &out.stderr };
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(other).into_owned(),
    )
}

fn assert_quiet(args: &[&str], (code, other): (i32, String)) {
    assert!(code == 141 || code == 0, "{args:?}: exit {code}: {other}");
    assert!(!other.contains("panicked"), "{args:?}: {other}");
    assert!(!other.contains("stack backtrace"), "{args:?}: {other}");
}

#[test]
fn a_closed_stdout_ends_every_front_end_quietly() {
    let sb = Sandbox::new();
    let responses = sb.write("r.responses", &lines(&[text("an answer")]));
    // A session to list.
    let out = sb.run(
        &["--fake-responses", responses.to_str().unwrap(), "-p", "hi"],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    for args in [
        vec!["completion", "bash"],
        vec!["--list-sessions"],
        vec!["--fake-responses", responses.to_str().unwrap(), "-p", "hi"],
        vec![
            "--fake-responses",
            responses.to_str().unwrap(),
            "-o",
            "stream-json",
            "-p",
            "hi",
        ],
    ] {
        assert_quiet(&args, run_closed(&sb, &args, false));
    }
}

#[test]
fn a_closed_stderr_is_no_panic() {
    let sb = Sandbox::new();
    // A warning goes to stderr at start-up.
    sb.write(".gemini/settings.json", "{\"unknownKey\": 1}");
    let responses = sb.write("r.responses", &lines(&[text("an answer")]));
    let args = [
        "--fake-responses",
        responses.to_str().unwrap(),
        "-p",
        "hi",
        "--bogus-flag",
    ];
    let (code, _) = run_closed(&sb, &args, true);
    assert_ne!(code, 101, "a panic on the closed stderr");
    let args = ["--fake-responses", responses.to_str().unwrap(), "-p", "hi"];
    let (code, stdout) = run_closed(&sb, &args, true);
    assert!(code == 0 || code == 141, "exit {code}: {stdout}");
}
