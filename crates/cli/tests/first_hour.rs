//! A newcomer's first hour, through the binary: an empty answer is
//! reported, the README's and the container's first commands run.

use crate::e2e::{call, lines, text, turn};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

/// Gemini CLI 0.61's words for an answer that stayed empty.
const EMPTY: &str = "The model returned an empty response with no text or thoughts. \
This may be a transient API issue; please try again.";

fn gemini_settings(sb: &Sandbox) {
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
}

/// The text parts of the last user turn of a recorded request.
fn last_user_text(body: &Value) -> String {
    let contents = body["contents"].as_array().cloned().unwrap_or_default();
    let last = contents.last().cloned().unwrap_or_default();
    last["parts"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p["text"].as_str())
        .collect::<Vec<_>>()
        .join("")
}

#[test]
fn an_empty_answer_is_asked_again_once_then_reported() {
    let sb = Sandbox::new();
    gemini_settings(&sb);
    let empty = turn(json!([{"text": ""}]));
    for format in ["text", "stream-json", "json"] {
        let fake = FakeServer::replaying(&lines(&[empty.clone(), empty.clone()]));
        // `errorsByType` is today's field (0.27.4's stats had none).
        let out = sb.run(
            &["-o", format, "-p", "say hi"],
            None,
            &[
                ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
                ("GEMINI_RS_DIALECT", "today"),
            ],
        );
        // Gemini CLI 0.61 also ends with 0 here.
        assert_eq!(out.code, 0, "{out:?}");
        assert!(
            out.stderr.contains(&format!("[WARNING] {EMPTY}")),
            "{format}: {out:?}"
        );
        let sent: Vec<_> = fake
            .requests()
            .into_iter()
            .filter(|r| r.path.to_lowercase().contains("generatecontent"))
            .collect();
        assert_eq!(sent.len(), 2, "{format}: one retry");
        let (first, second) = (&sent[0].body, &sent[1].body);
        assert_eq!(last_user_text(first), "say hi");
        assert!(
            last_user_text(second).contains("[System: You previously returned an empty response"),
            "the retry carries 0.61's nudge: {second}"
        );
        match format {
            "stream-json" => {
                let warning = out
                    .stdout
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .find(|v| v["type"] == "error")
                    .expect("an error line");
                assert_eq!(warning["severity"], "warning", "{warning}");
                assert_eq!(warning["message"], EMPTY);
            }
            "json" => {
                let v: Value = serde_json::from_str(&out.stdout).unwrap();
                let api = &v["stats"]["models"]["gemini-2.5-flash"]["api"];
                assert_eq!(api["errorsByType"]["NO_RESPONSE_TEXT"], 1, "{v}");
                assert_eq!(api["totalRequests"], 2, "{v}");
            }
            _ => assert_eq!(out.stdout.trim(), ""),
        }
    }
}

