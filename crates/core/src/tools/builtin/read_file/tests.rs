//! The verified `read_file` cases of the v0.27.4 spec (Appendix A.1).

use super::*;
use crate::catalogue::dialect::Dialect;
use crate::tools::ToolKind;
use crate::tools::builtin::test_fixture::ToolFixture;
use std::fs;
use std::sync::Arc;

type Fixture = ToolFixture;

fn fixture(files: &[(&str, &[u8])]) -> Fixture {
    ToolFixture::new(Arc::new(ReadFileTool::new()), files)
}

const TEN: &[u8] = b"l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10";

fn truncated(a: &str, b: &str, total: &str, next: &str, body: &str) -> String {
    format!(
        "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines {a}-{b} of {total} total lines.\nAction: To read more of the file, you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use offset: {next}.\n\n--- FILE CONTENT (truncated) ---\n{body}"
    )
}

#[tokio::test]
async fn small_files_verbatim() {
    let f = fixture(&[
        ("a.txt", b"x\ny\nz"),
        ("n.txt", b"x\ny\nz\n"),
        ("c.txt", b"a\r\nb\r\n"),
        ("e.txt", b""),
        (".env", b"SECRET=1\n"),
    ]);
    assert_eq!(
        f.call(json!({"file_path": "a.txt"})).await.unwrap(),
        "x\ny\nz"
    );
    assert_eq!(
        f.call(json!({"file_path": "n.txt"})).await.unwrap(),
        "x\ny\nz\n"
    );
    assert_eq!(
        f.call(json!({"file_path": "c.txt"})).await.unwrap(),
        "a\r\nb\r\n"
    );
    assert_eq!(f.call(json!({"file_path": "e.txt"})).await.unwrap(), "");
    assert_eq!(
        f.call(json!({"file_path": ".env"})).await.unwrap(),
        "SECRET=1\n"
    );
    let r = f.run(json!({"file_path": "a.txt"})).await;
    assert_eq!(r.display.as_text(), Some(""));
}

#[tokio::test]
async fn ranges_and_offset_quirk() {
    let f = fixture(&[("t.txt", TEN)]);
    assert_eq!(
        f.call(json!({"file_path": "t.txt", "offset": 2, "limit": 3}))
            .await
            .unwrap(),
        truncated("3", "5", "10", "5", "l3\nl4\nl5")
    );
    assert_eq!(
        f.call(json!({"file_path": "t.txt", "offset": 5}))
            .await
            .unwrap(),
        truncated("6", "10", "10", "10", "l6\nl7\nl8\nl9\nl10")
    );
    assert_eq!(
        f.call(json!({"file_path": "t.txt", "limit": 4}))
            .await
            .unwrap(),
        truncated("1", "4", "10", "4", "l1\nl2\nl3\nl4")
    );
    assert_eq!(
        f.call(json!({"file_path": "t.txt", "offset": 50, "limit": 5}))
            .await
            .unwrap(),
        truncated("11", "10", "10", "50", "")
    );
    let r = f
        .run(json!({"file_path": "t.txt", "offset": 2, "limit": 3}))
        .await;
    assert_eq!(r.display.as_text(), Some("Read lines 3-5 of 10 from t.txt"));
}

#[tokio::test]
async fn big_file_default_limit() {
    let big: String = (1..=2500)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    let f = fixture(&[("big.txt", big.as_bytes())]);
    let first: String = (1..=2000)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        f.call(json!({"file_path": "big.txt"})).await.unwrap(),
        truncated("1", "2000", "2500", "2000", &first)
    );
    let rest: String = (2001..=2500)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        f.call(json!({"file_path": "big.txt", "offset": 2000}))
            .await
            .unwrap(),
        truncated("2001", "2500", "2500", "2500", &rest)
    );
}

#[tokio::test]
async fn long_lines_are_shortened() {
    let long = format!("{}\nb", "a".repeat(2500));
    let f = fixture(&[("l.txt", long.as_bytes())]);
    let body = format!("{}... [truncated]\nb", "a".repeat(2000));
    assert_eq!(
        f.call(json!({"file_path": "l.txt"})).await.unwrap(),
        truncated("1", "2", "2", "2", &body)
    );
    let r = f.run(json!({"file_path": "l.txt"})).await;
    assert_eq!(
        r.display.as_text(),
        Some("Read all 2 lines from l.txt (some lines were shortened)")
    );
}

