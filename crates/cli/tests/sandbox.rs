//! The sandbox (`-s`) through the binary: what a sandboxed command may not
//! touch (the files that run outside the sandbox later, owners and modes
//! outside the workspace, gemini-rs itself, the API key), and settings and
//! hooks that a sandboxed command could have written.

use crate::e2e::{call, lines, text};
use crate::support::{Output, Sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;

/// A folder outside every writable one: the test sandboxes live under
/// /tmp, which sandboxed commands may write, and so may the clone itself
/// (then `/var/tmp` or the home folder serves).
fn outside_dir() -> tempfile::TempDir {
    let writable = [std::env::temp_dir(), "/tmp".into(), "/dev/shm".into()];
    let target = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let candidates = [Some(target), Some("/var/tmp".into()), home];
    let base = candidates
        .into_iter()
        .flatten()
        .filter_map(|c| std::fs::canonicalize(c).ok())
        .find(|c| !writable.iter().any(|w| c.starts_with(w)))
        .expect("a writable folder outside /tmp for the sandbox tests");
    tempfile::tempdir_in(base).unwrap()
}

fn user_settings(sb: &Sandbox, extra: Value) {
    let mut settings = json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}});
    if let (Some(s), Some(e)) = (settings.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    sb.write_home(".gemini/settings.json", &settings.to_string());
}

fn run_command(sb: &Sandbox, command: &str, args: &[&str]) -> (Output, String) {
    run_command_env(sb, command, args, &[])
}

fn run_command_env(
    sb: &Sandbox,
    command: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> (Output, String) {
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": command})),
        text("done"),
    ]));
    let mut all = vec!["--approval-mode=yolo"];
    all.extend_from_slice(args);
    all.extend(["-p", "go"]);
    let mut env = env.to_vec();
    env.push(("GOOGLE_GEMINI_BASE_URL", &fake.base_url));
    let out = sb.run(&all, None, &env);
    let responses = fake.function_responses();
    let output = responses
        .first()
        .map(|r| r["functionResponse"]["response"]["output"].to_string())
        .unwrap_or_default();
    (out, output)
}

/// Skips (outside CI) where the kernel offers no Landlock.
/// A command that marks where it runs: it touches `<name>` in `far` (a
/// folder outside the workspace) and `<name>-inside.txt` in its working
/// directory, then prints `[]` (no discovered tools; no MCP server).
fn marking_command(far: &tempfile::TempDir, name: &str) -> String {
    let outside = far.path().join(name);
    format!(
        "touch {} ; touch {name}-inside.txt; echo '[]'",
        outside.display()
    )
}

fn sandbox_available(sb: &Sandbox) -> bool {
    user_settings(sb, json!({}));
    let (out, _) = run_command(sb, "true", &["-s"]);
    if out.code == 44 {
        assert!(
            std::env::var("CI").is_err(),
            "the sandbox is not available: {out:?}"
        );
        eprintln!("skipped: no native sandbox on this kernel");
        return false;
    }
    true
}

#[test]
fn a_sandboxed_command_cannot_touch_what_runs_outside_it() {
    let sb = Sandbox::new();
    if !sandbox_available(&sb) {
        return;
    }
    sb.write(".gemini/settings.json", "{}");
    sb.write(".git/hooks/README", "hooks");
    sb.write(".env", "A=1\n");
    let far = outside_dir();
    let outside = far.path().join("outside.txt");
    std::fs::write(&outside, "keep").unwrap();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o644)).unwrap();
    let command = format!(
        "echo x >> .gemini/settings.json; echo settings=$?; \
         touch .git/hooks/pre-commit; echo hooks=$?; \
         echo B=2 >> .env; echo env=$?; \
         chmod 777 {o}; echo chmod=$?; \
         kill -9 $PPID; echo kill=$?; \
         echo keys=$(env | grep -c API_KEY); \
         echo environ=$(tr '\\0' '\\n' < /proc/$PPID/environ 2>/dev/null | grep -c API_KEY); \
         echo fine > inside.txt; echo inside=$?",
        o = outside.display()
    );
    let (out, output) = run_command(&sb, &command, &["-s"]);
    assert_eq!(out.code, 0, "gemini-rs must survive: {out:?}");
    for refused in ["settings=1", "hooks=1", "env=1", "chmod=1", "kill=1"] {
        assert!(output.contains(refused), "{refused} in {output}");
    }
    assert!(output.contains("keys=0"), "{output}");
    assert!(output.contains("environ=0"), "{output}");
    assert!(output.contains("inside=0"), "{output}");
    assert_eq!(sb.read(".gemini/settings.json").as_deref(), Some("{}"));
    assert_eq!(sb.read(".env").as_deref(), Some("A=1\n"));
    assert!(!sb.work.join(".git/hooks/pre-commit").exists());
    let mode = std::fs::metadata(&outside).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644);
    assert_eq!(sb.read("inside.txt").as_deref(), Some("fine\n"));
    // The same command without the sandbox does change them (the test is
    // meaningful).
    let (_, output) = run_command(&sb, &command.replace("kill -9 $PPID", "true"), &[]);
    assert!(output.contains("settings=0"), "{output}");
    assert!(output.contains("chmod=0"), "{output}");
}

