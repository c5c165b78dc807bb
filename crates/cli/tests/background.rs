//! Background shells through the real binary: a command the model starts
//! with `is_background` keeps running while the conversation goes on, is
//! listed and read by the model, logs under
//! `~/.gemini/tmp/background-processes`, and is gone after the session
//! ends and after SIGTERM to gemini-rs (checked by the process ids the
//! command wrote, not by command lines).

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

fn settings(sb: &Sandbox) {
    sb.settings(
        &json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}),
    );
}

/// The leader writes its pid, its child (which ignores SIGTERM) writes its
/// own, and both run until they are ended.
const COMMAND: &str = "echo $$ > leader.pid; (trap '' TERM; echo $BASHPID > child.pid; while :; do sleep 1; done) & echo tick1; echo tick2; echo tick3; wait";

/// A streamed model turn calling `name`, for [`FakeServer::push_reply`].
fn pushed_call(name: &str, args: Value) -> Reply {
    Reply::gemini_stream([json!({
        "candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": name, "args": args}}]},
            "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}
    })])
}

fn pushed_text(t: &str) -> Reply {
    Reply::gemini_stream([json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": t}]},
            "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}
    })])
}

fn wait_until(secs: u64, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// The pid written to `file`, once it is there.
fn pid_in(file: &Path) -> u32 {
    let mut pid = None;
    wait_until(20, || {
        pid = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse().ok());
        pid.is_some()
    });
    pid.unwrap_or_else(|| panic!("{} was not written", file.display()))
}

/// True while `pid` is a live (not zombie) process.
fn alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let state = stat
        .rfind(')')
        .and_then(|i| stat[i + 1..].split_whitespace().next())
        .unwrap_or("");
    state != "Z" && state != "X"
}

fn kill(pid: u32) {
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status();
}

