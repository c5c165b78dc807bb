//! The verified `replace` cases of the spec (Appendix A.6), with the
//! README's deliberate differences, plus confirmation and display.

use super::super::list_directory::test_support::Env;
use super::*;
use std::sync::Arc;

fn edit(env: &Env, mut args: Value) -> Result<String, String> {
    if let Some(o) = args.as_object_mut() {
        o.entry("instruction").or_insert(json!("i"));
    }
    env.outcome(Arc::new(ReplaceTool), args)
        .map(|s| env.w(&s))
        .map_err(|s| env.w(&s))
}

fn read(env: &Env, rel: &str) -> String {
    std::fs::read_to_string(env.root.join(rel)).unwrap()
}

#[test]
fn replace_1_and_0() {
    let env = Env::new();
    env.file("f.txt", "foo bar\nqux\n");
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "f.txt", "old_string": "bar", "new_string": "baz"})
        )
        .unwrap(),
        "Successfully modified file: /w/f.txt (1 replacements)."
    );
    assert_eq!(read(&env, "f.txt"), "foo baz\nqux\n");
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "f.txt", "old_string": "nothere", "new_string": "baz"})
        )
        .unwrap_err(),
        "Failed to edit, 0 occurrences found for old_string in /w/f.txt. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify."
    );
    let r = env
        .call(Arc::new(ReplaceTool), json!({"file_path": "f.txt", "instruction": "i", "old_string": "zz", "new_string": "b"}))
        .unwrap();
    assert_eq!(
        r.display.as_text(),
        Some("Error: Failed to edit, could not find the string to replace.")
    );
}

#[test]
fn replace_counts() {
    let env = Env::new();
    env.file("f.txt", "a x a\n");
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"})
        )
        .unwrap_err(),
        "Failed to edit, Expected 1 occurrence but found 2 for old_string in file: /w/f.txt"
    );
    assert_eq!(
        edit(&env, json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "expected_replacements": 3}))
            .unwrap_err(),
        "Failed to edit, Expected 3 occurrences but found 2 for old_string in file: /w/f.txt"
    );
    assert_eq!(
        edit(&env, json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "expected_replacements": 0}))
            .unwrap_err(),
        "params/expected_replacements must be >= 1"
    );
    assert_eq!(read(&env, "f.txt"), "a x a\n");
    assert_eq!(
        edit(&env, json!({"file_path": "f.txt", "old_string": "a", "new_string": "b", "expected_replacements": 2}))
            .unwrap(),
        "Successfully modified file: /w/f.txt (2 replacements)."
    );
    assert_eq!(read(&env, "f.txt"), "b x b\n");
    // `allow_multiple: true` (later versions) accepts any count.
    assert_eq!(
        edit(&env, json!({"file_path": "f.txt", "old_string": "b", "new_string": "c", "allow_multiple": true})).unwrap(),
        "Successfully modified file: /w/f.txt (2 replacements)."
    );
    assert!(edit(&env, json!({"file_path": "f.txt", "old_string": "c", "new_string": "d", "allow_multiple": false}))
        .unwrap_err()
        .starts_with("Failed to edit, Expected 1 occurrence but found 2"));
}

#[test]
fn replace_create() {
    let env = Env::new();
    // Deliberate difference: a relative path creates the file too.
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "new.txt", "old_string": "", "new_string": "hello\n"})
        )
        .unwrap(),
        "Created new file: /w/new.txt with provided content."
    );
    assert_eq!(read(&env, "new.txt"), "hello\n");
    let abs = env.root.join("sub/new2.txt").display().to_string();
    assert_eq!(
        edit(
            &env,
            json!({"file_path": abs, "old_string": "", "new_string": "hello\n"})
        )
        .unwrap(),
        "Created new file: /w/sub/new2.txt with provided content."
    );
    let r = env
        .call(
            Arc::new(ReplaceTool),
            json!({"file_path": "n3.txt", "instruction": "i", "old_string": "", "new_string": "x"}),
        )
        .unwrap();
    assert_eq!(r.display.as_text(), Some("Created n3.txt"));
    env.file("f.txt", "old\n");
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "f.txt", "old_string": "", "new_string": "x"})
        )
        .unwrap_err(),
        "File already exists, cannot create: /w/f.txt"
    );
    let missing = env.root.join("nope.txt").display().to_string();
    assert_eq!(
        edit(
            &env,
            json!({"file_path": missing, "old_string": "a", "new_string": "b"})
        )
        .unwrap_err(),
        "File not found: /w/nope.txt"
    );
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "nope.txt", "old_string": "a", "new_string": "b"})
        )
        .unwrap_err(),
        // 0.27.4's words for a relative path found nowhere (recorded).
        "File not found for 'nope.txt' and path is not absolute."
    );
    let r = env
        .call(Arc::new(ReplaceTool), json!({"file_path": "nope.txt", "instruction": "i", "old_string": "a", "new_string": "b"}))
        .unwrap();
    assert_eq!(
        r.display.as_text(),
        Some(
            "Error: File not found. Cannot apply edit. Use an empty old_string to create a new file."
        )
    );
}

