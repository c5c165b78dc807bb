//! The default rules of plan mode, as Gemini CLI 0.61's `plan.toml` and
//! `yolo.toml` decide them: everything is denied while planning except the
//! read-only tools (MCP tools annotated `readOnlyHint` included), asking
//! the user, the research agents and writing `.md` plans; `enter_plan_mode` only outside plan mode, `exit_plan_mode` only
//! inside it (approval asked where someone can answer), neither in an
//! interactive yolo session.

use super::rules::PolicyRule;
use super::{ApprovalMode, Decision};
use regex::Regex;

/// The refusal of anything but reading while planning.
pub const PLAN_DENY: &str = "You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked.";

/// The refusal of a file edit that is not a plan.
pub const PLAN_WRITE_DENY: &str = "You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files.";

/// Default-tier priority of a `plan.toml` priority.
fn p(n: u16) -> f64 {
    1.0 + f64::from(n) / 1000.0
}

/// The plan-mode rules, in the default tier.
pub(super) fn plan_rules() -> Vec<PolicyRule> {
    use ApprovalMode::{Plan, Yolo};
    let rule = |name: &str, decision, prio| PolicyRule::tool(name, decision, p(prio));
    let mut rules = vec![
        rule("enter_plan_mode", Decision::AskUser, 50).when_interactive(true),
        rule("enter_plan_mode", Decision::Allow, 50).when_interactive(false),
        rule("enter_plan_mode", Decision::Deny, 70)
            .in_modes(&[Plan])
            .with_deny_message("You are already in Plan Mode."),
        rule("exit_plan_mode", Decision::AskUser, 70)
            .in_modes(&[Plan])
            .when_interactive(true),
        rule("exit_plan_mode", Decision::Allow, 70)
            .in_modes(&[Plan])
            .when_interactive(false),
        rule("exit_plan_mode", Decision::Deny, 50).with_deny_message(
            "You are not currently in Plan Mode. Use enter_plan_mode first to design a plan.",
        ),
        rule("*", Decision::Deny, 40)
            .in_modes(&[Plan])
            .with_deny_message(PLAN_DENY),
    ];
    // MCP tools their server marks read-only: asked, where someone can be.
    let mut read_only = serde_json::Map::new();
    read_only.insert("readOnlyHint".into(), serde_json::Value::Bool(true));
    rules.push(
        rule("mcp_*", Decision::AskUser, 50)
            .in_modes(&[Plan])
            .when_interactive(true)
            .with_annotations(read_only),
    );
    for name in ["codebase_investigator", "cli_help"] {
        rules.push(rule(name, Decision::Allow, 50).in_modes(&[Plan]));
    }
    for name in ["ask_user", "web_fetch", "activate_skill"] {
        rules.push(
            rule(name, Decision::AskUser, 50)
                .in_modes(&[Plan])
                .when_interactive(true),
        );
    }
    // The path itself is kept inside the plans folder by the tools.
    // Compiled once per process: every session's engine starts with it.
    static MARKDOWN: std::sync::LazyLock<Option<Regex>> =
        std::sync::LazyLock::new(|| Regex::new(r#""file_path":"(?:[^"\\]|\\.)*\.md""#).ok());
    let markdown = MARKDOWN.clone();
    for name in ["write_file", "replace"] {
        let mut md = rule(name, Decision::Allow, 70).in_modes(&[Plan]);
        md.args.args_pattern = markdown.clone();
        rules.push(md);
        rules.push(
            rule(name, Decision::Deny, 65)
                .in_modes(&[Plan])
                .with_deny_message(PLAN_WRITE_DENY),
        );
    }
    for name in ["enter_plan_mode", "exit_plan_mode"] {
        rules.push(
            PolicyRule::tool(name, Decision::Deny, 1.999)
                .in_modes(&[Yolo])
                .when_interactive(true),
        );
    }
    rules
}
