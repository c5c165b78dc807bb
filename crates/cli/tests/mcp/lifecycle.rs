//! How stdio MCP servers start and end with a session (#29, #30): the run
//! ends at once after its answer, whether the server exits on end of input
//! or ignores it and TERM, and leaves no server behind; many servers start
//! together; a server that hangs is left out after its start-up timeout
//! (also for ACP's `session/new`).

use crate::e2e::{lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

/// A stdio MCP server in Python. Arguments: the file to write its pid to,
/// the mode (`eof`: exits at end of input; `stubborn`: ignores TERM and
/// end of input; `hang`: never answers), the seconds to wait before
/// answering, and the name of its one tool (its one prompt is that name
/// with `_prompt`).
const SERVER: &str = r#"
import json, os, signal, sys, time
pidfile, mode, delay, tool = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
with open(pidfile + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(pidfile + ".tmp", pidfile)
if mode in ("stubborn", "hang"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
if mode == "hang":
    while True:
        time.sleep(1)
time.sleep(delay)
for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}, "prompts": {}},
                  "serverInfo": {"name": tool, "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": tool, "description": "pong",
                             "inputSchema": {"type": "object"}}]}
    elif method == "prompts/list":
        result = {"prompts": [{"name": tool + "_prompt", "description": "a prompt"}]}
    elif method == "prompts/get":
        result = {"messages": [{"role": "user",
                                "content": {"type": "text", "text": "prompt of " + tool}}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\n")
    sys.stdout.flush()
if mode == "stubborn":
    while True:
        time.sleep(1)
"#;

/// The bound on the time from the answer to the exit: the old code missed
/// it by seconds; generous for a slow CI machine.
const EXIT_BOUND: Duration = Duration::from_millis(1500);

/// The Python interpreter itself: `python3` may be a shim (pyenv) that
/// costs half a second per start, which twenty servers would multiply.
fn python() -> &'static str {
    static PYTHON: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PYTHON.get_or_init(|| {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3 runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    })
}

/// A `mcpServers` entry running [`SERVER`]; its pid file.
pub(super) fn server(
    sb: &Sandbox,
    name: &str,
    mode: &str,
    delay: f64,
    extra: Value,
) -> (Value, PathBuf) {
    let script = sb.write_home("mcp-server.py", SERVER);
    let pidfile = sb.home.join(format!("{name}.pid"));
    let mut entry = json!({"command": python(),
        "args": [script, pidfile, mode, delay.to_string(), format!("ping_{name}")],
        "trust": true});
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    (entry, pidfile)
}

pub(super) fn settings(sb: &Sandbox, servers: Value) {
    sb.settings(
        &json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": servers}),
    );
}

/// True while process `pid` exists and is not a zombie.
fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .next();
            !matches!(state, Some("Z" | "X"))
        }
        Err(_) => false,
    }
}

fn pid_of(pidfile: &Path) -> u32 {
    let text =
        std::fs::read_to_string(pidfile).unwrap_or_else(|e| panic!("{}: {e}", pidfile.display()));
    text.trim().parse().unwrap()
}

