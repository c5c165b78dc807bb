use super::*;

#[test]
fn finds_global_upward_and_downward_files_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let home = base.join("home");
    let repo = base.join("repo");
    let root = repo.join("app");
    for d in [
        home.join(".gemini"),
        repo.join(".git"),
        root.join("sub/deep"),
        root.join("ignored"),
        root.join("node_modules"),
    ] {
        std::fs::create_dir_all(d).unwrap();
    }
    std::fs::write(home.join(".gemini/GEMINI.md"), "GLOBAL").unwrap();
    std::fs::write(repo.join("GEMINI.md"), "REPO\n@imp/x.md").unwrap();
    std::fs::create_dir_all(repo.join("imp")).unwrap();
    std::fs::write(repo.join("imp/x.md"), "IMPORTED\n@../GEMINI.md").unwrap();
    std::fs::write(root.join("GEMINI.md"), "APP").unwrap();
    std::fs::write(root.join("sub/deep/GEMINI.md"), "DEEP").unwrap();
    std::fs::write(root.join("ignored/GEMINI.md"), "IGNORED").unwrap();
    std::fs::write(root.join("node_modules/GEMINI.md"), "NODE").unwrap();
    std::fs::write(root.join(".geminiignore"), "ignored/\n").unwrap();
    let ws = Workspace::new(root.clone(), vec![], base.join("tmp"));
    let names = vec!["GEMINI.md".to_string()];
    let opts = MemoryOptions {
        file_names: &names,
        gemini_dir: &home.join(".gemini"),
        home: &home,
        max_dirs: 200,
        workspace_files: true,
    };
    let files = load_context_files(&ws, &opts);
    let contents: Vec<&str> = files
        .iter()
        .map(|f| f.content.split('\n').next().unwrap())
        .collect();
    // node_modules is searched (unless ignored), as Gemini CLI does.
    assert_eq!(contents, vec!["GLOBAL", "REPO", "APP", "NODE", "DEEP"]);
    // Several names: each name's global, upward and lower files in turn.
    std::fs::write(home.join(".gemini/AGENTS.md"), "GLOBAL-AGENTS").unwrap();
    std::fs::write(root.join("AGENTS.md"), "APP-AGENTS").unwrap();
    let names2 = vec!["AGENTS.md".to_string(), "GEMINI.md".to_string()];
    let opts = MemoryOptions {
        file_names: &names2,
        ..opts
    };
    let both = load_context_files(&ws, &opts);
    let contents: Vec<&str> = both
        .iter()
        .map(|f| f.content.split('\n').next().unwrap())
        .collect();
    assert_eq!(
        contents,
        vec![
            "GLOBAL-AGENTS",
            "APP-AGENTS",
            "GLOBAL",
            "REPO",
            "APP",
            "NODE",
            "DEEP"
        ]
    );
    let repo_file = &files[1].content;
    assert!(
        repo_file.contains("<!-- Imported from: imp/x.md -->\nIMPORTED"),
        "{repo_file}"
    );
    // The context file itself is not in the chain (as in 0.61): imported
    // once more, whose import of imp/x.md is then a cycle.
    assert!(
        repo_file.contains(
            "<!-- Imported from: ../GEMINI.md -->\nREPO\n<!-- File already processed: imp/x.md -->"
        ),
        "{repo_file}"
    );
    let text = format_context(&files[2..3], &root);
    assert_eq!(
        text,
        "--- Context from: GEMINI.md ---\nAPP\n--- End of Context from: GEMINI.md ---"
    );
}

