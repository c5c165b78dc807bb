//! Habits of Gemini CLI 0.61 in the terminal UI: `/chat share` to
//! Markdown and JSON, and `/copy` of a resumed session's last answer.

use crate::e2e::{lines, turn};
use crate::tui::{Tmux, ui_sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

#[test]
fn chat_share_writes_markdown_and_json_as_gemini_cli_does() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": "Shared answer."}]))]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 120, 40);
    t.wait_for("mode: default", 20);
    t.type_text("/chat share nothing.md");
    t.keys(&["Enter"]);
    t.wait_for("No conversation found to share.", 10);
    t.type_text("hello there");
    t.keys(&["Enter"]);
    t.wait_for("Shared answer.", 20);
    t.type_text("/chat share out/conv.md");
    t.keys(&["Enter"]);
    let s = t.wait_for("Conversation shared to", 10);
    let md_path = sb.work.join("out/conv.md");
    assert!(s.contains("conv.md"), "{s}");
    let md = std::fs::read_to_string(&md_path).unwrap();
    assert!(
        md.starts_with("## USER \u{1F9D1}\u{200D}\u{1F4BB}\n\n"),
        "{md}"
    );
    assert!(md.contains("hello there"), "{md}");
    assert!(
        md.ends_with("\n\n---\n\n## MODEL \u{2728}\n\nShared answer."),
        "{md}"
    );
    t.type_text("/chat share conv.json");
    t.keys(&["Enter"]);
    let json_path = sb.work.join("conv.json");
    for _ in 0..100 {
        if json_path.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let history: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    let last = history.as_array().and_then(|h| h.last()).cloned().unwrap();
    assert_eq!(last["role"], "model");
    assert_eq!(last["parts"][0]["text"], "Shared answer.");
    t.type_text("/chat share conv.txt");
    t.keys(&["Enter"]);
    t.wait_for("Invalid file format. Only .md and .json are supported.", 10);
}

#[test]
fn copy_after_a_resume_copies_the_resumed_last_answer() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": "Answer to keep."}]))]));
    let out = sb.run(
        &["-p", "first"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let t = Tmux::start(&sb, &fake.base_url, &["--resume", "latest"], 120, 40);
    t.wait_for("Answer to keep.", 20);
    t.wait_for("mode: default", 20);
    t.type_text("/copy");
    t.keys(&["Enter"]);
    let s = t.wait_for("Last answer copied", 10);
    assert!(!s.contains("No output in history to copy."), "{s}");
}
