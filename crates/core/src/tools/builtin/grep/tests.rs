//! The verified `search_file_content` cases of the spec (Appendix A.4,
//! legacy variant) plus ignore rules, multiple roots and the match cap.

use super::super::list_directory::test_support::Env;
use super::*;
use std::sync::Arc;

fn grep(env: &Env, args: Value) -> Result<String, String> {
    env.outcome(Arc::new(GrepTool), args)
        .map(|s| env.w(&s))
        .map_err(|s| env.w(&s))
}

fn sixty_lines() -> String {
    let mut s: String = (1..60).map(|i| format!("line {i}\n")).collect();
    s.push_str("foo here\nline 61\n");
    s
}

#[test]
fn grep_1_and_git_1() {
    for git in [false, true] {
        let env = Env::new();
        if git {
            env.git();
        }
        env.file("g.txt", &sixty_lines());
        assert_eq!(
            grep(&env, json!({"pattern": "foo"})).unwrap(),
            "Found 1 match for pattern \"foo\" in the workspace directory:\n---\nFile: g.txt\nL60: foo here\n---"
        );
    }
}

#[test]
fn grep_3_files_in_directory_order() {
    let env = Env::new();
    env.file("a.txt", "x\nfoo one\ny\nz\nw\nv\nfoo two\n");
    env.file("b.txt", "q\nfoo three\n");
    let a = "File: a.txt\nL2: foo one\nL7: foo two\n---";
    let b = "File: b.txt\nL2: foo three\n---";
    // grep -r lists files in the order the file system returns them.
    let first: Vec<String> = std::fs::read_dir(&env.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let body = if first[0] == "b.txt" {
        format!("{b}\n{a}")
    } else {
        format!("{a}\n{b}")
    };
    assert_eq!(
        grep(&env, json!({"pattern": "foo"})).unwrap(),
        format!("Found 3 matches for pattern \"foo\" in the workspace directory:\n---\n{body}")
    );
    // In a git repo: git's order (sorted paths).
    env.git();
    assert_eq!(
        grep(&env, json!({"pattern": "foo"})).unwrap(),
        format!("Found 3 matches for pattern \"foo\" in the workspace directory:\n---\n{a}\n{b}")
    );
    let r = env
        .call(Arc::new(GrepTool), json!({"pattern": "foo"}))
        .unwrap();
    assert_eq!(r.display.as_text(), Some("Found 3 matches"));
}

#[test]
fn grep_none_and_case() {
    let env = Env::new();
    env.file("a.txt", "abc\nfoo\n");
    assert_eq!(
        grep(&env, json!({"pattern": "zzz"})).unwrap(),
        "No matches found for pattern \"zzz\" in the workspace directory."
    );
    let r = env
        .call(Arc::new(GrepTool), json!({"pattern": "zzz"}))
        .unwrap();
    assert_eq!(r.display.as_text(), Some("No matches found"));
    // Outside a git repo matching is case-sensitive (grep -E) ...
    assert_eq!(
        grep(&env, json!({"pattern": "FOO"})).unwrap(),
        "No matches found for pattern \"FOO\" in the workspace directory."
    );
    // ... inside one case-insensitive (git grep --ignore-case).
    env.git();
    assert_eq!(
        grep(&env, json!({"pattern": "FOO"})).unwrap(),
        "Found 1 match for pattern \"FOO\" in the workspace directory:\n---\nFile: a.txt\nL2: foo\n---"
    );
}

#[test]
fn grep_include_dir_and_aliases() {
    let env = Env::new();
    env.file("sub/a.md", "foo md\n");
    env.file("sub/b.txt", "foo txt\n");
    let expected = "Found 1 match for pattern \"foo\" in path \"sub\" (filter: \"*.md\"):\n---\nFile: a.md\nL1: foo md\n---";
    assert_eq!(
        grep(
            &env,
            json!({"pattern": "foo", "dir_path": "sub", "include": "*.md"})
        )
        .unwrap(),
        expected
    );
    assert_eq!(
        grep(
            &env,
            json!({"pattern": "foo", "path": "sub", "include_pattern": "*.md"})
        )
        .unwrap(),
        expected
    );
    assert_eq!(
        grep(&env, json!({"pattern": "nomatch", "include": "*.md"})).unwrap(),
        "No matches found for pattern \"nomatch\" in the workspace directory (filter: \"*.md\")."
    );
    let out = grep(&env, json!({"pattern": "foo", "include": "sub/*.txt"})).unwrap();
    assert!(
        out.contains("File: sub/b.txt\nL1: foo txt") && !out.contains("a.md"),
        "{out}"
    );
}

#[test]
fn grep_validation() {
    let env = Env::new();
    env.file("f.txt", "x");
    assert_eq!(
        grep(&env, json!({"pattern": "("})).unwrap_err(),
        "Invalid regular expression pattern provided: (. Error: Invalid regular expression: /(/: Unterminated group"
    );
    assert_eq!(
        grep(&env, json!({"pattern": "x", "dir_path": "nope"})).unwrap_err(),
        "Path does not exist: /w/nope"
    );
    assert_eq!(
        grep(&env, json!({"pattern": "x", "dir_path": "f.txt"})).unwrap_err(),
        "Path is not a directory: /w/f.txt"
    );
    assert!(
        grep(&env, json!({"pattern": "x", "dir_path": "/"}))
            .unwrap_err()
            .starts_with("Path not in workspace")
    );
    assert_eq!(
        grep(&env, json!({})).unwrap_err(),
        "params must have required property 'pattern'"
    );
}

#[test]
fn grep_spaces_crlf_and_js_syntax() {
    let env = Env::new();
    env.file("a.txt", "    foo indented   \n");
    assert_eq!(
        grep(&env, json!({"pattern": "foo"})).unwrap(),
        "Found 1 match for pattern \"foo\" in the workspace directory:\n---\nFile: a.txt\nL1: foo indented\n---"
    );
    let env = Env::new();
    env.file("c.txt", "a{2\r\nend$\r\n");
    assert!(
        grep(&env, json!({"pattern": "a{2"}))
            .unwrap()
            .ends_with("L1: a{2\n---")
    );
    assert!(
        grep(&env, json!({"pattern": "end\\$$"}))
            .unwrap()
            .ends_with("L2: end$\n---")
    );
    let out = grep(&env, json!({"pattern": "(a)\\1"})).unwrap_err();
    assert_eq!(out, "back-references are not supported");
}

#[test]
fn grep_skips_binary_hard_excludes_and_ignored() {
    let env = Env::new();
    env.file("bin.dat", "foo\0bar");
    env.file("node_modules/m.js", "foo");
    env.file(".hidden/h.txt", "foo");
    env.file(".geminiignore", "secret.txt\n");
    env.file("secret.txt", "foo");
    env.file(".gitignore", "gen.txt\n");
    env.file("gen.txt", "foo");
    let out = grep(&env, json!({"pattern": "foo"})).unwrap();
    // Not a git repo: .gitignore is not honoured, .geminiignore is.
    assert!(out.starts_with("Found 2 matches"), "{out}");
    assert!(
        out.contains("File: .hidden/h.txt") && out.contains("File: gen.txt"),
        "{out}"
    );
    // Ignore rules are cached per session: a fresh workspace, now a repo.
    let env2 = Env::new();
    env2.git();
    for f in [
        "bin.dat",
        "node_modules/m.js",
        ".hidden/h.txt",
        ".geminiignore",
        "secret.txt",
        ".gitignore",
        "gen.txt",
    ] {
        std::fs::create_dir_all(env2.root.join(f).parent().unwrap()).unwrap();
        std::fs::copy(env.root.join(f), env2.root.join(f)).unwrap();
    }
    let env = env2;
    env.file(".git/x", "foo");
    let out = grep(&env, json!({"pattern": "foo"})).unwrap();
    assert_eq!(
        out,
        "Found 1 match for pattern \"foo\" in the workspace directory:\n---\nFile: .hidden/h.txt\nL1: foo\n---"
    );
}

#[test]
fn grep_multi_root() {
    let env = Env::with_roots(2);
    env.file("a.txt", "foo\n");
    let other = env.ctx.workspace.dirs()[1].clone();
    std::fs::write(other.join("b.txt"), "foo b\n").unwrap();
    let out = env
        .outcome(Arc::new(GrepTool), json!({"pattern": "foo"}))
        .unwrap();
    let root_name = env.root.file_name().unwrap().to_string_lossy().into_owned();
    let other_name = other.file_name().unwrap().to_string_lossy().into_owned();
    assert_eq!(
        out,
        format!(
            "Found 2 matches for pattern \"foo\" across 2 workspace directories:\n---\nFile: {root_name}/a.txt\nL1: foo\n---\nFile: {other_name}/b.txt\nL1: foo b\n---"
        )
    );
    let out = env
        .outcome(Arc::new(GrepTool), json!({"pattern": "zzz"}))
        .unwrap();
    assert_eq!(
        out,
        "No matches found for pattern \"zzz\" across 2 workspace directories."
    );
}

#[test]
fn grep_match_cap() {
    let env = Env::new();
    env.file("many.txt", &"x\n".repeat(20_005));
    let r = env
        .call(Arc::new(GrepTool), json!({"pattern": "x"}))
        .unwrap();
    let out = r.llm_text();
    assert!(
        out.starts_with("Found 20000 matches for pattern \"x\" in the workspace directory (results limited to 20000 matches for performance):\n---\nFile: many.txt\nL1: x\n"),
        "{}",
        &out[..200]
    );
    assert!(out.ends_with("L20000: x\n---"));
    assert_eq!(r.display.as_text(), Some("Found 20000 matches (limited)"));
}

/// Timing on a large tree: `GREP_BENCH_DIR=/some/tree cargo test -p
/// gemini-rs-core --lib grep_bench -- --ignored --nocapture`.
#[test]
#[ignore]
fn grep_bench() {
    use crate::config::Settings;
    use crate::workspace::Workspace;
    let Ok(dir) = std::env::var("GREP_BENCH_DIR") else {
        return;
    };
    let root = std::fs::canonicalize(dir).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let ws = Workspace::new(root, Vec::new(), tmp.path().to_path_buf());
    let ctx = ToolContext::new(Arc::new(ws), Arc::new(Settings::default()), "m");
    for pattern in ["fn\\s+main", "zzqqxx_not_there", "unsafe"] {
        let mut args = Map::new();
        args.insert("pattern".into(), json!(pattern));
        let inv = GrepTool.build(&args, &ctx).unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .unwrap();
        let t = std::time::Instant::now();
        let r = rt.block_on(inv.execute(&ctx, CancellationToken::new()));
        let head: String = r.llm_text().chars().take(90).collect();
        println!("{pattern}: {:?} {head}", t.elapsed());
    }
}

#[test]
fn params_accept_later_names() {
    let args = json!({"pattern": "x", "path": "src", "include_pattern": "*.rs"});
    let p: Params =
        crate::tools::builtin::common::parse_params(args.as_object().unwrap(), ALIASES).unwrap();
    assert_eq!(
        p,
        Params {
            pattern: "x".into(),
            dir_path: Some("src".into()),
            include: Some("*.rs".into()),
        }
    );
}