#[test]
fn workspace_settings_cannot_switch_the_sandbox_off() {
    let sb = Sandbox::new();
    if !sandbox_available(&sb) {
        return;
    }
    user_settings(&sb, json!({"tools": {"sandbox": true}}));
    sb.write(
        ".gemini/settings.json",
        &json!({"tools": {"sandbox": false, "sandboxNetwork": true, "sandboxAllowedEnv": ["GEMINI_API_KEY"]}})
            .to_string(),
    );
    let far = outside_dir();
    let target = far.path().join("escaped.txt");
    let command = format!(
        "echo x > {t}; echo write=$?; echo keys=$(env | grep -c GEMINI_API_KEY)",
        t = target.display()
    );
    let (out, output) = run_command(&sb, &command, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(output.contains("write=1"), "{output}");
    assert!(output.contains("keys=0"), "{output}");
    assert!(!target.exists());
}

#[test]
fn workspace_hooks_run_inside_the_sandbox_user_hooks_outside() {
    let sb = Sandbox::new();
    if !sandbox_available(&sb) {
        return;
    }
    let user_mark = sb.home.join("user-hook.txt");
    let far = outside_dir();
    let project_mark = far.path().join("project-hook.txt");
    let hook = |command: String| {
        json!({"BeforeTool": [{"matcher": "run_shell_command",
        "hooks": [{"type": "command", "command": command}]}]})
    };
    user_settings(
        &sb,
        json!({"hooks": hook(format!("touch {}", user_mark.display()))}),
    );
    sb.write(
        ".gemini/settings.json",
        &json!({"hooks": hook(format!("touch {} ; touch project-inside.txt", project_mark.display()))})
            .to_string(),
    );
    let (out, _) = run_command(&sb, "true", &["-s"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(user_mark.exists(), "the user's hook runs outside: {out:?}");
    assert!(
        !project_mark.exists(),
        "the project's hook escaped the sandbox"
    );
    assert!(sb.work.join("project-inside.txt").exists(), "{out:?}");
}

/// Runs the privileged calls by number (python3's ctypes) and prints each
/// one's errno name; the arguments are invalid, so where a call passes its
/// permission check it fails harmlessly (EINVAL, ENOENT, EBADF, ENODEV).
const PRIVILEGED_CALLS: &str = r#"
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
class Ts(ctypes.Structure):
    _fields_ = [("s", ctypes.c_long), ("ns", ctypes.c_long)]
calls = {
    "reboot": (169, [0, 0, 0, 0]),
    "clock_settime": (227, [0, ctypes.byref(Ts(0, -1))]),
    "adjtimex": (159, [ctypes.create_string_buffer(512)]),
    "swapon": (167, [b"/nonexistent-swap", 0]),
    "finit_module": (313, [-1, b"", 0]),
    "delete_module": (176, [b"no_such_module_x", 0]),
    "mount": (165, [b"none", b"/nonexistent-mnt", b"nosuchfs", 0, None]),
    "umount2": (166, [b"/nonexistent-mnt", 0]),
    "sethostname": (170, [b"x" * 100, 100]),
    "setdomainname": (171, [b"x" * 100, 100]),
}
for name, (nr, args) in calls.items():
    rc = libc.syscall(nr, *args)
    e = ctypes.get_errno()
    print(f"{name}={'OK' if rc == 0 else errno.errorcode.get(e, e)}")
"#;

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .is_some_and(|l| l.split_whitespace().nth(2) == Some("0"))
    })
}

/// Whether the session said it runs without namespaces; then fails under
/// CI (the kernel does not allow what the test checks) and skips otherwise.
fn namespaces_or_skip(out: &Output) -> bool {
    if !out.stderr.contains("runs without its namespaces") {
        return true;
    }
    assert!(
        std::env::var("CI").is_err(),
        "the kernel allows no namespaces for the sandbox: {}",
        out.stderr
    );
    eprintln!("skipped: no user namespaces and not root");
    false
}

#[test]
fn a_sandboxed_command_cannot_change_the_machine_even_as_root() {
    machine_stays_unchanged(&[]);
}

