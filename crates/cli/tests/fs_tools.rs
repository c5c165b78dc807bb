//! The seven file-system tools through the binary and the fake Gemini
//! endpoint: the exact functionResponse of every success and error case of
//! the spec (Appendix A.1-A.7, with the README's deliberate differences).
//! Bad input (escapes, wrong kinds, odd files) is in `bad_input`.

mod bad_input;
mod hostile;
mod replace;

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::time::{Duration, SystemTime};

/// A sandbox with the settings the reference runs used.
fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}
    }));
    sb
}

/// Runs `go` in yolo mode with `extra` flags against a fake endpoint that
/// calls `name(args)` once; returns the functionResponse's `response`.
fn call_with(sb: &Sandbox, extra: &[&str], name: &str, args: Value) -> Value {
    let fake = FakeServer::replaying(&lines(&[call(name, args), text("done")]));
    let mut all = vec!["--approval-mode=yolo"];
    all.extend_from_slice(extra);
    all.push("go");
    let out = sb.run(&all, None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    assert_eq!(out.code, 0, "{out:?}");
    let frs = fake.function_responses();
    assert_eq!(frs.len(), 1, "{frs:?}");
    assert_eq!(frs[0]["functionResponse"]["name"], name);
    frs[0]["functionResponse"]["response"].clone()
}

/// [`call_with`] without extra flags.
fn one(sb: &Sandbox, name: &str, args: Value) -> Value {
    call_with(sb, &[], name, args)
}

fn ok(s: impl Into<String>) -> Value {
    json!({"output": s.into()})
}

fn err(s: impl Into<String>) -> Value {
    json!({"error": s.into()})
}

/// The work dir as the tools print it (`/w` in the spec).
fn w(sb: &Sandbox) -> String {
    sb.work.display().to_string()
}

/// The boundary refusal for `path`.
fn outside(sb: &Sandbox, path: &str) -> Value {
    err(format!(
        "Path not in workspace: Attempted path \"{path}\" resolves outside the allowed workspace directories: {} or the project temp directory: {}",
        w(sb),
        sb.project_temp_dir().display()
    ))
}

/// Sets a file's modification time `secs_ago` seconds in the past.
fn age(sb: &Sandbox, rel: &str, secs_ago: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(sb.work.join(rel))
        .unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
        .unwrap();
}

const TRUNC: &str = "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines";

#[test]
fn read_file_cases_of_a1() {
    let sb = sandbox();
    let w = w(&sb);
    sb.write("a.txt", "x\ny\nz\n");
    sb.write("t.txt", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10");
    sb.write(".env", "SECRET=1\n");
    sb.write(".geminiignore", "s.txt\n");
    sb.write("s.txt", "x\n");
    sb.write("sub/k", "");
    std::fs::write(sb.work.join("b.dat"), [0u8, 1, 2, 3, 0, 5]).unwrap();
    let cases = [
        (json!({"file_path": "a.txt"}), ok("x\ny\nz\n")),
        (json!({"file_path": ".env"}), ok("SECRET=1\n")),
        (
            json!({"file_path": "t.txt", "offset": 5}),
            ok(format!(
                "{TRUNC} 6-10 of 10 total lines.\nAction: To read more of the file, you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use offset: 10.\n\n--- FILE CONTENT (truncated) ---\nl6\nl7\nl8\nl9\nl10"
            )),
        ),
        (
            json!({"file_path": "t.txt", "limit": 4}),
            ok(format!(
                "{TRUNC} 1-4 of 10 total lines.\nAction: To read more of the file, you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use offset: 4.\n\n--- FILE CONTENT (truncated) ---\nl1\nl2\nl3\nl4"
            )),
        ),
        (
            json!({"file_path": "t.txt", "offset": 50, "limit": 5}),
            ok(format!(
                "{TRUNC} 11-10 of 10 total lines.\nAction: To read more of the file, you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use offset: 50.\n\n--- FILE CONTENT (truncated) ---\n"
            )),
        ),
        (
            json!({"file_path": "t.txt", "offset": -1}),
            err("Offset must be a non-negative number"),
        ),
        (
            json!({"file_path": "t.txt", "limit": 0}),
            err("Limit must be a positive number"),
        ),
        (
            json!({"file_path": "s.txt"}),
            err(format!(
                "File path '{w}/s.txt' is ignored by configured ignore patterns."
            )),
        ),
        (
            json!({"file_path": ""}),
            err("The 'file_path' parameter must be non-empty."),
        ),
        (
            json!({"file_path": "sub"}),
            err(format!("Path is a directory, not a file: {w}/sub")),
        ),
        (
            json!({"file_path": "b.dat"}),
            ok("Cannot display content of binary file: b.dat"),
        ),
        (
            json!({"file_path": "/etc/hostname"}),
            outside(&sb, "/etc/hostname"),
        ),
        (
            json!({"file_path": "missing.txt"}),
            err(format!("File not found: {w}/missing.txt")),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(one(&sb, "read_file", args.clone()), want, "{args}");
    }
}

#[test]
fn list_directory_cases_of_a2() {
    let sb = sandbox();
    let w = w(&sb);
    sb.write("src/x.py", "x");
    sb.write("b.txt", "abc");
    sb.write(".hidden", "");
    sb.write("a.log", "x");
    std::fs::create_dir(sb.work.join("e")).unwrap();
    let cases = [
        (
            json!({"dir_path": "."}),
            ok(format!(
                "Directory listing for {w}:\n[DIR] .gemini\n[DIR] e\n[DIR] src\n.hidden\na.log\nb.txt"
            )),
        ),
        (
            json!({"dir_path": ".", "ignore": ["*.log", ".*"]}),
            ok(format!(
                "Directory listing for {w}:\n[DIR] e\n[DIR] src\nb.txt"
            )),
        ),
        (
            json!({"dir_path": "nope"}),
            err(format!(
                "Error listing directory: ENOENT: no such file or directory, stat '{w}/nope'"
            )),
        ),
        (
            json!({"dir_path": "e"}),
            ok(format!("Directory {w}/e is empty.")),
        ),
        (
            json!({"dir_path": "b.txt"}),
            err(format!("Error: Path is not a directory: {w}/b.txt")),
        ),
        (
            json!({}),
            err("params must have required property 'dir_path'"),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(one(&sb, "list_directory", args.clone()), want, "{args}");
    }
    // Ignored entries are counted (gitignore only inside a repository).
    let sb = sandbox();
    std::fs::create_dir(sb.work.join(".git")).unwrap();
    sb.write(".gitignore", "ign.txt\n");
    sb.write("ign.txt", "x");
    sb.write("keep.txt", "y");
    assert_eq!(
        one(&sb, "list_directory", json!({"dir_path": "."})),
        ok(format!(
            "Directory listing for {}:\n[DIR] .gemini\n.gitignore\nkeep.txt\n\n(2 ignored)",
            sb.work.display()
        ))
    );
}

#[test]
fn glob_cases_of_a3() {
    let sb = sandbox();
    let w = w(&sb);
    sb.write("a.txt", "1");
    sb.write("b.txt", "2");
    sb.write("c.md", "3");
    sb.write("src/a.py", "");
    sb.write("src/d/b.py", "");
    age(&sb, "a.txt", 60);
    age(&sb, "src/a.py", 60);
    let cases = [
        (
            json!({"pattern": "*.txt"}),
            ok(format!(
                "Found 2 file(s) matching \"*.txt\" within {w}, sorted by modification time (newest first):\n{w}/b.txt\n{w}/a.txt"
            )),
        ),
        (
            json!({"pattern": "**/*.py", "dir_path": "src"}),
            ok(format!(
                "Found 2 file(s) matching \"**/*.py\" within {w}/src, sorted by modification time (newest first):\n{w}/src/d/b.py\n{w}/src/a.py"
            )),
        ),
        (
            json!({"pattern": "*.nomatch"}),
            ok(format!(
                "No files found matching pattern \"*.nomatch\" within {w}"
            )),
        ),
        (
            json!({"pattern": "*", "dir_path": "nope"}),
            err(format!("Search path does not exist {w}/nope")),
        ),
        (
            json!({"pattern": "  "}),
            err("The 'pattern' parameter cannot be empty."),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(one(&sb, "glob", args.clone()), want, "{args}");
    }
}

#[test]
fn search_file_content_cases_of_a4() {
    let sb = sandbox();
    let w = w(&sb);
    let g: Vec<String> = (1..=100)
        .map(|i| {
            if i == 60 {
                "foo here".into()
            } else {
                format!("line {i}")
            }
        })
        .collect();
    sb.write("g.txt", &(g.join("\n") + "\n"));
    sb.write("sub/a.md", "foo md\n");
    sb.write("sub/b.txt", "foo txt\n");
    sb.write("s.txt", "    spaced indented   \n");
    let cases = [
        (
            json!({"pattern": "foo", "dir_path": "sub", "include": "*.md"}),
            ok(
                "Found 1 match for pattern \"foo\" in path \"sub\" (filter: \"*.md\"):\n---\nFile: a.md\nL1: foo md\n---",
            ),
        ),
        (
            json!({"pattern": "here"}),
            ok(
                "Found 1 match for pattern \"here\" in the workspace directory:\n---\nFile: g.txt\nL60: foo here\n---",
            ),
        ),
        (
            json!({"pattern": "spaced"}),
            ok(
                "Found 1 match for pattern \"spaced\" in the workspace directory:\n---\nFile: s.txt\nL1: spaced indented\n---",
            ),
        ),
        (
            json!({"pattern": "zzz"}),
            ok("No matches found for pattern \"zzz\" in the workspace directory."),
        ),
        // Outside a git repository matching is case-sensitive.
        (
            json!({"pattern": "FOO HERE"}),
            ok("No matches found for pattern \"FOO HERE\" in the workspace directory."),
        ),
        (
            json!({"pattern": "("}),
            err(
                "Invalid regular expression pattern provided: (. Error: Invalid regular expression: /(/: Unterminated group",
            ),
        ),
        (
            json!({"pattern": "x", "dir_path": "nope"}),
            err(format!("Path does not exist: {w}/nope")),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(
            one(&sb, "search_file_content", args.clone()),
            want,
            "{args}"
        );
    }
    // Inside a repository: case-insensitive, files in path order.
    let sb = sandbox();
    std::fs::create_dir(sb.work.join(".git")).unwrap();
    sb.write("a.txt", "x\nfoo one\ny\nz\nw\nv\nFOO two\n");
    sb.write("b.txt", "q\nfoo three\n");
    assert_eq!(
        one(&sb, "search_file_content", json!({"pattern": "foo"})),
        ok(
            "Found 3 matches for pattern \"foo\" in the workspace directory:\n---\nFile: a.txt\nL2: foo one\nL7: FOO two\n---\nFile: b.txt\nL2: foo three\n---"
        )
    );
    // The later name is accepted as an alias.
    assert_eq!(
        one(&sb, "grep_search", json!({"pattern": "three"})),
        ok(
            "Found 1 match for pattern \"three\" in the workspace directory:\n---\nFile: b.txt\nL2: foo three\n---"
        )
    );
}

#[test]
fn write_file_cases_of_a7() {
    let sb = sandbox();
    let w = w(&sb);
    sb.write("o.txt", "old\n");
    sb.write("sub/k", "");
    // Outside the workspace: a scratch dir of its own, not a fixed path.
    let elsewhere = tempfile::tempdir().unwrap();
    let outside_file = elsewhere.path().join("outside.txt");
    let outside_path = outside_file.display().to_string();
    let cases = [
        (
            json!({"file_path": "n.txt", "content": "a\nb"}),
            ok(format!(
                "Successfully created and wrote to new file: {w}/n.txt."
            )),
        ),
        (
            json!({"file_path": "o.txt", "content": "new\n"}),
            ok(format!("Successfully overwrote file: {w}/o.txt.")),
        ),
        (
            json!({"file_path": "d1/d2/f.txt", "content": "deep"}),
            ok(format!(
                "Successfully created and wrote to new file: {w}/d1/d2/f.txt."
            )),
        ),
        (
            json!({"file_path": "sub", "content": "x"}),
            err(format!("Path is a directory, not a file: {w}/sub")),
        ),
        (
            json!({"file_path": outside_path, "content": "x"}),
            outside(&sb, &outside_path),
        ),
        (
            json!({"file_path": "x.txt"}),
            err("params must have required property 'content'"),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(one(&sb, "write_file", args.clone()), want, "{args}");
    }
    // Deliberate difference: the content is written exactly as given.
    assert_eq!(sb.read("n.txt").unwrap(), "a\nb");
    assert_eq!(sb.read("o.txt").unwrap(), "new\n");
    assert_eq!(sb.read("d1/d2/f.txt").unwrap(), "deep");
    assert!(!outside_file.exists());
    assert!(sb.read("x.txt").is_none());
}

#[test]
fn read_many_files_frames_files_and_ends_with_the_marker() {
    let sb = sandbox();
    let w = w(&sb);
    sb.write("a.txt", "AAA\n");
    sb.write("b.txt", "BBB");
    sb.write("c.md", "CCC");
    sb.write("node_modules/m.txt", "M");
    let cases = [
        (
            json!({"include": ["*.txt"]}),
            ok(format!(
                "--- {w}/a.txt ---\n\nAAA\n\n\n\n--- {w}/b.txt ---\n\nBBB\n\n\n\n--- End of content ---"
            )),
        ),
        (
            json!({"paths": ["*.txt", "*.md"], "exclude": ["a.*"]}),
            ok(format!(
                "--- {w}/b.txt ---\n\nBBB\n\n\n--- {w}/c.md ---\n\nCCC\n\n\n\n--- End of content ---"
            )),
        ),
        (
            json!({"include": ["*.nomatch"]}),
            ok("No files matching the criteria were found or all were skipped."),
        ),
        (
            json!({"include": []}),
            err("params/include must NOT have fewer than 1 items"),
        ),
        (
            json!({}),
            err("params must have required property 'include'"),
        ),
    ];
    for (args, want) in cases {
        assert_eq!(one(&sb, "read_many_files", args.clone()), want, "{args}");
    }
}
