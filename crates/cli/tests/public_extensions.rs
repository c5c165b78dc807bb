//! Published extensions and context files, used the way their authors
//! expect (issue 36): the `gemini-cli-extensions` organisation's conductor,
//! security, code-review and sre (committed unchanged under
//! `fixtures/public-extensions/`, see its SOURCES.md) install and load; an
//! extension's policies and `plan.directory` apply as in Gemini CLI 0.61;
//! nested `@imports` of a GEMINI.md expand as 0.61 expands them. The
//! expected answers were recorded from 0.61.0 (`e2e/reference/extensions.py`).

use crate::e2e::{call, lines, text};
use crate::support::{Output, Sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The committed copy of a public extension.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/public-extensions")
        .join(name)
}

/// A sandbox speaking today's dialect, with the public extensions `names`
/// installed from their fixtures with `extensions install <path> --consent`.
fn with_extensions(names: &[&str]) -> Sandbox {
    let sb = Sandbox::new();
    sb.settings(
        &json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}),
    );
    for name in names {
        let path = fixture(name).display().to_string();
        let out = sb.run(&["extensions", "install", &path, "--consent"], None, &[]);
        assert_eq!(out.code, 0, "{name}: {out:?}");
    }
    sb
}

/// Runs `-p prompt` with `flags` in today's dialect against `fake`.
fn run(sb: &Sandbox, fake: &FakeServer, flags: &[&str], prompt: &str) -> Output {
    let mut args = flags.to_vec();
    args.extend(["-p", prompt]);
    sb.run(
        &args,
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_RS_DIALECT", "today"),
        ],
    )
}

/// Every text the first model request carried: system instruction and
/// contents.
fn request_text(fake: &FakeServer) -> String {
    let body = &fake.requests()[0].body;
    let mut out = String::new();
    let mut collect = |v: &Value| {
        for part in v["parts"].as_array().into_iter().flatten() {
            out.push_str(part["text"].as_str().unwrap_or(""));
            out.push('\n');
        }
    };
    collect(&body["systemInstruction"]);
    for content in body["contents"].as_array().into_iter().flatten() {
        collect(content);
    }
    out
}

#[test]
fn conductor_policies_and_plan_directory_apply_as_in_0_61() {
    let sb = with_extensions(&["conductor"]);
    std::fs::create_dir_all(sb.work.join(".git")).unwrap();
    let fake = FakeServer::replaying(&lines(&[
        call(
            "write_file",
            json!({"file_path": "conductor/product.md", "content": "# Product\n"}),
        ),
        call(
            "write_file",
            json!({"file_path": "notes.md", "content": "x\n"}),
        ),
        call("run_shell_command", json!({"command": "ls"})),
        call("run_shell_command", json!({"command": "rm -rf x"})),
        text("done"),
    ]));
    let out = run(&sb, &fake, &["--approval-mode", "plan"], "go");
    assert_eq!(out.code, 0, "{out:?}");
    // The extension's ask rules for the shell in plan mode keep it declared.
    let declared: Vec<String> = fake.requests()[0].body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    assert!(
        declared.contains(&"run_shell_command".to_string()),
        "{declared:?}"
    );
    let responses: Vec<Value> = fake
        .function_responses()
        .iter()
        .map(|r| r["functionResponse"]["response"].clone())
        .collect();
    let confirm = |tool: &str| json!({"error": format!("Tool execution for \"{tool}\" requires user confirmation, which is not supported in non-interactive mode.")});
    assert_eq!(responses.len(), 4, "{responses:?}");
    // conductor/ files: the extension's ask_user rule (no one to ask).
    assert_eq!(responses[0], confirm("WriteFile"));
    // A plan goes to the extension's plans folder, `conductor/`.
    let written = sb.work.join("conductor/notes.md");
    // As 0.61 answered (recorded-0.61/conductor.json).
    let said = responses[1]["output"].as_str().unwrap_or("");
    let expected = format!(
        "Successfully created and wrote to new file: {}. Here is the updated code:\nx\n",
        written.display()
    );
    assert_eq!(said, expected, "{responses:?}");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), "x\n");
    assert!(!sb.work.join("notes.md").exists());
    assert!(!sb.work.join("conductor/product.md").exists());
    // `ls` is among the extension's plan-mode shell prefixes: asked.
    assert_eq!(responses[2], confirm("Shell"));
    // Anything else stays refused by plan mode.
    assert_eq!(
        responses[3],
        json!({"error": "Tool execution denied by policy. You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked."})
    );
}