/// As on a kernel that refuses user namespaces: root still gets its own
/// namespaces and loses its capabilities; anyone else keeps seccomp's
/// refusals and is told the rest is missing.
#[test]
fn without_user_namespaces_root_is_still_held() {
    machine_stays_unchanged(&[("GEMINI_RS_SANDBOX_FORCE_NO_USERNS", "1")]);
}

fn machine_stays_unchanged(env: &[(&str, &str)]) {
    let sb = Sandbox::new();
    if !sandbox_available(&sb) {
        return;
    }
    sb.write("calls.py", PRIVILEGED_CALLS);
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
    let command = "python3 calls.py; hostname sandboxed-x; echo hostname=$?; \
        date -s @0 >/dev/null 2>&1; echo date=$?; \
        mount -t tmpfs none /mnt 2>/dev/null; echo mnt=$?; \
        echo caps=$(grep CapEff /proc/self/status | cut -f2); \
        echo userns=$(awk '{print $3}' /proc/self/uid_map); \
        echo ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ,)";
    let (out, output) = run_command_env(&sb, command, &["-s"], env);
    assert_eq!(out.code, 0, "{out:?}");
    for call in [
        "reboot",
        "clock_settime",
        "adjtimex",
        "swapon",
        "finit_module",
        "delete_module",
        "mount",
        "umount2",
        "sethostname",
        "setdomainname",
    ] {
        assert!(
            output.contains(&format!("{call}=EPERM")),
            "{call}: {output}"
        );
    }
    for refused in ["hostname=1", "date=1", "mnt=32"] {
        assert!(output.contains(refused), "{refused} in {output}");
    }
    assert!(output.contains("caps=0000000000000000"), "{output}");
    assert_eq!(
        std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap(),
        host
    );
    if !env.is_empty() && !is_root() {
        assert!(
            out.stderr.contains("runs without its namespaces"),
            "{out:?}"
        );
        return;
    }
    if namespaces_or_skip(&out) {
        // Network is off: a namespace of its own, holding only a loopback.
        assert!(output.contains("ifaces=lo,"), "{output}");
        // A user namespace mapping one id, or (forced away) the host's.
        let userns = if env.is_empty() { "1" } else { "4294967295" };
        assert!(output.contains(&format!("userns={userns}")), "{output}");
    }
    if is_root() {
        // Outside the sandbox root passes the permission checks (the
        // invalid arguments then fail): the refusals above are the
        // sandbox's.
        let (_, outside) = run_command(&sb, "python3 calls.py", &[]);
        for passed in ["reboot=EINVAL", "swapon=ENOENT", "sethostname=EINVAL"] {
            assert!(outside.contains(passed), "{passed}: {outside}");
        }
    }
}

#[test]
fn git_and_paths_missing_at_start_stay_protected_and_secrets_stay_out() {
    let sb = Sandbox::new();
    if !sandbox_available(&sb) {
        return;
    }
    user_settings(
        &sb,
        json!({"tools": {"sandboxAllowedEnv": ["DEPLOY_TOKEN"]}}),
    );
    sb.write(".git/config", "[core]\n");
    // No .env and no .gemini/ in the workspace (sandbox_available left
    // none): a sandboxed command may not create them.
    let _ = std::fs::remove_dir_all(sb.work.join(".gemini"));
    let command = "echo '[core] fsmonitor = evil' >> .git/config; echo config=$?; \
        touch .git/newfile; echo gitnew=$?; \
        echo GEMINI_API_KEY=x > .env; mkdir -p .gemini; echo '{}' > .gemini/settings.json; \
        echo vars=$(env | cut -d= -f1 | grep -E 'SECRET|PASSWORD|AUTH|TOKEN|CREDENTIAL|KEY' | sort | tr '\\n' ,)";
    let env = [
        ("AWS_SECRET_ACCESS_KEY", "s1"),
        ("PGPASSWORD", "s2"),
        ("MY_AUTH_HEADER", "s3"),
        ("DEPLOY_TOKEN", "kept"),
        ("GOOGLE_APPLICATION_CREDENTIALS", "/x"),
    ];
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": command})),
        text("done"),
    ]));
    let mut all_env = vec![("GOOGLE_GEMINI_BASE_URL", fake.base_url.as_str())];
    all_env.extend(env);
    let out = sb.run(&["--approval-mode=yolo", "-s", "-p", "go"], None, &all_env);
    assert_eq!(out.code, 0, "{out:?}");
    let output = fake.function_responses()[0]["functionResponse"]["response"]["output"].to_string();
    assert!(output.contains("config=1"), "{output}");
    assert!(output.contains("gitnew=1"), "{output}");
    assert!(output.contains("vars=DEPLOY_TOKEN,"), "{output}");
    assert_eq!(sb.read(".git/config").as_deref(), Some("[core]\n"));
    assert!(!sb.work.join(".env").exists(), "{out:?}");
    assert!(!sb.work.join(".gemini").exists(), "{out:?}");
    // Moved aside where nothing loads them, and reported.
    assert!(sb.work.join(".env.refused-by-sandbox").exists());
    assert!(
        out.stderr.contains("The sandbox refused") && out.stderr.contains(".env"),
        "{}",
        out.stderr
    );
    assert!(
        output.contains("it was moved to"),
        "the model hears of it: {output}"
    );
}