fn declared(fake: &FakeServer) -> Vec<String> {
    let body = &fake.requests()[0].body;
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| {
            t["functionDeclarations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|d| d["name"].as_str().map(str::to_string))
        .collect()
}

fn output_of(response: &Value) -> String {
    let r = &response["functionResponse"]["response"];
    r["output"]
        .as_str()
        .or(r["error"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_background_command_is_listed_read_and_ended_with_the_session() {
    let sb = Sandbox::new();
    settings(&sb);
    // The model's first turn starts the command; the next ones name its
    // pid, so they are queued once the command wrote it (the call waits
    // 1.5 s before it returns).
    let fake = FakeServer::replaying(&lines(&[call(
        "run_shell_command",
        json!({"command": COMMAND, "is_background": true, "delay_ms": 1500}),
    )]));
    let child = sb.command(
        &["--approval-mode=yolo", "-p", "start the server"],
        // The background tools are today's (0.27.4 had none).
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_RS_DIALECT", "today"),
        ],
    );
    let mut child = {
        let mut c = child;
        c.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        c.spawn().unwrap()
    };
    let leader = pid_in(&sb.work.join("leader.pid"));
    let worker = pid_in(&sb.work.join("child.pid"));
    for reply in [
        pushed_call("list_background_processes", json!({})),
        pushed_call("read_background_output", json!({"pid": leader, "lines": 2})),
        pushed_call("read_background_output", json!({"pid": 1})),
        pushed_text("The server runs."),
    ] {
        fake.push_reply(reply);
    }
    let status = wait_until(60, || child.try_wait().unwrap().is_some());
    if !status {
        child.kill().unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let gone = wait_until(5, || !alive(leader) && !alive(worker));
    if !gone {
        kill(leader);
        kill(worker);
    }
    assert!(status, "gemini-rs did not finish");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(gone, "the background command outlived the session");

    let names = declared(&fake);
    for tool in [
        "run_shell_command",
        "list_background_processes",
        "read_background_output",
    ] {
        assert!(names.iter().any(|n| n == tool), "{tool} in {names:?}");
    }
    assert!(
        !names.iter().any(|n| n == "list_mcp_resources"),
        "{names:?}"
    );
    let responses = fake.function_responses();
    assert_eq!(
        output_of(&responses[0]),
        format!(
            "<untrusted_context>\nCommand is running in background. PID: {leader}. Initial output:\ntick1\ntick2\ntick3\n</untrusted_context>"
        ),
        "a command's output is untrusted context (docs/dialects.md)"
    );
    assert_eq!(
        output_of(&responses[1]),
        format!("- [PID {leader}] RUNNING: `{COMMAND}`")
    );
    assert_eq!(
        output_of(&responses[2]),
        "Showing last 2 of 3 lines:\ntick2\ntick3"
    );
    let unknown = &responses[3]["functionResponse"]["response"];
    assert_eq!(
        unknown["error"].as_str(),
        Some(
            "No background process with PID 1 was started in this session; list_background_processes shows the ones that were."
        ),
        "{unknown}"
    );
    let log = sb.home.join(format!(
        ".gemini/tmp/background-processes/background-{leader}.log"
    ));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "tick1\ntick2\ntick3\n"
    );
}

#[test]
fn sigterm_to_gemini_rs_ends_the_background_command() {
    let sb = Sandbox::new();
    settings(&sb);
    let fake = FakeServer::replaying(&lines(&[
        call(
            "run_shell_command",
            json!({"command": COMMAND, "is_background": true}),
        ),
        // The conversation goes on while the command runs in the background.
        call(
            "run_shell_command",
            json!({"command": "touch busy; sleep 60"}),
        ),
        text("unused"),
    ]));
    let mut child = sb.spawn(
        &["--approval-mode=yolo", "-p", "go"],
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    let leader = pid_in(&sb.work.join("leader.pid"));
    let worker = pid_in(&sb.work.join("child.pid"));
    assert!(
        wait_until(20, || sb.work.join("busy").exists()),
        "the second command did not start"
    );
    assert!(alive(leader) && alive(worker));
    let sent = Instant::now();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("still running after SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let gone = wait_until(5, || !alive(leader) && !alive(worker));
    if !gone {
        kill(leader);
        kill(worker);
    }
    assert_eq!(status.code(), Some(143));
    assert!(gone, "SIGTERM left the background command running");
}

/// Issue 41.7: `kill -9` runs no handler, yet the background command
/// (and its child that ignores SIGTERM) dies with gemini-rs.
#[test]
fn kill_9_of_gemini_rs_ends_the_background_command() {
    let sb = Sandbox::new();
    settings(&sb);
    let fake = FakeServer::replaying(&lines(&[
        call(
            "run_shell_command",
            json!({"command": COMMAND, "is_background": true}),
        ),
        call(
            "run_shell_command",
            json!({"command": "touch busy; sleep 61.37"}),
        ),
        text("unused"),
    ]));
    let mut child = sb.spawn(
        &["--approval-mode=yolo", "-p", "go"],
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    let leader = pid_in(&sb.work.join("leader.pid"));
    let worker = pid_in(&sb.work.join("child.pid"));
    assert!(
        wait_until(20, || sb.work.join("busy").exists()),
        "the second command did not start"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    let gone = wait_until(5, || !alive(leader) && !alive(worker));
    if !gone {
        kill(leader);
        kill(worker);
    }
    assert!(gone, "kill -9 left the background command running");
    assert!(
        wait_until(5, || !foreground_sleep_runs()),
        "kill -9 left the foreground command running"
    );
}

/// True while this test's foreground `sleep 61.37` still runs.
fn foreground_sleep_runs() -> bool {
    std::process::Command::new("pgrep")
        .args(["-x", "-f", "sleep 61.37"])
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn headless_default_mode_does_not_declare_the_background_tools() {
    let sb = Sandbox::new();
    settings(&sb);
    let fake = FakeServer::replaying(&lines(&[text("hi")]));
    let out = sb.run(
        &["-p", "hello"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let names = declared(&fake);
    assert!(names.iter().any(|n| n == "read_file"), "{names:?}");
    for tool in ["list_background_processes", "read_background_output"] {
        assert!(!names.iter().any(|n| n == tool), "{tool} in {names:?}");
    }
}

/// `/shells` in the terminal lists a dev-server-like background command
/// with its status and last lines, and `/shells stop <pid>` ends it.
#[test]
fn shells_lists_a_background_server_and_stops_it() {
    if !crate::tui::tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return;
    }
    let sb = Sandbox::new();
    settings(&sb);
    let server = "echo $$ > server.pid; echo 'Server listening on http://127.0.0.1:5173'; while :; do sleep 1; done";
    let fake = FakeServer::replaying(&lines(&[
        call(
            "run_shell_command",
            json!({"command": server, "is_background": true}),
        ),
        text("The dev server runs in the background."),
    ]));
    let t = crate::tui::Tmux::start(&sb, &fake.base_url, &["--approval-mode=yolo"], 120, 40);
    t.wait_for("mode: YOLO", 20);
    t.type_text("start the dev server");
    t.keys(&["Enter"]);
    t.wait_for("The dev server runs in the background.", 20);
    let pid = pid_in(&sb.work.join("server.pid"));
    assert!(alive(pid));
    t.type_text("/shells");
    t.keys(&["Enter"]);
    let s = t.wait_for(&format!("PID {pid} - running"), 10);
    assert!(s.contains("Background shells:"), "{s}");
    assert!(
        s.contains("    Server listening on http://127.0.0.1:5173"),
        "{s}"
    );
    t.type_text(&format!("/bashes stop {pid}"));
    t.keys(&["Enter"]);
    t.wait_for(&format!("Background process {pid} was stopped."), 10);
    let gone = wait_until(5, || !alive(pid));
    if !gone {
        kill(pid);
    }
    assert!(gone, "/shells stop left the server running");
    t.type_text("/shells");
    t.keys(&["Enter"]);
    t.wait_for(&format!("PID {pid} - ended by signal 15"), 10);
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

/// `tools.shell.backgroundCompletionBehavior`: `inject` hands the finished
/// command's output to the model with the next request, `notify` only the
/// note, `silent` (the default) nothing.
#[test]
fn a_finished_background_command_is_reported_as_the_setting_says() {
    for behavior in ["inject", "notify", "silent"] {
        let sb = Sandbox::new();
        sb.settings(
            &json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "tools": {"shell": {"backgroundCompletionBehavior": behavior}}}),
        );
        let fake = FakeServer::replaying(&lines(&[
            call(
                "run_shell_command",
                json!({"command": "echo $$ > bg.pid; echo started; sleep 0.5; echo finished-work", "is_background": true}),
            ),
            // Meanwhile the background command finishes.
            call("run_shell_command", json!({"command": "sleep 1.5"})),
            text("done"),
        ]));
        let out = sb.run(
            &["--approval-mode=yolo", "-p", "go"],
            None,
            &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
        );
        assert_eq!(out.code, 0, "{behavior}: {out:?}");
        let pid = pid_in(&sb.work.join("bg.pid"));
        let last = &fake.requests()[2].body["contents"];
        let last = last.as_array().unwrap().last().unwrap();
        let texts: Vec<&str> = last["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect();
        let log = sb.home.join(format!(
            ".gemini/tmp/background-processes/background-{pid}.log"
        ));
        let note = format!(
            "[Background command (PID {pid}) completed successfully. Output saved to {}]",
            log.display()
        );
        match behavior {
            "inject" => assert_eq!(texts, [format!("{note}\n\nstarted\nfinished-work")]),
            "notify" => assert_eq!(texts, [note]),
            _ => assert!(texts.is_empty(), "{texts:?}"),
        }
    }
}
