//! Every file named on the command line or in settings follows the one
//! rule for start-up files (issue 41, item 5): `--output-schema` and
//! `--session-file` naming a FIFO, a device or an oversized file are bad
//! input (42) at once, without reading; a FIFO `telemetry.outfile` is
//! skipped by name; `hooks migrate --from-claude` refuses a FIFO or device
//! `.claude/settings.json` and a `.gemini/settings.json` that is a symlink
//! out of the project.

use super::{mkfifo, run_guarded};
use crate::e2e::{lines, text};
use crate::support::Sandbox;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Far below "forever" and below what reading 4 GiB would take.
const LIMIT: Duration = Duration::from_secs(20);

/// A FIFO, `/dev/zero` (through a symlink) and a sparse 5 GiB file, with
/// what the refusal must say about each.
fn bad_files(sb: &Sandbox, stem: &str) -> Vec<(PathBuf, &'static str)> {
    let fifo = sb.work.join(format!("{stem}.fifo"));
    mkfifo(&fifo);
    let zero = sb.work.join(format!("{stem}.zero"));
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let big = sb.work.join(format!("{stem}.big"));
    let file = std::fs::File::create(&big).unwrap();
    file.set_len(5 << 30).unwrap();
    vec![
        (fifo, "is not a regular file (a FIFO)"),
        (zero, "is not a regular file (a character device)"),
        (big, "is larger than"),
    ]
}

fn assert_refused(out: &crate::support::Output, file: &Path, why: &str, flag: &str) {
    assert_eq!(out.code, 42, "{flag} {}: {out:?}", file.display());
    let want = format!("{} {why}", file.display());
    assert!(out.stderr.contains(&want), "{want}\n{}", out.stderr);
    assert!(out.stderr.contains(flag), "{}", out.stderr);
}

#[test]
fn output_schema_and_session_file_refuse_fifos_devices_and_huge_files() {
    let sb = Sandbox::new();
    let responses = sb.write("r.responses", &lines(&[text("{}")]));
    let replay = responses.to_str().unwrap();
    for (flag, stem) in [("--output-schema", "schema"), ("--session-file", "session")] {
        for (file, why) in bad_files(&sb, stem) {
            let started = Instant::now();
            let out = run_guarded(
                &sb,
                &[
                    "--fake-responses",
                    replay,
                    flag,
                    file.to_str().unwrap(),
                    "-p",
                    "hi",
                ],
                &[],
                LIMIT,
            );
            assert_refused(&out, &file, why, flag);
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{flag}: {:?}",
                started.elapsed()
            );
        }
    }
}

#[test]
fn a_fifo_telemetry_outfile_is_skipped_by_name() {
    let sb = Sandbox::new();
    let fifo = sb.home.join("telemetry.fifo");
    mkfifo(&fifo);
    sb.settings(&json!({"telemetry": {"enabled": true, "outfile": fifo}}));
    let responses = sb.write("r.responses", &lines(&[text("fine")]));
    let out = run_guarded(
        &sb,
        &["--fake-responses", responses.to_str().unwrap(), "-p", "hi"],
        &[],
        LIMIT,
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "fine");
    let want = format!("{}: it is not a regular file (a FIFO)", fifo.display());
    assert!(out.stderr.contains(&want), "{want}\n{}", out.stderr);
}

#[test]
fn hooks_migrate_refuses_fifo_and_device_sources() {
    let sb = Sandbox::new();
    let source = sb.work.join(".claude/settings.json");
    mkfifo(&source);
    let out = run_guarded(&sb, &["hooks", "migrate", "--from-claude"], &[], LIMIT);
    assert_eq!(out.code, 1, "{out:?}");
    let want = format!("{} is not a regular file (a FIFO)", source.display());
    assert!(out.stderr.contains(&want), "{}", out.stderr);
    std::fs::remove_file(&source).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &source).unwrap();
    let out = run_guarded(&sb, &["hooks", "migrate", "--from-claude"], &[], LIMIT);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("/dev/zero"), "{}", out.stderr);
}

#[test]
fn a_settings_write_does_not_follow_a_symlink_out_of_the_project() {
    let sb = Sandbox::new();
    let hooks = json!({"hooks": {"PreToolUse": [{"matcher": "Bash",
        "hooks": [{"type": "command", "command": "guard.sh"}]}]}});
    sb.write(".claude/settings.json", &hooks.to_string());
    let bashrc = sb.write_home(".bashrc", "export PS1='$ '\n");
    let link = sb.work.join(".gemini/settings.json");
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&bashrc, &link).unwrap();
    let out = run_guarded(&sb, &["hooks", "migrate", "--from-claude"], &[], LIMIT);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("not following it"), "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        "export PS1='$ '\n",
        "the file outside the project was overwritten"
    );
    // A symlink within the project is followed (and stays a symlink).
    std::fs::remove_file(&link).unwrap();
    let inside = sb.write("config/gemini.json", "{}");
    std::os::unix::fs::symlink(&inside, &link).unwrap();
    let out = run_guarded(&sb, &["hooks", "migrate", "--from-claude"], &[], LIMIT);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        std::fs::read_to_string(&inside)
            .unwrap()
            .contains("guard.sh")
    );
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
}
