//! Workspaces from a template, through the binary: `--workspace-from DIR`
//! runs the session in a copy of DIR under the project's temp folder; the
//! session edits, deletes and creates files (file tools and a shell
//! command writing in place), DIR stays the same byte for byte, and
//! `--patch-out FILE` holds the changes as a diff `git apply` takes.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::json;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

/// Every file below `dir` with its bytes (symlinks as their targets).
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        let meta = fs::symlink_metadata(&p).unwrap();
        let r = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if meta.is_dir() {
            out.insert(format!("{r}/"), Vec::new());
            walk(root, &p, out);
        } else if meta.file_type().is_symlink() {
            let target = fs::read_link(&p).unwrap();
            out.insert(r, target.to_string_lossy().as_bytes().to_vec());
        } else {
            out.insert(r, fs::read(&p).unwrap());
        }
    }
}

/// A template with text, a nested folder, a binary file and a symlink.
pub fn make_template(dir: &Path) {
    fs::create_dir_all(dir.join("src/deep")).unwrap();
    fs::write(dir.join("README.md"), "# Demo\n\nline two\nline three\n").unwrap();
    fs::write(dir.join("src/main.py"), "print('hello')\n").unwrap();
    fs::write(dir.join("src/deep/old.txt"), "to be deleted\n").unwrap();
    fs::write(dir.join("log.txt"), "first\n").unwrap();
    fs::write(dir.join("blob.bin"), [0u8, 159, 146, 150]).unwrap();
    std::os::unix::fs::symlink("README.md", dir.join("link.md")).unwrap();
}

/// The calls of a session that edits, deletes and creates.
pub fn editing_session() -> String {
    lines(&[
        call(
            "replace",
            json!({"file_path": "README.md", "old_string": "line two", "new_string": "line 2",
                   "instruction": "rename"}),
        ),
        call(
            "write_file",
            json!({"file_path": "src/new.py", "content": "print('new')\n"}),
        ),
        call(
            "run_shell_command",
            json!({"command": "echo appended >> log.txt && rm -r src/deep && printf 'x' > made.txt"}),
        ),
        text("done"),
    ])
}

fn settings(sb: &Sandbox) {
    sb.settings(
        &json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}),
    );
}

