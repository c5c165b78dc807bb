//! Signals and stuck children, through the real binary: SIGTERM, SIGHUP and
//! SIGINT each end the session with 128 + the signal's number and leave no
//! process of the shell command (even ones that ignore SIGTERM), a command
//! that stops itself does not hang the session, and an MCP stdio server
//! that never answers `initialize` dies with gemini-rs.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::json;
use std::process::Command;
use std::time::{Duration, Instant};

fn settings(sb: &Sandbox) {
    sb.settings(
        &json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}),
    );
}

/// The pids of processes whose command line contains `needle`.
fn pgrep(needle: &str) -> String {
    Command::new("pgrep")
        .args(["-f", needle])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
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

fn send(pid: u32, signal: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{signal} {pid}");
}

#[test]
fn each_signal_ends_the_shell_group_and_exits_with_its_code() {
    for (signal, code, marker) in [
        ("TERM", 143, "61.25"),
        ("HUP", 129, "61.5"),
        ("INT", 130, "61.75"),
    ] {
        let sb = Sandbox::new();
        settings(&sb);
        // The children ignore SIGTERM: only the SIGKILL that follows ends them.
        let command = format!("trap '' TERM; sleep {marker} & sleep {marker}; wait");
        let fake = FakeServer::replaying(&lines(&[
            call("run_shell_command", json!({"command": command})),
            text("unused"),
        ]));
        let mut child = sb.spawn(
            &["--approval-mode=yolo", "-p", "go"],
            &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
        );
        let needle = format!("sleep {marker}");
        assert!(
            wait_until(20, || pgrep(&needle).lines().count() >= 2),
            "the command did not start"
        );
        let sent = Instant::now();
        send(child.id(), signal);
        let status = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status;
            }
            assert!(
                sent.elapsed() < Duration::from_secs(5),
                "still running after SIG{signal}"
            );
            std::thread::sleep(Duration::from_millis(10));
        };
        assert_eq!(status.code(), Some(code), "SIG{signal}");
        assert!(
            wait_until(1, || pgrep(&needle).is_empty()),
            "SIG{signal} left {}",
            pgrep(&needle)
        );
    }
}

#[test]
fn a_command_that_stops_itself_is_ended_and_the_session_goes_on() {
    let sb = Sandbox::new();
    settings(&sb);
    let fake = FakeServer::replaying(&lines(&[
        call(
            "run_shell_command",
            json!({"command": "echo before; kill -STOP $$; echo after"}),
        ),
        text("done"),
    ]));
    let started = Instant::now();
    let out = sb.run(
        &["--approval-mode=yolo", "-p", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(20));
    let responses = fake.function_responses();
    let output = responses[0]["functionResponse"]["response"]["output"].to_string();
    assert!(output.contains("stop signal"), "{output}");
    assert!(output.contains("before"), "{output}");
}

#[test]
fn an_mcp_server_stuck_in_initialize_dies_with_gemini_rs() {
    let sb = Sandbox::new();
    let marker = "stuck_in_initialize_4711";
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"stuck": {
            "command": "python3",
            "args": ["-c", format!("import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300) # {marker}")],
            "timeout": 300000
        }}
    }));
    let fake = FakeServer::replaying(&lines(&[text("unused")]));
    let mut child = sb.spawn(&["-p", "go"], &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    assert!(
        wait_until(20, || !pgrep(marker).is_empty()),
        "the server did not start"
    );
    let sent = Instant::now();
    send(child.id(), "TERM");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            sent.elapsed() < Duration::from_secs(5),
            "still running after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    assert_eq!(status.code(), Some(143));
    assert!(
        wait_until(1, || pgrep(marker).is_empty()),
        "the MCP server was left running: {}",
        pgrep(marker)
    );
}

/// The README's figure: a hook that ignores SIGTERM (and one that ignores
/// it at SessionEnd) gets SIGKILL a second later, and gemini-rs is gone
/// within two seconds of SIGTERM (it took three before), leaving nothing.
#[test]
fn a_hook_ignoring_term_is_killed_and_the_exit_takes_two_seconds_at_most() {
    let sb = Sandbox::new();
    let hook = |marker: &str| {
        json!([{"hooks": [{"type": "command", "name": "stubborn",
            "command": format!("trap '' TERM; sleep {marker}; true")}]}])
    };
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooks": {"BeforeAgent": hook("62.25"), "SessionEnd": hook("62.5")}
    }));
    let responses = sb.write("r.responses", &lines(&[text("unused")]));
    let mut child = sb.spawn(
        &["--fake-responses", responses.to_str().unwrap(), "-p", "go"],
        &[],
    );
    assert!(
        wait_until(20, || !pgrep("sleep 62.25").is_empty()),
        "the hook did not start"
    );
    let sent = Instant::now();
    send(child.id(), "TERM");
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(sent.elapsed() < Duration::from_secs(5), "still running");
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = sent.elapsed();
    assert_eq!(status.code(), Some(143));
    // Two seconds, and a little for a loaded machine's scheduling.
    assert!(took < Duration::from_millis(2300), "exit took {took:?}");
    assert!(pgrep("sleep 62.").is_empty(), "left {}", pgrep("sleep 62."));
}

