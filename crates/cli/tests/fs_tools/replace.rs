//! `replace` through the binary: the cases of the spec (Appendix A.6) and
//! the README's deliberate differences (relative create, fuzzy note).

use super::{Sandbox, err, ok, one, sandbox, w};
use serde_json::{Value, json};

/// One `replace` call with an `instruction` added when the arguments lack
/// one.
fn replace(sb: &Sandbox, mut args: Value) -> Value {
    args.as_object_mut()
        .unwrap()
        .entry("instruction")
        .or_insert(json!("i"));
    one(sb, "replace", args)
}

#[test]
fn replace_cases_of_a6() {
    let sb = sandbox();
    let w = w(&sb);
    let r = |args: Value| replace(&sb, args);
    sb.write("f.txt", "foo bar\nqux\n");
    assert_eq!(
        r(json!({"file_path": "f.txt", "old_string": "bar", "new_string": "baz"})),
        ok(format!(
            "Successfully modified file: {w}/f.txt (1 replacements)."
        ))
    );
    assert_eq!(sb.read("f.txt").unwrap(), "foo baz\nqux\n");
    assert_eq!(
        r(json!({"file_path": "f.txt", "old_string": "nothere", "new_string": "baz"})),
        err(format!(
            "Failed to edit, 0 occurrences found for old_string in {w}/f.txt. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify."
        ))
    );
    sb.write("two.txt", "a x a\n");
    assert_eq!(
        r(json!({"file_path": "two.txt", "old_string": "a", "new_string": "b"})),
        err(format!(
            "Failed to edit, Expected 1 occurrence but found 2 for old_string in file: {w}/two.txt"
        ))
    );
    assert_eq!(
        r(
            json!({"file_path": "two.txt", "old_string": "a", "new_string": "b", "expected_replacements": 3})
        ),
        err(format!(
            "Failed to edit, Expected 3 occurrences but found 2 for old_string in file: {w}/two.txt"
        ))
    );
    assert_eq!(
        r(
            json!({"file_path": "two.txt", "old_string": "a", "new_string": "b", "expected_replacements": 0})
        ),
        err("params/expected_replacements must be >= 1")
    );
    assert_eq!(
        r(
            json!({"file_path": "two.txt", "old_string": "a", "new_string": "b", "expected_replacements": 2})
        ),
        ok(format!(
            "Successfully modified file: {w}/two.txt (2 replacements)."
        ))
    );
    assert_eq!(sb.read("two.txt").unwrap(), "b x b\n");
    // Deliberate difference: a relative path can be created.
    assert_eq!(
        r(json!({"file_path": "new.txt", "old_string": "", "new_string": "hello\n"})),
        ok(format!(
            "Created new file: {w}/new.txt with provided content."
        ))
    );
    assert_eq!(sb.read("new.txt").unwrap(), "hello\n");
    assert_eq!(
        r(json!({"file_path": "new.txt", "old_string": "", "new_string": "x"})),
        err(format!("File already exists, cannot create: {w}/new.txt"))
    );
    assert_eq!(
        r(json!({"file_path": "new.txt", "old_string": "hello", "new_string": "hello"})),
        err(format!(
            "No changes to apply. The old_string and new_string are identical in file: {w}/new.txt"
        ))
    );
    assert_eq!(
        one(
            &sb,
            "replace",
            json!({"file_path": "f.txt", "old_string": "a", "new_string": "b"})
        ),
        err("params must have required property 'instruction'")
    );
    assert_eq!(
        r(json!({"file_path": format!("{w}/nope.txt"), "old_string": "a", "new_string": "b"})),
        err(format!("File not found: {w}/nope.txt"))
    );
}

/// The flexible and fuzzy matches, line endings, a `$` kept literally, and
/// a bare file name found (or found ambiguous) under the workspace.
#[test]
fn replace_matches_flexibly_and_finds_bare_names() {
    let sb = sandbox();
    let w = w(&sb);
    let r = |args: Value| replace(&sb, args);
    sb.write("f.py", "def f():\n    x = 1\n    y = 2\n");
    assert_eq!(
        r(
            json!({"file_path": "f.py", "old_string": "x = 1\ny = 2", "new_string": "x = 10\ny = 20"})
        ),
        ok(format!(
            "Successfully modified file: {w}/f.py (1 replacements)."
        ))
    );
    assert_eq!(
        sb.read("f.py").unwrap(),
        "def f():\n    x = 10\n    y = 20\n"
    );
    sb.write("c.txt", "a\r\nb\r\n");
    r(json!({"file_path": "c.txt", "old_string": "b", "new_string": "B"}));
    assert_eq!(sb.read("c.txt").unwrap(), "a\r\nB\r\n");
    sb.write("d.txt", "x\n");
    r(json!({"file_path": "d.txt", "old_string": "x", "new_string": "$& $1"}));
    assert_eq!(sb.read("d.txt").unwrap(), "$& $1\n");
    // The fuzzy strategy says where it applied.
    sb.write("g.rs", "fn main() {\n    println!(\"hello world\");\n}\n");
    assert_eq!(
        r(
            json!({"file_path": "g.rs", "old_string": "    println!(\"helo world\");", "new_string": "    println!(\"bye\");"})
        ),
        ok(format!(
            "Successfully modified file: {w}/g.rs (1 replacements). Applied fuzzy match at line 2."
        ))
    );
    sb.write("s1/deep.txt", "a\n");
    sb.write("s2/deep.txt", "a\n");
    assert_eq!(
        r(json!({"file_path": "deep.txt", "old_string": "a", "new_string": "b"})),
        err(format!(
            "The file path 'deep.txt' is ambiguous and matches multiple files. Please provide a more specific path. Matches: {w}/s1/deep.txt, {w}/s2/deep.txt"
        ))
    );
    std::fs::remove_dir_all(sb.work.join("s2")).unwrap();
    assert_eq!(
        r(json!({"file_path": "deep.txt", "old_string": "a", "new_string": "b"})),
        ok(format!(
            "Successfully modified file: {w}/s1/deep.txt (1 replacements)."
        ))
    );
}