#[test]
fn a_session_from_a_template_changes_only_its_copy_and_writes_the_patch() {
    let sb = Sandbox::new();
    settings(&sb);
    let outside = tempfile::tempdir().unwrap();
    let template = outside.path().join("template");
    make_template(&template);
    let before = snapshot(&template);
    let fake = FakeServer::replaying(&editing_session());
    let patch = outside.path().join("out/changes.diff");
    let out = sb.run(
        &[
            "--approval-mode=yolo",
            "--session-id",
            "tpl-1",
            "--workspace-from",
            template.to_str().unwrap(),
            "--patch-out",
            patch.to_str().unwrap(),
            "-p",
            "go",
        ],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(snapshot(&template), before, "the template changed");
    // The copy is kept under the launching project's temp folder.
    let kept = sb.project_temp_dir().join("workspaces/tpl-1");
    assert!(kept.is_dir(), "{}", kept.display());
    let diff = fs::read_to_string(&patch).unwrap();
    assert!(diff.contains("-line two\n+line 2\n"), "{diff}");
    assert!(diff.contains("+++ b/src/new.py"), "{diff}");
    assert!(
        diff.contains("deleted file mode 100644\n--- a/src/deep/old.txt"),
        "{diff}"
    );
    assert!(diff.contains(" first\n+appended\n"), "{diff}");
    assert!(
        !diff.contains("blob.bin") && !diff.contains("link.md"),
        "{diff}"
    );
    // Applied to a fresh copy of the template, the patch gives the
    // session's result.
    let applied = outside.path().join("applied");
    let copied = Command::new("cp")
        .args(["-a", template.to_str().unwrap(), applied.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(copied.success());
    let git = Command::new("git")
        .args(["apply", "--unsafe-paths", patch.to_str().unwrap()])
        .current_dir(&applied)
        .output()
        .unwrap();
    assert!(
        git.status.success(),
        "{}",
        String::from_utf8_lossy(&git.stderr)
    );
    let result = snapshot(&applied);
    assert_eq!(result["README.md"], b"# Demo\n\nline 2\nline three\n");
    assert_eq!(result["log.txt"], b"first\nappended\n");
    assert_eq!(result["made.txt"], b"x");
    assert_eq!(result["src/new.py"], b"print('new')\n");
    assert!(
        !result.contains_key("src/deep/old.txt"),
        "{:?}",
        result.keys()
    );
    assert_eq!(result["blob.bin"], before["blob.bin"]);
}

#[test]
fn a_template_that_is_not_a_folder_or_a_patch_out_without_one_is_refused() {
    let sb = Sandbox::new();
    settings(&sb);
    let file = sb.write("plain.txt", "x");
    let out = sb.run(
        &["--workspace-from", file.to_str().unwrap(), "-p", "go"],
        None,
        &[],
    );
    assert_eq!(out.code, 42, "{}", out.stderr);
    assert!(
        out.stderr.contains("--workspace-from")
            && out.stderr.contains("not a folder (a regular file)"),
        "{}",
        out.stderr
    );
    let out = sb.run(
        &["--workspace-from", "/no/such/template", "-p", "go"],
        None,
        &[],
    );
    assert_eq!(out.code, 42, "{}", out.stderr);
    assert!(
        out.stderr.contains("/no/such/template: no such folder"),
        "{}",
        out.stderr
    );
    let out = sb.run(&["--patch-out", "x.diff", "-p", "go"], None, &[]);
    assert_eq!(out.code, 42, "{}", out.stderr);
    assert!(out.stderr.contains("--workspace-from"), "{}", out.stderr);
}

/// As another user than root (here `nobody`, when the tests run as
/// root): a template all the user's own gets an overlay in a user
/// namespace of the run's own; one with a file of another group gets a
/// copy (an overlay could not copy that file up). Both stay unchanged.
#[test]
fn as_another_user_the_copy_is_an_overlay_in_a_user_namespace_or_a_copy() {
    // SAFETY: a plain query.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: needs root to run as another user");
        return;
    }
    use std::os::unix::fs::{PermissionsExt, chown};
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("nr");
    fs::create_dir(&root).unwrap();
    fs::set_permissions(base.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let responses = lines(&[
        call(
            "run_shell_command",
            json!({"command": "echo more >> README.md; rm -r src/deep; echo new > c.txt"}),
        ),
        text("done"),
    ]);
    fs::write(root.join("responses.jsonl"), responses).unwrap();
    for dir in ["home/.gemini", "proj"] {
        fs::create_dir_all(root.join(dir)).unwrap();
    }
    for (name, gid, kind) in [("own", 65534, "upper"), ("mixed", 0, "tree")] {
        let template = root.join(name);
        make_template(&template);
        let status = Command::new("chown")
            .args(["-hR", &format!("65534:{gid}"), template.to_str().unwrap()])
            .status()
            .unwrap();
        assert!(status.success());
        chown(&root, Some(65534), Some(65534)).unwrap();
        for dir in ["home", "home/.gemini", "proj", "responses.jsonl"] {
            chown(root.join(dir), Some(65534), Some(65534)).unwrap();
        }
        let before = snapshot(&template);
        let patch = root.join(format!("{name}.diff"));
        let out = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_gemini-rs"))
            .args([
                "--fake-responses",
                root.join("responses.jsonl").to_str().unwrap(),
            ])
            .args(["--approval-mode=yolo", "--session-id", name, "-p", "go"])
            .args(["--workspace-from", template.to_str().unwrap()])
            .args(["--patch-out", patch.to_str().unwrap()])
            .current_dir(root.join("proj"))
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", root.join("home"))
            .env("GEMINI_API_KEY", "dummy")
            .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{name}: {stderr}");
        assert_eq!(snapshot(&template), before, "{name}: the template changed");
        let kept = root.join("home/.gemini/tmp/proj/workspaces").join(name);
        assert!(
            kept.join(kind).is_dir(),
            "{name}: no {kind} in {}",
            kept.display()
        );
        let diff = fs::read_to_string(&patch).unwrap();
        assert!(diff.contains(" line three\n+more\n"), "{name}: {diff}");
        assert!(diff.contains("+++ /dev/null"), "{name}: {diff}");
        assert!(diff.contains("+++ b/c.txt"), "{name}: {diff}");
    }
}

/// Files named relative to the launching folder stay there, though the run
/// works in the copy: the patch and the trajectory land beside the user,
/// not in the copy (where they were lost with it). A FIFO as `--patch-out`
/// is refused before the run, as every start-up file is.
#[test]
fn relative_output_files_land_in_the_launching_folder_and_a_fifo_patch_is_refused() {
    let sb = Sandbox::new();
    settings(&sb);
    let outside = tempfile::tempdir().unwrap();
    let template = outside.path().join("template");
    make_template(&template);
    let fake = FakeServer::replaying(&editing_session());
    let env = [("GOOGLE_GEMINI_BASE_URL", fake.base_url.as_str())];
    let tpl = template.to_str().unwrap();
    let args = [
        "--approval-mode=yolo",
        "--workspace-from",
        tpl,
        "--patch-out",
        "out/changes.diff",
        "--trajectory",
        "run.atif.json",
        "-p",
        "go",
    ];
    let out = sb.run(&args, None, &env);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let diff = fs::read_to_string(sb.work.join("out/changes.diff")).unwrap();
    assert!(diff.contains("+++ b/src/new.py"), "{diff}");
    assert!(sb.work.join("run.atif.json").is_file());
    let fifo = sb.work.join("pipe.diff");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let args = [
        "--workspace-from",
        tpl,
        "--patch-out",
        "pipe.diff",
        "-p",
        "go",
    ];
    let out = sb.run(&args, None, &env);
    assert_eq!(out.code, 42, "{}", out.stderr);
    assert!(
        out.stderr.contains("--patch-out") && out.stderr.contains("a FIFO"),
        "{}",
        out.stderr
    );
}
