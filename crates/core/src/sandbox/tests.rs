//! Tests with real processes: writes, reads, exec and sockets under the
//! sandbox, the mode decision and the errors.

use super::*;
use crate::tools::builtin::ShellTool;
use crate::tools::discovered::DiscoveredTool;
use crate::tools::{Tool, ToolContext, ToolResult};
use crate::workspace::Workspace;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::json;
use std::io;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// Whether the kernel has Landlock; prints a note when it does not (and
/// fails the test under `CI=true`).
fn landlock_or_skip(test: &str) -> bool {
    match gemini_rs_sandbox::kernel_abi() {
        Ok(_) => true,
        Err(why) => {
            crate::test_peers::missing(&format!("Landlock ({why})"), test);
            false
        }
    }
}

/// A write was refused: by Landlock (EACCES) or by the read-only mounts
/// (EROFS), whichever the kernel checks first.
fn refused(text: &str) -> bool {
    text.contains("Permission denied") || text.contains("Read-only file system")
}

fn canon(dir: &tempfile::TempDir) -> PathBuf {
    std::fs::canonicalize(dir.path()).unwrap()
}

fn policy(writable: &[&Path], allow_network: bool) -> SandboxPolicy {
    SandboxPolicy {
        writable: writable.iter().map(|p| p.to_path_buf()).collect(),
        allow_network,
        force_unsupported: false,
        force_no_user_namespace: false,
        allowed_env: Vec::new(),
        workspace: Vec::new(),
    }
}

/// Adds the sandbox to `cmd`; without Landlock only the seccomp filter
/// (so the network tests still run).
fn sandbox(cmd: &mut Command, policy: &SandboxPolicy) {
    match policy.prepare() {
        Ok(p) => install(cmd, Arc::new(p)),
        Err(SandboxError::LandlockUnavailable(why)) => {
            crate::test_peers::missing(
                &format!("Landlock ({why})"),
                "testing the seccomp filter alone",
            );
            if policy.allow_network {
                return;
            }
            let filter = gemini_rs_sandbox::network_filter().unwrap();
            // SAFETY: only syscalls on a program built before the fork.
            unsafe {
                cmd.pre_exec(move || {
                    seccompiler::apply_filter(&filter)
                        .map_err(|_| io::Error::from_raw_os_error(libc::EPERM))
                });
            }
        }
        Err(e) => panic!("{e}"),
    }
}

fn bash(script: &str, cwd: &Path, policy: Option<&SandboxPolicy>) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(script).current_dir(cwd);
    if let Some(p) = policy {
        sandbox(&mut cmd, p);
    }
    cmd.output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn writes_only_inside_the_writable_dirs() {
    if !landlock_or_skip("writes_only_inside_the_writable_dirs") {
        return;
    }
    let ws_dir = tempfile::tempdir().unwrap();
    let other_dir = tempfile::tempdir().unwrap();
    let (ws, other) = (canon(&ws_dir), canon(&other_dir));
    std::fs::write(other.join("existing"), "keep").unwrap();
    let etc = PathBuf::from("/etc/gemini_rs_sandbox_probe");
    let script = format!(
        "touch {o}/x; echo \"touch-rc=$?\"\n\
         touch {etc}; echo \"etc-rc=$?\"\n\
         echo changed > {o}/existing; rm -f {o}/existing; mv {o}/existing {ws}/stolen\n\
         ln -s {o} link; touch link/via-link\n\
         echo hi > ok.txt && mkdir -p d/e && mv ok.txt d/e/moved && cat d/e/moved\n\
         ln -s d/e l2 && rm l2 && rm -r d && echo ws-ok\n\
         head -c 3 /etc/passwd >/dev/null && echo read-ok\n\
         ls / >/dev/null && echo exec-ok\n\
         echo x > /dev/null && echo null-ok\n\
         echo to-stderr > /dev/stderr\n",
        o = other.display(),
        ws = ws.display(),
        etc = etc.display(),
    );
    let out = bash(&script, &ws, Some(&policy(&[&ws], false)));
    let _ = std::fs::remove_file(&etc);
    let t = text(&out);
    assert!(t.contains("touch-rc=1"), "{t}");
    assert!(t.contains("etc-rc=1"), "{t}");
    assert!(refused(&t), "{t}");
    assert!(!other.join("x").exists(), "{t}");
    assert!(!other.join("via-link").exists(), "{t}");
    // Across the mounts `mv` falls back to copy + unlink: the copy of a
    // readable file may land, the outside original must stay (below).
    assert_eq!(
        std::fs::read_to_string(other.join("existing")).unwrap(),
        "keep"
    );
    for want in [
        "hi\n",
        "ws-ok",
        "read-ok",
        "exec-ok",
        "null-ok",
        "to-stderr",
    ] {
        assert!(t.contains(want), "missing {want}: {t}");
    }
    // Without the sandbox the same write works (the test is meaningful).
    let out = bash(&format!("touch {}/x", other.display()), &ws, None);
    assert!(out.status.success());
    assert!(other.join("x").exists());
}