#[test]
fn an_extension_may_restrict_but_not_allow() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    sb.write(
        "ext/gemini-extension.json",
        r#"{"name": "strict", "version": "1.0.0", "plan": {"directory": "../escape"}}"#,
    );
    sb.write(
        "ext/policies/rules.toml",
        "[[rule]]\ntoolName = \"glob\"\ndecision = \"deny\"\npriority = 10\n\n\
         [[rule]]\ntoolName = \"run_shell_command\"\ndecision = \"allow\"\npriority = 10\n\n\
         [[rule]]\ntoolName = \"read_file\"\ndecision = \"deny\"\npriority = 10\nmodes = [\"yolo\"]\n",
    );
    let path = sb.work.join("ext").display().to_string();
    let out = sb.run(&["extensions", "install", &path, "--consent"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let fake = FakeServer::replaying(&lines(&[
        call("glob", json!({"pattern": "*"})),
        call("run_shell_command", json!({"command": "echo hi"})),
        text("done"),
    ]));
    let out = run(&sb, &fake, &[], "go");
    assert_eq!(out.code, 0, "{out:?}");
    for warning in [
        "Extension \"strict\" attempted to contribute an ALLOW rule for tool \"run_shell_command\". Ignoring this rule for security.",
        "Extension \"strict\" attempted to contribute a rule for YOLO mode. Ignoring this rule for security.",
        "Invalid plan.directory in extension \"strict\": \"../escape\". Relative parent navigation and absolute paths are not allowed.",
    ] {
        assert!(out.stderr.contains(warning), "{warning}: {}", out.stderr);
    }
    // As 0.61 answers: the denied glob is removed; the dropped allow leaves
    // the headless shell undeclared; read_file stays.
    let declared: Vec<String> = fake.requests()[0].body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect();
    assert!(declared.contains(&"read_file".to_string()), "{declared:?}");
    let responses = fake.function_responses();
    for (i, tool) in ["glob", "run_shell_command"].iter().enumerate() {
        let error = responses[i]["functionResponse"]["response"]["error"]
            .as_str()
            .unwrap_or("");
        assert!(
            error.starts_with(&format!("Tool \"{tool}\" not found.")),
            "{responses:?}"
        );
    }
}

#[test]
fn nested_imports_expand_as_0_61_expands_them() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    std::fs::create_dir_all(sb.work.join(".git")).unwrap();
    for (rel, content) in [
        (
            "GEMINI.md",
            "Top line.\n@a.md\nInline see @docs/b.md here.\nMail me @nobody.\n`@code.md` stays.\n@../outside.md\n@cycle1.md\n@/etc/hostname\n",
        ),
        ("a.md", "A level one.\n@sub/c.md\n"),
        ("sub/c.md", "C level two.\n@d.md\n"),
        ("sub/d.md", "D level three.\n@e.md\n"),
        ("sub/e.md", "E level four.\n@f.md\n"),
        ("sub/f.md", "F level five.\n@g.md\n"),
        ("sub/g.md", "G level six.\n"),
        ("docs/b.md", "B inline."),
        ("cycle1.md", "Cycle one.\n@cycle2.md\n"),
        ("cycle2.md", "Cycle two.\n@cycle1.md\n@GEMINI.md\n"),
        ("code.md", "CODE"),
    ] {
        sb.write(rel, content);
    }
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let out = run(&sb, &fake, &[], "go");
    assert_eq!(out.code, 0, "{out:?}");
    let recorded = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/imports-0.61.txt"),
    )
    .unwrap();
    // The expanded file between its frame lines (where the frame goes and
    // how it names the file is the session context's business).
    let lines_of: Vec<&str> = recorded.trim_end().lines().collect();
    assert!(lines_of[0].starts_with("--- Context from: "), "{recorded}");
    let expected = lines_of[1..lines_of.len() - 1]
        .join("\n")
        .replace("<tmp>", sb.work.to_str().unwrap());
    let sent = request_text(&fake);
    assert!(
        sent.contains(&expected),
        "expected:\n{expected}\nsent:\n{sent}"
    );
}