#[test]
fn replace_same_flexible_crlf_dollar() {
    let env = Env::new();
    env.file("f.txt", "foo\n");
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "f.txt", "old_string": "foo", "new_string": "foo"})
        )
        .unwrap_err(),
        "No changes to apply. The old_string and new_string are identical in file: /w/f.txt"
    );
    env.file("f.py", "def f():\n    x = 1\n    y = 2\n");
    assert_eq!(
        edit(&env, json!({"file_path": "f.py", "old_string": "x = 1\ny = 2", "new_string": "x = 10\ny = 20"})).unwrap(),
        "Successfully modified file: /w/f.py (1 replacements)."
    );
    assert_eq!(read(&env, "f.py"), "def f():\n    x = 10\n    y = 20\n");
    env.file("c.txt", "a\r\nb\r\n");
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "c.txt", "old_string": "b", "new_string": "B"})
        )
        .unwrap(),
        "Successfully modified file: /w/c.txt (1 replacements)."
    );
    assert_eq!(read(&env, "c.txt"), "a\r\nB\r\n");
    env.file("d.txt", "x\n");
    edit(
        &env,
        json!({"file_path": "d.txt", "old_string": "x", "new_string": "$& $1"}),
    )
    .unwrap();
    assert_eq!(read(&env, "d.txt"), "$& $1\n");
}

#[test]
fn replace_fuzzy_note() {
    let env = Env::new();
    env.file("g.rs", "fn main() {\n    println!(\"hello world\");\n}\n");
    assert_eq!(
        edit(&env, json!({"file_path": "g.rs", "old_string": "println!(\"helo world\");", "new_string": "println!(\"bye\");"}))
            .unwrap(),
        "Successfully modified file: /w/g.rs (1 replacements). Applied fuzzy match at line 2."
    );
    assert_eq!(
        read(&env, "g.rs"),
        "fn main() {\n    println!(\"bye\");\n}\n"
    );
}

#[test]
fn replace_path_search() {
    let env = Env::new();
    env.file("src/deep.txt", "a\n");
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "deep.txt", "old_string": "a", "new_string": "b"})
        )
        .unwrap(),
        "Successfully modified file: /w/src/deep.txt (1 replacements)."
    );
    assert_eq!(read(&env, "src/deep.txt"), "b\n");
    env.file("s1/amb.txt", "a\n");
    env.file("s2/amb.txt", "a\n");
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "amb.txt", "old_string": "a", "new_string": "b"})
        )
        .unwrap_err(),
        "The file path 'amb.txt' is ambiguous and matches multiple files. Please provide a more specific path. Matches: /w/s1/amb.txt, /w/s2/amb.txt"
    );
}

