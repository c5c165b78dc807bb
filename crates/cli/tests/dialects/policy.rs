//! Policy files as the references read them (issue 36).

use super::{compare, golden, play_with_output};

/// What both references print on stderr for the `policy-no-priority`
/// scenario's file (0.61 and 0.27.4 alike; they print it twice, as they
/// read the policies twice).
const NO_PRIORITY: &str = "[USER] Policy file error in p.toml:
  Schema validation failed
Invalid policy rule (rule #1):
  - Field \"rule.0.priority\": priority is required
  Suggestion: Ensure all required fields (decision, priority) are present with correct types";

/// A policy file with a rule that lacks `priority` is skipped whole (its
/// other rule too), as both references skip it, with their message on
/// stderr, and the run goes on.
fn check_policy_without_priority(dialect: &str) {
    let (ours, out) = play_with_output("policy-no-priority", dialect);
    compare(
        "policy-no-priority",
        dialect,
        ours,
        golden("policy-no-priority", dialect),
    );
    assert!(out.stderr.contains(NO_PRIORITY), "{}", out.stderr);
}

#[test]
fn today_a_policy_file_with_a_rule_lacking_priority_is_skipped() {
    check_policy_without_priority("today");
}

#[test]
fn v027_a_policy_file_with_a_rule_lacking_priority_is_skipped() {
    check_policy_without_priority("0.27");
}