/// The output of `args`, both streams (where a listing prints differs
/// between the dialects).
fn listing(sb: &Sandbox, args: &[&str]) -> String {
    let out = sb.run(args, None, &[("GEMINI_RS_DIALECT", "today")]);
    assert_eq!(out.code, 0, "{args:?}: {out:?}");
    format!("{}{}", out.stdout, out.stderr)
}

#[test]
fn public_extensions_install_and_load_as_their_authors_expect() {
    let sb = with_extensions(&["conductor", "security", "code-review", "sre"]);
    let installed = sb.home.join(".gemini/extensions");
    for (dir, file) in [
        ("conductor", "commands/conductor/newTrack.toml"),
        ("conductor", "policies/conductor.toml"),
        ("gemini-cli-security", "commands/security/analyze.toml"),
        ("code-review", "commands/code-review.toml"),
        ("sre-extension", "skills/anomaly-detection/SKILL.md"),
    ] {
        assert!(installed.join(dir).join(file).is_file(), "{dir}/{file}");
    }
    let list = listing(&sb, &["extensions", "list"]);
    for name in [
        "conductor",
        "gemini-cli-security",
        "code-review",
        "sre-extension",
    ] {
        assert!(list.contains(name), "{name}: {list}");
    }
    // The security extension's servers are declared (their programs are
    // not shipped in the fixture, so they do not connect).
    let mcp = listing(&sb, &["mcp", "list"]);
    for name in ["securityServer", "osvScanner"] {
        assert!(mcp.contains(name), "{name}: {mcp}");
    }
    let skills = listing(&sb, &["skills", "list"]);
    for name in [
        "anomaly-detection",
        "postmortem-generator",
        "safe-sre-investigator",
    ] {
        assert!(skills.contains(name), "{name}: {skills}");
    }

    // `{{args}}` of conductor's newTrack; every extension's context file.
    let fake = FakeServer::replaying(&lines(&[text("Track noted.")]));
    let out = run(&sb, &fake, &[], "/conductor:newTrack Add a login page");
    assert_eq!(out.code, 0, "{out:?}");
    // sre's policy file is in another format (`[[policy.rules]]`): it holds
    // no `[[rule]]`, so, as in 0.61, it adds nothing and says nothing.
    assert!(!out.stderr.contains("policies"), "{}", out.stderr);
    let sent = request_text(&fake);
    assert!(
        sent.contains("Use the content of `Add a login page` as the track description."),
        "{sent}"
    );
    for context in ["# Conductor Context", "Universal File Resolution Protocol"] {
        assert!(sent.contains(context), "{context}");
    }
    let security_context = std::fs::read_to_string(fixture("security/GEMINI.md")).unwrap();
    let first_line = security_context
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap();
    assert!(sent.contains(first_line), "{first_line}");
}

