//! Public Claude Code hook scripts, committed unchanged under
//! tests/fixtures/public-hooks/ (see its README for source, commit and
//! licence), do what their authors expect through the binary: in
//! `.claude/settings.json` under `hooksConfig.claudeCompat`, and after
//! `hooks migrate --from-claude` without it.

use crate::e2e::{lines, text, turn};
use crate::support::{Output, Sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

const BLOCK_DANGEROUS: &str = include_str!(
    "../fixtures/public-hooks/karanb192-claude-code-hooks/block-dangerous-commands.js"
);
const PROTECT_SECRETS: &str =
    include_str!("../fixtures/public-hooks/karanb192-claude-code-hooks/protect-secrets.js");

/// The scripts' own setup (their header comments), as a project's
/// `.claude/settings.json`.
fn claude_settings() -> Value {
    let node = |file: &str| {
        json!({"type": "command",
            "command": format!("node \"$CLAUDE_PROJECT_DIR/.claude/hooks/{file}\"")})
    };
    json!({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [node("block-dangerous-commands.js")]},
        {"matcher": "Read|Edit|Write|Bash", "hooks": [node("protect-secrets.js")]}
    ]}})
}

/// A session whose model runs `git reset --hard`, reads `.env`, then runs
/// a harmless command; `migrated`: the hooks were moved into
/// `.gemini/settings.json` by `hooks migrate --from-claude` first.
fn guarded_session(migrated: bool) -> (Sandbox, FakeServer, Output) {
    let sb = Sandbox::new();
    sb.write(".claude/hooks/block-dangerous-commands.js", BLOCK_DANGEROUS);
    sb.write(".claude/hooks/protect-secrets.js", PROTECT_SECRETS);
    sb.write(".claude/settings.json", &claude_settings().to_string());
    sb.write(".env", "API_KEY=secret\n");
    sb.settings(&json!({"model": {"retry": {"initialDelayMs": 1}},
        "hooksConfig": {"claudeCompat": !migrated}}));
    if migrated {
        let out = sb.run(&["hooks", "migrate", "--from-claude"], None, &[]);
        assert_eq!(out.code, 0, "{out:?}");
        std::fs::remove_file(sb.work.join(".claude/settings.json")).expect("remove");
    }
    let calls = turn(json!([
        {"functionCall": {"name": "run_shell_command", "args": {"command": "git reset --hard"}}},
        {"functionCall": {"name": "read_file", "args": {"file_path": ".env"}}},
        {"functionCall": {"name": "run_shell_command", "args": {"command": "echo safe >> ok.txt"}}}
    ]));
    let fake = FakeServer::replaying(&lines(&[calls, text("ok")]));
    let out = sb.run(
        &["--approval-mode=yolo", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    (sb, fake, out)
}

/// What the authors expect: the reset and the read are denied with the
/// scripts' reasons, the harmless command runs.
fn assert_guarded(sb: &Sandbox, fake: &FakeServer, out: &Output) {
    assert_eq!(out.code, 0, "{out:?}");
    let responses: Vec<String> = fake
        .function_responses()
        .iter()
        .map(|r| r["functionResponse"]["response"].to_string())
        .collect();
    assert_eq!(responses.len(), 3, "{responses:?}");
    assert!(
        responses[0].contains("[git-reset-hard] git reset --hard loses uncommitted work"),
        "{responses:?}"
    );
    assert!(
        responses[1].contains("[env-file] Cannot read: .env file contains secrets"),
        "{responses:?}"
    );
    assert!(!responses[1].contains("secret\\n"), "{responses:?}");
    assert_eq!(
        sb.read("ok.txt").as_deref(),
        Some("safe\n"),
        "{responses:?}"
    );
}

#[test]
fn public_guard_hooks_work_from_claude_settings() {
    let (sb, fake, out) = guarded_session(false);
    assert_guarded(&sb, &fake, &out);
}

#[test]
fn public_guard_hooks_work_after_hooks_migrate() {
    let (sb, fake, out) = guarded_session(true);
    let migrated = sb.read(".gemini/settings.json").unwrap_or_default();
    assert!(migrated.contains("\"PreToolUse\""), "{migrated}");
    assert_guarded(&sb, &fake, &out);
}
