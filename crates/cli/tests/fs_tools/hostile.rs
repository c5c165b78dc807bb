//! A hostile workspace or a strange file: context imports that reach for
//! secrets, FIFOs that would hang a read, huge files, a symlink flipped
//! while a write is under way, temp files left by a killed write. Each is
//! refused or survived.

use super::{age, call_with, err, ok, one, sandbox, w};
use crate::e2e::{lines, text, turn};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// Runs a prompt answered with text; the first request's system
/// instruction and the run's stderr.
fn system_instruction(sb: &Sandbox, prompt: &str, env: &[(&str, &str)]) -> (String, String) {
    let fake = FakeServer::replaying(&lines(&[text("done")]));
    let mut all_env = vec![("GOOGLE_GEMINI_BASE_URL", fake.base_url.as_str())];
    all_env.extend_from_slice(env);
    let out = sb.run(&[prompt], None, &all_env);
    assert_eq!(out.code, 0, "{out:?}");
    let request = &fake.requests()[0];
    let system = request.body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    (system, out.stderr)
}

#[test]
fn context_imports_cannot_reach_secrets_or_outside_files() {
    let sb = sandbox();
    let w = w(&sb);
    let outside = sb.work.parent().unwrap().join("outside.md");
    std::fs::write(&outside, "OUTSIDE-SECRET").unwrap();
    std::os::unix::fs::symlink(&outside, sb.work.join("link.md")).unwrap();
    mkfifo(&sb.work.join("pipe.md"));
    sb.write("docs/ok.md", "IMPORTED-OK");
    sb.write(
        "GEMINI.md",
        "Project rules\n@/proc/self/environ\n@../outside.md\n@link.md\n@pipe.md\n@/dev/zero\n@docs/ok.md\n",
    );
    let key = "AIza-SECRET-KEY-0123456789";
    let started = Instant::now();
    let (system, stderr) = system_instruction(&sb, "hi", &[("GEMINI_API_KEY", key)]);
    assert!(started.elapsed() < Duration::from_secs(60));
    assert!(!system.contains(key), "the API key leaked");
    assert!(!system.contains("OUTSIDE-SECRET"));
    assert!(
        system.contains(
            "--- Context from: GEMINI.md ---\nProject rules\n<!-- Import failed: /proc/self/environ - Path traversal attempt -->\n<!-- Import failed: ../outside.md - Path traversal attempt -->\n<!-- Import failed: link.md - Path traversal attempt -->\n<!-- Import failed: pipe.md - it is not a regular file (a FIFO) -->\n<!-- Import failed: /dev/zero - Path traversal attempt -->\n<!-- Imported from: docs/ok.md -->\nIMPORTED-OK\n<!-- End of import from: docs/ok.md -->\n--- End of Context from: GEMINI.md ---"
        ),
        "{system}"
    );
    // Imports stay inside the project root (0.61's rule): here the folder
    // of GEMINI.md, as there is no git repository above it.
    let outside_reason = format!("it resolves outside the project root {w}");
    let outside_reason = outside_reason.as_str();
    for (line, target, reason) in [
        (2, "/proc/self/environ", outside_reason),
        (3, "../outside.md", outside_reason),
        (4, "link.md", outside_reason),
        (5, "pipe.md", "it is not a regular file (a FIFO)"),
        (6, "/dev/zero", outside_reason),
    ] {
        let warning = format!("[WARNING] {w}/GEMINI.md:{line}: import @{target} refused: {reason}");
        assert!(stderr.contains(&warning), "{warning}\n{stderr}");
    }
}

