//! The verified `write_file` cases of the v0.27.4 spec (Appendix A.7), with
//! gemini-rs's deliberate differences (content written exactly as given).

use super::*;
use crate::tools::ToolKind;
use crate::tools::builtin::test_fixture::ToolFixture;
use std::sync::Arc;

type Fixture = ToolFixture;

fn fixture(files: &[(&str, &str)]) -> Fixture {
    ToolFixture::new(
        Arc::new(WriteFileTool::new()),
        &files
            .iter()
            .map(|(n, c)| (*n, c.as_bytes()))
            .collect::<Vec<_>>(),
    )
}

#[tokio::test]
async fn creates_and_overwrites_exactly() {
    let f = fixture(&[("o.txt", "old\n"), ("p.txt", "old")]);
    let root = f.root.display().to_string();
    assert_eq!(
        f.call(json!({"file_path": "n.txt", "content": "a\nb"}))
            .await
            .unwrap(),
        format!("Successfully created and wrote to new file: {root}/n.txt.")
    );
    assert_eq!(f.read("n.txt"), "a\nb");
    assert_eq!(
        f.call(json!({"file_path": "o.txt", "content": "new\n"}))
            .await
            .unwrap(),
        format!("Successfully overwrote file: {root}/o.txt.")
    );
    // Deliberate difference: the trailing newline is kept.
    assert_eq!(f.read("o.txt"), "new\n");
    f.call(json!({"file_path": "p.txt", "content": "new"}))
        .await
        .unwrap();
    assert_eq!(f.read("p.txt"), "new");
    // Deliberate difference: no unescaping.
    f.call(json!({"file_path": "e.txt", "content": "a\\nb"}))
        .await
        .unwrap();
    assert_eq!(f.read("e.txt"), "a\\nb");
    f.call(json!({"file_path": "p2.txt", "content": "// rest of methods ...\n"}))
        .await
        .unwrap();
    assert_eq!(f.read("p2.txt"), "// rest of methods ...\n");
    assert_eq!(
        f.call(json!({"file_path": "d1/d2/f.txt", "content": "deep"}))
            .await
            .unwrap(),
        format!("Successfully created and wrote to new file: {root}/d1/d2/f.txt.")
    );
    assert_eq!(f.read("d1/d2/f.txt"), "deep");
}

#[tokio::test]
async fn validation_errors() {
    let f = fixture(&[("sub/k", "")]);
    let root = f.root.display().to_string();
    assert_eq!(
        f.call(json!({"file_path": "x.txt"})).await.unwrap_err(),
        "params must have required property 'content'"
    );
    assert_eq!(
        f.call(json!({"file_path": "", "content": "x"}))
            .await
            .unwrap_err(),
        "Missing or empty \"file_path\""
    );
    assert_eq!(
        f.call(json!({"file_path": "sub", "content": "x"}))
            .await
            .unwrap_err(),
        format!("Path is a directory, not a file: {root}/sub")
    );
    assert_eq!(
        f.call(json!({"file_path": "/tmp/outside.txt", "content": "x"}))
            .await
            .unwrap_err(),
        format!(
            "Path not in workspace: Attempted path \"/tmp/outside.txt\" resolves outside the allowed workspace directories: {root} or the project temp directory: /nonexistent/.gemini/tmp/hash"
        )
    );
}

#[tokio::test]
async fn display_and_confirmation() {
    let f = fixture(&[("o.txt", "old\n")]);
    let r = f
        .run(json!({"file_path": "n.txt", "content": "a\nb"}))
        .await;
    let ToolDisplay::FileDiff(d) = &r.display else {
        panic!("expected a diff")
    };
    assert_eq!(d.file_name, "n.txt");
    assert_eq!(d.original_content, None);
    assert_eq!(d.new_content, "a\nb");
    assert_eq!(
        d.file_diff,
        "Index: n.txt\n===================================================================\n--- n.txt\tOriginal\n+++ n.txt\tWritten\n@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n"
    );

    let built = f
        .registry
        .build(
            "write_file",
            &json!({"file_path": "o.txt", "content": "new\n"}),
            &f.ctx,
        )
        .unwrap();
    assert_eq!(built.invocation.description(), "Writing to o.txt");
    let Some(ConfirmationDetails::Edit {
        title,
        file_diff,
        original_content,
        ..
    }) = built.invocation.confirmation(&f.ctx).await
    else {
        panic!("expected edit confirmation")
    };
    assert_eq!(title, "Confirm Write: o.txt");
    assert_eq!(original_content.as_deref(), Some("old\n"));
    assert!(
        file_diff
            .contains("--- o.txt\tCurrent\n+++ o.txt\tProposed\n@@ -1,1 +1,1 @@\n-old\n+new\n")
    );
}

#[test]
fn error_texts() {
    let p = Path::new("/w/a.txt");
    let cases = [
        (
            libc::EACCES,
            ToolErrorKind::PermissionDenied,
            "Permission denied writing to file: /w/a.txt (EACCES)",
        ),
        (
            libc::ENOSPC,
            ToolErrorKind::NoSpaceLeft,
            "No space left on device: /w/a.txt (ENOSPC)",
        ),
        (
            libc::EISDIR,
            ToolErrorKind::TargetIsDirectory,
            "Target is a directory, not a file: /w/a.txt (EISDIR)",
        ),
        (
            libc::EROFS,
            ToolErrorKind::FileWriteFailure,
            "Error writing to file '/w/a.txt': EROFS: read-only file system, open '/w/a.txt' (EROFS)",
        ),
    ];
    for (errno, kind, text) in cases {
        let r = write_error(p, &io::Error::from_raw_os_error(errno));
        let e = r.error.unwrap();
        assert_eq!((e.kind, e.message.as_str()), (kind, text));
    }
    let r = write_error(p, &io::Error::other("boom"));
    assert_eq!(r.error.unwrap().message, "Error writing to file: boom");
    assert!(ToolErrorKind::NoSpaceLeft.is_fatal());
}

#[test]
fn metadata() {
    let t = WriteFileTool::new();
    assert_eq!(t.name(), "write_file");
    assert_eq!(t.display_name(), "WriteFile");
    assert_eq!(t.kind(), ToolKind::Edit);
    assert_eq!(
        t.parameter_schema()["required"],
        json!(["file_path", "content"])
    );
}
