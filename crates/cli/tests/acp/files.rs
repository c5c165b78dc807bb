//! Files through the client: `fs/read_text_file` and `fs/write_text_file`
//! when the client offers them, and the answers a client may send back.

use super::*;

#[test]
fn files_go_through_a_client_that_offers_them() {
    let sb = sandbox();
    let old = sb.work.join("old.txt");
    std::fs::write(&old, "on disk\n").unwrap();
    let responses = lines(&[
        call("read_file", json!({"file_path": "old.txt"})),
        call(
            "replace",
            json!({"file_path": "old.txt", "instruction": "Mark it saved.",
                "old_string": "unsaved", "new_string": "saved"}),
        ),
        call(
            "write_file",
            json!({"file_path": "n.txt", "content": "new\n"}),
        ),
        text("ok"),
    ]);
    let buffers = json!({old.to_str().unwrap(): "unsaved buffer\n"});
    let scenario =
        json!({"fs": true, "files": buffers, "permission": "allow_once", "prompts": ["edit"]});
    let Some(log) = run(&sb, "fs", &responses, scenario) else {
        return;
    };
    // read_file and replace saw the editor's buffer, not the disk.
    assert!(
        log["reads"].as_array().unwrap().contains(&json!(old)),
        "{log:#}"
    );
    let perms = log["permissions"].as_array().unwrap();
    assert_eq!(
        perms[0]["toolCall"]["content"][0]["oldText"], "unsaved buffer\n",
        "{perms:#?}"
    );
    let writes = log["writes"].as_array().unwrap();
    assert_eq!(writes.len(), 2, "{log:#}");
    assert_eq!(writes[0]["path"], json!(old));
    assert_eq!(writes[0]["content"], "saved buffer\n");
    // A file the editor does not know is created through it.
    assert_eq!(writes[1]["path"], json!(sb.work.join("n.txt")));
    assert_eq!(writes[1]["content"], "new\n");
    // Nothing on disk: the editor owns the files.
    assert!(sb.read("n.txt").is_none());
    assert_eq!(sb.read("old.txt").as_deref(), Some("on disk\n"));
    let done = updates(&log, "tool_call_update")
        .into_iter()
        .filter(|u| u["status"] == "completed")
        .count();
    assert_eq!(done, 3, "{log:#}");
}

/// Issue 41.4: a client that answers `fs/write_text_file` with
/// `"result": null` (all of the answer's fields are optional; Gemini CLI
/// accepts it) gets its write done, and the prompt ends.
#[test]
fn a_null_answer_to_a_write_is_an_empty_answer() {
    let sb = sandbox();
    let scenario = json!({"fs": true, "writeAnswer": "null", "permission": "allow_once",
        "prompts": ["write n.txt"]});
    let Some(log) = run(&sb, "fs-null", &write_session(), scenario) else {
        return;
    };
    assert_eq!(
        log["answers"]["prompts"],
        json!([{"stopReason": "end_turn"}]),
        "{log:#}"
    );
    assert_eq!(log["writes"].as_array().unwrap().len(), 1, "{log:#}");
    let done = updates(&log, "tool_call_update")
        .into_iter()
        .filter(|u| u["status"] == "completed")
        .count();
    assert_eq!(done, 1, "{log:#}");
}
