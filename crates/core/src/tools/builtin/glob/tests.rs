use super::super::list_directory::test_support::Env;
use super::*;
use std::sync::Arc;

fn glob(env: &Env, args: Value) -> Result<String, String> {
    env.outcome(Arc::new(GlobTool), args)
        .map(|s| env.w(&s))
        .map_err(|s| env.w(&s))
}

fn touch_ago(p: &Path, secs: u64) {
    let t = SystemTime::now() - Duration::from_secs(secs);
    let f = std::fs::File::options().write(true).open(p).unwrap();
    f.set_modified(t).unwrap();
}

#[test]
fn glob_match_newest_first() {
    let env = Env::new();
    let a = env.file("a.txt", "1");
    let b = env.file("b.txt", "2");
    env.file("c.md", "3");
    touch_ago(&a, 20);
    touch_ago(&b, 10);
    assert_eq!(
        glob(&env, json!({"pattern": "*.txt"})).unwrap(),
        "Found 2 file(s) matching \"*.txt\" within /w, sorted by modification time (newest first):\n/w/b.txt\n/w/a.txt"
    );
    let r = env
        .call(Arc::new(GlobTool), json!({"pattern": "*.txt"}))
        .unwrap();
    assert_eq!(r.display.as_text(), Some("Found 2 matching file(s)"));
}

#[test]
fn glob_old_files_by_path_after_recent() {
    let env = Env::new();
    for (n, age) in [("b.txt", 90_000), ("a.txt", 100_000), ("c.txt", 5)] {
        let p = env.file(n, "x");
        touch_ago(&p, age);
    }
    let out = glob(&env, json!({"pattern": "*.TXT"})).unwrap();
    assert!(out.ends_with(":\n/w/c.txt\n/w/a.txt\n/w/b.txt"), "{out}");
    let out = glob(&env, json!({"pattern": "*.TXT", "case_sensitive": true})).unwrap();
    assert_eq!(out, "No files found matching pattern \"*.TXT\" within /w");
}

#[test]
fn glob_errors() {
    let env = Env::new();
    env.file("a.txt", "1");
    assert_eq!(
        glob(&env, json!({"pattern": "*.nomatch"})).unwrap(),
        "No files found matching pattern \"*.nomatch\" within /w"
    );
    assert_eq!(
        glob(&env, json!({"pattern": "*", "dir_path": "nope"})).unwrap_err(),
        "Search path does not exist /w/nope"
    );
    assert_eq!(
        glob(&env, json!({"pattern": "*", "dir_path": "a.txt"})).unwrap_err(),
        "Search path is not a directory: /w/a.txt"
    );
    assert_eq!(
        glob(&env, json!({"pattern": "  "})).unwrap_err(),
        "The 'pattern' parameter cannot be empty."
    );
    assert!(
        glob(&env, json!({"pattern": "*", "dir_path": "/"}))
            .unwrap_err()
            .starts_with("Path not in workspace")
    );
}

#[test]
fn glob_recursive_and_alias() {
    let env = Env::new();
    let a = env.file("src/a.py", "");
    let b = env.file("src/d/b.py", "");
    env.file("top.py", "");
    env.file("node_modules/m.py", "");
    touch_ago(&a, 20);
    touch_ago(&b, 10);
    assert_eq!(
        glob(&env, json!({"pattern": "**/*.py", "dir_path": "src"})).unwrap(),
        "Found 2 file(s) matching \"**/*.py\" within /w/src, sorted by modification time (newest first):\n/w/src/d/b.py\n/w/src/a.py"
    );
    let out = glob(&env, json!({"pattern": "src/*.py", "path": "."})).unwrap();
    assert!(out.ends_with("\n/w/src/a.py"), "{out}");
    let out = glob(&env, json!({"pattern": "**/*.py"})).unwrap();
    assert!(
        out.starts_with("Found 3 file(s)") && !out.contains("node_modules"),
        "{out}"
    );
}

#[test]
fn glob_ignored_counts_and_literal() {
    let env = Env::new();
    env.git();
    env.file(".gitignore", "gen/\n");
    env.file("gen/x.ts", "");
    env.file("y.ts", "");
    env.file("[id].ts", "");
    let out = glob(&env, json!({"pattern": "**/*.ts"})).unwrap();
    assert!(out.starts_with("Found 2 file(s) matching \"**/*.ts\" within /w (1 additional files were ignored), sorted"), "{out}");
    let out = glob(
        &env,
        json!({"pattern": "**/*.ts", "respect_git_ignore": false}),
    )
    .unwrap();
    assert!(out.starts_with("Found 3 file(s)"), "{out}");
    let out = glob(&env, json!({"pattern": "gen/*"})).unwrap();
    assert_eq!(
        out,
        "No files found matching pattern \"gen/*\" within /w (1 files were ignored)"
    );
    let out = glob(&env, json!({"pattern": "[id].ts"})).unwrap();
    assert!(out.ends_with(":\n/w/[id].ts"), "{out}");
}

#[test]
fn glob_multi_root() {
    let env = Env::with_roots(2);
    env.file("a.md", "");
    let other = env.ctx.workspace.dirs()[1].clone();
    std::fs::write(other.join("b.md"), "").unwrap();
    let out = env
        .outcome(Arc::new(GlobTool), json!({"pattern": "*.md"}))
        .unwrap();
    assert!(
        out.starts_with("Found 2 file(s) matching \"*.md\" across 2 workspace directories, sorted"),
        "{out}"
    );
    let out = env
        .outcome(Arc::new(GlobTool), json!({"pattern": "*.zz"}))
        .unwrap();
    assert_eq!(
        out,
        "No files found matching pattern \"*.zz\" within 2 workspace directories"
    );
}

#[test]
fn params_accept_path_and_top_level_filter_flags() {
    let args = serde_json::json!({"pattern": "*.rs", "path": "src", "respect_git_ignore": false});
    let p: Params =
        crate::tools::builtin::common::parse_params(args.as_object().unwrap(), ALIASES).unwrap();
    assert_eq!(p.dir_path.as_deref(), Some("src"));
    assert_eq!(p.filtering.respect_git_ignore, Some(false));
    assert_eq!(p.case_sensitive, None);
}
