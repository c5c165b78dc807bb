//! Recording and reading sessions back.

use super::*;
use gemini_rs_protocol::FunctionResponse;
use serde_json::json;

/// A finished call's data, owned for the test (the agent lends its own).
struct Call {
    id: String,
    args: Value,
    parts: Vec<Part>,
    display: gemini_rs_protocol::events::ToolDisplay,
    display_name: Option<&'static str>,
    description: Option<&'static str>,
}

impl Call {
    fn lent(&self) -> FinishedCall<'_> {
        FinishedCall {
            id: &self.id,
            name: "read_file",
            args: &self.args,
            parts: &self.parts,
            status: "success",
            display: &self.display,
            display_name: self.display_name,
            description: self.description,
            markdown: true,
        }
    }
}

fn call_record(id: &str) -> Call {
    let parts = vec![Part::function_response(FunctionResponse {
        id: Some(id.into()),
        name: "read_file".into(),
        response: json!({"output": "A"}),
        ..FunctionResponse::default()
    })];
    Call {
        id: id.into(),
        args: json!({"file_path": "a.txt"}),
        parts,
        display: gemini_rs_protocol::events::ToolDisplay::Text("A".into()),
        display_name: Some("ReadFile"),
        description: Some("a.txt"),
    }
}

fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn records_resumes_and_rebuilds_history() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let recorder = ChatRecorder::new(&chats, "12345678-aaaa", "hash");
    let rec = recorder.recording();
    rec.sync();
    assert!(
        !recorder.path().exists(),
        "no file before the first message"
    );
    rec.record_user(&[Part::text("go")]);
    let model_parts = vec![
        Part::text("reading "),
        Part {
            thought: Some(true),
            ..Part::text("**Plan** read it")
        },
    ];
    let usage = UsageMetadata {
        prompt_token_count: Some(10),
        candidates_token_count: Some(2),
        thoughts_token_count: Some(3),
        total_token_count: Some(15),
        ..UsageMetadata::default()
    };
    rec.record_model(&model_parts, Some(&usage), "gemini-2.5-flash", None);
    rec.record_tool_calls(&[call_record("c1").lent()]);
    rec.record_model(&[Part::text("done")], None, "gemini-2.5-flash", None);
    rec.sync();
    let name = recorder
        .path()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        name.starts_with("session-") && name.ends_with("-12345678.jsonl"),
        "{name}"
    );

    // The lines: metadata, then messages each followed by a lastUpdated
    // update, the model message twice (the second with its calls).
    let all = lines(recorder.path());
    assert_eq!(all[0]["sessionId"], "12345678-aaaa");
    assert_eq!(all[0]["projectHash"], "hash");
    assert_eq!(all[0]["kind"], "main");
    let msgs: Vec<&Value> = all.iter().filter(|l| l.get("id").is_some()).collect();
    let kinds: Vec<&str> = msgs.iter().map(|m| m["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["user", "gemini", "gemini", "user", "gemini"]);
    assert_eq!(msgs[1]["id"], msgs[2]["id"]);
    assert!(msgs[1].get("toolCalls").is_none());
    assert_eq!(msgs[2]["toolCalls"][0]["name"], "read_file");
    assert_eq!(msgs[2]["thoughts"][0]["subject"], "Plan");
    assert_eq!(msgs[2]["thoughts"][0]["description"], "read it");
    assert_eq!(
        msgs[2]["tokens"],
        json!({"input": 10, "output": 2, "cached": 0, "thoughts": 3, "tool": 0, "total": 15})
    );
    assert_eq!(msgs[2]["model"], "gemini-2.5-flash");
    assert!(msgs[3]["content"][0]["functionResponse"].is_object());
    assert!(all.iter().any(|l| l["$set"]["lastUpdated"].is_string()));

    let found = find_session(&chats, "latest").unwrap();
    assert_eq!(found.record.session_id, "12345678-aaaa");
    assert_eq!(
        found.record.messages.len(),
        4,
        "the update replaced the message"
    );
    assert_eq!(find_session(&chats, "1").unwrap().path, found.path);
    assert_eq!(find_session(&chats, "1234").unwrap().path, found.path);
    assert!(matches!(
        find_session(&chats, "9"),
        Err(SessionError::NotFound(_))
    ));

    let history = history_of(&found.record);
    let roles: Vec<&str> = history.iter().map(|c| c.role.as_deref().unwrap()).collect();
    assert_eq!(roles, ["user", "model", "user", "model"]);
    assert_eq!(
        history[1].parts[0].text.as_deref(),
        Some("**Plan** read it")
    );
    assert!(history[1].parts[0].is_thought());
    assert_eq!(history[1].parts[1].text.as_deref(), Some("reading "));
    assert_eq!(
        history[1].parts[2].function_call.as_ref().unwrap().name,
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

/// A file as Gemini CLI 0.61 writes it: metadata, a `$set` of the whole
/// message list, updates by id, a rewind and a torn last line.
const UPSTREAM_JSONL: &str = r#"{"sessionId":"s-0.61","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z","kind":"main"}
{"$set":{"messages":[{"id":"ctx","timestamp":"t","type":"user","content":[{"text":"<session_context>\nenv\n</session_context>"}]}],"lastUpdated":"t"}}
{"id":"u1","timestamp":"t","type":"user","content":[{"text":"read a.txt"}]}
{"$set":{"lastUpdated":"t"}}
{"id":"g1","timestamp":"t","type":"gemini","content":"","thoughts":[{"subject":"","description":"think","timestamp":"t"}],"tokens":{"input":1,"output":1,"cached":0,"thoughts":0,"tool":0,"total":2},"model":"m"}
{"id":"g1","timestamp":"t","type":"gemini","content":"","thoughts":[{"subject":"","description":"think","timestamp":"t"}],"tokens":{"input":1,"output":1,"cached":0,"thoughts":0,"tool":0,"total":2},"model":"m","toolCalls":[{"id":"c1","name":"read_file","args":{"file_path":"a.txt"},"result":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"A"}}}],"status":"success","timestamp":"t"}]}
{"id":"r1","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c1","name":"read_file","response":{"output":"A"}}}]}
{"id":"g2","timestamp":"t","type":"gemini","content":"It says A.","thoughts":[],"tokens":null,"model":"m"}
{"id":"u2","timestamp":"t","type":"user","content":[{"text":"oops"}]}
{"$rewindTo":"u2"}
{"$set":{"lastUpdated":"2026-01-01T00:05:00.000Z","summary":"Reading a file"}}
{"id":"g3","timestamp":"t","type":"gem"#;

#[test]
fn an_upstream_jsonl_file_is_read_as_gemini_cli_reads_it() {
    let rec = read_session(UPSTREAM_JSONL).unwrap();
    assert_eq!(rec.session_id, "s-0.61");
    assert_eq!(rec.last_updated, "2026-01-01T00:05:00.000Z");
    assert_eq!(rec.extra["summary"], "Reading a file");
    let ids: Vec<&str> = rec.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["ctx", "u1", "g1", "r1", "g2"]);
    let history = history_of(&rec);
    let shape: Vec<String> = history
        .iter()
        .map(|c| {
            let kinds: Vec<&str> = c
                .parts
                .iter()
                .map(|p| {
                    if p.is_thought() {
                        "thought"
                    } else if p.function_call.is_some() {
                        "call"
                    } else if p.function_response.is_some() {
                        "response"
                    } else {
                        "text"
                    }
                })
                .collect();
            format!("{}:{}", c.role.as_deref().unwrap(), kinds.join(","))
        })
        .collect();
    assert_eq!(
        shape,
        [
            "user:text",
            "model:thought,call",
            "user:response",
            "model:text"
        ]
    );
}