#[test]
fn an_answer_on_the_retry_is_shown_without_a_notice() {
    let sb = Sandbox::new();
    gemini_settings(&sb);
    let fake = FakeServer::replaying(&lines(&[turn(json!([{"text": ""}])), text("hello")]));
    let out = sb.run(
        &["-p", "say hi"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "hello");
    assert!(!out.stderr.contains(EMPTY), "{out:?}");
}

#[test]
fn an_empty_answer_to_tool_results_ends_the_turn_quietly() {
    // Gemini CLI 0.61 neither retries nor reports it (the answer follows a
    // function response).
    let sb = Sandbox::new();
    gemini_settings(&sb);
    sb.write("a.txt", "x");
    let fake = FakeServer::replaying(&lines(&[
        call("read_file", json!({"file_path": "a.txt"})),
        turn(json!([{"text": ""}])),
        text("never asked for"),
    ]));
    let out = sb.run(
        &["--approval-mode=yolo", "-p", "read a.txt"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!out.stderr.contains(EMPTY), "{out:?}");
    let sent = fake
        .requests()
        .into_iter()
        .filter(|r| r.path.to_lowercase().contains("generatecontent"))
        .count();
    assert_eq!(sent, 2);
}

/// The image's user (docs/container/Dockerfile).
const IMAGE_UID: u32 = 65532;

/// The image's environment (its `ENV` lines) around `work`, run as `uid`:
/// the documented `docker run ... -p "Summarise README.md" -o json`.
fn image_run(
    work: &std::path::Path,
    home: &std::path::Path,
    uid: u32,
    base_url: &str,
    extra: &[&str],
) -> crate::support::Output {
    use std::os::unix::process::CommandExt;
    let dockerfile = include_str!("../../../docs/container/Dockerfile");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_gemini-rs"));
    cmd.current_dir(work)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("SSL_CERT_FILE", "/etc/ssl/certs/ca-certificates.crt")
        .env("TMPDIR", "/tmp")
        .env("GEMINI_API_KEY", "dummy")
        .env("GOOGLE_GEMINI_BASE_URL", base_url)
        .env("GEMINI_CLI_SYSTEM_SETTINGS_PATH", home.join("none.json"))
        .uid(uid)
        .gid(uid);
    // Every variable the image sets, as it sets them.
    for (key, value) in dockerfile_env(dockerfile) {
        let value = if key == "HOME" || key == "GEMINI_CLI_HOME" {
            home.display().to_string()
        } else {
            value
        };
        cmd.env(key, value);
    }
    cmd.args(["-p", "Summarise README.md", "-o", "json"])
        .args(extra);
    let out = cmd.output().expect("run gemini-rs");
    crate::support::Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The `KEY=value` pairs of the Dockerfile's `ENV` instruction.
fn dockerfile_env(dockerfile: &str) -> Vec<(String, String)> {
    let joined = dockerfile.replace("\\\n", " ");
    joined
        .lines()
        .filter_map(|l| l.strip_prefix("ENV "))
        .flat_map(|l| l.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter_map(|kv| {
            kv.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
        })
        .collect()
}

#[test]
fn the_container_example_runs_as_documented() {
    use std::os::unix::fs::{PermissionsExt, chown};
    // Only root can run a child as another uid.
    let uid = std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m));
    if uid.ok() != Some(0) {
        eprintln!("skipped: the container test runs as root (to be uid {IMAGE_UID})");
        return;
    }
    let env = dockerfile_env(include_str!("../../../docs/container/Dockerfile"));
    assert!(env.contains(&("CI".into(), "true".into())), "{env:?}");
    assert!(
        env.contains(&("GEMINI_CLI_TRUST_WORKSPACE".into(), "true".into())),
        "the image trusts its workspace: {env:?}"
    );
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // The mounted host folder: owned by root, readable by all, not writable
    // by the image's user.
    let work = root.path().join("workspace");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("README.md"), "# demo\nA demo project.\n").unwrap();
    let home = root.path().join("home");
    std::fs::create_dir_all(home.join(".gemini")).unwrap();
    chown(&home, Some(IMAGE_UID), Some(IMAGE_UID)).unwrap();
    chown(home.join(".gemini"), Some(IMAGE_UID), Some(IMAGE_UID)).unwrap();
    std::fs::write(
        home.join(".gemini/settings.json"),
        r#"{"model": {"name": "gemini-2.5-flash"}}"#,
    )
    .unwrap();

    let fake = FakeServer::replaying(&lines(&[
        call("read_file", json!({"file_path": "README.md"})),
        call(
            "write_file",
            json!({"file_path": "SUMMARY.md", "content": "short"}),
        ),
        text("A demo project."),
    ]));
    let out = image_run(
        &work,
        &home,
        IMAGE_UID,
        &fake.base_url,
        &["--approval-mode=yolo"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(v["response"], "A demo project.", "{v}");
    let answers = fake.function_responses();
    assert_eq!(answers.len(), 2, "{answers:?}");
    assert!(
        answers[0].to_string().contains("A demo project."),
        "the README was read: {answers:?}"
    );
    // The folder the image's user cannot write: the edit is a tool error
    // the model sees, nothing is written, nothing crashes.
    assert!(
        answers[1]
            .to_string()
            .to_lowercase()
            .contains("permission denied"),
        "{answers:?}"
    );
    assert!(!work.join("SUMMARY.md").exists());

    // Given to uid 65532 (`chown -R 65532:65532`), the edit is made.
    chown(&work, Some(IMAGE_UID), Some(IMAGE_UID)).unwrap();
    let fake = FakeServer::replaying(&lines(&[
        call(
            "write_file",
            json!({"file_path": "SUMMARY.md", "content": "short"}),
        ),
        text("written"),
    ]));
    let out = image_run(
        &work,
        &home,
        IMAGE_UID,
        &fake.base_url,
        &["--approval-mode=yolo"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        std::fs::read_to_string(work.join("SUMMARY.md")).unwrap(),
        "short"
    );
}

/// What bash's completion offers for `words` (the last one being typed),
/// from the script `gemini-rs completion bash` prints.
fn bash_complete(sb: &Sandbox, words: &[&str]) -> Vec<String> {
    let script = sb.run(&["completion", "bash"], None, &[]);
    assert_eq!(script.code, 0, "{script:?}");
    let file = sb.write("gemini-rs.bash", &script.stdout);
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD={}\n\
         _gemini__rs gemini-rs \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\n\
         printf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        file.display(),
        quoted.join(" "),
        words.len() - 1
    );
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(program)
        .output()
        .expect("bash");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bash_completes_subcommands_and_approval_modes() {
    let sb = Sandbox::new();
    let mcp = bash_complete(&sb, &["gemini-rs", "mcp", ""]);
    for sub in [
        "list", "add", "remove", "serve", "auth", "enable", "disable",
    ] {
        assert!(mcp.contains(&sub.to_string()), "{sub}: {mcp:?}");
    }
    assert_eq!(
        bash_complete(&sb, &["gemini-rs", "--approval-mode", ""]),
        ["default", "auto_edit", "yolo", "plan"]
    );
    assert_eq!(
        bash_complete(&sb, &["gemini-rs", "--approval-mode", "au"]),
        ["auto_edit"]
    );
    let add = bash_complete(&sb, &["gemini-rs", "mcp", "add", "--s"]);
    assert!(add.contains(&"--scope".to_string()), "{add:?}");
    let top = bash_complete(&sb, &["gemini-rs", ""]);
    assert!(top.contains(&"completion".to_string()), "{top:?}");
    // A wrong mode still gets Gemini CLI's own message.
    let out = sb.run(&["--approval-mode", "nope", "-p", "x"], None, &[]);
    assert!(
        out.stderr.contains(
            "Invalid approval mode: nope. Valid values are: yolo, auto_edit, plan, default"
        ),
        "{out:?}"
    );
}

#[test]
fn mcp_list_in_an_untrusted_folder_lists_the_servers_disabled() {
    let sb = Sandbox::new();
    sb.write_home(
        ".gemini/settings.json",
        r#"{"mcpServers": {"userdemo": {"command": "echo", "args": ["hi"]}}}"#,
    );
    sb.write(
        ".gemini/settings.json",
        r#"{"mcpServers": {"demo": {"command": "echo", "args": ["hi"]}}}"#,
    );
    let out = sb.run(
        &["mcp", "list"],
        None,
        &[("GEMINI_CLI_TRUST_WORKSPACE", "")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    // Gemini CLI 0.61's text.
    assert_eq!(
        out.stderr,
        "Warning: MCP servers are configured but disabled because this folder is untrusted.\n\
         User-level servers are also suppressed in untrusted folders to prevent accidental side-effects.\n\n\
         Configured MCP servers:\n\n\
         ○ userdemo: echo hi (stdio) - Disabled\n\
         ○ demo: echo hi (stdio) - Disabled\n"
    );
    assert_eq!(out.stdout, "");
}
