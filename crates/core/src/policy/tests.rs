use super::*;
use serde_json::json;

#[test]
fn headless_defaults() {
    let p = PolicyEngine::new(false);
    let none = json!({});
    assert_eq!(
        p.check("read_file", &none, ApprovalMode::Default),
        Decision::Allow
    );
    assert_eq!(
        p.check("save_memory", &none, ApprovalMode::Default),
        Decision::Deny
    );
    assert_eq!(
        p.check("write_file", &none, ApprovalMode::AutoEdit),
        Decision::Allow
    );
    assert_eq!(
        p.check("run_shell_command", &none, ApprovalMode::AutoEdit),
        Decision::Deny
    );
    assert_eq!(
        p.check("anything", &none, ApprovalMode::Yolo),
        Decision::Allow
    );
    assert_eq!(
        p.check("discovered_tool_x", &none, ApprovalMode::Default),
        Decision::Deny
    );
}

#[test]
fn interactive_asks() {
    let p = PolicyEngine::new(true);
    assert_eq!(
        p.check("write_file", &json!({}), ApprovalMode::Default),
        Decision::AskUser
    );
}

#[test]
fn allowed_shell_prefix() {
    let p = PolicyEngine::new(false);
    p.add_settings_rules(&["run_shell_command(echo)".to_string()], &[], None);
    let mode = ApprovalMode::Default;
    assert_eq!(
        p.check("run_shell_command", &json!({"command": "echo hi"}), mode),
        Decision::Allow
    );
    assert_eq!(
        p.check("run_shell_command", &json!({"command": "echo"}), mode),
        Decision::Allow
    );
    assert_eq!(
        p.check("run_shell_command", &json!({"command": "ls"}), mode),
        Decision::Deny
    );
    assert_eq!(
        p.check("run_shell_command", &json!({"command": "echoes"}), mode),
        Decision::Deny
    );
    assert_eq!(
        p.check(
            "run_shell_command",
            &json!({"command": "echo a && rm -rf x"}),
            mode
        ),
        Decision::Deny
    );
}

#[test]
fn exclude_beats_yolo_and_allowed() {
    let p = PolicyEngine::new(false);
    p.add_settings_rules(&["read_file".to_string()], &["read_file".to_string()], None);
    assert_eq!(
        p.check("read_file", &json!({}), ApprovalMode::Yolo),
        Decision::Deny
    );
}

#[test]
fn headless_exclusions() {
    assert_eq!(
        headless_excluded_tools(ApprovalMode::Default, &[]),
        [
            "replace",
            "write_file",
            "web_fetch",
            "run_shell_command",
            "list_background_processes",
            "read_background_output"
        ]
    );
    assert_eq!(
        headless_excluded_tools(ApprovalMode::Default, &["run_shell_command(echo)".into()]),
        [
            "replace",
            "write_file",
            "web_fetch",
            "list_background_processes",
            "read_background_output"
        ]
    );
    assert_eq!(
        headless_excluded_tools(ApprovalMode::Plan, &[]),
        [
            "replace",
            "write_file",
            "web_fetch",
            "run_shell_command",
            "list_background_processes",
            "read_background_output"
        ]
    );
    // As Gemini CLI 0.61: the background tools are declared where the
    // shell is, headless in yolo only.
    assert_eq!(
        headless_excluded_tools(ApprovalMode::AutoEdit, &[]),
        [
            "run_shell_command",
            "list_background_processes",
            "read_background_output"
        ]
    );
    assert!(headless_excluded_tools(ApprovalMode::Yolo, &[]).is_empty());
}

#[test]
fn policy_file_rules_decide_per_sub_command() {
    let p = PolicyEngine::new(false);
    let text = "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"echo\"\ndecision = \"deny\"\npriority = 100\n\n[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"node\"\ndecision = \"allow\"\npriority = 90\n";
    p.add_rules(parse_policy(std::path::Path::new("t.toml"), text, 2).unwrap());
    let mode = ApprovalMode::Default;
    assert_eq!(
        p.check("run_shell_command", &json!({"command": "echo hi"}), mode),
        Decision::Deny
    );
    assert_eq!(
        p.check("run_shell_command", &json!({"command": "node x.js"}), mode),
        Decision::Allow
    );
    assert_eq!(
        p.check(
            "run_shell_command",
            &json!({"command": "node a && echo b"}),
            mode
        ),
        Decision::Deny
    );
    assert!(p.allows_somewhere("run_shell_command"));
    assert!(!p.allows_somewhere("write_file"));
    assert!(!p.denies_always("run_shell_command", mode));
}

#[test]
fn redirection_downgrades_an_allow_outside_lenient_modes() {
    let p = PolicyEngine::new(true);
    p.add_settings_rules(&["run_shell_command(echo)".to_string()], &[], None);
    let args = json!({"command": "echo hi > out.txt"});
    assert_eq!(
        p.check("run_shell_command", &args, ApprovalMode::Default),
        Decision::AskUser
    );
    assert_eq!(
        p.check("run_shell_command", &args, ApprovalMode::AutoEdit),
        Decision::Allow
    );
    assert_eq!(
        p.check("run_shell_command", &args, ApprovalMode::Yolo),
        Decision::Allow
    );
}

#[test]
fn an_unconditional_user_deny_hides_the_tool() {
    let p = PolicyEngine::new(false);
    p.add_settings_rules(&[], &["glob".to_string()], None);
    assert!(p.denies_always("glob", ApprovalMode::Yolo));
    assert!(!p.denies_always("read_file", ApprovalMode::Yolo));
}

/// The defaults derived from the tools' specs are v0.27.4's tables.
#[test]
fn default_decisions_per_mode() {
    use ApprovalMode::{AutoEdit, Default, Plan, Yolo};
    let p = PolicyEngine::new(true);
    let none = json!({});
    let read_only = [
        "glob",
        "search_file_content",
        "list_directory",
        "read_file",
        "read_many_files",
        "google_web_search",
    ];
    for name in read_only {
        for mode in [Default, Plan, AutoEdit, Yolo] {
            assert_eq!(p.check(name, &none, mode), Decision::Allow, "{name}");
        }
    }
    for name in ["replace", "write_file"] {
        assert_eq!(p.check(name, &none, Default), Decision::AskUser, "{name}");
        assert_eq!(p.check(name, &none, Plan), Decision::AskUser, "{name}");
        assert_eq!(p.check(name, &none, AutoEdit), Decision::Allow, "{name}");
    }
    for name in ["save_memory", "run_shell_command", "web_fetch"] {
        assert_eq!(p.check(name, &none, AutoEdit), Decision::AskUser, "{name}");
        assert_eq!(p.check(name, &none, Yolo), Decision::Allow, "{name}");
    }
    let rules = rules::default_rules();
    let named: Vec<&str> = rules.iter().map(|r| r.tool_name.as_str()).collect();
    for unruled in [
        "write_todos",
        "ask_user",
        "activate_skill",
        "get_internal_docs",
        "list_background_processes",
        "read_background_output",
    ] {
        assert!(!named.contains(&unruled), "{unruled}");
    }
    for name in ["list_mcp_resources", "read_mcp_resource"] {
        for mode in [Default, Plan, AutoEdit, Yolo] {
            assert_eq!(p.check(name, &none, mode), Decision::Allow, "{name}");
        }
    }
    assert_eq!(rules.len(), 8 + 5 + 2 + 2);
}
