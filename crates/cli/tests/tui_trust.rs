//! Folder trust in the terminal: an untrusted folder gets the trust dialog
//! before anything of it runs; it lists what the folder brings, and the
//! answer is saved in `trustedFolders.json`; `/permissions trust` changes a
//! level from a session. Runs in tmux like `tui`.

use crate::e2e::{lines, text};
use crate::support::Sandbox;
use crate::tui::{Tmux, tmux_available};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::time::Duration;

/// A folder carrying settings (an MCP server, a SessionStart hook that
/// leaves `hook-ran.txt`), a command, a skill and an agent.
fn folder() -> Option<Sandbox> {
    if !tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return None;
    }
    let sb = Sandbox::new();
    let user = json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}
    });
    sb.write_home(".gemini/settings.json", &user.to_string());
    let hook = json!({"type": "command", "command": "touch hook-ran.txt"});
    let project = json!({
        "hooks": {"SessionStart": [{"hooks": [hook]}]},
        "mcpServers": {"dbserver": {"command": "does-not-exist"}},
        "ui": {"hideTips": true}
    });
    sb.write(".gemini/settings.json", &project.to_string());
    sb.write(".gemini/commands/git/commit.toml", "prompt = \"commit\"\n");
    sb.write(
        ".gemini/skills/review/SKILL.md",
        "---\nname: review\ndescription: r\n---\n",
    );
    sb.write(
        ".gemini/agents/helper.md",
        "---\nname: helper\ndescription: h\n---\nHelp.\n",
    );
    Some(sb)
}

/// Starts the UI with no trust variable, waiting for the dialog.
fn start(sb: &Sandbox, fake: &FakeServer) -> Tmux {
    let t = Tmux::start_env(
        sb,
        &fake.base_url,
        &[],
        &[("GEMINI_CLI_TRUST_WORKSPACE", "")],
        110,
        45,
    );
    let screen = t.wait_for("Do you trust the files in this folder?", 20);
    for item in [
        "MCP Servers (1):",
        "- dbserver",
        "Hooks (1):",
        "- SessionStart: touch hook-ran.txt",
        "Commands (1):",
        "- /git:commit",
        "Skills (1):",
        "- review",
        "Agents (1):",
        "- helper",
        "Setting overrides (1):",
        "- ui",
        "Trust folder (work)",
        "Trust parent folder (",
        "Don't trust",
    ] {
        assert!(screen.contains(item), "{item:?} missing:\n{screen}");
    }
    // Nothing of the folder ran while the dialog waits.
    std::thread::sleep(Duration::from_millis(300));
    assert!(sb.read("hook-ran.txt").is_none());
    t
}

fn rules(sb: &Sandbox) -> Value {
    let text = std::fs::read_to_string(sb.home.join(".gemini/trustedFolders.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn trusting_the_folder_saves_the_rule_and_loads_the_folder() {
    let Some(sb) = folder() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("Trusted answer.")]));
    let t = start(&sb, &fake);
    t.keys(&["Enter"]);
    t.wait_for("mode: default", 20);
    assert_eq!(rules(&sb)[sb.work.display().to_string()], "TRUST_FOLDER");
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while sb.read("hook-ran.txt").is_none() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        sb.read("hook-ran.txt").is_some(),
        "the project hook did not run"
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
    drop(t);
    // The next start asks no more.
    let again = Tmux::start_env(
        &sb,
        &fake.base_url,
        &[],
        &[("GEMINI_CLI_TRUST_WORKSPACE", "")],
        110,
        45,
    );
    let screen = again.wait_for("mode: default", 20);
    assert!(!screen.contains("Do you trust"), "{screen}");
    drop(again);
    // The README's first run: after "Trust folder" in the UI, its headless
    // command runs in that folder with no trust variable (no exit 55).
    let out = sb.run(
        &["-p", "explain this repo"],
        None,
        &[
            ("GEMINI_CLI_TRUST_WORKSPACE", ""),
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "Trusted answer.", "{out:?}");
}

#[test]
fn trusting_the_parent_saves_a_parent_rule() {
    let Some(sb) = folder() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("unused")]));
    let t = start(&sb, &fake);
    t.keys(&["Down"]);
    t.keys(&["Enter"]);
    t.wait_for("mode: default", 20);
    assert_eq!(rules(&sb)[sb.work.display().to_string()], "TRUST_PARENT");
}

#[test]
fn not_trusting_saves_the_refusal_and_runs_without_the_folder() {
    let Some(sb) = folder() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("Restricted answer.")]));
    let t = start(&sb, &fake);
    t.keys(&["3"]);
    t.wait_for("mode: default", 20);
    assert_eq!(rules(&sb)[sb.work.display().to_string()], "DO_NOT_TRUST");
    t.type_text("hello");
    t.keys(&["Enter"]);
    t.wait_for("Restricted answer.", 20);
    assert!(sb.read("hook-ran.txt").is_none(), "an untrusted hook ran");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn escape_leaves_without_a_decision() {
    let Some(sb) = folder() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("unused")]));
    let t = start(&sb, &fake);
    t.keys(&["Escape"]);
    t.wait_for("EXIT=130", 10);
    assert!(!sb.home.join(".gemini/trustedFolders.json").exists());
    assert!(sb.read("hook-ran.txt").is_none());
    assert!(fake.requests().is_empty());
}

#[test]
fn permissions_trust_changes_a_folders_level_from_the_session() {
    let Some(sb) = folder() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("unused")]));
    let t = start(&sb, &fake);
    t.keys(&["Enter"]);
    t.wait_for("mode: default", 20);
    std::fs::create_dir(sb.work.join("sub")).unwrap();
    let sub = std::fs::canonicalize(sb.work.join("sub")).unwrap();
    t.type_text("/permissions trust sub");
    t.keys(&["Enter"]);
    t.wait_for("Modify Trust Level", 10);
    t.wait_for("Now: trusted", 5);
    t.keys(&["3"]);
    t.wait_for("Saved the trust level of", 10);
    assert_eq!(rules(&sb)[sub.display().to_string()], "DO_NOT_TRUST");
    assert!(!t.screen().contains("Restart gemini-rs"), "{}", t.screen());
    // Its own folder: the session says to restart.
    t.type_text("/permissions trust");
    t.keys(&["Enter"]);
    t.wait_for("Trust parent folder (", 10);
    t.keys(&["Down", "Enter"]);
    t.wait_for("Restart gemini-rs to apply the trust change", 10);
    let work = std::fs::canonicalize(&sb.work).unwrap();
    assert_eq!(rules(&sb)[work.display().to_string()], "TRUST_PARENT");
    t.type_text("/permissions trust nope");
    t.keys(&["Enter"]);
    t.wait_for("Error accessing path:", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}