#[test]
fn temp_dirs_from_settings_are_writable() {
    if !landlock_or_skip("temp_dirs_from_settings_are_writable") {
        return;
    }
    let ws_dir = tempfile::tempdir().unwrap();
    let project_tmp = tempfile::tempdir().unwrap();
    let (ws, ptmp) = (canon(&ws_dir), canon(&project_tmp));
    let settings = Settings::from_value(json!({"tools": {"sandbox": true}}));
    let p = from_settings(&settings, None, &|_| None, vec![ws.clone(), ptmp.clone()])
        .unwrap()
        .unwrap();
    assert!(!p.allow_network);
    let sys_tmp = std::env::temp_dir().join(format!("gemini-rs-sb-{}", std::process::id()));
    let etc = PathBuf::from("/etc/gemini_rs_sandbox_probe2");
    let script = format!(
        "echo a > {p}/a && echo b > {s} && echo c > /tmp/gemini-rs-sb-$$ && rm /tmp/gemini-rs-sb-$$ && echo tmp-ok; touch {e}",
        p = ptmp.display(),
        s = sys_tmp.display(),
        e = etc.display()
    );
    let out = bash(&script, &ws, Some(&p));
    let etc_written = etc.exists();
    let _ = std::fs::remove_file(&etc);
    let _ = std::fs::remove_file(&sys_tmp);
    let t = text(&out);
    assert!(t.contains("tmp-ok"), "{t}");
    assert!(ptmp.join("a").exists());
    assert!(!etc_written, "{t}");
    assert!(refused(&t), "{t}");
}

const CONNECT: &str = r#"
import socket, sys
port = int(sys.argv[1])
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    print("tcp-connected")
    s.close()
except OSError as e:
    print("tcp-error", e.errno, e.strerror)
try:
    socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close()
    print("inet6-ok")
except OSError as e:
    print("inet6-error", e.errno)
a, b = socket.socketpair(socket.AF_UNIX)
a.sendall(b"ping")
print("unix", b.recv(4).decode())
"#;

fn connect(policy: Option<&SandboxPolicy>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("python3");
    cmd.arg("-c")
        .arg(CONNECT)
        .arg(port.to_string())
        .current_dir(dir.path());
    if let Some(p) = policy {
        sandbox(&mut cmd, p);
    }
    let out = cmd.output().unwrap();
    drop(listener);
    text(&out)
}

#[test]
fn internet_sockets_are_refused_unix_ones_work() {
    let ws_dir = tempfile::tempdir().unwrap();
    let ws = canon(&ws_dir);
    let t = connect(Some(&policy(&[&ws], false)));
    assert!(t.contains("tcp-error 1 Operation not permitted"), "{t}");
    assert!(t.contains("inet6-error 1"), "{t}");
    assert!(t.contains("unix ping"), "{t}");
    // The same attempt connects without the sandbox...
    let t = connect(None);
    assert!(t.contains("tcp-connected"), "{t}");
    // ...and with `tools.sandboxNetwork`.
    let t = connect(Some(&policy(&[&ws], true)));
    assert!(t.contains("tcp-connected"), "{t}");
    assert!(t.contains("unix ping"), "{t}");
}