#[test]
fn imports_leaving_the_workspace_or_not_regular_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let home = base.join("home");
    let root = base.join("proj");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(base.join("outside.md"), "OUTSIDE").unwrap();
    std::fs::write(home.join(".gemini/shared.md"), "SHARED").unwrap();
    std::fs::write(root.join("docs/ok.md"), "OK").unwrap();
    std::os::unix::fs::symlink(base.join("outside.md"), root.join("docs/link.md")).unwrap();
    let fifo = std::ffi::CString::new(root.join("pipe.md").to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let big = std::fs::File::create(root.join("big.md")).unwrap();
    big.set_len(MAX_CONTEXT_FILE_BYTES + 1).unwrap();
    let gemini_md = format!(
        "TOP\n@docs/ok.md\n@/proc/self/environ\n@../outside.md\n@{}\n@docs/link.md\n@pipe.md\n@/dev/zero\n@big.md\n@{}\n@missing.md",
        base.join("outside.md").display(),
        home.join(".gemini/shared.md").display()
    );
    std::fs::write(root.join("GEMINI.md"), &gemini_md).unwrap();
    let ws = Workspace::new(root.clone(), vec![], base.join("tmp"));
    let names = vec!["GEMINI.md".to_string()];
    let opts = MemoryOptions {
        file_names: &names,
        gemini_dir: &home.join(".gemini"),
        home: &home,
        max_dirs: 200,
        workspace_files: true,
    };
    let loaded = load_context(&ws, &opts);
    assert_eq!(loaded.files.len(), 1);
    let outside = base.join("outside.md").display().to_string();
    let shared = home.join(".gemini/shared.md").display().to_string();
    let traversal = |t: &str| format!("<!-- Import failed: {t} - Path traversal attempt -->");
    let expected = [
        "TOP".to_string(),
        "<!-- Imported from: docs/ok.md -->\nOK\n<!-- End of import from: docs/ok.md -->"
            .to_string(),
        traversal("/proc/self/environ"),
        traversal("../outside.md"),
        traversal(&outside),
        traversal("docs/link.md"),
        "<!-- Import failed: pipe.md - it is not a regular file (a FIFO) -->".to_string(),
        traversal("/dev/zero"),
        "<!-- Import failed: big.md - it is 20.00MB, over the 20MB limit -->".to_string(),
        traversal(&shared),
        format!(
            "<!-- Import failed: missing.md - ENOENT: no such file or directory, access '{}' -->",
            root.join("missing.md").display()
        ),
    ]
    .join("\n");
    assert_eq!(loaded.files[0].content, expected);
    let file = root.join("GEMINI.md").display().to_string();
    let outside_reason = format!("it resolves outside the project root {}", root.display());
    assert_eq!(
        loaded.warnings,
        [
            format!("{file}:3: import @/proc/self/environ refused: {outside_reason}"),
            format!("{file}:4: import @../outside.md refused: {outside_reason}"),
            format!("{file}:5: import @{outside} refused: {outside_reason}"),
            format!("{file}:6: import @docs/link.md refused: {outside_reason}"),
            format!("{file}:7: import @pipe.md refused: it is not a regular file (a FIFO)"),
            format!("{file}:8: import @/dev/zero refused: {outside_reason}"),
            format!("{file}:9: import @big.md refused: it is 20.00MB, over the 20MB limit"),
            format!("{file}:10: import @{shared} refused: {outside_reason}"),
            format!(
                "{file}:11: import @missing.md failed: ENOENT: no such file or directory, access '{}'",
                root.join("missing.md").display()
            ),
        ]
    );
}

#[test]
fn a_context_file_linking_out_of_its_place_is_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let home = base.join("home");
    let root = base.join("proj");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", root.join("GEMINI.md")).unwrap();
    std::fs::write(root.join("AGENTS.md"), "AGENTS").unwrap();
    std::os::unix::fs::symlink("../AGENTS.md", root.join("sub/GEMINI.md")).unwrap();
    let ws = Workspace::new(root.clone(), vec![], base.join("tmp"));
    let names = vec!["GEMINI.md".to_string()];
    let opts = MemoryOptions {
        file_names: &names,
        gemini_dir: &home.join(".gemini"),
        home: &home,
        max_dirs: 200,
        workspace_files: true,
    };
    let loaded = load_context(&ws, &opts);
    let contents: Vec<&str> = loaded.files.iter().map(|f| f.content.as_str()).collect();
    assert_eq!(contents, ["AGENTS"]);
    assert_eq!(
        loaded.warnings,
        [format!(
            "Context file {} skipped: it resolves outside the workspace directories and ~/.gemini",
            root.join("GEMINI.md").display()
        )]
    );
}
