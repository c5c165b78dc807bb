//! Issue 25.1: today's Gemini CLI command line through the binary. Bad
//! input exits before any model call with a message naming the flag.

use crate::e2e::{call, lines, text};
use crate::support::{Output, Sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::path::Path;

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}
    }));
    sb
}

fn run(sb: &Sandbox, fake: &FakeServer, args: &[&str]) -> Output {
    sb.run(args, None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)])
}

/// [`run`] in today's dialect, where a policy allow rule declares the
/// headless shell (0.27.4 declared it only for `tools.allowed`).
fn run_today(sb: &Sandbox, fake: &FakeServer, args: &[&str]) -> Output {
    sb.run(
        args,
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_RS_DIALECT", "today"),
        ],
    )
}

/// Asserts a refusal before any model call, naming `flag`.
fn refused(out: &Output, fake: &FakeServer, code: i32, flag: &str) {
    assert_eq!(out.code, code, "{out:?}");
    assert!(out.stderr.contains(flag), "{flag} not named: {out:?}");
    assert!(fake.requests().is_empty(), "a model call was made");
}

fn texts_sent(fake: &FakeServer) -> String {
    fake.requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn unknown_flag_exits_1_naming_it_and_help_lists_the_subcommands() {
    let sb = sandbox();
    let out = sb.run(&["--no-such-flag", "-p", "x"], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("--no-such-flag"), "{out:?}");
    let out = sb.run(&["--help"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    for word in [
        "gemini-rs mcp",
        "gemini-rs extensions",
        "gemini-rs hooks",
        "--skip-trust",
        "--session-id",
        "--session-file",
        "--admin-policy",
        "--list-extensions",
        "--screen-reader",
        "--worktree",
    ] {
        assert!(out.stdout.contains(word), "{word} missing:\n{}", out.stdout);
    }
}

#[test]
fn session_id_names_the_new_session_and_refuses_a_bad_or_taken_one() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[text("one")]));
    // Argument errors exit 1, as in Gemini CLI 0.61; a taken id is 42.
    let out = run(&sb, &fake, &["--session-id", "not a uuid!", "-p", "x"]);
    refused(&out, &fake, 1, "--session-id");
    let out = run(&sb, &fake, &["--session-id", "", "-p", "x"]);
    refused(&out, &fake, 1, "--session-id");
    let id = "0b7e6f5c-1c52-4a8e-9d0a-3f1e2d4c5b6a";
    let both = run(
        &sb,
        &fake,
        &["--session-id", id, "--resume", "latest", "-p", "x"],
    );
    refused(&both, &fake, 1, "--session-id");
    let out = run(&sb, &fake, &["--session-id", id, "-o", "json", "-p", "hi"]);
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["session_id"], id);
    let fake = FakeServer::replaying(&lines(&[text("two")]));
    let out = run(&sb, &fake, &["--session-id", id, "-p", "again"]);
    refused(&out, &fake, 42, "--session-id");
    assert!(out.stderr.contains(id), "{out:?}");
    // The recorded session resumes under that id.
    let out = run(&sb, &fake, &["--resume", id, "-p", "again"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(texts_sent(&fake).contains("\"hi\""));
}

/// An exported session (one JSON object, as `/export-session` writes it).
fn exported(sb: &Sandbox) -> std::path::PathBuf {
    let record = json!({
        "sessionId": "11111111-2222-3333-4444-555555555555",
        "projectHash": "elsewhere",
        "startTime": "2026-01-01T00:00:00.000Z",
        "lastUpdated": "2026-01-01T00:01:00.000Z",
        "messages": [
            {"id": "a", "timestamp": "2026-01-01T00:00:00.000Z", "type": "user",
             "content": [{"text": "the secret word is plover"}]},
            {"id": "b", "timestamp": "2026-01-01T00:00:01.000Z", "type": "gemini",
             "content": "Noted.", "model": "gemini-2.5-flash"},
            {"id": "c", "timestamp": "2026-01-01T00:00:02.000Z", "type": "error",
             "content": "not imported"}
        ]
    });
    sb.write(
        "exported.json",
        &serde_json::to_string_pretty(&record).unwrap(),
    )
}

#[test]
fn session_file_imports_an_exported_session_and_refuses_a_bad_one() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[text("plover, yes")]));
    let out = run(&sb, &fake, &["--session-file", "missing.json", "-p", "x"]);
    refused(&out, &fake, 42, "--session-file");
    sb.write("broken.json", "{\"sessionId\": ");
    let out = run(&sb, &fake, &["--session-file", "broken.json", "-p", "x"]);
    refused(&out, &fake, 42, "--session-file");
    let file = exported(&sb);
    let file = file.to_str().unwrap();
    let out = run(
        &sb,
        &fake,
        &["--session-file", file, "-o", "json", "-p", "word?"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let new_id = v["session_id"].as_str().unwrap().to_string();
    assert_ne!(new_id, "11111111-2222-3333-4444-555555555555");
    let sent = texts_sent(&fake);
    assert!(sent.contains("the secret word is plover"), "{sent}");
    assert!(sent.contains("Noted."), "{sent}");
    assert!(!sent.contains("not imported"), "{sent}");
    // It is a session of this project now, with the import noted.
    let chats = sb.project_temp_dir().join("chats");
    let recorded: String = std::fs::read_dir(&chats)
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .find(|t| t.contains(&new_id))
        .unwrap();
    assert!(recorded.contains("Imported session from"), "{recorded}");
    assert!(recorded.contains("plover, yes"), "{recorded}");
}

#[test]
fn admin_policy_rules_outrank_the_users_and_a_missing_file_is_refused() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[text("unused")]));
    let out = run(&sb, &fake, &["--admin-policy", "nope.toml", "-p", "x"]);
    refused(&out, &fake, 42, "--admin-policy");
    assert!(out.stderr.contains("nope.toml"), "{out:?}");
    // The user allows the shell; the admin denies it.
    sb.write_home(
        ".gemini/policies/user.toml",
        "[[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 999\n",
    );
    let admin = sb.write(
        "admin/deny.toml",
        "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"touch\"\ndecision = \"deny\"\npriority = 1\n",
    );
    let shell = || {
        FakeServer::replaying(&lines(&[
            call("run_shell_command", json!({"command": "touch ran.txt"})),
            text("done"),
        ]))
    };
    let fake = shell();
    let out = run_today(&sb, &fake, &["-p", "go"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(sb.read("ran.txt").is_some(), "the user's allow rule works");
    std::fs::remove_file(sb.work.join("ran.txt")).unwrap();
    for given in [
        admin.to_str().unwrap(),
        admin.parent().unwrap().to_str().unwrap(),
    ] {
        let fake = shell();
        let out = run_today(&sb, &fake, &["--admin-policy", given, "-p", "go"]);
        assert_eq!(out.code, 0, "{out:?}");
        assert!(sb.read("ran.txt").is_none(), "the admin deny lost");
        let sent = texts_sent(&fake);
        assert!(sent.contains("denied by policy"), "{sent}");
    }
}

fn extension(sb: &Sandbox, name: &str) {
    let manifest = json!({"name": name, "version": "1.0.0"});
    sb.write_home(
        &format!(".gemini/extensions/{name}/gemini-extension.json"),
        &manifest.to_string(),
    );
}

#[test]
fn extensions_flag_picks_extensions_and_list_extensions_prints_them() {
    let sb = sandbox();
    extension(&sb, "alpha");
    extension(&sb, "beta");
    let list = |extra: &[&str]| {
        let mut args = extra.to_vec();
        args.push("-l");
        sb.run(&args, None, &[])
    };
    let out = list(&[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("- alpha") && out.stdout.contains("- beta"));
    let out = list(&["-e", "ALPHA"]);
    assert!(out.stdout.contains("- alpha") && !out.stdout.contains("- beta"));
    let out = list(&["--extensions", "none"]);
    assert!(!out.stdout.contains("- alpha") && !out.stdout.contains("- beta"));
    let out = list(&["-e", "alpha,gamma"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("Extension not found: gamma"), "{out:?}");
    // An extension switched off for this folder runs when named.
    let out = sb.run(
        &["extensions", "disable", "beta", "--scope", "workspace"],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!list(&[]).stdout.contains("- beta"));
    assert!(list(&["-e", "beta"]).stdout.contains("- beta"));
}

fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
        .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn worktree_flag_works_in_a_kept_git_worktree_and_refuses_outside_git() {
    let sb = sandbox();
    let fake = FakeServer::replaying(&lines(&[text("unused")]));
    let out = run(&sb, &fake, &["-w", "feat", "-p", "x"]);
    refused(&out, &fake, 1, "--worktree");
    std::fs::write(sb.work.join("README"), "hi\n").unwrap();
    git(&sb.work, &["init", "-q"]);
    git(&sb.work, &["add", "README"]);
    git(&sb.work, &["commit", "-q", "-m", "first"]);
    let pwd = || {
        FakeServer::replaying(&lines(&[
            call("run_shell_command", json!({"command": "pwd > where.txt"})),
            text("done"),
        ]))
    };
    let tree = sb.work.join(".gemini/worktrees/feat");
    for _ in 0..2 {
        // Created on the first run, entered again on the second.
        let fake = pwd();
        let out = run(&sb, &fake, &["--yolo", "--worktree", "feat", "-p", "go"]);
        assert_eq!(out.code, 0, "{out:?}");
        let seen = std::fs::read_to_string(tree.join("where.txt")).unwrap();
        assert_eq!(Path::new(seen.trim()), tree);
        std::fs::remove_file(tree.join("where.txt")).unwrap();
    }
    assert!(tree.join("README").is_file(), "kept after the runs");
    let branches = std::process::Command::new("git")
        .args(["branch", "--list", "feat"])
        .current_dir(&sb.work)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&branches.stdout).contains("feat"));
    // Without a name, one is made up.
    let fake = pwd();
    let out = run(&sb, &fake, &["--yolo", "-w", "-p", "go"]);
    assert_eq!(out.code, 0, "{out:?}");
    let made: Vec<_> = std::fs::read_dir(sb.work.join(".gemini/worktrees"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name() != "feat")
        .collect();
    assert_eq!(made.len(), 1);
    assert!(made[0].path().join("where.txt").is_file());
    let bad = FakeServer::replaying(&lines(&[text("unused")]));
    let out = run(&sb, &bad, &["-w", "no..dots", "-p", "x"]);
    refused(&out, &bad, 1, "--worktree");
}
