use super::test_support::Env;
use super::*;
use std::sync::Arc;

fn ls(env: &Env, args: Value) -> Result<String, String> {
    env.outcome(Arc::new(ListDirectoryTool), args)
        .map(|s| env.w(&s))
        .map_err(|s| env.w(&s))
}

#[test]
fn ls_basic() {
    let env = Env::new();
    env.file("src/x.py", "x");
    env.file("b.txt", "abc");
    env.file(".hidden", "");
    std::fs::create_dir(env.root.join(".gemini")).unwrap();
    assert_eq!(
        ls(&env, json!({"dir_path": "."})).unwrap(),
        "Directory listing for /w:\n[DIR] .gemini\n[DIR] src\n.hidden\nb.txt"
    );
    // The `path` alias.
    assert!(
        ls(&env, json!({"path": "src"}))
            .unwrap()
            .ends_with("/w/src:\nx.py")
    );
}

#[test]
fn ls_errors() {
    let env = Env::new();
    env.file("b.txt", "abc");
    std::fs::create_dir(env.root.join("e")).unwrap();
    assert_eq!(
        ls(&env, json!({"dir_path": "nope"})).unwrap_err(),
        "Error listing directory: ENOENT: no such file or directory, stat '/w/nope'"
    );
    assert_eq!(
        ls(&env, json!({"dir_path": "e"})).unwrap(),
        "Directory /w/e is empty."
    );
    assert_eq!(
        ls(&env, json!({"dir_path": "b.txt"})).unwrap_err(),
        "Error: Path is not a directory: /w/b.txt"
    );
    assert_eq!(
        ls(&env, json!({})).unwrap_err(),
        "params must have required property 'dir_path'"
    );
    let r = env
        .call(Arc::new(ListDirectoryTool), json!({"dir_path": "b.txt"}))
        .unwrap();
    assert_eq!(r.display.as_text(), Some("Error: Path is not a directory."));
    assert_eq!(r.error.unwrap().kind, ToolErrorKind::PathIsNotADirectory);
    let outside = ls(&env, json!({"dir_path": "/"})).unwrap_err();
    assert!(outside.starts_with("Path not in workspace: Attempted path \"/\" resolves outside"));
}

#[test]
fn ls_gitignored_and_geminiignore() {
    let env = Env::new();
    env.git();
    env.file(".gitignore", "ign.txt\n");
    env.file("ign.txt", "x");
    env.file("keep.txt", "y");
    std::fs::create_dir(env.root.join(".gemini")).unwrap();
    assert_eq!(
        ls(&env, json!({"dir_path": "."})).unwrap(),
        "Directory listing for /w:\n[DIR] .gemini\n.gitignore\nkeep.txt\n\n(2 ignored)"
    );
    let r = env
        .call(Arc::new(ListDirectoryTool), json!({"dir_path": "."}))
        .unwrap();
    assert_eq!(r.display.as_text(), Some("Listed 3 item(s). (2 ignored)"));
    // Per-call override, also as the top-level alias.
    let all = ls(&env, json!({"dir_path": ".", "respect_git_ignore": false})).unwrap();
    assert!(all.contains("ign.txt") && all.contains("[DIR] .git") && !all.contains("ignored)"));
    // Ignore files are read once per session: a fresh one here.
    let env = Env::new();
    env.git();
    env.file(".gitignore", "ign.txt\n");
    env.file(".geminiignore", "keep.txt\n");
    env.file("ign.txt", "x");
    env.file("keep.txt", "y");
    let args = json!({"dir_path": ".", "file_filtering_options": {"respect_git_ignore": false}});
    let out = ls(&env, args).unwrap();
    assert!(out.ends_with("ign.txt\n\n(1 ignored)"), "{out}");
    let out = ls(&env, json!({"dir_path": "."})).unwrap();
    assert!(out.ends_with(".gitignore\n\n(3 ignored)"), "{out}");
}

