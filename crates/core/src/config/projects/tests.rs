use super::*;

#[test]
fn slugs_are_lower_case_dashes() {
    assert_eq!(slugify("My App_2"), "my-app-2");
    assert_eq!(slugify("--x..y--"), "x-y");
    assert_eq!(slugify("..."), "project");
    assert_eq!(slugify("Ünïcode"), "n-code");
}

#[test]
fn a_root_is_registered_marked_and_found_again() {
    let home = tempfile::tempdir().unwrap();
    let g = home.path().join(".gemini");
    let dir = project_temp_dir(&g, Path::new("/w/My Proj"));
    assert_eq!(dir, g.join("tmp/my-proj"));
    let marker = std::fs::read_to_string(dir.join(".project_root")).unwrap();
    assert_eq!(marker, "/w/My Proj");
    assert!(g.join("history/my-proj/.project_root").is_file());
    let reg: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(g.join("projects.json")).unwrap()).unwrap();
    assert_eq!(
        reg,
        serde_json::json!({"projects": {"/w/My Proj": "my-proj"}})
    );
    // Same root, same slug; another root with the same base name, the next.
    assert_eq!(project_temp_dir(&g, Path::new("/w/My Proj")), dir);
    assert_eq!(
        project_temp_dir(&g, Path::new("/v/my-proj")),
        g.join("tmp/my-proj-1")
    );
    assert!(!g.join("projects.json.lock").exists());
}

#[test]
fn a_lost_registry_is_rebuilt_from_the_markers() {
    let home = tempfile::tempdir().unwrap();
    let g = home.path().join(".gemini");
    project_temp_dir(&g, Path::new("/a/x"));
    project_temp_dir(&g, Path::new("/b/x"));
    std::fs::write(g.join("projects.json"), "not json").unwrap();
    assert_eq!(project_temp_dir(&g, Path::new("/b/x")), g.join("tmp/x-1"));
    assert_eq!(project_temp_dir(&g, Path::new("/a/x")), g.join("tmp/x"));
}

#[test]
fn a_slug_folder_another_process_marked_is_found_after_this_one_listed() {
    let home = tempfile::tempdir().unwrap();
    let g = home.path().join(".gemini");
    // This process lists the slug folders (and marks its own).
    project_temp_dir(&g, Path::new("/a/x"));
    project_temp_dir(&g, Path::new("/c/w"));
    // Another registers /b/zz under a name of its own, then loses its
    // registry entry (a write behind that never landed).
    std::thread::sleep(std::time::Duration::from_millis(20));
    for base in ["tmp", "history"] {
        let dir = g.join(base).join("custom");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".project_root"), "/b/zz").unwrap();
    }
    assert_eq!(
        project_temp_dir(&g, Path::new("/b/zz")),
        g.join("tmp/custom")
    );
    assert_eq!(project_temp_dir(&g, Path::new("/a/x")), g.join("tmp/x"));
}

#[test]
fn a_hash_folder_is_copied_into_an_empty_slug_folder() {
    let home = tempfile::tempdir().unwrap();
    let g = home.path().join(".gemini");
    let root = Path::new("/w/app");
    let old = g.join("tmp").join(project_hash(root));
    std::fs::create_dir_all(old.join("chats")).unwrap();
    std::fs::write(old.join("chats/session-1.json"), "{}").unwrap();
    let dir = project_temp_dir(&g, root);
    assert_eq!(dir, g.join("tmp/app"));
    assert_eq!(
        std::fs::read_to_string(dir.join("chats/session-1.json")).unwrap(),
        "{}"
    );
    assert!(
        old.join("chats/session-1.json").is_file(),
        "the old folder stays"
    );
    // Not again once the slug folder has content of its own.
    std::fs::remove_file(dir.join("chats/session-1.json")).unwrap();
    project_temp_dir(&g, root);
    assert!(!dir.join("chats/session-1.json").exists());
}

#[test]
fn a_stale_lock_is_broken_and_a_live_one_waited_for() {
    let home = tempfile::tempdir().unwrap();
    let g = home.path().join(".gemini");
    std::fs::create_dir_all(g.join("projects.json.lock")).unwrap();
    let old = SystemTime::now() - Duration::from_secs(60);
    let f = std::fs::File::open(g.join("projects.json.lock")).unwrap();
    f.set_modified(old).unwrap();
    assert_eq!(short_id(&g, Path::new("/w/a")).unwrap(), "a");
    assert!(!g.join("projects.json.lock").exists());
}