#[test]
fn workspace_mcp_servers_and_discovery_run_inside_the_sandbox() {
    let sb = Sandbox::new();
    if !sandbox_available(&sb) {
        return;
    }
    let far = outside_dir();
    let mark = |name: &str| far.path().join(name);
    let starter = |name: &str| marking_command(&far, name);
    user_settings(
        &sb,
        json!({"mcpServers": {"mine": {"command": "sh", "args": ["-c", starter("user-mcp")]}}}),
    );
    sb.write(
        ".gemini/settings.json",
        &json!({
            "mcpServers": {"theirs": {"command": "sh", "args": ["-c", starter("workspace-mcp")]}},
            "tools": {"discoveryCommand": format!("sh -c \"{}\"", starter("discovery"))}
        })
        .to_string(),
    );
    let (out, _) = run_command(&sb, "true", &["-s"]);
    assert_eq!(out.code, 0, "{out:?}");
    for inside in ["workspace-mcp", "discovery"] {
        assert!(
            sb.work.join(format!("{inside}-inside.txt")).exists(),
            "{inside} did not run: {out:?}"
        );
        assert!(
            !mark(inside).exists(),
            "{inside} wrote outside the workspace"
        );
    }
    assert!(
        mark("user-mcp").exists(),
        "the user's server runs outside: {out:?}"
    );
}

#[test]
fn mcp_list_probes_workspace_servers_inside_the_sandbox() {
    let sb = Sandbox::new();
    if !sandbox_available(&sb) {
        return;
    }
    let far = outside_dir();
    let mark = |name: &str| far.path().join(name);
    let starter = |name: &str| marking_command(&far, name);
    user_settings(
        &sb,
        json!({"tools": {"sandbox": true},
            "mcpServers": {"mine": {"command": "sh", "args": ["-c", starter("user-mcp")]}}}),
    );
    let _ = std::fs::remove_file(sb.work.join(".env"));
    sb.write(
        ".gemini/settings.json",
        &json!({"mcpServers": {
            "theirs": {"command": "sh", "args": ["-c", starter("workspace-mcp")]},
            "maker": {"command": "sh", "args": ["-c", "echo K=1 > .env; echo '[]'"]}
        }})
        .to_string(),
    );
    let out = sb.run(&["mcp", "list"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    // What it created where the sandbox cannot mount is moved aside.
    assert!(!sb.work.join(".env").exists(), "{out:?}");
    assert!(sb.work.join(".env.refused-by-sandbox").exists(), "{out:?}");
    assert!(out.stderr.contains("The sandbox refused"), "{out:?}");
    assert!(
        out.stderr.contains("theirs") && out.stderr.contains("mine"),
        "{out:?}"
    );
    assert!(
        sb.work.join("workspace-mcp-inside.txt").exists(),
        "the workspace's server did not run: {out:?}"
    );
    assert!(
        !mark("workspace-mcp").exists(),
        "the workspace's server wrote outside the workspace: {out:?}"
    );
    assert!(
        mark("user-mcp").exists(),
        "the user's server runs outside: {out:?}"
    );
}

/// What gemini-rs's own file tools create (the user let them) is not taken
/// for a sandboxed command's doing.
#[test]
fn a_protected_path_the_file_tools_create_is_kept() {
    let sb = Sandbox::new();
    if !sandbox_available(&sb) {
        return;
    }
    let _ = std::fs::remove_file(sb.work.join(".env"));
    let fake = FakeServer::replaying(&lines(&[
        call(
            "write_file",
            json!({"file_path": ".env", "content": "A=1\n"}),
        ),
        call("run_shell_command", json!({"command": "cat .env"})),
        text("done"),
    ]));
    let out = sb.run(
        &["--approval-mode=yolo", "-s", "-p", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(sb.read(".env").as_deref(), Some("A=1\n"), "{out:?}");
    assert!(!sb.work.join(".env.refused-by-sandbox").exists());
    assert!(
        !out.stderr.contains("The sandbox refused"),
        "{}",
        out.stderr
    );
}
