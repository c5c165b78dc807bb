//! `gemini-rs hooks list`: every hook of every settings file, its source
//! and whether it runs.

use crate::support::Sandbox;
use serde_json::{Value, json};

fn user_and_project(sb: &Sandbox, user: Value, project: Value) {
    sb.write_home(".gemini/settings.json", &user.to_string());
    sb.write(".gemini/settings.json", &project.to_string());
}

fn user_settings(extra: Value) -> Value {
    let mut v = json!({
        "hooksConfig": {"disabled": ["old"]},
        "hooks": {
            "BeforeTool": [{"matcher": "write_file", "sequential": true, "hooks": [
                {"type": "command", "name": "guard", "command": "./guard.sh", "timeout": 500, "description": "Checks writes"}]}],
            "AfterAgent": [{"hooks": [{"type": "command", "name": "old", "command": "echo old"}]}]
        }
    });
    for (k, val) in extra.as_object().unwrap() {
        v[k] = val.clone();
    }
    v
}

fn project_settings() -> Value {
    json!({"hooks": {
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}],
        "PreToolUse": [{"hooks": [{"type": "command", "command": "./project-check.sh"}]}],
        "Bogus": []
    }})
}

#[test]
fn lists_every_hook_with_source_and_state() {
    let sb = Sandbox::new();
    user_and_project(&sb, user_settings(json!({})), project_settings());
    let out = sb.run(&["hooks", "list"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let user = sb.home.join(".gemini/settings.json").display().to_string();
    let project = sb.work.join(".gemini/settings.json").display().to_string();
    assert_eq!(
        out.stdout,
        format!(
            "Configured hooks:

BeforeTool:
  ✓ guard (enabled)
      command: ./guard.sh
      description: Checks writes
      matcher: write_file, timeout: 500 ms, sequential: true
      source: user ({user})

PreToolUse:
  ✓ ./project-check.sh (enabled)
      matcher: (all), timeout: 60000 ms, sequential: false
      source: project ({project})

AfterAgent:
  ✗ old (disabled: listed in hooksConfig.disabled)
      command: echo old
      matcher: (all), timeout: 60000 ms, sequential: false
      source: user ({user})

SessionStart:
  ✓ echo hi (enabled)
      matcher: startup, timeout: 60000 ms, sequential: false
      source: project ({project})
"
        )
    );
    assert!(
        out.stderr.contains(
            "[WARNING] Invalid hook event name: \"Bogus\" from project config. Skipping."
        ),
        "{out:?}"
    );

    let out = sb.run(&["hooks", "list", "--json"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let list: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 4);
    assert_eq!(
        list[0],
        json!({"event": "BeforeTool", "matcher": "write_file", "sequential": true, "name": "guard",
            "command": "./guard.sh", "description": "Checks writes", "timeout": 500, "source": "user",
            "file": user, "enabled": true, "disabledReason": null, "duplicate": false})
    );
    assert_eq!(list[2]["enabled"], json!(false));
    assert_eq!(list[3]["source"], json!("project"));
}

#[test]
fn switches_and_untrusted_folders_disable_hooks() {
    let sb = Sandbox::new();
    user_and_project(
        &sb,
        user_settings(json!({"tools": {"enableHooks": false}})),
        project_settings(),
    );
    let out = sb.run(&["hooks", "list"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout
            .matches("(disabled: tools.enableHooks is false)")
            .count(),
        4,
        "{out:?}"
    );

    user_and_project(
        &sb,
        user_settings(json!({"hooksConfig": {"enabled": false}})),
        project_settings(),
    );
    let out = sb.run(&["hooks", "list"], None, &[]);
    assert_eq!(
        out.stdout
            .matches("(disabled: hooksConfig.enabled is false)")
            .count(),
        4,
        "{out:?}"
    );

    // Folder trust on and no rule for this folder: nothing runs, and the
    // project file is still listed.
    user_and_project(
        &sb,
        user_settings(json!({"security": {"folderTrust": {"enabled": true}}})),
        project_settings(),
    );
    let out = sb.run(
        &["hooks", "list"],
        None,
        &[("GEMINI_CLI_TRUST_WORKSPACE", "")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.starts_with("This folder is not trusted"),
        "{out:?}"
    );
    assert_eq!(
        out.stdout.matches("(disabled: untrusted folder)").count(),
        4,
        "{out:?}"
    );
    assert!(out.stdout.contains("source: project ("), "{out:?}");
}

#[test]
fn duplicates_and_empty_lists() {
    let sb = Sandbox::new();
    // The same settings as user and project: both listed, the second runs once.
    sb.settings(
        &json!({"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "true"}]}]}}),
    );
    let out = sb.run(&["hooks", "list"], None, &[]);
    assert!(out.stdout.contains("  ✓ true (enabled)\n"), "{out:?}");
    assert!(
        out.stdout
            .contains("  ✓ true (enabled, duplicate: runs once)\n"),
        "{out:?}"
    );
    sb.settings(&json!({}));
    let out = sb.run(&["hooks", "list"], None, &[]);
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (0, "No hooks configured.\n")
    );
    let out = sb.run(&["hooks", "bogus"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
}
