//! Issue 27 item 5 in part: `/rewind` of a file edit (the file is back as
//! it was and the conversation is cut before the prompt) and `/settings`
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

#[test]
fn rewind_restores_the_file_and_cuts_the_conversation() {
    let mut settings = base();
    settings["general"] = json!({"checkpointing": {"enabled": true}});
    let Some(sb) = sandbox(settings) else {
        return;
    };
    sb.write("notes.txt", "original\n");
    let fake = FakeServer::replaying(&lines(&[
        text("Hello there."),
        call(
            "write_file",
            json!({"file_path": "notes.txt", "content": "changed by the model\n"}),
        ),
        text("Edited."),
        text("Fresh answer."),
    ]));
    let t = Tmux::start(
        &sb,
        &fake.base_url,
        &["--approval-mode", "auto_edit"],
        100,
        30,
    );
    t.wait_for("mode: auto_edit", 20);
    t.type_text("say hello");
    t.keys(&["Enter"]);
    t.wait_for("Hello there.", 20);
    t.type_text("edit the notes");
    t.keys(&["Enter"]);
    t.wait_for("Edited.", 20);
    assert_eq!(
        sb.read("notes.txt").as_deref(),
        Some("changed by the model\n")
    );
    // Esc twice on the empty prompt opens the same dialog; Esc closes it.
    t.keys(&["Escape"]);
    std::thread::sleep(std::time::Duration::from_millis(100));
    t.keys(&["Escape"]);
    t.wait_for("Go back to before one of your prompts", 10);
    t.keys(&["Escape"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!t.screen().contains("Go back to before"), "{}", t.screen());
    t.type_text("/rewind");
    t.keys(&["Enter"]);
    let list = t.wait_for("Go back to before one of your prompts", 10);
    assert!(
        list.contains("say hello") && list.contains("edit the notes"),
        "{list}"
    );
    t.keys(&["Enter"]);
    t.wait_for("Confirm Rewind", 10);
    t.keys(&["Enter"]);
    t.wait_for("Rewound the conversation", 20);
    t.wait_for("Reverted the files", 10);
    assert_eq!(sb.read("notes.txt").as_deref(), Some("original\n"));
    // The prompt is back in the input line; send another one instead.
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