#[test]
fn a_legacy_file_is_carried_over_to_jsonl_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    std::fs::create_dir_all(&chats).unwrap();
    let path = chats.join("session-2025-01-01T00-00-abcdefgh.json");
    std::fs::write(
        &path,
        r#"{
  "sessionId": "abcdefgh-0.27",
  "projectHash": "h",
  "startTime": "2025-01-01T00:00:00.000Z",
  "lastUpdated": "2025-01-01T00:00:00.000Z",
  "messages": [
    {"id": "1", "timestamp": "t", "type": "user", "content": "hi"},
    {"id": "2", "timestamp": "t", "type": "gemini", "content": "hello"}
  ]
}"#,
    )
    .unwrap();
    let found = find_session(&chats, "abcdefgh-0.27").unwrap();
    let recorder = ChatRecorder::resume(SessionFormat::Jsonl, found.path, found.record, true, None);
    let rec = recorder.recording();
    assert_eq!(
        recorder.path(),
        chats.join("session-2025-01-01T00-00-abcdefgh.jsonl")
    );
    rec.record_user(&[Part::text("more")]);
    rec.sync();
    drop(recorder);
    assert!(path.is_file(), "the old file stays");
    let all = lines(&chats.join("session-2025-01-01T00-00-abcdefgh.jsonl"));
    assert_eq!(all[0]["sessionId"], "abcdefgh-0.27");
    assert_eq!(all.iter().filter(|l| l.get("id").is_some()).count(), 3);
    // Listed once (the newer file), and deleted together.
    let listed = list_sessions(&chats);
    assert_eq!(listed.len(), 1);
    assert!(listed[0].path.extension().unwrap() == "jsonl");
    assert_eq!(listed[0].record.messages.len(), 3);
    delete_session(&chats, "1").unwrap();
    assert_eq!(session_files(&chats).count(), 0);
}

