//! Settings keys of today's Gemini CLI through the binary (issue 25 item
//! 7), beside the v0.27.4 keys they replaced: each one changes what the
//! fake model is offered or what a call does; unknown keys never stop a
//! start.

use crate::today_names::{declared, responses, run_with, sandbox};
use serde_json::{Value, json};

/// `true` when `name` is declared to the model in a plain headless run
/// with `settings`, and the run's stderr.
fn offered(settings: Value, name: &str) -> (bool, String) {
    let sb = sandbox(settings);
    let (fake, out) = run_with(&sb, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    (declared(&fake).iter().any(|n| n == name), out.stderr)
}

#[test]
fn default_approval_mode_from_settings_old_and_new_key() {
    // Headless `default` hides the edit tools; `auto_edit` declares them.
    assert!(!offered(json!({}), "write_file").0);
    let (on, stderr) = offered(
        json!({"general": {"defaultApprovalMode": "auto_edit"}}),
        "write_file",
    );
    assert!(on, "{stderr}");
    let (on, stderr) = offered(
        json!({"tools": {"approvalMode": "auto_edit"}}),
        "write_file",
    );
    assert!(on, "{stderr}");
    assert!(
        stderr.contains("Setting 'tools.approvalMode' in ")
            && stderr.contains("is deprecated; it is read as 'general.defaultApprovalMode'"),
        "{stderr}"
    );
    // yolo only from the command line, as in today's Gemini CLI.
    let (on, stderr) = offered(
        json!({"general": {"defaultApprovalMode": "yolo"}}),
        "write_file",
    );
    assert!(!on);
    assert!(stderr.contains("'general.defaultApprovalMode'"), "{stderr}");
    // A flag wins over the setting.
    let sb = sandbox(json!({"general": {"defaultApprovalMode": "auto_edit"}}));
    let (fake, _) = run_with(&sb, &["--approval-mode=default"], &[]);
    assert!(!declared(&fake).contains(&"write_file".to_string()));
}

#[test]
fn skills_enabled_old_and_new_key() {
    assert!(offered(json!({}), "activate_skill").0);
    assert!(!offered(json!({"skills": {"enabled": false}}), "activate_skill").0);
    assert!(!offered(json!({"experimental": {"skills": false}}), "activate_skill").0);
    // What Harbor writes.
    assert!(offered(json!({"experimental": {"skills": true}}), "activate_skill").0);
}

#[test]
fn custom_model_aliases_choose_the_model_and_its_request_settings() {
    let sb = sandbox(json!({"modelConfigs": {"customAliases": {
        "harbor-gemini-3-pro-preview-low": {"modelConfig": {
            "model": "gemini-3-pro-preview",
            "generateContentConfig": {"thinkingConfig": {"includeThoughts": true, "thinkingLevel": "LOW"}}
        }}
    }}}));
    let (fake, out) = run_with(
        &sb,
        &["--yolo", "--model=harbor-gemini-3-pro-preview-low"],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let req = &fake.requests()[0];
    assert_eq!(req.model(), "gemini-3-pro-preview");
    assert_eq!(
        req.body["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingLevel": "LOW"})
    );
    assert_eq!(req.body["generationConfig"]["temperature"], 1);
}

#[test]
fn confirmation_required_and_hooks_switches() {
    // tools.confirmationRequired asks, above yolo: refused headless.
    let sb = sandbox(json!({
        "tools": {"confirmationRequired": ["read_file"]},
        "hooksConfig": {"enabled": false},
        "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]}
    }));
    sb.write("a.txt", "a\n");
    let (fake, out) = run_with(
        &sb,
        &["--yolo"],
        &[
            ("read_file", json!({"file_path": "a.txt"})),
            ("list_directory", json!({"dir_path": "."})),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let got = responses(&fake);
    assert_eq!(got[0], json!({"error": "Tool execution denied by policy."}));
    assert!(got[1]["output"].is_string(), "{got:?}");
    assert!(sb.read("hook-ran").is_none(), "hooksConfig.enabled=false");
    // v0.27.4's switch still works, and hooks run when on.
    for (settings, runs) in [
        (json!({"tools": {"enableHooks": false}}), false),
        (json!({"hooksConfig": {"enabled": true}}), true),
    ] {
        let mut all = settings.clone();
        all["hooks"] =
            json!({"BeforeTool": [{"hooks": [{"type": "command", "command": "touch hook-ran"}]}]});
        let sb = sandbox(all);
        let (_, out) = run_with(
            &sb,
            &["--yolo"],
            &[("list_directory", json!({"dir_path": "."}))],
        );
        assert_eq!(out.code, 0, "{out:?}");
        assert_eq!(sb.read("hook-ran").is_some(), runs, "{settings}");
    }
}

#[test]
fn include_directories_and_mcp_server_command() {
    let Some(bin) = crate::mcp::everything_bin() else {
        return;
    };
    let other = tempfile::tempdir().unwrap();
    let other_dir = std::fs::canonicalize(other.path()).unwrap();
    std::fs::write(other_dir.join("o.txt"), "other\n").unwrap();
    let sb = sandbox(json!({
        "context": {"includeDirectories": [other_dir.display().to_string()]},
        "mcp": {"serverCommand": format!("{} stdio", bin.display())}
    }));
    let file = other_dir.join("o.txt").display().to_string();
    let (fake, out) = run_with(
        &sb,
        &["--yolo"],
        &[
            ("read_file", json!({"file_path": file})),
            ("mcp_echo", json!({"message": "hi"})),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let got = responses(&fake);
    assert_eq!(got[0], json!({"output": "other\n"}));
    assert!(
        serde_json::to_string(&got[1]).unwrap().contains("Echo: hi"),
        "{got:?}"
    );
}

#[test]
fn unknown_and_mistyped_keys_never_stop_a_start() {
    let sb = sandbox(json!({
        "someFutureSection": {"x": [1, 2]},
        "ui": {"footer": {"items": 3}, "terminalBuffer": true},
        "general": {"defaultApprovalMode": 5, "plan": {"enabled": "yes"}},
        "modelConfigs": {"customAliases": {"x": 3}, "modelChains": {}},
        "contextManagement": {"historyWindow": {"maxTokens": "lots"}},
        "tools": {"confirmationRequired": "read_file"}
    }));
    let (fake, out) = run_with(&sb, &[], &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(fake.requests().len(), 1);
}

/// Issue 37 item 2: a key no version reads and a value of the wrong type
/// are named on stderr with their file; Gemini CLI 0.61's own keys and
/// `$schema` are not.
#[test]
fn unknown_and_mistyped_keys_are_named_with_their_file() {
    let (_, stderr) = offered(
        json!({
            "$schema": "https://example.invalid/settings.schema.json",
            "ui": {"hideBanner": true, "footer": {"hideCWD": true}},
            "general": {"vimMode": true, "enableAutoUpdate": false},
            "privacy": {"usageStatisticsEnabled": false},
            "tools": {"exclud": ["run_shell_command"]},
            "hooksConfig": {"enabled": "yes"}
        }),
        "read_file",
    );
    assert!(
        stderr.contains("Unknown setting 'tools.exclud' in ")
            && stderr.contains(".gemini/settings.json at line "),
        "{stderr}"
    );
    assert!(
        stderr.contains("Invalid value for setting 'hooksConfig.enabled' in "),
        "{stderr}"
    );
    for quiet in ["$schema", "ui.", "general.", "privacy"] {
        assert!(
            !stderr.contains(&format!("Unknown setting '{quiet}")),
            "{quiet}: {stderr}"
        );
    }
}