#[test]
fn gitignore_needs_a_repo() {
    let env = Env::new();
    env.file(".gitignore", "ign.txt\n");
    env.file("ign.txt", "x");
    assert_eq!(
        ls(&env, json!({"dir_path": "."})).unwrap(),
        "Directory listing for /w:\n.gitignore\nign.txt"
    );
}

#[test]
fn ls_ignore_param() {
    let env = Env::new();
    env.file("a.log", "x");
    env.file("b.txt", "y");
    std::fs::create_dir(env.root.join(".gemini")).unwrap();
    assert_eq!(
        ls(&env, json!({"dir_path": ".", "ignore": ["*.log"]})).unwrap(),
        "Directory listing for /w:\n[DIR] .gemini\nb.txt"
    );
}

#[test]
fn ordering_and_helpers() {
    let mut v = vec!["b.txt", "B2", "a", ".hidden", "_x", "10", "A"];
    v.sort_by(|a, b| locale_compare(a, b));
    assert_eq!(v, vec!["_x", ".hidden", "10", "a", "A", "b.txt", "B2"]);
    assert!(basename_glob("*.log").unwrap().is_match("x.log"));
    assert!(!basename_glob("*.log").unwrap().is_match("x.logs"));
    assert!(basename_glob("a?c").unwrap().is_match("abc"));
}

/// Parses `args` (no alias normalisation) into the typed params.
fn params(args: Value) -> Params {
    crate::tools::builtin::common::parse_params(args.as_object().unwrap(), ALIASES).unwrap()
}

#[test]
fn params_accept_aliases_and_the_canonical_name_wins() {
    let p = params(json!({"path": "src", "ignore": ["*.md"],
        "file_filtering_options": {"respect_git_ignore": false}}));
    assert_eq!(p.dir_path, "src");
    assert_eq!(p.ignore, ["*.md"]);
    assert_eq!(p.file_filtering_options.respect_git_ignore, Some(false));
    assert_eq!(p.file_filtering_options.respect_gemini_ignore, None);
    assert_eq!(params(json!({"path": "a", "dir_path": "b"})).dir_path, "b");
    let p = params(json!({"dir_path": ".", "respect_gemini_ignore": false,
        "respect_git_ignore": "no", "file_filtering_options": {"respect_gemini_ignore": true}}));
    assert_eq!(p.filtering().respect_gemini_ignore, Some(true));
    assert_eq!(p.filtering().respect_git_ignore, None);
    let p = params(json!({"dir_path": ".", "respect_git_ignore": false}));
    assert_eq!(p.filtering().respect_git_ignore, Some(false));
}

#[test]
fn build_without_normalisation_reads_the_alias() {
    let env = Env::new();
    env.file("src/x.py", "x");
    let args = json!({"path": "src"});
    let inv = ListDirectoryTool
        .build(args.as_object().unwrap(), &env.ctx)
        .unwrap();
    // `path` (the alias) named the folder: the call lists `src`.
    assert_eq!(inv.description(), "src");
}

#[test]
fn session_filter_options_come_from_the_workspace() {
    let mut env = Env::new();
    env.git();
    env.file(".gitignore", "ign.txt\n");
    env.file("ign.txt", "x");
    let ws = (*env.ctx.workspace)
        .clone()
        .with_filter_options(FilterOptions {
            respect_git_ignore: false,
            ..FilterOptions::default()
        });
    env.ctx.workspace = Arc::new(ws);
    let out = ls(&env, json!({"dir_path": "."})).unwrap();
    assert!(
        out.contains("ign.txt") && !out.contains("ignored)"),
        "{out}"
    );
    // A per-call option still wins over the session's.
    let args = json!({"dir_path": ".", "file_filtering_options": {"respect_git_ignore": true}});
    let out = ls(&env, args).unwrap();
    assert!(out.ends_with(".gitignore\n\n(2 ignored)"), "{out}");
}