#[test]
fn a_torn_last_line_is_skipped_and_ended_before_appending() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let recorder = ChatRecorder::new(&chats, "abcdefgh-1", "hash");
    let rec = recorder.recording();
    rec.record_user(&[Part::text("line one\nline two \"quoted\"")]);
    rec.record_model(&[Part::text("turn")], None, "m", None);
    rec.sync();
    let path = recorder.path().to_path_buf();
    drop(recorder);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}{{\"id\":\"torn\",\"ty")).unwrap();
    let found = find_session(&chats, "latest").unwrap();
    assert_eq!(found.record.messages.len(), 2);
    let resumed_recorder = ChatRecorder::resume(
        SessionFormat::Jsonl,
        found.path.clone(),
        found.record,
        true,
        None,
    );
    let resumed = resumed_recorder.recording();
    resumed.record_user(&[Part::text("again")]);
    resumed.sync();
    drop(resumed_recorder);
    let back = find_session(&chats, "latest").unwrap();
    assert_eq!(back.record.messages.len(), 3);
    assert_eq!(back.record.messages[2].content, json!([{"text": "again"}]));
}

#[test]
fn an_image_only_prompt_is_resumed_and_unanswered_responses_are_kept() {
    let msg = |id: &str, kind: &str, content: Value| {
        let mut m = MessageRecord::new(kind, content);
        m.id = id.into();
        m
    };
    let history = history_of_messages(&[
        msg(
            "1",
            "user",
            json!([{"inlineData": {"mimeType": "image/png", "data": "AA=="}}]),
        ),
        // A model message whose calls are only in its content: the user
        // message holding the responses is their only record.
        msg(
            "2",
            "gemini",
            json!([{"functionCall": {"id": "c9", "name": "glob", "args": {}}}]),
        ),
        msg(
            "3",
            "user",
            json!([{"functionResponse": {"id": "c9", "name": "glob", "response": {"output": "x"}}}]),
        ),
    ]);
    let roles: Vec<&str> = history.iter().map(|c| c.role.as_deref().unwrap()).collect();
    assert_eq!(roles, ["user", "model", "user"]);
    assert!(history[0].parts[0].inline_data.is_some());
}

#[test]
fn responses_recorded_twice_are_sent_once() {
    // What Gemini CLI 0.61 leaves after resuming a file: the calls only in
    // the content, the responses in two user messages.
    let rec = read_session(
        r#"{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t"}
{"$set":{"messages":[{"id":"u","timestamp":"t","type":"user","content":[{"text":"go"}]},{"id":"g","timestamp":"t","type":"gemini","content":[{"functionCall":{"id":"c","name":"glob","args":{}}}]},{"id":"g_response","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c","name":"glob","response":{"output":"x"}}}]},{"id":"r","timestamp":"t","type":"user","content":[{"functionResponse":{"id":"c","name":"glob","response":{"output":"x"}}}]},{"id":"a","timestamp":"t","type":"gemini","content":[{"text":"done"}]}]}}"#,
    )
    .unwrap();
    let history = history_of(&rec);
    let roles: Vec<&str> = history.iter().map(|c| c.role.as_deref().unwrap()).collect();
    assert_eq!(roles, ["user", "model", "user", "model"]);
}

