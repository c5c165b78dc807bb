//! The management subcommands of today's Gemini CLI through the binary:
//! `skills`, `mcp enable|disable`, `hooks migrate --from-claude`,
//! `extensions validate|config`, and `completion`.

use crate::support::Sandbox;
use serde_json::{Value, json};

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\nDo the {name} thing.\n")
}

fn settings_at(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn skills_install_list_disable_enable_link_uninstall() {
    let sb = Sandbox::new();
    let src = sb.work.join("src");
    sb.write("src/pdf/SKILL.md", &skill("pdf", "Reads PDFs"));
    sb.write("src/pdf/helper.py", "print(1)\n");
    sb.write("src/db/SKILL.md", &skill("db", "Databases"));

    // Without a terminal, consent must be given.
    let out = sb.run(&["skills", "install", src.to_str().unwrap()], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("--consent"), "{}", out.stderr);

    let out = sb.run(
        &["skills", "install", src.to_str().unwrap(), "--consent"],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let user_skills = sb.home.join(".gemini/skills");
    assert!(user_skills.join("pdf/helper.py").is_file());
    assert!(user_skills.join("db/SKILL.md").is_file());

    let out = sb.run(&["skills", "list"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    // Gemini CLI's words, on stderr in the 0.27 dialect (the sandbox's).
    assert!(out.stderr.contains("pdf [Enabled]"), "{}", out.stderr);
    assert!(out.stderr.contains("  Description: Reads PDFs"));
    assert!(
        !out.stderr.contains("skill-creator"),
        "built-ins need --all"
    );
    let all = sb.run(&["skill", "list", "--all"], None, &[]);
    assert!(
        all.stderr.contains("skill-creator [Enabled] [Built-in]"),
        "{}",
        all.stderr
    );

    let out = sb.run(&["skills", "disable", "pdf", "--scope", "user"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let user = settings_at(&sb.home.join(".gemini/settings.json"));
    assert_eq!(user["skills"]["disabled"], json!(["pdf"]));
    assert!(
        sb.run(&["skills", "list"], None, &[])
            .stderr
            .contains("pdf [Disabled]")
    );
    let out = sb.run(&["skills", "disable", "nope"], None, &[]);
    assert_eq!(out.code, 1, "an unknown skill is refused: {out:?}");

    let out = sb.run(&["skills", "enable", "pdf"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let user = settings_at(&sb.home.join(".gemini/settings.json"));
    assert_eq!(user["skills"]["disabled"], json!([]));

    // A linked skill follows its source; uninstalling removes the link only.
    sb.write("linked/notes/SKILL.md", &skill("notes", "Takes notes"));
    let linked = sb.work.join("linked");
    let out = sb.run(
        &[
            "skills",
            "link",
            linked.to_str().unwrap(),
            "--scope",
            "workspace",
            "--consent",
        ],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let link = sb.work.join(".gemini/skills/notes");
    assert!(link.symlink_metadata().unwrap().is_symlink());
    sb.write(
        "linked/notes/SKILL.md",
        &skill("notes", "Takes better notes"),
    );
    assert!(
        sb.run(&["skills", "list"], None, &[])
            .stderr
            .contains("Takes better notes")
    );
    let out = sb.run(
        &["skills", "uninstall", "notes", "--scope", "workspace"],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(link.symlink_metadata().is_err());
    assert!(
        sb.work.join("linked/notes/SKILL.md").is_file(),
        "the source stays"
    );

    let out = sb.run(&["skills", "uninstall", "pdf"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!user_skills.join("pdf").exists());
    let out = sb.run(&["skills", "uninstall", "pdf"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("not installed"), "{}", out.stderr);
}

#[test]
fn mcp_disable_is_kept_in_gemini_clis_file_and_honoured() {
    let sb = Sandbox::new();
    sb.write_home(
        ".gemini/settings.json",
        &json!({"mcpServers": {"Local": {"command": "/nonexistent/server"}}}).to_string(),
    );
    let out = sb.run(&["mcp", "disable", "local"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let file = sb.home.join(".gemini/mcp-server-enablement.json");
    assert_eq!(settings_at(&file), json!({"local": {"enabled": false}}));
    let list = sb.run(&["mcp", "list"], None, &[]);
    assert!(
        list.stderr
            .contains("Local: /nonexistent/server  (stdio) - Disabled"),
        "{}",
        list.stderr
    );

    let out = sb.run(&["mcp", "disable", "other"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("'other' not found"), "{}", out.stderr);
    let out = sb.run(&["mcp", "enable", "LOCAL", "--session"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("nothing changed"), "{}", out.stderr);

    let out = sb.run(&["mcp", "enable", "Local"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(settings_at(&file), json!({}));
    let list = sb.run(&["mcp", "list"], None, &[]);
    assert!(list.stderr.contains("Disconnected"), "{}", list.stderr);
}

#[test]
fn hooks_migrate_from_claude_converts_into_project_settings() {
    let sb = Sandbox::new();
    sb.write(
        ".claude/settings.json",
        &json!({"hooks": {
            "PreToolUse": [{"matcher": "Write|Edit", "hooks": [
                {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/guard.sh", "timeout": 20}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "notify done"}]}],
            "SubagentStop": [{"hooks": [{"type": "command", "command": "x"}]}]
        }})
        .to_string(),
    );
    sb.write(
        ".claude/settings.local.json",
        "// local\n{\"hooks\": {\"PostToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"log\"}]}]}}",
    );
    sb.write(
        ".gemini/settings.json",
        &json!({"model": {"name": "m"}, "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "mine"}]}]}}).to_string(),
    );
    let out = sb.run(&["hooks", "migrate"], None, &[]);
    assert_eq!(out.code, 1, "the source flag is required: {out:?}");
    let out = sb.run(&["hooks", "migrate", "--from-claude"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let s = settings_at(&sb.work.join(".gemini/settings.json"));
    assert_eq!(
        s["hooks"]["SubagentStop"][0]["hooks"][0]["command"], "x",
        "kept as a Claude-format hook: {s}"
    );
    assert_eq!(s["model"]["name"], "m", "other settings stay");
    // Claude's events, matchers and commands, which run as Claude hooks.
    assert_eq!(
        s["hooks"]["PreToolUse"],
        json!([{"matcher": "Write|Edit", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/guard.sh", "timeout": 20000}]}])
    );
    assert_eq!(s["hooks"]["PostToolUse"][0]["matcher"], "Bash");
    assert_eq!(s["hooks"]["Stop"][0]["hooks"][0]["command"], "notify done");
    assert_eq!(s["hooks"]["AfterAgent"].as_array().unwrap().len(), 1, "{s}");
    // Running it again adds nothing twice.
    let out = sb.run(&["hooks", "migrate", "--from-claude"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(settings_at(&sb.work.join(".gemini/settings.json")), s);
    // The migrated hooks are what `hooks list` shows for the project.
    let list = sb.run(&["hooks", "list", "--json"], None, &[]);
    assert!(list.stdout.contains("Write|Edit"), "{}", list.stdout);

    let empty = Sandbox::new();
    let out = empty.run(&["hooks", "migrate", "--from-claude"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains(".claude/settings.json"),
        "{}",
        out.stderr
    );
}

#[test]
fn extensions_validate_and_config() {
    let sb = Sandbox::new();
    sb.write(
        "ext/gemini-extension.json",
        &json!({"name": "weather", "version": "1.0.0",
            "settings": [{"name": "API key", "envVar": "WEATHER_KEY", "sensitive": true}],
            "mcpServers": {"w": {"command": "echo", "args": ["${WEATHER_KEY}"]}}})
        .to_string(),
    );
    let ext = sb.work.join("ext");
    let out = sb.run(
        &["extensions", "validate", ext.to_str().unwrap()],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    sb.write(
        "bad/gemini-extension.json",
        r#"{"name": "a/b", "contextFileName": "MISSING.md"}"#,
    );
    let out = sb.run(&["extensions", "validate", "bad"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("MISSING.md") && out.stderr.contains("\"name\""),
        "{}",
        out.stderr
    );

    let out = sb.run(
        &["extensions", "install", ext.to_str().unwrap()],
        None,
        &[("WEATHER_KEY", "k1")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let env_file = sb.home.join(".gemini/extensions/weather/.env");
    let out = sb.run(
        &["extensions", "config", "weather", "WEATHER_KEY"],
        None,
        &[("WEATHER_KEY", "k2")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let text = std::fs::read_to_string(&env_file).unwrap();
    assert_eq!(text.matches("WEATHER_KEY").count(), 1, "{text}");
    assert!(text.contains("k2"), "{text}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&env_file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let out = sb.run(
        &["extensions", "config", "weather", "--scope", "workspace"],
        None,
        &[("WEATHER_KEY", "k3")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(sb.read(".env").unwrap().contains("WEATHER_KEY='k3'"));
    let out = sb.run(&["extensions", "config", "weather", "NOPE"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("WEATHER_KEY"), "{}", out.stderr);
    let out = sb.run(
        &["extensions", "config", "weather", "WEATHER_KEY"],
        None,
        &[("WEATHER_KEY", "")],
    );
    assert_eq!(out.code, 1, "no value and no terminal: {out:?}");
    let out = sb.run(&["extensions", "config", "../x"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    // The project's value reaches the extension's server in this project.
    let list = sb.run(&["mcp", "list"], None, &[]);
    assert!(list.stderr.contains("echo k3"), "{}", list.stderr);
}

#[test]
fn completions_and_man_page_come_from_the_arguments() {
    let sb = Sandbox::new();
    for (shell, marker) in [
        ("bash", "_gemini__rs()"),
        ("zsh", "#compdef gemini-rs"),
        ("fish", "complete -c gemini-rs"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = sb.run(&["completion", shell], None, &[]);
        assert_eq!(out.code, 0, "{shell}: {out:?}");
        assert!(
            out.stdout.contains(marker),
            "{shell}: {}",
            &out.stdout[..200.min(out.stdout.len())]
        );
        assert!(out.stdout.contains("approval-mode"), "{shell}: main flags");
        assert!(out.stdout.contains("skills"), "{shell}: subcommands");
    }
    let man = sb.run(&["completion", "man"], None, &[]);
    assert_eq!(man.code, 0, "{man:?}");
    assert!(
        man.stdout.starts_with(".ie") || man.stdout.contains(".TH gemini-rs"),
        "{}",
        &man.stdout[..200]
    );
    let bad = sb.run(&["completion", "tcsh"], None, &[]);
    assert_eq!(bad.code, 1, "{bad:?}");
}
