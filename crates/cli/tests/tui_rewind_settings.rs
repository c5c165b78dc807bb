//! Issue 27 item 5 in part and issue 42 item 7: `/rewind` of a file edit
//! (the file is back as it was, from the recorded edits with or without
//! checkpointing, and the conversation is cut before the prompt and drawn
//! again) and `/settings`
//! changing a user and a workspace value on disk (every key the settings
//! schema marks editable is offered). Runs in tmux like `tui`.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use crate::tui::{Tmux, tmux_available};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

fn sandbox(settings: Value) -> Option<Sandbox> {
    if !tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return None;
    }
    let sb = Sandbox::new();
    sb.settings(&settings);
    Some(sb)
}

fn base() -> Value {
    json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}
    })
}

fn texts(request: &Value) -> Vec<String> {
    request["contents"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["parts"].as_array().cloned().unwrap_or_default())
        .map(|p| p.to_string())
        .collect()
}

/// Without checkpointing, as Gemini CLI 0.61: the file edits come back
/// from the session's record of them (a file written by a shell command
/// stays, as the dialog says), and the rewound turns leave the screen.
#[test]
fn rewind_reverts_recorded_edits_and_redraws_the_conversation() {
    let Some(sb) = sandbox(base()) else {
        return;
    };
    sb.write("notes.txt", "original\n");
    let fake = FakeServer::replaying(&lines(&[
        text("Hello there."),
        call(
            "write_file",
            json!({"file_path": "notes.txt", "content": "changed by the model\n"}),
        ),
        call(
            "write_file",
            json!({"file_path": "later.txt", "content": "by the model\n"}),
        ),
        call(
            "run_shell_command",
            json!({"command": "echo by the shell > shell.txt"}),
        ),
        text("Edited the notes."),
        text("Fresh answer."),
    ]));
    let t = Tmux::start(&sb, &fake.base_url, &["--approval-mode", "yolo"], 100, 40);
    t.wait_for("mode: YOLO", 20);
    t.type_text("say hello");
    t.keys(&["Enter"]);
    t.wait_for("Hello there.", 20);
    t.type_text("edit the notes");
    t.keys(&["Enter"]);
    t.wait_for("Edited the notes.", 20);
    assert_eq!(
        sb.read("notes.txt").as_deref(),
        Some("changed by the model\n")
    );
    assert_eq!(sb.read("shell.txt").as_deref(), Some("by the shell\n"));
    // A file the model made, changed since by hand, is left as it is.
    sb.write("later.txt", "by hand\n");
    // Esc twice on the empty prompt opens the same dialog; Esc closes it.
    t.keys(&["Escape"]);
    std::thread::sleep(std::time::Duration::from_millis(100));
    t.keys(&["Escape"]);
    t.wait_for("Go back to before one of your prompts", 10);
    t.keys(&["Escape"]);
    wait_until(&t, |s| !s.contains("Go back to before"));
    t.type_text("/rewind");
    t.keys(&["Enter"]);
    // Only the dialog says so (the completion of "/rewi" shows the
    // command's help, which has the dialog's title in it).
    let list = t.wait_for("No files have been changed", 10);
    assert!(
        list.contains("say hello") && list.contains("edit the notes"),
        "{list}"
    );
    assert!(list.contains("2 files changed +2 -1"), "{list}");
    assert!(list.contains("No files have been changed"), "{list}");
    t.keys(&["Enter"]);
    let confirm = t.wait_for("Confirm Rewind", 10);
    for shown in [
        "2 files affected",
        "Lines added: 2 Lines removed: 1",
        "Rewinding does not affect files edited manually or by the shell tool.",
        "1. Rewind conversation and revert code changes",
        "3. Revert code changes",
    ] {
        assert!(confirm.contains(shown), "{shown}: {confirm}");
    }
    t.keys(&["Enter"]);
    // The screen shows the conversation as it now is: the first exchange,
    // not the rewound one; the prompt is back in the input line.
    let s = wait_until(&t, |s| {
        !s.contains("Edited the notes.") && !s.contains("Confirm Rewind")
    });
    assert!(s.contains("Hello there.") && s.contains("say hello"), "{s}");
    assert!(
        s.lines()
            .any(|l| l.starts_with('>') && l.contains("edit the notes")),
        "{s}"
    );
    assert_eq!(sb.read("notes.txt").as_deref(), Some("original\n"));
    assert_eq!(sb.read("shell.txt").as_deref(), Some("by the shell\n"));
    assert_eq!(sb.read("later.txt").as_deref(), Some("by hand\n"));
    // The warning shows under the redrawn conversation.
    t.wait_for("Smart revert for later.txt failed.", 10);
    // Send another prompt instead.
    t.keys(&["C-u"]);
    t.type_text("something else");
    t.keys(&["Enter"]);
    t.wait_for("Fresh answer.", 20);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
    let requests = fake.requests();
    let last = texts(&requests.last().unwrap().body);
    let all = last.join("\n");
    assert!(
        all.contains("say hello") && all.contains("Hello there."),
        "{all}"
    );
    assert!(all.contains("something else"), "{all}");
    assert!(
        !all.contains("edit the notes") && !all.contains("write_file"),
        "{all}"
    );
}