#[test]
fn bash_dev_tcp_and_unix_socket_files() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let ws_dir = tempfile::tempdir().unwrap();
    let ws = canon(&ws_dir);
    let script = format!(
        "exec 3<>/dev/tcp/127.0.0.1/{port} && echo tcp-open; \
         python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.bind(\"sock\"); print(\"bind-ok\")'"
    );
    let out = bash(&script, &ws, Some(&policy(&[&ws], false)));
    let t = text(&out);
    assert!(!t.contains("tcp-open"), "{t}");
    assert!(t.contains("Operation not permitted"), "{t}");
    assert!(t.contains("bind-ok"), "{t}");
}

#[test]
fn forced_unsupported_kernel_is_an_error() {
    let mut p = policy(&[Path::new("/tmp")], false);
    p.force_unsupported = true;
    let e = p.prepare().unwrap_err();
    assert!(matches!(e, SandboxError::LandlockUnavailable(_)), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("needs Landlock"), "{msg}");
    assert!(msg.contains(FORCE_UNSUPPORTED_ENV), "{msg}");
    assert!(
        msg.contains("Refusing to run commands without protection"),
        "{msg}"
    );
    // The environment variable reaches the policy through from_settings.
    let env = |k: &str| (k == FORCE_UNSUPPORTED_ENV).then(|| "1".to_string());
    let p = from_settings(&Settings::default(), Some("true"), &env, Vec::new())
        .unwrap()
        .unwrap();
    assert!(p.force_unsupported);
    assert!(matches!(
        p.prepare(),
        Err(SandboxError::LandlockUnavailable(_))
    ));
}

fn mode(
    settings: serde_json::Value,
    flag: Option<&str>,
    env: Option<&str>,
) -> Result<bool, SandboxError> {
    let env_value = env.map(str::to_string);
    let lookup = move |k: &str| (k == "GEMINI_SANDBOX").then(|| env_value.clone()).flatten();
    from_settings(&Settings::from_value(settings), flag, &lookup, Vec::new()).map(|p| p.is_some())
}

#[test]
fn mode_decision_and_container_values() {
    assert_eq!(mode(json!({}), None, None), Ok(false));
    assert_eq!(
        mode(json!({"tools": {"sandbox": true}}), None, None),
        Ok(true)
    );
    assert_eq!(
        mode(json!({"tools": {"sandbox": false}}), None, None),
        Ok(false)
    );
    assert_eq!(
        mode(json!({"tools": {"sandbox": "native"}}), None, None),
        Ok(true)
    );
    for v in ["true", "1", "native", "TRUE"] {
        assert_eq!(mode(json!({}), Some(v), None), Ok(true), "{v}");
    }
    for v in ["false", "0"] {
        assert_eq!(
            mode(json!({"tools": {"sandbox": true}}), Some(v), None),
            Ok(false),
            "{v}"
        );
    }
    // GEMINI_SANDBOX wins over the flag, which wins over settings.
    assert_eq!(mode(json!({}), Some("false"), Some("true")), Ok(true));
    assert_eq!(
        mode(json!({"tools": {"sandbox": true}}), None, Some("0")),
        Ok(false)
    );
    assert_eq!(
        mode(json!({"tools": {"sandbox": true}}), None, Some("  ")),
        Ok(true)
    );
    for v in ["docker", "podman", "sandbox-exec", "runsc", "lxc"] {
        let e = mode(json!({}), None, Some(v)).unwrap_err();
        assert_eq!(e, SandboxError::ContainerUnsupported(v.to_string()));
        let msg = e.to_string();
        assert!(
            msg.contains("only provides the native Linux sandbox"),
            "{msg}"
        );
        assert!(msg.contains(&format!("'{v}'")), "{msg}");
        let e = mode(json!({"tools": {"sandbox": v}}), None, None).unwrap_err();
        assert_eq!(e, SandboxError::ContainerUnsupported(v.to_string()));
    }
    let e = mode(json!({}), Some("bogus"), None).unwrap_err();
    assert!(
        e.to_string().starts_with("Invalid sandbox value 'bogus'"),
        "{e}"
    );
    let p = from_settings(
        &Settings::from_value(json!({"tools": {"sandbox": true, "sandboxNetwork": true}})),
        None,
        &|_| None,
        vec![PathBuf::from("/w")],
    )
    .unwrap()
    .unwrap();
    assert!(p.allow_network);
    assert_eq!(p.writable[0], PathBuf::from("/w"));
    assert!(p.writable.contains(&PathBuf::from("/tmp")));
    assert!(p.writable.contains(&std::env::temp_dir()));
}

