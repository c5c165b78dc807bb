use super::super::list_directory::test_support::Env;
use super::*;
use std::sync::Arc;

fn texts(r: &ToolResult) -> Vec<String> {
    r.llm_content
        .iter()
        .map(|p| p.text.clone().unwrap_or_else(|| "<inline>".into()))
        .collect()
}

#[test]
fn framing_and_end_marker() {
    let env = Env::new();
    env.file("a.txt", "AAA\n");
    env.file("b.txt", "BBB");
    env.file("c.md", "CCC");
    let r = env
        .call(Arc::new(ReadManyFilesTool), json!({"include": ["*.txt"]}))
        .unwrap();
    assert!(r.error.is_none());
    let root = env.root.display();
    assert_eq!(
        texts(&r),
        vec![
            format!("--- {root}/a.txt ---\n\nAAA\n\n\n"),
            format!("--- {root}/b.txt ---\n\nBBB\n\n"),
            "\n--- End of content ---".to_string()
        ]
    );
    let shown = r.display.as_text().unwrap().to_string();
    assert!(
        shown.contains("Successfully read and concatenated content from **2 file(s)**."),
        "{shown}"
    );
    // The `paths` alias.
    let r = env
        .call(Arc::new(ReadManyFilesTool), json!({"paths": ["c.md"]}))
        .unwrap();
    assert_eq!(texts(&r)[0], format!("--- {root}/c.md ---\n\nCCC\n\n"));
}

#[test]
fn nothing_found_and_validation() {
    let env = Env::new();
    let r = env
        .call(Arc::new(ReadManyFilesTool), json!({"include": ["*.zz"]}))
        .unwrap();
    assert_eq!(texts(&r), vec![NOTHING_READ.to_string()]);
    assert_eq!(
        env.outcome(Arc::new(ReadManyFilesTool), json!({}))
            .unwrap_err(),
        "params must have required property 'include'"
    );
}

#[test]
fn excludes_ignores_media_and_truncation() {
    let env = Env::new();
    env.git();
    env.file(".gitignore", "ign.txt\n");
    env.file("ign.txt", "x");
    env.file(".geminiignore", "gem.txt\n");
    env.file("gem.txt", "x");
    env.file("dist/out.txt", "x");
    env.file("keep.txt", &"l\n".repeat(2500));
    env.file("pic.png", "\u{89}PNG");
    env.file("skip.log", "x");
    let r = env
        .call(
            Arc::new(ReadManyFilesTool),
            json!({"include": ["**/*"], "exclude": ["*.log", "*.png"]}),
        )
        .unwrap();
    let t = texts(&r);
    let names: Vec<&String> = t.iter().filter(|s| s.starts_with("--- /")).collect();
    assert_eq!(names.len(), 3, "{t:?}"); // .geminiignore, .gitignore, keep.txt
    let keep = names.iter().find(|s| s.contains("keep.txt")).unwrap();
    assert!(
        keep.contains(&format!("---\n\n{TRUNCATED_WARNING}l\n")),
        "{keep}"
    );
    let shown = r.display.as_text().unwrap();
    assert!(
        shown.contains("- `1 file(s)` (Reason: git ignored)"),
        "{shown}"
    );
    assert!(
        shown.contains("- `1 file(s)` (Reason: gemini ignored)"),
        "{shown}"
    );
    // Media only when asked for by extension or name.
    let r = env
        .call(Arc::new(ReadManyFilesTool), json!({"include": ["*.png"]}))
        .unwrap();
    assert_eq!(
        r.llm_content[0].inline_data.as_ref().unwrap().mime_type,
        "image/png"
    );
    let r = env
        .call(Arc::new(ReadManyFilesTool), json!({"include": ["p*"]}))
        .unwrap();
    assert_eq!(texts(&r), vec![NOTHING_READ.to_string()]);
    assert!(
        r.display
            .as_text()
            .unwrap()
            .contains("was not explicitly requested")
    );
    // Directories expand to their files; default excludes can be lifted.
    let r = env
        .call(
            Arc::new(ReadManyFilesTool),
            json!({"include": ["dist/"], "useDefaultExcludes": false}),
        )
        .unwrap();
    assert!(texts(&r)[0].ends_with("/dist/out.txt ---\n\nx\n\n"));
}

#[test]
fn params_accept_paths_and_default_to_default_excludes() {
    let args = serde_json::json!({"paths": ["a.txt"], "file_filtering_options": {"respect_gemini_ignore": false}});
    let p: Params =
        crate::tools::builtin::common::parse_params(args.as_object().unwrap(), ALIASES).unwrap();
    assert_eq!(p.include, ["a.txt"]);
    assert!(p.use_default_excludes);
    assert_eq!(p.file_filtering_options.respect_gemini_ignore, Some(false));
}
