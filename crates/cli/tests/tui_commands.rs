//! Slash commands in the terminal: `/vim`, `/editor`, `/terminal-setup`,
//! `/policies`, `/extensions`, `/bug`, `/privacy`, `/docs` and `/commands`, each used as
//! a person would, in tmux like `tui`.

use crate::e2e::{call, lines, text, turn};
use crate::tui::{Tmux, ui_sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

fn user_settings(sb: &crate::support::Sandbox) -> Value {
    let text = std::fs::read_to_string(sb.home.join(".gemini/settings.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn vim_mode_edits_the_prompt_and_is_kept() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("Done.")]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("/vim");
    t.keys(&["Enter"]);
    t.wait_for("Vim mode on", 10);
    t.wait_for("[INSERT]", 10);
    t.type_text("hello small world");
    t.keys(&["Escape"]);
    t.wait_for("[NORMAL]", 10);
    // 0, w: on "small"; dw deletes it; i types in front of "world".
    t.type_text("0wdw");
    t.type_text("ibig ");
    t.wait_for("hello big world", 10);
    t.keys(&["Escape"]);
    // A key right behind Escape would arrive with it as Alt+key.
    t.wait_for("[NORMAL]", 10);
    t.type_text("x");
    t.keys(&["Enter"]);
    t.wait_for("Done.", 20);
    let body = fake.requests()[0].body.to_string();
    assert!(body.contains("hello bigworld"), "{body}");
    assert_eq!(user_settings(&sb)["general"]["vimMode"], true);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
    // The next session starts in vim mode; /vim leaves it.
    drop(t);
    let fake = FakeServer::replaying(&lines(&[text("x")]));
    let t2 = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t2.wait_for("[INSERT]", 20);
    t2.type_text("/vim");
    t2.keys(&["Enter"]);
    t2.wait_for("Vim mode off.", 10);
    assert_eq!(user_settings(&sb)["general"]["vimMode"], false);
}

#[test]
fn the_preferred_editor_modifies_a_proposed_change() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    // A non-interactive "neovim": sed edits the file it is given.
    let bin = sb.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let nvim = bin.join("nvim");
    std::fs::write(&nvim, "#!/bin/sh\nexec sed -i s/model/user/ \"$1\"\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&nvim, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let responses = lines(&[
        call(
            "write_file",
            json!({"file_path": "e.txt", "content": "written by the model\n"}),
        ),
        turn(json!([{"text": "Edited file written."}])),
    ]);
    let fake = FakeServer::replaying(&responses);
    // $EDITOR would fail: only the chosen editor can make the change.
    let env = [("PATH", path.as_str()), ("EDITOR", "false")];
    let t = Tmux::start_env(&sb, &fake.base_url, &[], &env, 100, 30);
    t.wait_for("mode: default", 20);
    t.type_text("/editor");
    t.keys(&["Enter"]);
    let s = t.wait_for("External editors", 10);
    assert!(s.contains("No preferred editor"), "{s}");
    t.type_text("/editor notepad");
    t.keys(&["Enter"]);
    t.wait_for("Unknown editor \"notepad\"", 10);
    t.type_text("/editor neovim");
    t.keys(&["Enter"]);
    t.wait_for("Preferred editor: Neovim (neovim)", 10);
    assert_eq!(user_settings(&sb)["general"]["preferredEditor"], "neovim");
    t.type_text("write e.txt");
    t.keys(&["Enter"]);
    t.wait_for("Apply this change?", 20);
    t.keys(&["3"]);
    t.wait_for("+written by the user", 20);
    t.keys(&["Enter"]);
    t.wait_for("Edited file written.", 20);
    assert_eq!(sb.read("e.txt").as_deref(), Some("written by the user\n"));
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn terminal_setup_adds_vscode_keybindings_once() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[]));
    let env = [("TERM_PROGRAM", "vscode")];
    let t = Tmux::start_env(&sb, &fake.base_url, &[], &env, 120, 30);
    t.wait_for("mode: default", 20);
    t.type_text("/terminal-setup");
    t.keys(&["Enter"]);
    t.wait_for(
        "Added the shift+enter, ctrl+enter keybindings to VS Code.",
        10,
    );
    let file = sb.home.join(".config/Code/User/keybindings.json");
    let list: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(list[0]["key"], "shift+enter", "{list}");
    assert_eq!(list[0]["args"]["text"], "\\\r\n");
    t.type_text("/terminal-setup");
    t.keys(&["Enter"]);
    t.wait_for("VS Code keybindings are already configured.", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn policies_and_extensions_are_listed_and_switched() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    sb.write_home(
        ".gemini/policies/team.toml",
        "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git status\"\ndecision = \"allow\"\npriority = 50\n",
    );
    sb.write_home(
        ".gemini/extensions/ext1/gemini-extension.json",
        r#"{"name": "ext1", "version": "1.2.3"}"#,
    );
    let fake = FakeServer::replaying(&lines(&[]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 160, 40);
    t.wait_for("mode: default", 20);
    t.type_text("/policies");
    t.keys(&["Enter"]);
    let s = t.wait_for("command starts with: git status", 10);
    assert!(s.contains("Policy rules in force"), "{s}");
    assert!(s.contains("policies/team.toml]"), "{s}");
    assert!(s.contains("[Default]"), "{s}");
    t.type_text("/extensions");
    t.keys(&["Enter"]);
    t.wait_for("ext1  v1.2.3 · enabled", 10);
    t.type_text("/extensions disable ext1 --scope workspace");
    t.keys(&["Enter"]);
    t.wait_for("Extension \"ext1\" disabled for the workspace scope.", 10);
    t.type_text("/extensions enable nope");
    t.keys(&["Enter"]);
    t.wait_for("Extension \"nope\" is not installed. Installed: ext1.", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
    let out = sb.run(&["extensions", "list"], None, &[]);
    assert!(out.stderr.contains("✗ ext1 (1.2.3)"), "{out:?}");
    assert!(out.stderr.contains("Enabled (Workspace): false"), "{out:?}");
}

#[test]
fn bug_report_carries_no_secret_and_privacy_names_the_provider() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"gh": {"command": "true", "env": {"GITHUB_TOKEN": "SECRET-TOKEN-1"}}},
        "advanced": {"bugCommand": {"urlTemplate": "https://bugs.example/new?title={title}&info={info}"}}
    }));
    let fake = FakeServer::replaying(&lines(&[]));
    let env = [("GEMINI_API_KEY", "SECRET-KEY-2")];
    let t = Tmux::start_env(&sb, &fake.base_url, &[], &env, 200, 50);
    t.wait_for("mode: default", 20);
    t.type_text("/bug the footer flickers");
    t.keys(&["Enter"]);
    let s = t.wait_for("https://bugs.example/new?title=the%20footer%20flickers", 10);
    assert!(s.contains("gemini-rs version:"), "{s}");
    assert!(s.contains("Model:** gemini-2.5-flash"), "{s}");
    assert!(s.contains("mcpServers (1)"), "{s}");
    assert!(!s.contains("SECRET"), "{s}");
    t.type_text("/privacy");
    t.keys(&["Enter"]);
    t.wait_for("Gemini API Additional Terms of Service", 10);
    t.type_text("/docs");
    t.keys(&["Enter"]);
    t.wait_for("docs/", 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn a_command_file_written_meanwhile_is_listed_and_usable_after_a_reload() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[text("Reviewed.")]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 100, 30);
    t.wait_for("mode: default", 20);
    sb.write_home(
        ".gemini/commands/git/review.toml",
        "description = \"Review the diff\"\nprompt = \"Review this change: {{args}}\"\n",
    );
    t.type_text("/commands list");
    t.keys(&["Enter"]);
    t.wait_for("User commands (", 10);
    t.wait_for("- git/review.toml", 5);
    t.type_text("/commands reload");
    t.keys(&["Enter"]);
    t.wait_for("Custom commands reloaded", 10);
    t.type_text("/git:review the parser");
    t.keys(&["Enter"]);
    t.wait_for("Reviewed.", 20);
    let body = fake.requests()[0].body.to_string();
    assert!(body.contains("Review this change: the parser"), "{body}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

/// Each command reads its own arguments: a missing or unknown one gets
/// that command's usage, an alias reaches its command, and a name no
/// command has is named.
#[test]
fn usages_and_aliases_reach_their_commands() {
    let Some(sb) = ui_sandbox() else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[]));
    let t = Tmux::start(&sb, &fake.base_url, &[], 160, 40);
    t.wait_for("mode: default", 20);
    for (line, answer) in [
        ("/chat save", "Missing tag. Usage: /chat save <tag>"),
        ("/memory nope", "Usage: /memory show | add <fact> | refresh"),
        (
            "/extensions enable",
            "Usage: /extensions list | enable <name>",
        ),
        ("/tasks stop x", "Usage: /shells stop <pid>"),
        ("/dir add", "Please provide at least one path to add."),
        ("/export-session", "Usage: /export-session <file>"),
        ("/nope", "Unknown command: /nope. Type /help."),
        ("/?", "Shift-Enter"),
    ] {
        t.type_text(line);
        t.keys(&["Enter"]);
        t.wait_for(answer, 10);
    }
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}