#[test]
fn replace_validation() {
    let env = Env::new();
    env.file("f.txt", "a\n");
    assert_eq!(
        env.outcome(
            Arc::new(ReplaceTool),
            json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"})
        )
        .unwrap_err(),
        "params must have required property 'instruction'"
    );
    assert_eq!(
        edit(
            &env,
            json!({"file_path": "", "old_string": "a", "new_string": "b"})
        )
        .unwrap_err(),
        "The 'file_path' parameter must be non-empty."
    );
    let err = edit(
        &env,
        json!({"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}),
    )
    .unwrap_err();
    assert!(
        err.starts_with("Path not in workspace: Attempted path \"/etc/hosts\""),
        "{err}"
    );
    // Non-UTF-8 content is never rewritten.
    std::fs::write(env.root.join("bin.txt"), b"a\xff\n").unwrap();
    let err = edit(
        &env,
        json!({"file_path": "bin.txt", "old_string": "a", "new_string": "b"}),
    )
    .unwrap_err();
    assert!(err.starts_with("File is not valid UTF-8 text"), "{err}");
    assert_eq!(std::fs::read(env.root.join("bin.txt")).unwrap(), b"a\xff\n");
}

#[test]
fn replace_confirmation_description_and_diff() {
    let env = Env::new();
    env.file("f.txt", "foo bar\nqux\n");
    let tool = ReplaceTool;
    let mut args = Map::new();
    for (k, v) in [
        ("file_path", "f.txt"),
        ("instruction", "i"),
        ("old_string", "bar"),
        ("new_string", "baz"),
    ] {
        args.insert(k.into(), json!(v));
    }
    let inv = tool.build(&args, &env.ctx).unwrap();
    assert_eq!(inv.description(), "f.txt: bar => baz");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let details = rt.block_on(inv.confirmation(&env.ctx)).unwrap();
    let ConfirmationDetails::Edit {
        title,
        file_name,
        file_diff,
        original_content,
        new_content,
        ..
    } = details
    else {
        panic!("not an edit confirmation");
    };
    assert_eq!(title, "Confirm Edit: f.txt");
    assert_eq!(file_name, "f.txt");
    assert_eq!(original_content.as_deref(), Some("foo bar\nqux\n"));
    assert_eq!(new_content, "foo baz\nqux\n");
    assert!(file_diff.contains(
        "--- f.txt\tCurrent\n+++ f.txt\tProposed\n@@ -1,2 +1,2 @@\n-foo bar\n+foo baz\n qux\n"
    ));
    let r = rt.block_on(inv.execute(&env.ctx, CancellationToken::new()));
    let ToolDisplay::FileDiff(d) = r.display else {
        panic!("no diff")
    };
    assert_eq!(d.new_content, "foo baz\nqux\n");
    assert_eq!(snippet(&"x".repeat(40)), format!("{}...", "x".repeat(30)));
    // A failing edit asks nothing (the error comes from execute).
    args.insert("old_string".into(), json!("zzz"));
    let inv = tool.build(&args, &env.ctx).unwrap();
    assert!(rt.block_on(inv.confirmation(&env.ctx)).is_none());
}

/// An invocation of `file_path` replacing `old` by `new`, built directly so
/// a test can act between computing the edit and writing it.
fn invocation(env: &Env, rel: &str, old: &str, new: &str) -> ReplaceInvocation {
    ReplaceInvocation {
        given: rel.to_string(),
        texts: crate::catalogue::dialect::Dialect::V027.texts(),
        abs: env.root.join(rel),
        rel: rel.to_string(),
        old_string: old.to_string(),
        new_string: new.to_string(),
        expected: Expected::Exactly(1),
        modified_by_user: false,
    }
}

#[test]
fn a_change_by_someone_else_before_the_write_is_kept_and_reported() {
    let env = Env::new();
    let abs = env.file("f.txt", "alpha\nbeta\n");
    let inv = invocation(&env, "f.txt", "beta", "BETA");
    let plan = inv.plan(&env.ctx.workspace).map_err(|f| f.raw).unwrap();
    // Same length, so only the content tells the change apart.
    std::fs::write(&abs, "ALPHA\nbeta\n").unwrap();
    let r = inv.write(&env.ctx.workspace, plan);
    let err = r.error.unwrap();
    assert_eq!(err.kind, ToolErrorKind::FileWriteFailure);
    assert_eq!(
        err.message,
        format!(
            "File {} was modified by another process while the edit was being prepared; read it again and retry.",
            abs.display()
        )
    );
    assert_eq!(read(&env, "f.txt"), "ALPHA\nbeta\n");
    // No temp file left behind.
    assert_eq!(std::fs::read_dir(&env.root).unwrap().count(), 1);
    // Creating a file someone else created meanwhile is refused too.
    let inv = invocation(&env, "new.txt", "", "mine\n");
    let plan = inv.plan(&env.ctx.workspace).map_err(|f| f.raw).unwrap();
    std::fs::write(env.root.join("new.txt"), "theirs\n").unwrap();
    assert!(inv.write(&env.ctx.workspace, plan).error.is_some());
    assert_eq!(read(&env, "new.txt"), "theirs\n");
    // Unchanged: the edit goes through.
    let inv = invocation(&env, "f.txt", "beta", "BETA");
    let plan = inv.plan(&env.ctx.workspace).map_err(|f| f.raw).unwrap();
    assert!(inv.write(&env.ctx.workspace, plan).error.is_none());
    assert_eq!(read(&env, "f.txt"), "ALPHA\nBETA\n");
}

#[test]
fn files_over_the_read_limit_and_fifos_are_refused_before_reading() {
    let env = Env::new();
    let big = env.root.join("big.txt");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(2 * 1024 * 1024 * 1024)
        .unwrap();
    let fifo = env.root.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let f = invocation(&env, "big.txt", "a", "b")
        .plan(&env.ctx.workspace)
        .err()
        .unwrap();
    assert_eq!(f.kind, ToolErrorKind::FileTooLarge);
    assert_eq!(
        f.raw,
        format!(
            "File size exceeds the 20MB limit: {} (2048.00MB)",
            big.display()
        )
    );
    let f = invocation(&env, "pipe", "a", "b")
        .plan(&env.ctx.workspace)
        .err()
        .unwrap();
    assert_eq!(
        f.raw,
        format!("Path is not a regular file (a FIFO): {}", fifo.display())
    );
}

#[test]
fn exact_replace_in_a_10_mb_file() {
    let env = Env::new();
    let line = "let value = compute(alpha, beta, gamma); // filler text\n";
    let mut content = line.repeat(10_000_000 / line.len());
    content.push_str("unique marker line\n");
    env.file("big.rs", &content);
    let out = edit(
        &env,
        json!({"file_path": "big.rs", "old_string": "unique marker line", "new_string": "changed"}),
    )
    .unwrap();
    assert_eq!(
        out,
        "Successfully modified file: /w/big.rs (1 replacements)."
    );
    assert!(read(&env, "big.rs").ends_with("changed\n"));
    // Its speed is measured by bench/fs.sh (target 100 ms), not here.
}