struct ToolEnv {
    _dirs: (tempfile::TempDir, tempfile::TempDir),
    ws: PathBuf,
    other: PathBuf,
    ctx: ToolContext,
}

fn tool_env() -> ToolEnv {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (ws, other) = (canon(&a), canon(&b));
    let temp = ws.join(".tmp");
    let workspace = Workspace::new(ws.clone(), Vec::new(), temp);
    let mut ctx = ToolContext::new(
        Arc::new(workspace),
        Arc::new(Settings::default()),
        "gemini-2.5-pro",
    );
    ctx.sandbox = Some(Arc::new(policy(&[&ws], false).prepare().unwrap()));
    ToolEnv {
        _dirs: (a, b),
        ws,
        other,
        ctx,
    }
}

fn llm(r: &ToolResult) -> String {
    r.llm_text()
}

#[tokio::test]
async fn shell_tool_runs_sandboxed() {
    if !landlock_or_skip("shell_tool_runs_sandboxed") {
        return;
    }
    let env = tool_env();
    let command = format!(
        "touch {}/x; echo in > inside.txt && cat inside.txt; python3 -c 'import socket; socket.socket()'",
        env.other.display()
    );
    let args = json!({"command": command});
    let inv = ShellTool
        .build(args.as_object().unwrap(), &env.ctx)
        .unwrap();
    let r = inv.execute(&env.ctx, CancellationToken::new()).await;
    let t = llm(&r);
    assert!(refused(&t), "{t}");
    assert!(
        t.contains("PermissionError: [Errno 1] Operation not permitted"),
        "{t}"
    );
    assert!(t.contains("in\n"), "{t}");
    assert!(!env.other.join("x").exists());
    assert!(env.ws.join("inside.txt").exists());
}

#[tokio::test]
async fn discovered_tool_call_runs_sandboxed() {
    if !landlock_or_skip("discovered_tool_call_runs_sandboxed") {
        return;
    }
    let env = tool_env();
    let call = env.ws.join("call.sh");
    std::fs::write(
        &call,
        format!(
            "#!/bin/bash\ncat >/dev/null\necho ok > \"$PWD/out.txt\"\ntouch {}/x\n",
            env.other.display()
        ),
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&call, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let tool = DiscoveredTool::new(
        "t",
        "",
        json!({}),
        "disc",
        Some(call.display().to_string()),
        env.ws.clone(),
    );
    let args = json!({});
    let inv = tool.build(args.as_object().unwrap(), &env.ctx).unwrap();
    let r = inv.execute(&env.ctx, CancellationToken::new()).await;
    let t = llm(&r);
    assert!(r.error.is_some(), "{t}");
    assert!(refused(&t), "{t}");
    assert!(!env.other.join("x").exists());
    assert!(env.ws.join("out.txt").exists());
}

#[test]
fn curl_fails_under_the_sandbox() {
    if Command::new("curl").arg("--version").output().is_err() {
        crate::test_peers::missing("curl", "apt-get install curl");
        return;
    }
    let ws_dir = tempfile::tempdir().unwrap();
    let ws = canon(&ws_dir);
    // A page on 127.0.0.1 (nothing leaves the machine).
    let server = FakeServer::with_routes([("/*", Reply::text(200, "hello"))]);
    let script = format!("curl -sS -m 5 {}/; echo \" rc=$?\"", server.base_url);
    let t = text(&bash(&script, &ws, Some(&policy(&[&ws], false))));
    assert!(t.contains("rc=7"), "{t}");
    assert!(
        server.requests().is_empty(),
        "the sandboxed curl got through"
    );
    let t = text(&bash(&script, &ws, None));
    assert!(t.contains("hello rc=0"), "{t}");
    assert_eq!(server.requests().len(), 1);
}