/// Runs `-p hi -o stream-json` with one server in `mode`; the time from
/// the result line to the exit, and the server's pid.
fn answer_to_exit(mode: &str) -> (Duration, u32) {
    let sb = Sandbox::new();
    let (entry, pidfile) = server(&sb, "s", mode, 0.0, json!({}));
    settings(&sb, json!({"s": entry}));
    let fake = FakeServer::replaying(&lines(&[text("done")]));
    let mut cmd = sb.command(
        &["-p", "hi", "-o", "stream-json"],
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answered = None;
    let mut seen = Vec::new();
    for line in stdout.lines() {
        let line = line.unwrap();
        if line.contains(r#""type":"result""#) {
            answered = Some(Instant::now());
        }
        seen.push(line);
    }
    let status = child.wait().unwrap();
    let ended = Instant::now();
    let answered = answered.unwrap_or_else(|| panic!("no result line: {seen:?}"));
    assert!(status.success(), "{status}: {seen:?}");
    assert!(seen.iter().any(|l| l.contains(r#""status":"success""#)));
    // The server was connected: its tool was declared to the model.
    let body = &fake.requests()[0].body;
    assert_eq!(
        body["tools"][0]["functionDeclarations"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["name"] == "ping_s")
            .count(),
        1,
        "{body}"
    );
    (ended - answered, pid_of(&pidfile))
}

#[test]
fn a_server_that_exits_on_end_of_input_ends_with_the_run() {
    let (waited, pid) = answer_to_exit("eof");
    assert!(waited < EXIT_BOUND, "exit {waited:?} after the answer");
    assert!(!running(pid), "server {pid} left running");
}

#[test]
fn a_server_that_ignores_end_of_input_and_term_is_killed_at_once() {
    let (waited, pid) = answer_to_exit("stubborn");
    assert!(waited < EXIT_BOUND, "exit {waited:?} after the answer");
    assert!(!running(pid), "server {pid} left running");
}

#[test]
fn mcp_list_connects_and_ends_a_stubborn_server_at_once() {
    let sb = Sandbox::new();
    let (entry, pidfile) = server(&sb, "s", "stubborn", 0.0, json!({}));
    settings(&sb, json!({"s": entry}));
    let started = Instant::now();
    let out = sb.run(&["mcp", "list"], None, &[]);
    let took = started.elapsed();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("- Connected"), "{out:?}");
    // The old code waited 3 s for the exit, then 1 s after TERM.
    assert!(took < Duration::from_secs(3), "mcp list took {took:?}");
    assert!(!running(pid_of(&pidfile)));
}

#[test]
fn twenty_servers_start_together_and_a_hanging_one_is_left_out() {
    let sb = Sandbox::new();
    let mut servers = serde_json::Map::new();
    for i in 1..=20 {
        let (entry, _) = server(&sb, &format!("s{i}"), "eof", 0.5, json!({}));
        servers.insert(format!("s{i}"), entry);
    }
    // Long enough for twenty-one interpreters to start on two busy cores.
    let (hang, hang_pid) = server(&sb, "stuck", "hang", 0.0, json!({"timeout": 3000}));
    servers.insert("stuck".into(), hang);
    settings(&sb, Value::Object(servers));
    let fake = FakeServer::replaying(&lines(&[text("done")]));
    let started = Instant::now();
    let out = sb.run(
        &["-p", "hi"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    let took = started.elapsed();
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr
            .contains("Error connecting to MCP server 'stuck': Connection timed out after 3000 ms"),
        "{out:?}"
    );
    // One after another, the twenty would take over 10 s, 13 s with the
    // hanging one.
    assert!(took < Duration::from_secs(7), "start-up took {took:?}");
    let body = &fake.requests()[0].body;
    let declared: Vec<&str> = body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["name"].as_str())
        .filter(|n| n.starts_with("ping_"))
        .collect();
    assert_eq!(declared.len(), 20, "{declared:?}");
    assert!(!declared.contains(&"ping_stuck"));
    // On a loaded machine the interpreter may be killed before it wrote
    // its pid; one that survived would write it, so give it time to.
    std::thread::sleep(Duration::from_millis(1500));
    if hang_pid.exists() {
        assert!(!running(pid_of(&hang_pid)));
    }
}

#[test]
fn acp_session_new_answers_within_a_hanging_servers_start_up_timeout() {
    let sb = Sandbox::new();
    let (hang, hang_pid) = server(&sb, "stuck", "hang", 0.0, json!({"timeout": 1000}));
    settings(&sb, json!({"stuck": hang}));
    let responses = sb.write("acp.responses", &lines(&[text("done")]));
    let mut cmd = sb.command(
        &["--acp", "--fake-responses", responses.to_str().unwrap()],
        &[],
    );
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut request = |id: u64, method: &str, params: Value| -> (Value, Duration) {
        let started = Instant::now();
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        loop {
            let answer: Value = serde_json::from_str(&stdout.next().unwrap().unwrap()).unwrap();
            if answer["id"] == id && answer.get("method").is_none() {
                return (answer, started.elapsed());
            }
        }
    };
    request(
        1,
        "initialize",
        json!({"protocolVersion": 1, "clientCapabilities": {}}),
    );
    let (answer, took) = request(2, "session/new", json!({"cwd": sb.work, "mcpServers": []}));
    assert!(answer["result"]["sessionId"].is_string(), "{answer}");
    assert!(took < Duration::from_secs(5), "session/new took {took:?}");
    // End of input ends the agent.
    drop(stdin);
    let _ = child.wait();
    let pid = pid_of(&hang_pid);
    let deadline = Instant::now() + Duration::from_secs(5);
    while running(pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(pid), "server {pid} left running");
}