/// Every message line the writer builds is `MessageRecord`'s own
/// serialisation, byte for byte: what the readers parse back and write
/// again is what was written.
#[test]
fn message_lines_are_the_records_serialisation() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let recorder = ChatRecorder::new(&chats, "bytes-1", "hash");
    let rec = recorder.recording();
    rec.record_user(&[Part::text("go \"quoted\"\nline")]);
    let thought = Part {
        thought: Some(true),
        ..Part::text("**Plan** read it")
    };
    let usage = UsageMetadata {
        prompt_token_count: Some(7),
        ..UsageMetadata::default()
    };
    let logprobs = json!({"tokens": ["a"], "logprobs": [-0.5]});
    rec.record_model(
        &[Part::text("reading"), thought],
        Some(&usage),
        "m",
        Some(logprobs),
    );
    let mut diff = call_record("c2");
    diff.display =
        gemini_rs_protocol::events::ToolDisplay::FileDiff(gemini_rs_protocol::events::FileDiff {
            file_diff: "@@".into(),
            file_name: "a.txt".into(),
            file_path: "/w/a.txt".into(),
            original_content: None,
            new_content: "B".into(),
        });
    diff.display_name = None;
    diff.description = None;
    let (c1, c3) = (call_record("c1"), call_record("c3"));
    rec.record_tool_calls(&[c1.lent(), diff.lent()]);
    rec.record_tool_calls(&[c3.lent()]);
    rec.record_note("info", "noted");
    rec.record_model(&[Part::text("done")], None, "m", None);
    let path = recorder.path().to_path_buf();
    drop(recorder);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut messages = 0;
    for line in text.lines().skip(1).filter(|l| l.contains("\"id\":")) {
        let record: MessageRecord = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_string(&record).unwrap(), line);
        messages += 1;
    }
    // user, model, model+calls, responses, bare model+call, responses,
    // note, model.
    assert_eq!(messages, 8, "{text}");
    let all = lines(&path);
    let calls = &all.iter().find(|l| l.get("toolCalls").is_some()).unwrap();
    assert_eq!(calls["toolCalls"][0]["resultDisplay"], "A");
    assert_eq!(calls["toolCalls"][0]["displayName"], "ReadFile");
    assert_eq!(
        calls["toolCalls"][1]["resultDisplay"],
        json!({"fileDiff": "@@", "fileName": "a.txt"})
    );
    assert_eq!(calls["logprobs"]["tokens"][0], "a");
    assert_eq!(calls["thoughts"][0]["timestamp"], calls["timestamp"]);
}

/// Closing writes what was handed over; a handle kept after it records
/// nothing and never blocks.
#[test]
fn closing_writes_everything_and_later_records_go_nowhere() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let mut recorder = ChatRecorder::new(&chats, "close-1", "hash");
    recorder.set_synchronous(true);
    let rec = recorder.recording();
    for i in 0..50 {
        rec.record_user(&[Part::text(format!("m{i}"))]);
    }
    recorder.close();
    rec.record_user(&[Part::text("late")]);
    assert!(rec.sync().is_none());
    let found = find_session(&chats, "latest").unwrap();
    assert_eq!(found.record.messages.len(), 50);
}

