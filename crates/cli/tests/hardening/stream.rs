//! Streaming costs memory in proportion to what is kept (issue 41, item
//! 2): an answer of endless distinct text, with loop detection on, ends
//! at `model.maxStreamMegabytes` naming the provider on every wire, and
//! peak memory stays within the budget plus about 100 MB; one endless
//! event-stream line is refused at the line cap without being held whole.

use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::json;

/// The peak resident size (KiB) of the finished child `pid`, and its
/// exit code.
fn reap(pid: u32) -> (i64, i32) {
    let mut status = 0;
    // SAFETY: zeroed plain data for the kernel to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the locals above.
    let got = unsafe { libc::wait4(pid as i32, &mut status, 0, &mut usage) };
    assert_eq!(got, pid as i32);
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128 + libc::WTERMSIG(status)
    };
    (usage.ru_maxrss, code)
}

/// Distinct text, about 450 characters an event: every 50-byte stretch
/// holds the event's number with a letter no other stretch pairs it with.
fn words() -> String {
    ('a'..='z')
        .chain('A'..='Z')
        .map(|c| format!("{{n}}{c} "))
        .collect()
}

/// One wire: the model, its variables and an endless answer of it.
struct Wire {
    model: &'static str,
    provider: &'static str,
    env: fn(&str) -> Vec<(&'static str, String)>,
    prefix: String,
    unit: String,
}

fn wires() -> Vec<Wire> {
    let words = words();
    let gemini =
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": words}]}}]});
    let openai = json!({"choices": [{"index": 0, "delta": {"content": words}}]});
    let anthropic = json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "text_delta", "text": words}});
    let start = json!({"type": "message_start", "message": {"usage": {"input_tokens": 5, "output_tokens": 1}}});
    let block = json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}});
    vec![
        Wire {
            model: "gemini-2.5-flash",
            provider: "provider `gemini`",
            env: |base| vec![("GOOGLE_GEMINI_BASE_URL", base.to_string())],
            prefix: String::new(),
            unit: format!("data: {gemini}\r\n\r\n"),
        },
        Wire {
            model: "openai/gpt-4.1",
            provider: "provider `openai`",
            env: |base| {
                vec![
                    ("OPENAI_BASE_URL", format!("{base}/v1")),
                    ("OPENAI_API_KEY", "sk-1".into()),
                ]
            },
            prefix: String::new(),
            unit: format!("data: {openai}\n\n"),
        },
        Wire {
            model: "anthropic/claude-sonnet-4-5",
            provider: "provider `anthropic`",
            env: |base| {
                vec![
                    ("ANTHROPIC_BASE_URL", base.to_string()),
                    ("ANTHROPIC_API_KEY", "sk-ant".into()),
                ]
            },
            prefix: format!(
                "event: message_start\ndata: {start}\n\nevent: content_block_start\ndata: {block}\n\n"
            ),
            unit: format!("event: content_block_delta\ndata: {anthropic}\n\n"),
        },
    ]
}

/// Runs `-p hi` on `wire` against `reply`: (peak KiB, exit code, stderr).
fn run(sb: &Sandbox, wire: &Wire, reply: Reply) -> (i64, i32, String) {
    let fake = FakeServer::with_replies([reply]);
    let env = (wire.env)(&fake.base_url);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let err_path = sb.work.join("stderr.txt");
    let mut cmd = sb.command(&["-m", wire.model, "-p", "hi"], &env);
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&err_path).unwrap());
    // Reaped by `wait4` in `reap`, which also reports its peak memory.
    #[allow(clippy::zombie_processes)]
    let child = cmd.spawn().unwrap();
    let (peak, code) = reap(child.id());
    (peak, code, std::fs::read_to_string(&err_path).unwrap())
}

/// A debug build's session starts about 50 MB heavier than a release
/// build's (about 25 MB for a replayed session): the bounds are the budget
/// plus 100 MB over a release session, so a debug run gets the difference.
const DEBUG_BASELINE_KIB: i64 = if cfg!(debug_assertions) { 50 * 1024 } else { 0 };

#[test]
fn endless_distinct_text_ends_at_the_budget_within_memory_on_every_wire() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"maxStreamMegabytes": 2, "retry": {"initialDelayMs": 1}}}));
    for wire in wires() {
        let reply =
            Reply::endless_numbered(200, "text/event-stream", wire.prefix.clone(), &wire.unit);
        let (peak_kib, code, stderr) = run(&sb, &wire, reply);
        assert_eq!(code, 1, "{}: {stderr}", wire.model);
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            stderr.contains(
                "the streamed answer is over the limit of 2 MiB (model.maxStreamMegabytes)"
            ),
            "{}: {stderr}",
            wire.model
        );
        assert!(stderr.contains(wire.provider), "{}: {stderr}", wire.model);
        assert!(
            peak_kib < (2 + 100) * 1024 + DEBUG_BASELINE_KIB,
            "{}: peak RSS {peak_kib} KiB",
            wire.model
        );
    }
}

#[test]
fn one_endless_event_stream_line_is_refused_without_holding_it_on_every_wire() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"maxStreamMegabytes": 1024, "retry": {"initialDelayMs": 1}}}));
    for wire in wires() {
        let reply = Reply::endless(200, "text/event-stream", "data: {\"x\": \"", "abcdefgh");
        let (peak_kib, code, stderr) = run(&sb, &wire, reply);
        assert_eq!(code, 1, "{}: {stderr}", wire.model);
        assert!(
            stderr.contains("one line of the event stream is over the limit of 16 MiB"),
            "{}: {stderr}",
            wire.model
        );
        assert!(stderr.contains(wire.provider), "{}: {stderr}", wire.model);
        assert!(
            peak_kib < (16 + 100) * 1024 + DEBUG_BASELINE_KIB,
            "{}: peak RSS {peak_kib} KiB",
            wire.model
        );
    }
}
