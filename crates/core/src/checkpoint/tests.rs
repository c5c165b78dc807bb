//! Snapshots in a shadow repository and restoring them.

use super::*;
use gemini_rs_protocol::{Part, Role};
use std::fs;

fn tree_listing(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in walk(dir) {
        out.push(entry.strip_prefix(dir).unwrap().display().to_string());
    }
    out.sort();
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}

/// A call as the scheduler hands it over.
fn call_of(v: serde_json::Value) -> CheckpointCall {
    serde_json::from_value(v).unwrap()
}

#[test]
fn restores_a_file_a_replace_changed_and_the_conversation() {
    let root = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let project = root.path();
    // A user repository that must stay untouched.
    fs::create_dir_all(project.join(".git/objects")).unwrap();
    fs::write(project.join(".git/HEAD"), "ref: refs/heads/mine\n").unwrap();
    fs::write(project.join(".gitignore"), "build/\n*.log\n").unwrap();
    fs::create_dir_all(project.join("src")).unwrap();
    fs::write(project.join("src/lib.rs"), "fn old() {}\n").unwrap();
    fs::write(project.join("keep.txt"), "keep\n").unwrap();
    fs::create_dir_all(project.join("build")).unwrap();
    fs::write(project.join("build/out.bin"), "artifact").unwrap();
    let user_git_before = tree_listing(&project.join(".git"));

    let cp = Checkpointer::new(project, temp.path()).unwrap();
    let history = vec![
        Content::user_text("rename old to new"),
        Content::new(Role::Model, vec![Part::text("on it")]),
    ];
    let call = json!({"name": "replace", "args": {"file_path": project.join("src/lib.rs"),
        "old_string": "old", "new_string": "new"}});
    let id = cp.snapshot(&call_of(call), &history).unwrap();
    assert!(id.ends_with("-lib.rs-replace"), "{id}");
    assert!(temp.path().join(format!("checkpoints/{id}.json")).is_file());

    // The tool runs, then more happens.
    fs::write(project.join("src/lib.rs"), "fn new() {}\n").unwrap();
    fs::write(project.join("created.txt"), "new file").unwrap();
    fs::create_dir_all(project.join("newdir")).unwrap();
    fs::write(project.join("newdir/x.txt"), "x").unwrap();
    fs::write(project.join("debug.log"), "ignored").unwrap();
    fs::remove_file(project.join("keep.txt")).unwrap();

    let listed = cp.list();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, id);
    assert_eq!(listed[0].tool_name, "replace");
    assert!(
        listed[0]
            .file_path
            .as_deref()
            .unwrap()
            .ends_with("src/lib.rs")
    );

    let restored = cp.restore(&id).unwrap();
    assert!(restored.files_restored);
    assert_eq!(restored.history, history);
    assert_eq!(restored.tool_call.name, "replace");
    assert_eq!(restored.tool_call.args["old_string"], "old");
    assert_eq!(
        fs::read_to_string(project.join("src/lib.rs")).unwrap(),
        "fn old() {}\n"
    );
    assert_eq!(
        fs::read_to_string(project.join("keep.txt")).unwrap(),
        "keep\n"
    );
    assert!(!project.join("created.txt").exists());
    assert!(!project.join("newdir").exists());
    // Ignored files are neither snapshotted nor cleaned.
    assert!(project.join("debug.log").exists());
    assert!(project.join("build/out.bin").exists());
    assert_eq!(tree_listing(&project.join(".git")), user_git_before);
}

#[test]
fn later_snapshots_restore_independently_and_bad_ids_fail() {
    let root = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let project = root.path();
    fs::write(project.join("a.txt"), "1").unwrap();
    let cp = Checkpointer::new(project, temp.path()).unwrap();
    let call =
        |p: &str| call_of(json!({"name": "write_file", "args": {"file_path": p, "content": "x"}}));
    let first = cp.snapshot(&call("a.txt"), &[]).unwrap();
    fs::write(project.join("a.txt"), "2").unwrap();
    fs::write(project.join("b.txt"), "b").unwrap();
    let second = cp.snapshot(&call("b.txt"), &[]).unwrap();
    assert_ne!(first, second);
    fs::write(project.join("a.txt"), "3").unwrap();

    // A second Checkpointer on the same dirs reuses the repository.
    let cp = Checkpointer::new(project, temp.path()).unwrap();
    assert_eq!(cp.list().len(), 2);
    cp.restore(&format!("{second}.json")).unwrap();
    assert_eq!(fs::read_to_string(project.join("a.txt")).unwrap(), "2");
    assert!(project.join("b.txt").exists());
    cp.restore(&first).unwrap();
    assert_eq!(fs::read_to_string(project.join("a.txt")).unwrap(), "1");
    // b.txt was tracked by the later snapshot but is not in the first one.
    assert!(!project.join("b.txt").exists());

    assert!(matches!(
        cp.restore("nope"),
        Err(CheckpointError::NotFound(_))
    ));
    assert!(matches!(
        cp.restore("../../etc/passwd"),
        Err(CheckpointError::NotFound(_))
    ));
    fs::write(cp.dir().join("broken.json"), "{").unwrap();
    assert!(matches!(
        cp.restore("broken"),
        Err(CheckpointError::Invalid { .. })
    ));
}

#[test]
fn temp_dir_inside_the_project_is_not_snapshotted() {
    let root = tempfile::tempdir().unwrap();
    let project = root.path();
    let temp = project.join(".gemini/tmp/abc");
    fs::write(project.join("a.txt"), "1").unwrap();
    let cp = Checkpointer::new(project, &temp).unwrap();
    let id = cp
        .snapshot(
            &call_of(json!({"name": "replace", "args": {"file_path": "a.txt"}})),
            &[],
        )
        .unwrap();
    fs::write(project.join("a.txt"), "2").unwrap();
    cp.restore(&id).unwrap();
    assert_eq!(fs::read_to_string(project.join("a.txt")).unwrap(), "1");
    // The checkpoint files themselves survived the clean.
    assert_eq!(cp.list().len(), 1);
}
