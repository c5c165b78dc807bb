//! The terminal UI as a new user meets it: the project-hooks warning, shell
//! mode's prompt, a tool's time without the wait for approval, and themes.

use crate::e2e::{call, lines, turn};
use crate::tui::{Tmux, ui_sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::json;

#[test]
fn project_hooks_are_announced_as_a_warning() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let mut settings: serde_json::Value =
        serde_json::from_str(&sb.read(".gemini/settings.json").unwrap()).unwrap();
    settings["hooks"] = json!({"BeforeTool": [{"hooks": [{"type": "command", "command": "echo from-the-project"}]}]});
    sb.write(".gemini/settings.json", &settings.to_string());
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": "unused"}]))]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    let s = t.wait_for("mode: default", 20);
    assert!(
        s.contains("⚠ The following project-level hooks have been detected"),
        "{s}"
    );
    assert!(s.contains("echo from-the-project"), "{s}");
}

#[test]
fn shell_mode_prompt_and_a_tool_time_without_the_approval_wait() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let responses = lines(&[
        call("run_shell_command", json!({"command": "echo approved"})),
        turn(json!([{"text": "Ran it."}])),
    ]);
    let fake = FakeServer::replaying(&responses);
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("!ls");
    let s = t.wait_for("! ls", 10);
    assert!(!s.contains("! !ls"), "{s}");
    t.keys(&["C-u"]);
    t.type_text("run it");
    t.keys(&["Enter"]);
    t.wait_for("Allow execution", 20);
    std::thread::sleep(std::time::Duration::from_millis(2500));
    t.keys(&["Enter"]);
    let s = t.wait_for("Ran it.", 20);
    let card = s
        .lines()
        .find(|l| l.contains("run_shell_command echo approved"))
        .unwrap_or_default()
        .to_string();
    assert!(
        card.contains("done") && card.contains("ms"),
        "timed without the wait: {card}\n{s}"
    );
}

fn with_theme(sb: &crate::support::Sandbox, theme: &str) {
    let path = sb.home.join(".gemini/settings.json");
    let mut settings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    settings["ui"] = json!({"theme": theme});
    std::fs::write(&path, settings.to_string()).unwrap();
}

const CODE_ANSWER: &str = "Here:\n\n```rust\nfn main() {}\n```\n";

#[test]
fn a_light_theme_colours_code_and_theme_switches_and_is_kept() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    with_theme(&sb, "github light");
    let fake = FakeServer::replaying(&lines(&[
        turn(json!([{"text": CODE_ANSWER}])),
        turn(json!([{"text": CODE_ANSWER}])),
    ]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 45);
    t.wait_for("mode: default", 20);
    t.type_text("show code");
    t.keys(&["Enter"]);
    t.wait_for("fn main", 20);
    // GitHub Light's blue (#444488) for the keyword.
    let s = t.screen_ansi();
    assert!(s.contains("38;2;68;68;136"), "{s}");
    let user_theme = || {
        let settings: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(sb.home.join(".gemini/settings.json")).unwrap(),
        )
        .unwrap();
        settings["ui"]["theme"].clone()
    };
    // `/theme` opens the picker on the theme in use; the arrows preview
    // (Dracula, two above GitHub Light: its blue #8BE9FD), Esc cancels.
    t.type_text("/theme");
    t.keys(&["Enter"]);
    let s = t.wait_for("Select Theme", 20);
    assert!(s.contains("● 10. GitHub Light"), "{s}");
    t.keys(&["Up", "Up"]);
    t.wait_for("●  8. Dracula", 10);
    let s = t.screen_ansi();
    assert!(s.contains("38;2;139;233;253"), "{s}");
    t.keys(&["Escape"]);
    wait_gone(&t, "Select Theme");
    assert_eq!(user_theme(), "github light");
    // GitHub Light is back in use: the next answer's keyword is its blue.
    let blue = "38;2;68;68;136";
    let before = t.screen_ansi().matches(blue).count();
    t.type_text("show code again");
    t.keys(&["Enter"]);
    for _ in 0..200 {
        if t.screen_ansi().matches(blue).count() > before {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        t.screen_ansi().matches(blue).count() > before,
        "{}",
        t.screen_ansi()
    );
    // Enter keeps the one under the cursor in ui.theme.
    t.type_text("/theme");
    t.keys(&["Enter"]);
    t.wait_for("● 10. GitHub Light", 20);
    t.keys(&["Up", "Up", "Enter"]);
    t.wait_for("Theme \"Dracula\" in use", 20);
    assert_eq!(user_theme(), "Dracula");
    // Tab picks the workspace file instead.
    t.type_text("/theme");
    t.keys(&["Enter"]);
    t.wait_for("●  8. Dracula", 20);
    t.keys(&["Tab"]);
    t.wait_for("Apply To", 10);
    t.keys(&["Down", "Enter"]);
    t.wait_for("(saved in Workspace Settings)", 10);
    t.keys(&["Down", "Enter"]);
    t.wait_for("Theme \"GitHub\" in use", 20);
    let workspace: serde_json::Value =
        serde_json::from_str(&sb.read(".gemini/settings.json").unwrap()).unwrap();
    assert_eq!(workspace["ui"]["theme"], "GitHub", "{workspace}");
    assert_eq!(user_theme(), "Dracula");
    // A name switches at once, as before.
    t.type_text("/theme Dracula");
    t.keys(&["Enter"]);
    t.wait_for("Theme \"Dracula\" in use, kept in", 20);
    t.type_text("/theme Monokai");
    t.keys(&["Enter"]);
    t.wait_for("Unknown theme \"Monokai\". Known themes: Default,", 20);
}

#[test]
fn an_unknown_theme_warns_and_no_color_has_no_colours() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    with_theme(&sb, "Solarised");
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": CODE_ANSWER}]))]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 120, 30);
    let s = t.wait_for("mode: default", 20);
    assert!(s.contains("Unknown theme \"Solarised\" in ui.theme"), "{s}");
    assert!(s.contains("Solarized Light"), "{s}");
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": CODE_ANSWER}]))]));
    let t = Tmux::start_env(&sb, &fake.base_url, &[], &[("NO_COLOR", "1")], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("show code");
    t.keys(&["Enter"]);
    t.wait_for("fn main", 20);
    let s = t.screen_ansi();
    assert!(!s.contains("38;2;") && !s.contains("38;5;"), "{s}");
}

/// Waits until the screen no longer shows `needle`.
fn wait_gone(t: &Tmux, needle: &str) {
    for _ in 0..100 {
        if !t.screen().contains(needle) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("{needle:?} stayed on screen:\n{}", t.screen());
}
