//! ACP for rollouts: `session/new` with `_meta.workspaceFrom` works in a
//! copy of the template, `_gemini-rs/patch` returns its changes and the
//! template stays the same; `limits.wallSeconds` ends a prompt whose
//! command sleeps for ever with `_meta.stopReason` `resource_limit`.

use super::wire::Wire;
use crate::e2e::{call, lines, text};
use crate::workspaces::{editing_session, make_template, snapshot};
use serde_json::json;
use std::time::{Duration, Instant};

fn yolo(wire: &mut Wire, id: u64, session: &str) {
    let mode = json!({"sessionId": session, "modeId": "yolo"});
    let answer = wire.request(id, "session/set_mode", mode);
    assert!(answer.get("error").is_none(), "{answer}");
}

fn prompt(wire: &mut Wire, id: u64, session: &str) -> serde_json::Value {
    let prompt = json!({"sessionId": session, "prompt": [{"type": "text", "text": "go"}]});
    wire.request(id, "session/prompt", prompt)
}

#[test]
fn a_session_from_a_template_edits_its_copy_and_returns_the_patch() {
    let outside = tempfile::tempdir().unwrap();
    let template = outside.path().join("template");
    make_template(&template);
    let before = snapshot(&template);
    let mut wire = Wire::start(&editing_session());
    let init = json!({"protocolVersion": 1, "clientCapabilities": {}});
    wire.request(1, "initialize", init);
    let cwd = wire.work().to_path_buf();
    let new = wire.request(
        2,
        "session/new",
        json!({"cwd": cwd, "mcpServers": [], "_meta": {"workspaceFrom": template}}),
    );
    let session = new["result"]["sessionId"].as_str().unwrap().to_string();
    yolo(&mut wire, 3, &session);
    let done = prompt(&mut wire, 4, &session);
    assert_eq!(done["result"]["stopReason"], "end_turn", "{done}");
    let patch = wire.request(5, "_gemini-rs/patch", json!({"sessionId": session}));
    let diff = patch["result"]["patch"]
        .as_str()
        .unwrap_or_else(|| panic!("{patch}"));
    assert!(diff.contains("-line two\n+line 2\n"), "{diff}");
    assert!(
        diff.contains("deleted file mode 100644\n--- a/src/deep/old.txt"),
        "{diff}"
    );
    assert!(diff.contains("+++ b/made.txt"), "{diff}");
    assert!(patch["result"]["kind"].is_string(), "{patch}");
    assert_eq!(snapshot(&template), before, "the template changed");
    // Nothing of it reached the folder the client named.
    assert!(!cwd.join("made.txt").exists());
    // Closing the session unmounts its copy; the patch is gone with it.
    let home = cwd.parent().unwrap().join("home");
    let closed = wire.request(8, "session/close", json!({"sessionId": session}));
    assert!(closed.get("error").is_none(), "{closed}");
    let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap();
    assert!(!mounts.contains(home.to_str().unwrap()), "{mounts}");
    let after = wire.request(9, "_gemini-rs/patch", json!({"sessionId": session}));
    assert_eq!(after["error"]["code"], -32602, "{after}");
    let unknown = wire.request(6, "_gemini-rs/patch", json!({"sessionId": "nope"}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    let bad = json!({"cwd": cwd, "mcpServers": [], "_meta": {"workspaceFrom": "/no/such/tpl"}});
    let refused = wire.request(7, "session/new", bad);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    wire.close();
}

#[test]
fn the_wall_clock_ends_a_prompt_with_resource_limit() {
    let responses = lines(&[
        call("run_shell_command", json!({"command": "sleep 593.75"})),
        text("unreachable"),
    ]);
    let mut wire = Wire::start(&responses);
    // Settings are read per session: these hold for the next one.
    let settings = json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "limits": {"wallSeconds": 2}});
    std::fs::write(
        wire.work().join(".gemini/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    let session = wire.session();
    yolo(&mut wire, 1, &session);
    let started = Instant::now();
    let done = prompt(&mut wire, 2, &session);
    assert!(started.elapsed() < Duration::from_secs(15));
    assert_eq!(done["result"]["stopReason"], "cancelled", "{done}");
    let meta = &done["result"]["_meta"];
    assert_eq!(meta["stopReason"], "resource_limit", "{done}");
    assert_eq!(meta["limit"], "wall_clock", "{done}");
    assert!(meta["usage"]["cpuMs"].is_u64(), "{done}");
    let deadline = Instant::now() + Duration::from_secs(2);
    let running = || {
        std::process::Command::new("pgrep")
            .args(["-f", "sleep 593.75"])
            .output()
            .map(|o| !o.stdout.is_empty())
            .unwrap_or(false)
    };
    while running() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!running(), "the command still runs");
    wire.still_serving(3);
    wire.close();
}