#[tokio::test]
async fn validation_errors() {
    let f = fixture(&[("t.txt", TEN), ("sub/x.txt", b"x")]);
    let root = f.root.display().to_string();
    let cases = [
        (
            json!({}),
            "params must have required property 'file_path'".to_string(),
        ),
        (
            json!({"file_path": ""}),
            "The 'file_path' parameter must be non-empty.".into(),
        ),
        (
            json!({"file_path": "t.txt", "offset": "2"}),
            "params/offset must be number".into(),
        ),
        (
            json!({"file_path": "t.txt", "offset": -1}),
            "Offset must be a non-negative number".into(),
        ),
        (
            json!({"file_path": "t.txt", "limit": 0}),
            "Limit must be a positive number".into(),
        ),
        (
            json!({"file_path": "missing.txt"}),
            format!("File not found: {root}/missing.txt"),
        ),
        (
            json!({"file_path": "sub"}),
            format!("Path is a directory, not a file: {root}/sub"),
        ),
        (
            json!({"file_path": "/etc/hostname"}),
            format!(
                "Path not in workspace: Attempted path \"/etc/hostname\" resolves outside the allowed workspace directories: {root} or the project temp directory: /nonexistent/.gemini/tmp/hash"
            ),
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(f.call(args).await.unwrap_err(), expected);
    }
    let r = f.run(json!({"file_path": "missing.txt"})).await;
    assert_eq!(r.error.unwrap().kind, ToolErrorKind::FileNotFound);
    let r = f.run(json!({"file_path": "sub"})).await;
    assert_eq!(r.error.unwrap().kind, ToolErrorKind::TargetIsDirectory);
}

#[tokio::test]
async fn ignore_files() {
    let f = fixture(&[
        (".gitignore", b"dist/\n"),
        ("dist/a.js", b"x\n"),
        (".geminiignore", b"s.txt\n"),
        ("s.txt", b"x\n"),
    ]);
    let root = f.root.display().to_string();
    // Not a git repo yet: only .geminiignore applies.
    assert_eq!(
        f.call(json!({"file_path": "dist/a.js"})).await.unwrap(),
        "x\n"
    );
    assert_eq!(
        f.call(json!({"file_path": "s.txt"})).await.unwrap_err(),
        format!("File path '{root}/s.txt' is ignored by configured ignore patterns.")
    );
    let f2 = fixture(&[
        (".gitignore", b"dist/\n"),
        ("dist/a.js", b"x\n"),
        (".git/HEAD", b"ref"),
    ]);
    let root2 = f2.root.display().to_string();
    assert_eq!(
        f2.call(json!({"file_path": "dist/a.js"}))
            .await
            .unwrap_err(),
        format!("File path '{root2}/dist/a.js' is ignored by configured ignore patterns.")
    );
}

#[tokio::test]
async fn binary_and_media() {
    let png: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52,
    ];
    let f = fixture(&[
        ("b.dat", b"\x00\x01\x02abc"),
        ("p.png", png),
        ("i.svg", b"<svg/>"),
    ]);
    assert_eq!(
        f.call(json!({"file_path": "b.dat"})).await.unwrap(),
        "Cannot display content of binary file: b.dat"
    );
    let r = f.run(json!({"file_path": "p.png"})).await;
    assert!(r.error.is_none());
    let blob = r.llm_content[0].inline_data.as_ref().unwrap();
    assert_eq!(blob.mime_type, "image/png");
    assert_eq!(
        blob.data,
        base64::engine::general_purpose::STANDARD.encode(png)
    );
    assert_eq!(r.display.as_text(), Some("Read image file: p.png"));
    let r = f.run(json!({"file_path": "i.svg"})).await;
    assert_eq!(r.llm_text(), "<svg/>");
    assert_eq!(r.display.as_text(), Some("Read SVG as text: i.svg"));
}

#[tokio::test]
async fn aliases() {
    let f = fixture(&[("t.txt", TEN)]);
    assert_eq!(
        f.call(json!({"path": "t.txt", "limit": 1})).await.unwrap(),
        truncated("1", "1", "10", "1", "l1")
    );
    let abs = f.root.join("t.txt").display().to_string();
    assert!(f.call(json!({"absolute_path": abs})).await.is_ok());
    // start_line/end_line are 1-based and inclusive.
    assert_eq!(
        f.call(json!({"file_path": "t.txt", "start_line": 3, "end_line": 5}))
            .await
            .unwrap(),
        truncated("3", "5", "10", "5", "l3\nl4\nl5")
    );
    assert_eq!(
        f.call(json!({"file_path": "t.txt", "end_line": 2}))
            .await
            .unwrap(),
        truncated("1", "2", "10", "2", "l1\nl2")
    );
}

#[test]
fn description_and_declaration() {
    let t = ReadFileTool::new();
    assert_eq!(t.display_name(), "ReadFile");
    assert_eq!(t.kind(), ToolKind::Read);
    let d = t.declaration();
    assert_eq!(d.name, "read_file");
    let schema = d.parameters_json_schema.unwrap();
    assert_eq!(schema["required"], json!(["file_path"]));
    assert_eq!(schema["properties"]["offset"]["type"], "number");
}

#[test]
fn too_large_text() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let ws = Workspace::new(root.clone(), vec![], root.join(".tmp"));
    let p = root.join("huge.txt");
    let f = fs::File::create(&p).unwrap();
    f.set_len(21 * 1024 * 1024).unwrap();
    let r = read(&ws, &p, "huge.txt", None, None, Dialect::V027.texts());
    let e = r.error.unwrap();
    assert_eq!(e.kind, ToolErrorKind::FileTooLarge);
    assert_eq!(
        e.message,
        format!(
            "File size exceeds the 20MB limit: {} (21.00MB)",
            p.display()
        )
    );
}

#[test]
fn fifos_and_sockets_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(dir.path()).unwrap();
    let ws = Workspace::new(root.clone(), vec![], root.join(".tmp"));
    let fifo = root.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let sock = root.join("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    for (p, kind) in [(&fifo, "a FIFO"), (&sock, "a socket")] {
        let e = read(&ws, p, "x", None, None, Dialect::V027.texts())
            .error
            .unwrap();
        assert_eq!(e.kind, ToolErrorKind::ReadContentFailure);
        assert_eq!(
            e.message,
            format!("Path is not a regular file ({kind}): {}", p.display())
        );
    }
}

#[test]
fn params_accept_later_names_of_file_path() {
    use crate::tools::builtin::common::parse_params;
    for alias in ["path", "absolute_path"] {
        let args = serde_json::json!({alias: "/w/a.txt", "offset": 2, "limit": 3});
        let p: Params = parse_params(args.as_object().unwrap(), ALIASES).unwrap();
        assert_eq!(
            p,
            Params {
                file_path: "/w/a.txt".into(),
                offset: Some(2.0),
                limit: Some(3.0),
            }
        );
    }
}
