//! Remote agents (`kind: remote`, Gemini CLI 0.61's front matter) called
//! over A2A 1.0's JSON-RPC binding, against a real A2A server built on
//! PyPI's `a2a-sdk` (`tests/fixtures/a2a/echo_server.py`): streaming and
//! not, a conversation carried over two calls, and a card that is missing.

use super::a2a::python;
use super::settings;
use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, free_port};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The echo server, killed when dropped.
struct Echo {
    child: Child,
    port: u16,
}

impl Drop for Echo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the echo server logging to `log`, once its card answers.
fn echo(log: &std::path::Path) -> Option<Echo> {
    let python = python()?;
    let port = free_port();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/a2a/echo_server.py"
    );
    let child = Command::new(python)
        .arg(script)
        .arg(port.to_string())
        .arg(log)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python starts the A2A server");
    let server = Echo { child, port };
    let deadline = Instant::now() + Duration::from_secs(60);
    let request = super::request("GET", "/.well-known/agent-card.json", &[], "");
    let addr = format!("127.0.0.1:{port}");
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(&addr).is_ok() && super::http(&addr, &request).0 == 200 {
            return Some(server);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the A2A echo server did not start on {addr}");
}

fn agent(name: &str, url: &str) -> String {
    format!(
        "---\nkind: remote\nname: {name}\ndescription: Echoes what it is sent.\nagent_card_url: {url}\n---\n"
    )
}

/// The text of every functionResponse sent, in order, by tool name.
fn responses(fake: &FakeServer) -> Vec<(String, String)> {
    fake.function_responses()
        .into_iter()
        .map(|p| {
            let fr = &p["functionResponse"];
            let text = fr["response"]["output"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| fr["response"].to_string());
            (fr["name"].as_str().unwrap().to_string(), text)
        })
        .collect()
}

#[test]
fn remote_agents_are_called_over_a2a() {
    let sb = Sandbox::new();
    let log = sb.work.join("echo.jsonl");
    let Some(server) = echo(&log) else {
        return;
    };
    settings(&sb, json!({"experimental": {"enableAgents": true}}));
    let base = format!("http://127.0.0.1:{}", server.port);
    let card = |path: &str| format!("{base}{path}");
    sb.write_home(
        ".gemini/agents/echo.md",
        &agent("echo", &card("/.well-known/agent-card.json")),
    );
    sb.write_home(
        ".gemini/agents/plain.md",
        &agent("plain", &card("/plain/agent-card.json")),
    );
    sb.write_home(
        ".gemini/agents/gone.md",
        &agent("gone", &card("/nowhere/agent-card.json")),
    );
    let fake = FakeServer::replaying(&lines(&[
        call("echo", json!({"query": "first"})),
        call("echo", json!({"query": "second"})),
        call("plain", json!({"query": "third"})),
        call("gone", json!({"query": "fourth"})),
        text("Done."),
    ]));
    let out = sb.run(
        &["--approval-mode", "yolo", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout.trim(), "Done.");
    let declared = fake.requests()[0].body["tools"][0]["functionDeclarations"].clone();
    let echo_decl = declared
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "echo")
        .unwrap_or_else(|| panic!("echo is declared: {declared:#}"));
    assert_eq!(echo_decl["description"], "Echoes what it is sent.");
    assert!(
        echo_decl["parametersJsonSchema"]["properties"]["query"].is_object()
            || echo_decl["parameters"]["properties"]["query"].is_object(),
        "{echo_decl:#}"
    );
    let got = responses(&fake);
    let notes = |n: u32| format!("\n\nArtifact (notes):\nmessage {n} of this context");
    assert_eq!(
        got,
        [
            ("echo".to_string(), format!("Echo: first{}", notes(1))),
            ("echo".to_string(), format!("Echo: second{}", notes(2))),
            ("plain".to_string(), format!("Echo: third{}", notes(1))),
            (
                "gone".to_string(),
                format!(
                    "Agent card not found (404) at {}. Verify the agent_card_url in your agent definition.",
                    card("/nowhere/agent-card.json")
                )
            ),
        ]
    );
    // The server saw the conversation go on in one context.
    let seen: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let texts: Vec<&str> = seen.iter().map(|s| s["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["first", "second", "third"]);
    assert_eq!(seen[0]["contextId"], seen[1]["contextId"]);
    assert_ne!(seen[0]["contextId"], seen[2]["contextId"]);
}

#[test]
fn remote_agent_files_are_checked() {
    let sb = Sandbox::new();
    settings(&sb, json!({"experimental": {"enableAgents": true}}));
    sb.write_home(
        ".gemini/agents/bad.md",
        "---\nkind: remote\nname: bad\nagent_card_url: not a url\n---\n",
    );
    sb.write_home(
        ".gemini/agents/mixed.md",
        "---\nkind: remote\nname: mixed\nagent_card_url: http://127.0.0.1:9/card\ntools: [read_file]\n---\n",
    );
    sb.write_home(
        ".gemini/agents/nocard.md",
        "---\nkind: remote\nname: nocard\n---\n",
    );
    let fake = FakeServer::replaying(&lines(&[text("Done.")]));
    let out = sb.run(&["go"], None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    for (file, message) in [
        ("bad.md", "agent_card_url: Invalid url"),
        ("mixed.md", "`tools` is not a key of remote agents"),
        (
            "nocard.md",
            "a remote agent needs exactly one of agent_card_url and agent_card_json",
        ),
    ] {
        assert!(
            out.stderr
                .lines()
                .any(|l| l.contains(file) && l.contains(message)),
            "{file}: {}",
            out.stderr
        );
    }
}
