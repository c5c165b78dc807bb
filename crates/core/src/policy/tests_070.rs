//! Gemini CLI 0.70's policy rules (issue 36 item 3).

use super::*;
use serde_json::json;

fn shell(p: &PolicyEngine, command: &str, mode: ApprovalMode) -> Decision {
    p.check("run_shell_command", &json!({ "command": command }), mode)
}

#[test]
fn an_unset_variable_asks_even_under_an_allow_rule() {
    let p = PolicyEngine::new(true);
    p.add_settings_rules(&["run_shell_command(echo)".to_string()], &[], None);
    let mode = ApprovalMode::Default;
    assert_eq!(shell(&p, "echo $PATH ${PATH}", mode), Decision::Allow);
    assert_eq!(
        shell(&p, "echo $GEMINI_RS_POLICY_TEST_UNSET", mode),
        Decision::AskUser
    );
    assert_eq!(
        shell(&p, "echo ${GEMINI_RS_POLICY_TEST_UNSET}", mode),
        Decision::AskUser
    );
    assert_eq!(
        shell(&p, "echo ${GEMINI_RS_POLICY_TEST_UNSET:-x} '$NOPE'", mode),
        Decision::Allow
    );
    assert_eq!(
        shell(&p, "echo $GEMINI_RS_POLICY_TEST_UNSET", ApprovalMode::Yolo),
        Decision::Allow
    );
    // A deny stays a deny.
    let p = PolicyEngine::new(true);
    p.add_settings_rules(&[], &["run_shell_command".to_string()], None);
    assert_eq!(
        shell(&p, "echo $GEMINI_RS_POLICY_TEST_UNSET", mode),
        Decision::Deny
    );
}

#[test]
fn prefix_and_regex_rules_see_the_words_as_well_as_the_text() {
    let p = PolicyEngine::new(true);
    let text = "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git status\"\ndecision = \"allow\"\npriority = 100\n\n[[rule]]\ntoolName = \"run_shell_command\"\ncommandRegex = \"^rm -rf\"\ndecision = \"deny\"\npriority = 200\n";
    p.add_rules(parse_policy(std::path::Path::new("t.toml"), text, 2).unwrap());
    let mode = ApprovalMode::Default;
    assert_eq!(shell(&p, "git status", mode), Decision::Allow);
    assert_eq!(shell(&p, "git \"status\" -s", mode), Decision::Allow);
    assert_eq!(shell(&p, "git 'stat'us", mode), Decision::Allow);
    assert_eq!(shell(&p, "git log", mode), Decision::AskUser);
    assert_eq!(shell(&p, "rm -rf /tmp/x", mode), Decision::Deny);
    assert_eq!(shell(&p, "rm \"-rf\" /tmp/x", mode), Decision::Deny);
    assert_eq!(shell(&p, "r\\m -r'f' /tmp/x", mode), Decision::Deny);
    assert_eq!(shell(&p, "rm -r /tmp/x", mode), Decision::AskUser);
}