/// True while `pid` runs (a zombie has ended: only its parent's wait is
/// missing).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat[stat.rfind(')').map_or(0, |i| i + 2)..].chars().next();
        state.is_some_and(|s| s != 'Z' && s != 'X')
    })
}

fn parent(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = &stat[stat.rfind(')').unwrap() + 2..];
    rest.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// The terminal UI (in tmux) running the model's shell command, which
/// ignores SIGTERM and writes its pid to `cmd.pid`: the tmux pane, the
/// command's pid and gemini-rs's pid.
fn ui_running_a_command(
    sb: &Sandbox,
    marker: &str,
    record_exit: bool,
) -> Option<(FakeServer, crate::tui::Tmux, u32, u32)> {
    if !crate::tui::tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return None;
    }
    settings(sb);
    let command = format!("echo $$ > cmd.pid; trap '' TERM; sleep {marker}; true");
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": command})),
        text("unused"),
    ]));
    let args = ["--approval-mode=yolo"];
    let t = if record_exit {
        crate::tui::Tmux::start_recording_exit(sb, &fake.base_url, &args)
    } else {
        crate::tui::Tmux::start(sb, &fake.base_url, &args, 100, 30)
    };
    t.wait_for("mode: YOLO", 20);
    t.type_text("run it");
    t.keys(&["Enter"]);
    let pid_file = sb.work.join("cmd.pid");
    let read = || {
        std::fs::read_to_string(&pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
    };
    assert!(
        wait_until(20, || read().is_some()
            && !pgrep(&format!("sleep {marker}")).is_empty()),
        "the command did not start: {}",
        t.screen()
    );
    let command_pid = read().unwrap();
    let gemini = parent(command_pid);
    Some((fake, t, command_pid, gemini))
}

/// Waits up to 5 s for `pid` to end; how long it took.
fn ended_within(pid: u32, from: Instant) -> Duration {
    assert!(
        wait_until(5, || !running(pid)),
        "gemini-rs {pid} still runs 5 s after the signal"
    );
    from.elapsed()
}

#[test]
fn the_ui_ends_on_term_and_hup_with_its_command_within_two_seconds() {
    for (signal, code, marker) in [("TERM", 143, "63.25"), ("HUP", 129, "63.5")] {
        let sb = Sandbox::new();
        let Some((_fake, t, command, gemini)) = ui_running_a_command(&sb, marker, false) else {
            return;
        };
        let sent = Instant::now();
        send(gemini, signal);
        let took = ended_within(gemini, sent);
        // Two seconds, and a little for a loaded machine's scheduling.
        assert!(took < Duration::from_millis(2300), "SIG{signal}: {took:?}");
        assert!(!running(command), "SIG{signal} left the command {command}");
        assert_eq!(pgrep(&format!("sleep {marker}")), "", "SIG{signal}");
        t.wait_for(&format!("EXIT={code}"), 5);
    }
}

#[test]
fn sigint_to_the_ui_cancels_the_command_as_ctrl_c_does() {
    let sb = Sandbox::new();
    let Some((_fake, t, command, gemini)) = ui_running_a_command(&sb, "63.75", false) else {
        return;
    };
    send(gemini, "INT");
    assert!(
        wait_until(3, || !running(command)),
        "SIGINT left the command {command} running"
    );
    t.wait_for("Request cancelled.", 5);
    assert!(running(gemini), "SIGINT ended the UI: {}", t.screen());
    assert_eq!(pgrep("sleep 63.75"), "");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn a_closed_terminal_ends_the_ui_and_its_command_within_two_seconds() {
    let sb = Sandbox::new();
    let Some((_fake, t, command, gemini)) = ui_running_a_command(&sb, "64.25", true) else {
        return;
    };
    let closed = Instant::now();
    t.kill_session();
    // Not spinning on the dead terminal: gone, with its command.
    let took = ended_within(gemini, closed);
    assert!(took < Duration::from_millis(2300), "{took:?}");
    assert!(!running(command), "the command {command} survived");
    assert_eq!(pgrep("sleep 64.25"), "");
    // It ended as on SIGHUP, not with a terminal error.
    let code = sb.home.join("exit.code");
    assert!(wait_until(5, || code.exists()), "no exit code recorded");
    assert_eq!(std::fs::read_to_string(&code).unwrap().trim(), "129");
}
