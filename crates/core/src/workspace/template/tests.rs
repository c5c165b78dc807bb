use super::*;
use std::fs;

fn template() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    fs::write(t.path().join("keep.txt"), "same\n").unwrap();
    fs::write(t.path().join("edit.txt"), "one\ntwo\nthree\n").unwrap();
    fs::write(t.path().join("gone.txt"), "bye\n").unwrap();
    fs::create_dir_all(t.path().join("dir/sub")).unwrap();
    fs::write(t.path().join("dir/sub/deep.txt"), "deep\n").unwrap();
    fs::write(t.path().join("bin.dat"), [0u8, 1, 2]).unwrap();
    t
}

/// Every file below `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    patch_files(dir, dir, &mut files);
    files.sort();
    files
}

fn patch_files(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            patch_files(root, &p, out);
        } else {
            let r = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            out.push((r, fs::read(&p).unwrap()));
        }
    }
}

fn edit_and_check(copy: &WorkingCopy, t: &Path) {
    let before = snapshot(t);
    let w = &copy.root;
    fs::write(w.join("edit.txt"), "one\nTWO\nthree\n").unwrap();
    // An in-place append, as a shell command does it.
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(w.join("keep.txt"))
        .unwrap();
    std::io::Write::write_all(&mut f, b"").unwrap();
    fs::remove_file(w.join("gone.txt")).unwrap();
    fs::remove_dir_all(w.join("dir")).unwrap();
    fs::write(w.join("new.txt"), "fresh").unwrap();
    let patch = copy.patch().unwrap();
    assert_eq!(snapshot(t), before, "the template changed");
    assert!(patch.contains("diff --git a/edit.txt b/edit.txt\n--- a/edit.txt\n+++ b/edit.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"), "{patch}");
    assert!(patch.contains("diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"), "{patch}");
    assert!(
        patch.contains("deleted file mode 100644\n--- a/dir/sub/deep.txt\n"),
        "{patch}"
    );
    assert!(patch.contains("new file mode 100644\n--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+fresh\n\\ No newline at end of file\n"), "{patch}");
    assert!(!patch.contains("keep.txt"), "{patch}");
    assert!(!patch.contains("bin.dat"), "{patch}");
}

#[test]
fn a_copied_tree_keeps_the_template_and_reports_the_changes() {
    let t = template();
    let home = tempfile::tempdir().unwrap();
    let dest = home.path().join("w");
    fs::create_dir(&dest).unwrap();
    let kind = clone::copy_tree(t.path(), &dest.join("tree")).unwrap();
    assert_ne!(kind, CopyKind::Overlay);
    let copy = WorkingCopy {
        template: t.path().to_path_buf(),
        dir: dest.clone(),
        root: dest.join("tree"),
        kind,
        mounted: false.into(),
    };
    edit_and_check(&copy, t.path());
}

#[test]
fn the_best_copy_keeps_the_template_and_reports_the_changes() {
    let t = template();
    let home = tempfile::tempdir().unwrap();
    let copy = WorkingCopy::create(t.path(), &home.path().join("w")).unwrap();
    edit_and_check(&copy, t.path());
    copy.release();
}

#[test]
fn a_template_that_is_not_a_folder_is_named() {
    let t = template();
    let err = check_template(&t.path().join("keep.txt"), "--workspace-from").unwrap_err();
    assert!(
        err.to_string().contains("not a folder (a regular file)"),
        "{err}"
    );
    let err = check_template(&t.path().join("none"), "--workspace-from").unwrap_err();
    assert!(err.to_string().ends_with("none: no such folder"), "{err}");
}
