//! Recording and reading sessions back.

use super::*;
use serde_json::json;

fn call_record(id: &str) -> ToolCallRecord {
    let parts = vec![Part::function_response(FunctionResponse {
        id: Some(id.into()),
        name: "read_file".into(),
        response: json!({"output": "A"}),
        ..FunctionResponse::default()
    })];
    ToolCallRecord {
        id: id.into(),
        name: "read_file".into(),
        args: json!({"file_path": "a.txt"}),
        result: serde_json::to_value(parts).unwrap(),
        status: "success".into(),
        timestamp: String::new(),
        result_display: None,
        extra: Default::default(),
    }
}

#[test]
fn records_resumes_and_rebuilds_history() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let mut rec = ChatRecorder::new(&chats, "12345678-aaaa", "hash");
    rec.record_user(&[Part::text("go")]);
    let model_parts = vec![
        Part::text("reading "),
        Part {
            thought: Some(true),
            ..Part::text("hm")
        },
    ];
    rec.record_model(
        &model_parts,
        vec![call_record("c1")],
        None,
        "gemini-2.5-flash",
    );
    rec.record_model(&[Part::text("done")], vec![], None, "gemini-2.5-flash");
    rec.sync();
    let name = rec
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        name.starts_with("session-") && name.ends_with("-12345678.json"),
        "{name}"
    );

    let found = find_session(&chats, "latest").unwrap();
    assert_eq!(found.record.session_id, "12345678-aaaa");
    assert_eq!(find_session(&chats, "1").unwrap().path, found.path);
    assert_eq!(find_session(&chats, "1234").unwrap().path, found.path);
    assert!(matches!(
        find_session(&chats, "9"),
        Err(SessionError::NotFound(_))
    ));

    let history = history_of(&found.record);
    let roles: Vec<&str> = history.iter().map(|c| c.role.as_deref().unwrap()).collect();
    assert_eq!(roles, ["user", "model", "user", "model"]);
    assert_eq!(history[1].parts[0].text.as_deref(), Some("reading "));
    assert_eq!(
        history[1].parts[1].function_call.as_ref().unwrap().name,
        "read_file"
    );
    assert_eq!(
        history[2].parts[0]
            .function_response
            .as_ref()
            .unwrap()
            .response,
        json!({"output": "A"})
    );

    delete_session(&chats, "latest").unwrap();
    assert!(matches!(
        find_session(&chats, "latest"),
        Err(SessionError::NoSessions)
    ));
}

#[test]
fn files_written_by_others_keep_unknown_fields() {
    let text = r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main",
        "messages":[{"id":"1","timestamp":"t","type":"user","content":[{"text":"hi"}],"displayContent":"x"}]}"#;
    let rec: ConversationRecord = serde_json::from_str(text).unwrap();
    let back = serde_json::to_value(&rec).unwrap();
    assert_eq!(back["kind"], "main");
    assert_eq!(back["messages"][0]["displayContent"], "x");
    assert_eq!(history_of(&rec)[0].parts[0].text.as_deref(), Some("hi"));
}

#[test]
fn appends_keep_the_file_equal_to_the_record_and_survive_a_torn_write() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let mut rec = ChatRecorder::new(&chats, "abcdefgh-1", "hash");
    rec.record_user(&[Part::text("line one\nline two \"quoted\"")]);
    for i in 0..5 {
        rec.record_model(
            &[Part::text(format!("turn {i}"))],
            vec![call_record(&format!("c{i}"))],
            None,
            "m",
        );
    }
    let written = rec.sync().unwrap();
    let text = std::fs::read_to_string(rec.path()).unwrap();
    let on_disk: ConversationRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(on_disk, written);

    // A kill mid-append leaves a torn last message: the others survive.
    let cut = text.rfind("\"turn 4\"").unwrap();
    std::fs::write(rec.path(), &text[..cut]).unwrap();
    let found = find_session(&chats, "latest").unwrap();
    assert_eq!(found.record.messages.len(), 5);
    assert_eq!(found.record.messages[4].content, json!("turn 3"));

    // Resuming it rewrites the file whole, then appends again.
    let mut resumed = ChatRecorder::resume(found.path.clone(), found.record);
    resumed.record_user(&[Part::text("again")]);
    resumed.record_note("info", "note");
    let resumed_record = resumed.sync().unwrap();
    let back: ConversationRecord =
        serde_json::from_str(&std::fs::read_to_string(&found.path).unwrap()).unwrap();
    assert_eq!(back, resumed_record);
    assert_eq!(back.messages.len(), 7);
}

#[test]
fn an_upstream_layout_file_is_resumed_and_extended() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    let path = chats.join("session-2025-01-01T00-00-s.json");
    std::fs::write(
        &path,
        r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","kind":"main",
        "messages":[{"id":"1","timestamp":"t","type":"user","content":[{"text":"hi"}]}]}"#,
    )
    .unwrap();
    let found = find_session(&chats, "s").unwrap();
    let mut rec = ChatRecorder::resume(found.path, found.record);
    rec.record_model(&[Part::text("hello")], vec![], None, "m");
    rec.record_user(&[Part::text("more")]);
    rec.sync();
    let back: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(back["kind"], "main");
    assert_eq!(back["messages"].as_array().unwrap().len(), 3);
    assert_eq!(back["messages"][1]["content"], "hello");
}