/// The writer's ids and times keep the forms Gemini CLI writes: distinct
/// lowercase version-4 uuids, ISO times with milliseconds and `Z`; and the
/// `lastUpdated` line is the `$set` record readers merge.
#[test]
fn ids_times_and_the_last_updated_line_keep_their_forms() {
    let ids: std::collections::HashSet<String> = (0..20_000).map(|_| lines::new_id()).collect();
    assert_eq!(ids.len(), 20_000);
    for id in ids.iter().take(200) {
        let parsed = uuid::Uuid::parse_str(id).unwrap();
        assert_eq!(parsed.get_version_num(), 4, "{id}");
        assert_eq!(parsed.get_variant(), uuid::Variant::RFC4122, "{id}");
        assert_eq!(*id, parsed.hyphenated().to_string());
    }
    // Another thread draws from its own seed.
    let other = std::thread::spawn(lines::new_id).join().unwrap();
    assert!(!ids.contains(&other));

    let at = chrono::DateTime::from_timestamp(1_767_323_045, 678_901_234).unwrap();
    assert_eq!(lines::format_stamp(&at), "2026-01-02T03:04:05.678Z");
    let whole = chrono::DateTime::from_timestamp(1_767_323_045, 0).unwrap();
    assert_eq!(lines::format_stamp(&whole), "2026-01-02T03:04:05.000Z");
    // Across minutes, hours, days and years, on one thread and back.
    let times = [
        0,
        59_999,
        60_000,
        3_599_999,
        86_399_999,
        1_767_225_599_999,
        1_767_225_600_000,
    ];
    let times = times.map(|ms| chrono::DateTime::from_timestamp_millis(ms).unwrap());
    for at in [at, whole, chrono::Utc::now()]
        .into_iter()
        .chain(times)
        .chain([at])
    {
        let old = at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
        assert_eq!(lines::format_stamp(&at), old);
    }

    let mut line = b"before\n".to_vec();
    jsonl::last_updated_line(&mut line, "2026-01-02T03:04:05.678Z");
    assert_eq!(
        String::from_utf8(line).unwrap(),
        "before\n{\"$set\":{\"lastUpdated\":\"2026-01-02T03:04:05.678Z\"}}\n"
    );
    // Anything else is escaped.
    let mut line = Vec::new();
    jsonl::last_updated_line(&mut line, "a\"b");
    assert_eq!(line, b"{\"$set\":{\"lastUpdated\":\"a\\\"b\"}}\n");
}

/// Each line as 0.61 writes it: the context's `$set` before the first
/// message, each new message followed by a `lastUpdated` update, a model
/// message updated with its calls followed by the responses' message.
#[test]
fn lines_come_in_0_61s_order() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let recorder = ChatRecorder::new(&chats, "order-1", "hash");
    let rec = recorder.recording();
    rec.record_context("env");
    rec.sync();
    assert!(!recorder.path().exists(), "the context waits for a message");
    rec.record_user(&[Part::text("go")]);
    rec.record_model(&[], None, "m", None);
    rec.record_tool_calls(&[call_record("c1").lent()]);
    rec.record_model(&[Part::text("done")], None, "m", None);
    rec.sync();
    let kinds: Vec<String> = lines(recorder.path())
        .iter()
        .map(|l| match (l.get("$set"), l["type"].as_str()) {
            (Some(set), _) if set.get("messages").is_some() => "context".into(),
            (Some(_), _) => "set".into(),
            (None, Some(kind)) => kind.into(),
            (None, None) => "meta".into(),
        })
        .collect();
    let expected = "meta context user set gemini set gemini user set gemini set";
    assert_eq!(kinds.join(" "), expected);
    let all = lines(recorder.path());
    let opening = &all[1]["$set"]["messages"][0];
    assert_eq!(
        opening["content"][0]["text"],
        "<session_context>\nenv\n</session_context>"
    );
    assert_eq!(all[6]["toolCalls"][0]["renderOutputAsMarkdown"], true);
    let found = find_session(&chats, "latest").unwrap();
    assert_eq!(first_prompt(&found.record), "go");
    assert_eq!(
        history_of(&found.record)[0].parts[0].text.as_deref(),
        Some("go")
    );
}

/// The `0.27` dialect's file: one document, rewritten in place on resume.
#[test]
fn a_document_session_is_rewritten_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let chats = dir.path().join("chats");
    let format = SessionFormat::Document;
    let recorder = ChatRecorder::new_in(format, &chats, ("doc-1234", "h"), true, None);
    let rec = recorder.recording();
    rec.record_context("env");
    rec.record_user(&[Part::text("go")]);
    rec.record_model(&[Part::text("hi")], None, "m", None);
    let path = recorder.path().to_path_buf();
    drop(recorder);
    assert!(
        path.to_str().unwrap().ends_with("-doc-1234.json"),
        "{path:?}"
    );
    let found = find_session(&chats, "latest").unwrap();
    assert_eq!(found.record.messages.len(), 2, "no context recorded");
    let recorder = ChatRecorder::resume(format, found.path, found.record, true, None);
    recorder.recording().record_user(&[Part::text("more")]);
    drop(recorder);
    assert_eq!(session_files(&chats).count(), 1);
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let contents: Vec<&Value> = doc["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["content"])
        .collect();
    assert_eq!(contents, [&json!("go"), &json!("hi"), &json!("more")]);
}