/// "Revert code changes" alone puts the files back and keeps the
/// conversation on screen and in the history.
#[test]
fn rewind_can_revert_the_files_only() {
    let mut settings = base();
    settings["general"] = json!({"checkpointing": {"enabled": true}});
    let Some(sb) = sandbox(settings) else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[
        call(
            "write_file",
            json!({"file_path": "made.txt", "content": "new file\n"}),
        ),
        text("Made it."),
    ]));
    let t = Tmux::start(
        &sb,
        &fake.base_url,
        &["--approval-mode", "auto_edit"],
        100,
        40,
    );
    t.wait_for("mode: auto_edit", 20);
    t.type_text("make a file");
    t.keys(&["Enter"]);
    t.wait_for("Made it.", 20);
    assert_eq!(sb.read("made.txt").as_deref(), Some("new file\n"));
    t.type_text("/rewind");
    t.keys(&["Enter"]);
    t.wait_for("1 file changed +1 -0", 10);
    t.keys(&["Enter"]);
    t.wait_for("3. Revert code changes", 10);
    t.keys(&["Down", "Down", "Enter"]);
    let s = t.wait_for("File changes reverted.", 20);
    assert!(s.contains("Made it."), "{s}");
    assert_eq!(sb.read("made.txt"), None, "the file the model made is gone");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

/// Waits until the screen passes `ok`; the screen.
fn wait_until(t: &Tmux, ok: impl Fn(&str) -> bool) -> String {
    for _ in 0..200 {
        let s = t.screen();
        if ok(&s) {
            return s;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the screen never changed as expected:\n{}", t.screen());
}

#[test]
fn settings_changes_a_user_and_a_workspace_value() {
    let Some(sb) = sandbox(base()) else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("unused")]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 110, 40);
    t.wait_for("mode: default", 20);
    t.type_text("/settings");
    t.keys(&["Enter"]);
    t.wait_for("Apply to: ● User Settings", 10);
    // Every key the schema marks editable is offered, not a hand list:
    // vim mode and the screen reader were not in the editor before.
    t.wait_for("Vim key bindings", 10);
    t.wait_for("Screen reader mode", 10);
    // User scope: switch checkpoints on, then vim mode.
    t.keys(&["Down", "Enter"]);
    t.wait_for("Saved general.checkpointing.enabled = true", 10);
    t.keys(&["Down", "Enter"]);
    t.wait_for("Saved general.vimMode = true", 10);
    // Workspace scope: type a number of turns (the rows after vim mode:
    // editor, plans folder, model, max session turns).
    t.keys(&["Tab"]);
    t.wait_for("● Workspace Settings", 10);
    t.keys(&["Down", "Down", "Down", "Down", "Enter"]);
    t.type_text("25");
    t.keys(&["Enter"]);
    t.wait_for("Saved model.maxSessionTurns = 25", 10);
    t.keys(&["Escape"]);
    t.wait_for("Type your message", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
    // Each file got its own change and kept the rest.
    let user: Value = serde_json::from_str(
        &std::fs::read_to_string(sb.home.join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(user["general"]["checkpointing"]["enabled"], json!(true));
    assert_eq!(user["general"]["vimMode"], json!(true));
    assert_eq!(user["model"]["name"], "gemini-2.5-flash");
    assert!(user["model"].get("maxSessionTurns").is_none(), "{user}");
    assert!(
        !sb.read(".gemini/settings.json")
            .unwrap()
            .contains("checkpointing"),
        "the workspace file did not change scope"
    );
    let workspace: Value = serde_json::from_str(
        &sb.read(".gemini/settings.json")
            .expect("workspace settings"),
    )
    .unwrap();
    assert_eq!(workspace["model"]["maxSessionTurns"], json!(25));
    assert_eq!(workspace["model"]["name"], "gemini-2.5-flash");
    assert_eq!(
        workspace["security"]["auth"]["selectedType"],
        "gemini-api-key"
    );
}
