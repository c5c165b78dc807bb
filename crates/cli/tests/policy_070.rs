//! Gemini CLI 0.70's policy rules through the binary (issue 36 item 3):
//! unset variables ask, prefix rules see the command's words, system MCP
//! servers with a command others can write are skipped, and
//! `${VAR:-default}` in settings.

use crate::today_names::{responses, run_with, sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::json;

#[test]
fn an_unset_variable_asks_under_an_allow_rule() {
    let sb = sandbox(json!({"tools": {"allowed": ["run_shell_command(echo)"]}}));
    let (fake, out) = run_with(
        &sb,
        &[],
        &[
            (
                "run_shell_command",
                json!({"command": "echo seen-$GEMINI_RS_POLICY_TEST_UNSET"}),
            ),
            ("run_shell_command", json!({"command": "echo seen-$HOME"})),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let rs = responses(&fake);
    assert_eq!(rs.len(), 2, "{rs:?}");
    // Headless, asking is refusing: the command never ran.
    assert!(rs[0]["error"].is_string(), "{rs:?}");
    assert!(!rs[0].to_string().contains("seen-"), "{rs:?}");
    let home = sb.home.to_string_lossy().to_string();
    assert!(
        rs[1].to_string().contains(&format!("seen-{home}")),
        "{rs:?}"
    );
}

#[test]
fn a_prefix_rule_matches_the_words_the_shell_passes() {
    let sb = sandbox(json!({"tools": {"allowed": ["run_shell_command(echo hello)"]}}));
    let (fake, out) = run_with(
        &sb,
        &[],
        &[
            (
                "run_shell_command",
                json!({"command": "echo \"hello\" there"}),
            ),
            ("run_shell_command", json!({"command": "echo goodbye"})),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let rs = responses(&fake);
    assert!(rs[0].to_string().contains("hello there"), "{rs:?}");
    // Not covered by the rule: refused headless (the error's words are
    // the dialect's).
    assert!(rs[1]["error"].is_string(), "{rs:?}");
    assert!(!rs[1].to_string().contains("goodbye"), "{rs:?}");
}

#[cfg(unix)]
#[test]
fn a_system_mcp_server_whose_command_others_can_write_is_skipped() {
    use std::os::unix::fs::PermissionsExt;
    let sb = sandbox(json!({}));
    let server = sb.home.join("shared-server.sh");
    std::fs::write(&server, "#!/bin/sh\nexit 1\n").unwrap();
    std::fs::set_permissions(&server, std::fs::Permissions::from_mode(0o777)).unwrap();
    let system = sb.home.join("system-settings.json");
    std::fs::write(
        &system,
        json!({"mcpServers": {"shared": {"command": server}}}).to_string(),
    )
    .unwrap();
    let fake = FakeServer::replaying(&crate::e2e::lines(&[crate::e2e::text("done")]));
    let out = sb.run(
        &["go"],
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_CLI_SYSTEM_SETTINGS_PATH", system.to_str().unwrap()),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains(&format!(
            "Skipping MCP server 'shared' of the system settings {}: its command {} can be written by other users.",
            system.display(),
            server.display()
        )),
        "{}",
        out.stderr
    );
}

#[test]
fn a_default_applies_when_the_variable_is_set_but_empty() {
    let sb = sandbox(json!({"model": {
        "name": "${GEMINI_RS_POLICY_TEST_MODEL:-gemini-2.5-pro}",
        "retry": {"initialDelayMs": 1}
    }}));
    let fake = FakeServer::replaying(&crate::e2e::lines(&[crate::e2e::text("done")]));
    let out = sb
        .command(&["go"], &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)])
        .env("GEMINI_RS_POLICY_TEST_MODEL", "")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fake.requests()[0].model(), "gemini-2.5-pro");
}
