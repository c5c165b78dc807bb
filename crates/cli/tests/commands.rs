//! Custom slash commands (`.gemini/commands/**/*.toml`) through the binary:
//! what the model receives for each form of prompt.

use crate::e2e::{lines, text};
use crate::support::{Output, Sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    sb
}

/// Runs `-p prompt` (plus `extra` flags) and returns the output and the
/// parts of the user turn the model received.
fn run(sb: &Sandbox, prompt: &str, extra: &[&str]) -> (Output, Vec<Value>) {
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let mut args = extra.to_vec();
    args.extend(["-p", prompt]);
    let out = sb.run(&args, None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    let parts = fake
        .requests()
        .first()
        .and_then(|r| {
            r.body["contents"]
                .as_array()
                .and_then(|c| c.last())
                .cloned()
        })
        .map(|c| c["parts"].as_array().cloned().unwrap_or_default())
        .unwrap_or_default();
    (out, parts)
}

fn texts(parts: &[Value]) -> Vec<&str> {
    parts.iter().map(|p| p["text"].as_str().unwrap()).collect()
}

#[test]
fn args_namespaces_and_the_default_argument_rule() {
    let sb = sandbox();
    sb.write_home(
        ".gemini/commands/git/commit.toml",
        "description = \"Commit message\"\nprompt = \"Write a commit message for: {{args}}\"\n",
    );
    sb.write_home(
        ".gemini/commands/review.toml",
        "prompt = \"Review the code.\"\n",
    );
    sb.write_home(
        ".gemini/commands/clash.toml",
        "prompt = \"from the user\"\n",
    );
    sb.write(
        ".gemini/commands/clash.toml",
        "prompt = \"from the project\"\n",
    );
    let (out, parts) = run(&sb, "/git:commit fix the typo", &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(texts(&parts), ["Write a commit message for: fix the typo"]);
    let (_, parts) = run(&sb, "/review src/main.rs", &[]);
    assert_eq!(texts(&parts), ["Review the code.\n\n/review src/main.rs"]);
    let (_, parts) = run(&sb, "/review", &[]);
    assert_eq!(texts(&parts), ["Review the code."]);
    let (_, parts) = run(&sb, "/clash", &[]);
    assert_eq!(texts(&parts), ["from the project"]);
    // Not a command: the text goes to the model as it is.
    let (_, parts) = run(&sb, "/nothing here", &[]);
    assert_eq!(texts(&parts), ["/nothing here"]);
}

#[test]
fn files_are_inlined_as_their_own_parts() {
    let sb = sandbox();
    sb.write("notes.txt", "alpha\nbeta\n");
    sb.write("docs/a.md", "doc a\n");
    sb.write_home(
        ".gemini/commands/sum.toml",
        "prompt = \"\"\"Summarise:\n@{notes.txt}\nThanks.\"\"\"\n",
    );
    sb.write_home(".gemini/commands/docs.toml", "prompt = \"Docs: @{docs}\"\n");
    sb.write_home(
        ".gemini/commands/out.toml",
        "prompt = \"@{../outside.txt}\"\n",
    );
    let (out, parts) = run(&sb, "/sum", &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        texts(&parts),
        ["Summarise:\n", "alpha\nbeta\n", "\nThanks."]
    );
    let (_, parts) = run(&sb, "/docs", &[]);
    assert!(texts(&parts)[1].contains("doc a"), "{parts:?}");
    let (out, _) = run(&sb, "/out", &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("@{../outside.txt}"), "{}", out.stderr);
}

#[test]
fn shell_injections_follow_the_policy() {
    let sb = sandbox();
    sb.write_home(
        ".gemini/commands/st.toml",
        "prompt = \"Status: !{echo hi {{args}}} and !{exit 3}\"\n",
    );
    let (out, parts) = run(&sb, "/st it's me", &["--approval-mode", "yolo"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        texts(&parts),
        ["Status: hi it's me and \n[Shell command 'exit 3' exited with code 3]"]
    );
    // Headless without yolo nobody can approve: refused, nothing sent.
    let (out, parts) = run(&sb, "/st x", &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("needs your approval"), "{}", out.stderr);
    assert!(parts.is_empty());
    // A policy that allows the command lets it run.
    let (out, parts) = run(
        &sb,
        "/st",
        &[
            "--allowed-tools",
            "run_shell_command(echo),run_shell_command(exit)",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(texts(&parts)[0].starts_with("Status: hi"), "{parts:?}");
}

#[test]
fn a_malformed_file_is_named_and_skipped() {
    let sb = sandbox();
    sb.write_home(
        ".gemini/commands/bad.toml",
        "prompt = \"x\"\nprompt = = 2\n",
    );
    sb.write_home(".gemini/commands/good.toml", "prompt = \"fine\"\n");
    let (out, parts) = run(&sb, "/good", &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(texts(&parts), ["fine"]);
    assert!(out.stderr.contains("bad.toml (line 2)"), "{}", out.stderr);
}

#[test]
fn mcp_prompts_are_slash_commands() {
    let Some(bin) = crate::mcp::everything_bin() else {
        return;
    };
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"everything": {"command": bin.display().to_string(), "args": ["stdio"]}}}));
    let (out, parts) = run(&sb, r#"/args-prompt --state="New York" Buffalo"#, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(texts(&parts), ["What's weather in Buffalo, New York?"]);
    let (_, parts) = run(&sb, "/simple-prompt", &[]);
    assert_eq!(
        texts(&parts),
        ["This is a simple prompt without arguments."]
    );
    let (out, parts) = run(&sb, "/args-prompt", &[]);
    assert_eq!(
        out.code, 0,
        "one required argument takes every word, none here"
    );
    assert_eq!(texts(&parts), ["What's weather in ?"]);
}

#[test]
fn extensions_bring_commands_and_skills() {
    let sb = sandbox();
    sb.write_home(
        ".gemini/extensions/tools/gemini-extension.json",
        r#"{"name": "tools", "version": "1.0.0"}"#,
    );
    sb.write_home(
        ".gemini/extensions/tools/commands/deploy.toml",
        "prompt = \"Deploy {{args}} now.\"\n",
    );
    sb.write_home(
        ".gemini/extensions/tools/skills/ship/SKILL.md",
        "---\nname: ship\ndescription: Ships releases.\n---\nTag, build, upload.\n",
    );
    sb.write_home(
        ".gemini/extensions/tools/GEMINI.md",
        "Deployments go through the tools extension.\n",
    );
    sb.write_home(
        ".gemini/extensions/tools/hooks/hooks.json",
        r#"{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command",
            "command": "cat > /dev/null; echo ran > ${extensionPath}${/}ran.txt"}]}]}}"#,
    );
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let out = sb.run(
        &["-p", "/deploy staging"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let body = &fake.requests()[0].body;
    let turn = body["contents"].as_array().unwrap().last().unwrap();
    assert_eq!(turn["parts"][0]["text"], "Deploy staging now.");
    let system = body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(system.contains("<name>ship</name>"), "{system}");
    assert!(
        system.contains("Deployments go through the tools extension."),
        "{system}"
    );
    // The extension's hook ran, its variables substituted.
    let ran = sb.home.join(".gemini/extensions/tools/ran.txt");
    assert_eq!(std::fs::read_to_string(ran).unwrap(), "ran\n");
    let listed = sb.run(&["extensions", "list"], None, &[]);
    assert_eq!(listed.code, 0, "{listed:?}");
    assert!(
        listed.stderr.contains("✓ tools (1.0.0)"),
        "{}",
        listed.stderr
    );
    // Switched off for this folder (in Gemini CLI's enablement file): gone.
    let off = sb.run(
        &["extensions", "disable", "tools", "--scope", "workspace"],
        None,
        &[],
    );
    assert_eq!(off.code, 0, "{off:?}");
    let file = sb.home.join(".gemini/extensions/extension-enablement.json");
    let rules: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(
        rules["tools"]["overrides"][0],
        format!("!{}/*", sb.work.display())
    );
    let (_, parts) = run(&sb, "/deploy staging", &[]);
    assert_eq!(texts(&parts), ["/deploy staging"]);
    assert!(
        sb.run(&["extensions", "list"], None, &[])
            .stderr
            .contains("✗ tools")
    );
    let on = sb.run(
        &["extensions", "enable", "tools", "--scope", "workspace"],
        None,
        &[],
    );
    assert_eq!(on.code, 0, "{on:?}");
    let (_, parts) = run(&sb, "/deploy staging", &[]);
    assert_eq!(texts(&parts), ["Deploy staging now."]);
    let missing = sb.run(&["extensions", "disable", "nope"], None, &[]);
    assert_eq!(missing.code, 1);
}

#[test]
fn an_extension_installs_from_a_git_repository_and_uninstalls() {
    let sb = sandbox();
    let src = sb.work.join("ext-src");
    sb.write(
        "ext-src/gemini-extension.json",
        r#"{"name": "greeter", "version": "0.2.0"}"#,
    );
    sb.write(
        "ext-src/commands/hello.toml",
        "prompt = \"Say hello to {{args}}.\"\n",
    );
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .current_dir(&src)
            .output()
            .unwrap();
        assert!(status.status.success(), "{status:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "extension"]);
    let url = format!("file://{}", src.display());
    let out = sb.run(&["extensions", "install", &url], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("\"greeter\" installed"),
        "{}",
        out.stdout
    );
    let installed = sb.home.join(".gemini/extensions/greeter");
    assert!(installed.join("commands/hello.toml").is_file());
    assert!(!installed.join(".git").exists());
    let record = std::fs::read_to_string(installed.join(".gemini-extension-install.json")).unwrap();
    assert!(record.contains("\"type\": \"git\""), "{record}");
    let (_, parts) = run(&sb, "/hello world", &[]);
    assert_eq!(texts(&parts), ["Say hello to world."]);
    let again = sb.run(&["extensions", "install", &url], None, &[]);
    assert_eq!(again.code, 1, "{again:?}");
    // A new commit in the repository arrives with `update`.
    sb.write(
        "ext-src/commands/hello.toml",
        "prompt = \"Greet {{args}} warmly.\"\n",
    );
    git(&["commit", "-q", "-am", "warmer"]);
    let updated = sb.run(&["extensions", "update", "greeter"], None, &[]);
    assert_eq!(updated.code, 0, "{updated:?}");
    let (_, parts) = run(&sb, "/hello world", &[]);
    assert_eq!(texts(&parts), ["Greet world warmly."]);
    let gone = sb.run(&["extensions", "uninstall", "greeter"], None, &[]);
    assert_eq!(gone.code, 0, "{gone:?}");
    assert!(!installed.exists());
    let (_, parts) = run(&sb, "/hello world", &[]);
    assert_eq!(texts(&parts), ["/hello world"]);
}

#[test]
fn a_linked_extension_is_used_in_place() {
    let sb = sandbox();
    let src = sb.work.join("devext");
    let made = sb.run(
        &[
            "extensions",
            "new",
            src.to_str().unwrap(),
            "custom-commands",
        ],
        None,
        &[],
    );
    assert_eq!(made.code, 0, "{made:?}");
    assert!(src.join("commands/hello.toml").is_file());
    sb.write("devext/commands/try.toml", "prompt = \"First draft.\"\n");
    let out = sb.run(&["extensions", "link", src.to_str().unwrap()], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let (_, parts) = run(&sb, "/try", &[]);
    assert_eq!(texts(&parts), ["First draft."]);
    // Edits in the folder apply at once.
    sb.write("devext/commands/try.toml", "prompt = \"Second draft.\"\n");
    let (_, parts) = run(&sb, "/try", &[]);
    assert_eq!(texts(&parts), ["Second draft."]);
    let gone = sb.run(&["extensions", "uninstall", "devext"], None, &[]);
    assert_eq!(gone.code, 0, "{gone:?}");
    assert!(
        src.join("gemini-extension.json").is_file(),
        "the source stays"
    );
    let (_, parts) = run(&sb, "/try", &[]);
    assert_eq!(texts(&parts), ["/try"]);
}

#[test]
fn extension_settings_are_asked_for_and_fill_its_servers() {
    let sb = sandbox();
    sb.write(
        "cfg-ext/gemini-extension.json",
        r#"{"name": "cfgext", "version": "1.0.0",
            "settings": [{"name": "API token", "description": "The service's token", "envVar": "CFG_TOKEN"}],
            "mcpServers": {"svc": {"command": "/nonexistent/svc-${CFG_TOKEN}"}}}"#,
    );
    let src = sb.work.join("cfg-ext");
    let src = src.to_str().unwrap();
    // Headless with nothing in the environment: refused, nothing installed.
    let out = sb.run(&["extensions", "install", src], None, &[]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("CFG_TOKEN"), "{}", out.stderr);
    assert!(!sb.home.join(".gemini/extensions/cfgext").exists());
    let out = sb.run(
        &["extensions", "install", src],
        None,
        &[("CFG_TOKEN", "t0k")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let env_file = sb.home.join(".gemini/extensions/cfgext/.env");
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        "CFG_TOKEN='t0k'\n"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&env_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // The stored value fills the server's command (which then fails to start).
    let (out, _) = run(&sb, "hi", &[]);
    assert!(out.stderr.contains("svc-t0k"), "{}", out.stderr);
}