#[test]
fn a_conductor_and_a_security_command_run_end_to_end() {
    let sb = with_extensions(&["conductor", "security"]);
    sb.write(
        "conductor/tracks.md",
        "# Tracks\n\n- [~] **Track: Login page**\n",
    );
    // conductor's status: the model reads the tracks registry and reports.
    let fake = FakeServer::replaying(&lines(&[
        call("read_file", json!({"file_path": "conductor/tracks.md"})),
        text("One track in progress: Login page."),
    ]));
    let out = run(&sb, &fake, &[], "/conductor:status");
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout.contains("One track in progress: Login page."),
        "{out:?}"
    );
    let first = &fake.requests()[0].body["contents"];
    let prompt = first.as_array().unwrap().last().unwrap().to_string();
    assert!(
        prompt.contains("Your primary function is to provide a status overview"),
        "{prompt}"
    );
    let read = fake.function_responses();
    assert!(
        read[0]["functionResponse"]["response"]["output"]
            .as_str()
            .unwrap_or("")
            .contains("Track: Login page"),
        "{read:?}"
    );

    // security's analyze-github-pr: its `!{echo $VAR}` lines run (the
    // policy allows echo), as in the GitHub workflow it was written for.
    let fake = FakeServer::replaying(&lines(&[text("No findings.")]));
    let out = sb.run(
        &[
            "--allowed-tools",
            "run_shell_command(echo)",
            "-p",
            "/security:analyze-github-pr",
        ],
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_RS_DIALECT", "today"),
            ("REPOSITORY", "acme/app"),
            ("PULL_REQUEST_NUMBER", "42"),
            ("ADDITIONAL_CONTEXT", "focus on auth"),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("No findings."), "{out:?}");
    let sent = request_text(&fake);
    for line in [
        "- **GitHub Repository**: acme/app",
        "- **Pull Request Number**: 42",
        "- **Additional User Instructions**: focus on auth",
    ] {
        assert!(sent.contains(line), "{line}: {sent}");
    }
}

#[test]
fn an_extension_plans_folder_leading_out_of_the_project_falls_back() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    sb.write(
        "ext/gemini-extension.json",
        r#"{"name": "planner", "version": "1.0.0", "plan": {"directory": "plans-link"}}"#,
    );
    let path = sb.work.join("ext").display().to_string();
    let out = sb.run(&["extensions", "install", &path, "--consent"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let outside = sb.home.join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, sb.work.join("plans-link")).unwrap();
    let fake = FakeServer::replaying(&lines(&[
        call(
            "write_file",
            json!({"file_path": "plan.md", "content": "# Plan\n"}),
        ),
        text("done"),
    ]));
    let out = run(&sb, &fake, &["--approval-mode", "plan"], "go");
    assert_eq!(out.code, 0, "{out:?}");
    let warning = format!(
        "Invalid custom plans directory: Custom plans directory 'plans-link' resolves to '{}', which is outside the project root '{}'.. Falling back to default project temp directory.",
        outside.display(),
        sb.work.display()
    );
    assert!(out.stderr.contains(&warning), "{warning}\n{}", out.stderr);
    // The plan went to the session's temp folder, nothing outside.
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    let said = fake.function_responses()[0]["functionResponse"]["response"]["output"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let temp = sb.project_temp_dir().display().to_string();
    assert!(said.contains(&temp), "{said}");
}

#[test]
fn an_extension_context_file_imports_from_its_own_folder() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    sb.write(
        "ext/gemini-extension.json",
        r#"{"name": "docs", "version": "1.0.0"}"#,
    );
    sb.write(
        "ext/GEMINI.md",
        "Extension rules, see @docs/more.md and @../secret.md.\n",
    );
    sb.write("ext/docs/more.md", "MORE-RULES");
    let path = sb.work.join("ext").display().to_string();
    let out = sb.run(&["extensions", "install", &path, "--consent"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    sb.write_home(".gemini/extensions/secret.md", "SECRET");
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let out = run(&sb, &fake, &[], "go");
    assert_eq!(out.code, 0, "{out:?}");
    let sent = request_text(&fake);
    assert!(
        sent.contains(
            "Extension rules, see <!-- Imported from: docs/more.md -->\nMORE-RULES\n<!-- End of import from: docs/more.md --> and <!-- Import failed: ../secret.md. - Path traversal attempt -->"
        ),
        "{sent}"
    );
    assert!(!sent.contains("SECRET"));
}
