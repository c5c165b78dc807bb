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
    // Plan mode hides nothing: its own rules refuse, saying why.
    assert!(headless_excluded_tools(ApprovalMode::Plan, &[]).is_empty());
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
        assert_eq!(p.check(name, &none, Plan), Decision::Deny, "{name}");
        assert_eq!(p.check(name, &none, AutoEdit), Decision::Allow, "{name}");
    }
    for name in ["save_memory", "run_shell_command", "web_fetch"] {
        assert_eq!(p.check(name, &none, AutoEdit), Decision::AskUser, "{name}");
        assert_eq!(p.check(name, &none, Yolo), Decision::Allow, "{name}");
    }
    let rules = rules::default_rules();
    let named: Vec<&str> = rules
        .iter()
        .filter(|r| !r.modes.contains(&Plan))
        .map(|r| r.tool_name.as_str())
        .collect();
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
    // v0.27.4's rules; 0.61's plan-mode rules are their own list.
    assert_eq!(rules.len(), 8 + 5 + 2 + 2);
    assert_eq!(plan::plan_rules().len(), 19);
}

#[test]
fn plan_mode_allows_reading_and_plans_only() {
    use ApprovalMode::{Default, Plan, Yolo};
    let headless = PolicyEngine::new(false);
    let tui = PolicyEngine::new(true);
    let shell = json!({"command": "touch x"});
    assert_eq!(
        headless.check("run_shell_command", &shell, Plan),
        Decision::Deny
    );
    assert_eq!(
        headless
            .deny_message("run_shell_command", &shell, Plan)
            .as_deref(),
        Some(plan::PLAN_DENY)
    );
    assert!(headless.hides("run_shell_command", Plan));
    assert_eq!(
        headless.check("read_file", &json!({}), Plan),
        Decision::Allow
    );
    let plan_md = json!({"file_path": "feature.md", "content": "x"});
    let source = json!({"file_path": "src/main.rs", "content": "x"});
    for p in [&headless, &tui] {
        assert_eq!(p.check("write_file", &plan_md, Plan), Decision::Allow);
        assert_eq!(p.check("write_file", &source, Plan), Decision::Deny);
        assert!(!p.hides("write_file", Plan));
    }
    assert_eq!(
        tui.deny_message("replace", &source, Plan).as_deref(),
        Some(plan::PLAN_WRITE_DENY)
    );
    // Entering and leaving.
    assert_eq!(
        tui.check("enter_plan_mode", &json!({}), Default),
        Decision::AskUser
    );
    assert_eq!(
        headless.check("enter_plan_mode", &json!({}), Default),
        Decision::Allow
    );
    assert_eq!(
        tui.check("enter_plan_mode", &json!({}), Plan),
        Decision::Deny
    );
    assert_eq!(
        tui.check("exit_plan_mode", &json!({}), Plan),
        Decision::AskUser
    );
    assert_eq!(
        headless.check("exit_plan_mode", &json!({}), Plan),
        Decision::Allow
    );
    assert_eq!(
        tui.deny_message("exit_plan_mode", &json!({}), Default)
            .as_deref(),
        Some("You are not currently in Plan Mode. Use enter_plan_mode first to design a plan.")
    );
    assert!(tui.hides("exit_plan_mode", Default));
    assert!(tui.hides("enter_plan_mode", Yolo));
    assert!(!headless.hides("enter_plan_mode", Yolo));
    // MCP tools their server marks read-only are asked for where someone
    // can answer; the others stay refused and undeclared.
    for p in [&headless, &tui] {
        p.set_tool_annotations(vec![
            (
                "docs__find".into(),
                json!({"readOnlyHint": true}).as_object().cloned().unwrap(),
            ),
            (
                "docs__edit".into(),
                json!({"readOnlyHint": false}).as_object().cloned().unwrap(),
            ),
        ]);
    }
    let none = json!({});
    assert_eq!(tui.check("docs__find", &none, Plan), Decision::AskUser);
    assert!(!tui.hides("docs__find", Plan));
    assert_eq!(tui.check("docs__edit", &none, Plan), Decision::Deny);
    assert!(tui.hides("docs__edit", Plan));
    assert_eq!(headless.check("docs__find", &none, Plan), Decision::Deny);
    assert!(headless.hides("docs__find", Plan));
}

#[test]
fn policy_files_target_modes_with_a_deny_message() {
    let text = "[[rule]]\ntoolName = \"glob\"\ndecision = \"deny\"\npriority = 100\nmodes = [\"plan\"]\ninteractive = false\ndenyMessage = \"No globbing while planning.\"\n";
    let rules = parse_policy(std::path::Path::new("p.toml"), text, 2).unwrap();
    let engine = PolicyEngine::new(false);
    engine.add_rules(rules);
    let none = json!({});
    assert_eq!(
        engine.check("glob", &none, ApprovalMode::Plan),
        Decision::Deny
    );
    assert_eq!(
        engine
            .deny_message("glob", &none, ApprovalMode::Plan)
            .as_deref(),
        Some("No globbing while planning.")
    );
    assert_eq!(
        engine.check("glob", &none, ApprovalMode::Default),
        Decision::Allow
    );
    // `interactive = false`: not a rule where someone can be asked.
    let tui = PolicyEngine::new(true);
    tui.add_rules(parse_policy(std::path::Path::new("p.toml"), text, 2).unwrap());
    assert_eq!(
        tui.check("glob", &none, ApprovalMode::Plan),
        Decision::Allow
    );
}
