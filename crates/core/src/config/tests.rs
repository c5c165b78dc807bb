use super::*;
use serde_json::json;

fn setup(user: &str, workspace: &str) -> (tempfile::TempDir, GeminiPaths, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let root = dir.path().join("work");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    std::fs::create_dir_all(root.join(".gemini")).unwrap();
    std::fs::write(home.join(".gemini/settings.json"), user).unwrap();
    std::fs::write(root.join(".gemini/settings.json"), workspace).unwrap();
    let paths = GeminiPaths::new(home, dir.path().join("sys.json"), dir.path().join("d.json"));
    (dir, paths, root)
}

#[test]
fn workspace_overrides_user_when_trusted() {
    let (_d, paths, root) = setup(
        r#"{"model": {"name": "u", "maxSessionTurns": 3}, "tools": {"exclude": ["a"]}}"#,
        r#"{"model": {"name": "$W"}, // comment
               "tools": {"exclude": ["b"]}}"#,
    );
    let env = |k: &str| (k == "W").then(|| "w".to_string());
    let s = Settings::load(&root, &paths, true, &env).unwrap().settings;
    assert_eq!(s.model_name().as_deref(), Some("w"));
    assert_eq!(s.max_session_turns(), 3);
    assert_eq!(s.tools_exclude(), vec!["a", "b"]);
    let s = Settings::load(&root, &paths, false, &env).unwrap().settings;
    assert_eq!(s.model_name().as_deref(), Some("u"));
    assert!(s.layer(Scope::Workspace).is_none());
}

#[test]
fn invalid_file_names_line_and_column() {
    let (_d, paths, root) = setup("{\n  \"a\": 1,\n  oops\n}", "{}");
    let err = Settings::load(&root, &paths, true, &|_| None).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("settings.json at line 3, column 3"), "{text}");
}

#[test]
fn legacy_keys_are_read_at_their_new_places_per_file() {
    let (_d, paths, root) = setup(
        r#"{"toolDiscoveryCommand": "d-user", "toolCallCommand": "c-user", "mcpServerCommand": "srv --x"}"#,
        r#"{"tools": {"discoveryCommand": "d-work"}}"#,
    );
    let s = Settings::load(&root, &paths, true, &|_| None)
        .unwrap()
        .settings;
    let tools = &s.typed().tools;
    // The workspace's new key beats the user's legacy one.
    assert_eq!(tools.discovery_command.as_deref(), Some("d-work"));
    assert_eq!(tools.call_command.as_deref(), Some("c-user"));
    assert_eq!(
        s.get("mcpServers.mcp"),
        Some(&json!({"command": "srv", "args": ["--x"]}))
    );
    let user = paths.user_settings();
    let warnings: Vec<String> = s
        .migrated_settings()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    assert_eq!(
        warnings,
        [
            format!(
                "Setting 'toolDiscoveryCommand' in {} is deprecated; it is read as 'tools.discoveryCommand'. Move it there.",
                user.display()
            ),
            format!(
                "Setting 'toolCallCommand' in {} is deprecated; it is read as 'tools.callCommand'. Move it there.",
                user.display()
            ),
            format!(
                "Setting 'mcpServerCommand' in {} is deprecated; it is read as 'mcpServers.mcp'. Move it there.",
                user.display()
            ),
        ]
    );
    // The layer keeps the file's own shape (`gemini mcp add` rewrites it).
    let (_, layer) = s.layer(Scope::User).unwrap();
    assert_eq!(layer["toolCallCommand"], json!("c-user"));
    let s = Settings::from_value(json!({"toolCallCommand": "c"}));
    assert_eq!(s.typed().tools.call_command.as_deref(), Some("c"));
    assert_eq!(s.migrated_settings().len(), 1);
    assert!(
        Settings::from_value(json!({}))
            .migrated_settings()
            .is_empty()
    );
}

#[test]
fn defaults() {
    let s = Settings::from_value(json!({}));
    assert!(s.respect_git_ignore());
    assert_eq!(s.max_session_turns(), -1);
    assert_eq!(s.tools_core(), None);
    assert!(s.folder_trust_enabled());
    assert_eq!(s.context_file_names(), ["GEMINI.md"]);
    let s = Settings::from_value(json!({"context": {"fileName": [" AGENTS.md", ""]}}));
    assert_eq!(s.context_file_names(), ["AGENTS.md"]);
}