#[test]
fn fifos_are_refused_by_every_file_tool_and_by_at_references() {
    let sb = sandbox();
    let w = w(&sb);
    mkfifo(&sb.work.join("pipe"));
    let refused = err(format!("Path is not a regular file (a FIFO): {w}/pipe"));
    let cases = [
        ("read_file", json!({"file_path": "pipe"})),
        ("write_file", json!({"file_path": "pipe", "content": "x"})),
        (
            "replace",
            json!({"file_path": "pipe", "instruction": "i", "old_string": "a", "new_string": "b"}),
        ),
    ];
    for (name, args) in cases {
        assert_eq!(one(&sb, name, args.clone()), refused, "{name} {args}");
    }
    assert_eq!(
        one(&sb, "read_many_files", json!({"include": ["pipe", "*"]})),
        ok("No files matching the criteria were found or all were skipped.")
    );
    // `@pipe` in the prompt: sent as typed, nothing read.
    let fake = FakeServer::replaying(&lines(&[text("done")]));
    let out = sb.run(
        &["read @pipe"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let contents = &fake.requests()[0].body["contents"];
    let last = &contents[contents.as_array().unwrap().len() - 1];
    assert_eq!(last["parts"], json!([{"text": "read @pipe"}]));
}

#[test]
fn replace_refuses_a_file_over_the_read_limit_before_reading_it() {
    let sb = sandbox();
    let w = w(&sb);
    // Sparse: 2 GB on paper, nothing on disk.
    std::fs::File::create(sb.work.join("huge.txt"))
        .unwrap()
        .set_len(2 * 1024 * 1024 * 1024)
        .unwrap();
    assert_eq!(
        one(
            &sb,
            "replace",
            json!({"file_path": "huge.txt", "instruction": "i", "old_string": "a", "new_string": "b"})
        ),
        err(format!(
            "File size exceeds the 20MB limit: {w}/huge.txt (2048.00MB)"
        ))
    );
}

#[test]
fn a_large_write_over_a_different_large_file_is_not_held_up_by_the_diff() {
    let sb = sandbox();
    let w = w(&sb);
    // 3 MB each, no line in common: a line diff of these took seconds.
    let old: String = (0..100_000)
        .map(|i| format!("old line {i:>20}\n"))
        .collect();
    let new: String = (0..100_000)
        .map(|i| format!("new line {i:>20}\n"))
        .collect();
    sb.write("big.txt", &old);
    let started = Instant::now();
    let got = call_with(
        &sb,
        &["--output-format", "json"],
        "write_file",
        json!({"file_path": "big.txt", "content": new}),
    );
    let took = started.elapsed();
    assert_eq!(
        got,
        ok(format!("Successfully overwrote file: {w}/big.txt."))
    );
    assert_eq!(sb.read("big.txt").unwrap(), new);
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn a_write_sweeps_stale_temp_files_and_keeps_fresh_ones() {
    let sb = sandbox();
    let w = w(&sb);
    sb.write("d/.a.txt.Ab12Cd.tmp", &"x".repeat(4096));
    sb.write("d/.b.txt.Xy34Zw.tmp", "in use");
    sb.write("d/.notes.tmp", "not ours");
    age(&sb, "d/.a.txt.Ab12Cd.tmp", 15 * 60);
    age(&sb, "d/.notes.tmp", 15 * 60);
    assert_eq!(
        one(
            &sb,
            "write_file",
            json!({"file_path": "d/a.txt", "content": "A"})
        ),
        ok(format!(
            "Successfully created and wrote to new file: {w}/d/a.txt."
        ))
    );
    let mut names: Vec<String> = std::fs::read_dir(sb.work.join("d"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".b.txt.Xy34Zw.tmp", ".notes.tmp", "a.txt"]);
}

/// A symlink in the workspace flips between a directory inside and one
/// outside while the model writes through it again and again: some writes
/// are refused, the others land inside, none outside.
#[test]
fn a_symlink_flipping_during_writes_never_lets_one_land_outside() {
    let sb = sandbox();
    let outside = sb.work.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(sb.work.join("inside")).unwrap();
    std::os::unix::fs::symlink("inside", sb.work.join("sub")).unwrap();
    let calls: Vec<Value> = (0..40)
        .map(|i| {
            json!({"functionCall": {"name": "write_file",
                "args": {"file_path": format!("sub/f{i}.txt"), "content": "x"}}})
        })
        .collect();
    let fake = FakeServer::replaying(&lines(&[turn(Value::Array(calls)), text("done")]));
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let (stop, work, outside) = (stop.clone(), sb.work.clone(), outside.clone());
        std::thread::spawn(move || {
            let mut out = false;
            while !stop.load(Ordering::Relaxed) {
                let tmp = work.join("sub.next");
                let target = if out {
                    work.join("inside")
                } else {
                    outside.clone()
                };
                let _ = std::fs::remove_file(&tmp);
                std::os::unix::fs::symlink(&target, &tmp).unwrap();
                std::fs::rename(&tmp, work.join("sub")).unwrap();
                out = !out;
            }
        })
    };
    let out = sb.run(
        &["--approval-mode=yolo", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    stop.store(true, Ordering::Relaxed);
    flipper.join().unwrap();
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(fake.function_responses().len(), 40);
    let leaked: Vec<_> = std::fs::read_dir(&outside).unwrap().collect();
    assert!(leaked.is_empty(), "{leaked:?}");
}
