//! Hooks through the binary: real bash and python3 hook scripts against the
//! fake Gemini endpoint (input field sets as in Appendix A.19, AfterModel per
//! streamed chunk, failures, timeouts, parallel and sequential hooks), and
//! `gemini-rs hooks list`.

use crate::e2e::{call, lines, text, turn};
use crate::support::{Output, Sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const MODEL: &str = "gemini-3-flash-preview";

/// Settings with `hooks`, written as user and project settings.
fn settings(sb: &Sandbox, hooks: Value) {
    sb.settings(&json!({
        "model": {"name": MODEL, "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooks": hooks
    }));
}

/// One command hook.
fn hook(name: &str, command: &str) -> Value {
    json!({"type": "command", "name": name, "command": command})
}

/// `hooks.<event>` with one definition holding `hooks`.
fn on(event: &str, matcher: Option<&str>, hooks: Vec<Value>) -> Value {
    let mut def = json!({"hooks": hooks});
    if let Some(m) = matcher {
        def["matcher"] = json!(m);
    }
    json!({ event: [def] })
}

/// Runs `go` in yolo mode against a fake endpoint replaying `responses`.
fn run(sb: &Sandbox, responses: &str) -> (FakeServer, Output) {
    let fake = FakeServer::replaying(responses);
    let out = sb.run(
        &["--approval-mode=yolo", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    (fake, out)
}

fn read_json(sb: &Sandbox, rel: &str) -> Value {
    let text = sb.read(rel).unwrap_or_else(|| panic!("{rel} missing"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}: {text}"))
}

/// The `response` of the only functionResponse sent back.
fn single_response(fake: &FakeServer) -> Value {
    let frs = fake.function_responses();
    assert_eq!(frs.len(), 1, "{frs:?}");
    frs[0]["functionResponse"]["response"].clone()
}

const DUMP_PY: &str = r#"import json, os, sys
raw = sys.stdin.read()
d = json.loads(raw)
base = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dumps")
os.makedirs(base, exist_ok=True)
ev = d["hook_event_name"]
with open(os.path.join(base, "order.txt"), "a") as f:
    f.write(ev + "\n")
p = os.path.join(base, ev + ".json")
if not os.path.exists(p):
    with open(p, "w") as f:
        f.write(raw)
env = {k: v for k, v in os.environ.items() if k.startswith(("GEMINI_", "CLAUDE_"))}
with open(os.path.join(base, "env.json"), "w") as f:
    json.dump(env, f)
"#;

/// Every event of a headless run (Notification is interactive only).
const EVENTS: [&str; 10] = [
    "SessionStart",
    "BeforeAgent",
    "PreCompress",
    "BeforeModel",
    "BeforeToolSelection",
    "AfterModel",
    "BeforeTool",
    "AfterTool",
    "AfterAgent",
    "SessionEnd",
];

/// Checks and replaces what differs from run to run: ids, timestamps,
/// paths and the long context message.
fn normalise(sb: &Sandbox, mut v: Value) -> Value {
    let sid = v["session_id"].as_str().unwrap().to_string();
    assert_eq!(sid.len(), 36, "{sid}");
    assert_eq!(sid.matches('-').count(), 4, "{sid}");
    let tp = v["transcript_path"].as_str().unwrap();
    let chats = format!("{}/chats/session-", sb.project_temp_dir().display());
    // The `0.27` dialect's file, as 0.27.4 names it (`.jsonl` today).
    assert!(
        tp.starts_with(&chats) && tp.ends_with(&format!("-{}.json", &sid[..8])),
        "{tp}"
    );
    let stamp = &tp[chats.len()..chats.len() + 16];
    assert!(
        stamp.as_bytes()[4] == b'-' && stamp.as_bytes()[10] == b'T',
        "{tp}"
    );
    let ts = v["timestamp"].as_str().unwrap();
    assert!(
        ts.len() == 24 && ts.ends_with('Z') && &ts[10..11] == "T" && &ts[19..20] == ".",
        "{ts}"
    );
    assert_eq!(v["cwd"], json!(sb.work.display().to_string()));
    v["session_id"] = json!("<SID>");
    v["transcript_path"] = json!("<TRANSCRIPT>");
    v["timestamp"] = json!("<TS>");
    v["cwd"] = json!("/w");
    if let Some(first) = v.pointer_mut("/llm_request/messages/0/content") {
        // The environment-context turn (gemini-rs words it its own way).
        let ctx = first.as_str().unwrap();
        assert!(ctx.contains("Today's date is"), "{ctx}");
        *first = json!("<CONTEXT>");
    }
    v
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

#[test]
fn every_event_input_matches_appendix_a19() {
    let sb = Sandbox::new();
    sb.write("a.txt", "A");
    let dump = sb.write("dump.py", DUMP_PY);
    let command = format!("python3 \"{}\"", dump.display());
    let mut hooks = serde_json::Map::new();
    for e in EVENTS {
        hooks.insert(e.into(), json!([{"hooks": [hook("dump", &command)]}]));
    }
    settings(&sb, Value::Object(hooks));
    let model_turn = turn(json!([{"text": "thinking "},
        {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}]));
    let (fake, out) = run(&sb, &lines(&[model_turn, text("done")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "thinking \ndone\n", "{out:?}");
    assert_eq!(single_response(&fake), json!({"output": "A"}));

    let base = |event: &str| {
        json!({"session_id": "<SID>", "transcript_path": "<TRANSCRIPT>", "cwd": "/w",
               "hook_event_name": event, "timestamp": "<TS>"})
    };
    let llm_request = json!({"model": MODEL,
        "messages": [{"role": "user", "content": "<CONTEXT>"}, {"role": "user", "content": "go"}],
        "config": {"temperature": 1, "topP": 0.95, "topK": 64}});
    let specific: [(&str, Vec<(&str, Value)>); 10] = [
        ("SessionStart", vec![("source", json!("startup"))]),
        ("BeforeAgent", vec![("prompt", json!("go"))]),
        ("PreCompress", vec![("trigger", json!("auto"))]),
        ("BeforeModel", vec![("llm_request", llm_request.clone())]),
        (
            "BeforeToolSelection",
            vec![("llm_request", llm_request.clone())],
        ),
        (
            "AfterModel",
            vec![
                ("llm_request", llm_request),
                (
                    "llm_response",
                    json!({"text": "thinking ", "candidates": [{"content": {"role": "model", "parts": ["thinking "]},
                    "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}}),
                ),
            ],
        ),
        (
            "BeforeTool",
            vec![
                ("tool_name", json!("read_file")),
                ("tool_input", json!({"file_path": "a.txt"})),
            ],
        ),
        (
            "AfterTool",
            vec![
                ("tool_name", json!("read_file")),
                ("tool_input", json!({"file_path": "a.txt"})),
                (
                    "tool_response",
                    json!({"llmContent": "A", "returnDisplay": ""}),
                ),
            ],
        ),
        (
            "AfterAgent",
            vec![
                ("prompt", json!("go")),
                ("prompt_response", json!("thinking \ndone")),
                ("stop_hook_active", json!(false)),
            ],
        ),
        ("SessionEnd", vec![("reason", json!("exit"))]),
    ];
    for (event, fields) in specific {
        let mut want = base(event);
        for (k, v) in fields {
            want[k] = v;
        }
        let got = normalise(&sb, read_json(&sb, &format!("dumps/{event}.json")));
        assert_eq!(got, want, "{event}");
        assert_eq!(keys(&got), keys(&want), "{event}: key order");
    }

    // Firing order as observed for v0.27.4; the fake endpoint streams more
    // chunks (AfterModel fires per chunk), so repeats of it are collapsed.
    let order = sb.read("dumps/order.txt").unwrap();
    let mut fired: Vec<&str> = Vec::new();
    for e in order.lines() {
        if !(e == "AfterModel" && fired.last() == Some(&"AfterModel")) {
            fired.push(e);
        }
    }
    let mut want = vec![
        "SessionStart",
        "BeforeAgent",
        "PreCompress",
        "BeforeModel",
        "BeforeToolSelection",
        "AfterModel",
        "BeforeTool",
        "AfterTool",
        "PreCompress",
        "BeforeModel",
        "BeforeToolSelection",
        "AfterModel",
        "AfterAgent",
        "SessionEnd",
    ];
    if fired.len() == want.len() + 1 {
        // v0.27.4 fires SessionEnd twice in headless runs.
        want.push("SessionEnd");
    }
    assert_eq!(fired, want, "{order}");

    let env = read_json(&sb, "dumps/env.json");
    let w = sb.work.display().to_string();
    assert_eq!(env["GEMINI_PROJECT_DIR"], json!(w));
    assert_eq!(env["CLAUDE_PROJECT_DIR"], json!(w));
}

#[test]
fn after_model_runs_once_per_streamed_chunk() {
    let sb = Sandbox::new();
    let py = sb.write(
        "am.py",
        "import json, sys\nd = json.load(sys.stdin)\nopen(sys.argv[1], 'a').write(json.dumps(d['llm_response'].get('text')) + '\\n')\n",
    );
    let log = sb.work.join("am.log");
    let cmd = format!("python3 \"{}\" \"{}\"", py.display(), log.display());
    settings(&sb, on("AfterModel", None, vec![hook("am", &cmd)]));
    let (fake, out) = run(&sb, &lines(&[text("hello world")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "hello world\n");
    assert_eq!(fake.requests().len(), 1);
    // The fake endpoint streams "hello", " world" and a metadata-only chunk.
    assert_eq!(
        sb.read("am.log").unwrap(),
        "\"hello\"\n\" world\"\nnull\n",
        "{out:?}"
    );
}

#[test]
fn a_crashing_hook_only_warns() {
    let sb = Sandbox::new();
    sb.write("a.txt", "A");
    settings(
        &sb,
        on(
            "BeforeTool",
            Some("read_file"),
            vec![hook("crasher", "echo boom >&2; exit 1")],
        ),
    );
    let (fake, out) = run(
        &sb,
        &lines(&[call("read_file", json!({"file_path": "a.txt"})), text("ok")]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(single_response(&fake), json!({"output": "A"}));
    assert!(
        out.stderr.contains(
            "[WARNING] Hook(s) [crasher] failed for event BeforeTool. Press F12 to see the debug drawer for more details."
        ),
        "{out:?}"
    );
    assert!(
        out.stderr.contains("Hook system message: Warning: boom"),
        "{out:?}"
    );
}

/// True while `pid` is a live (non-zombie) process.
fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[test]
fn a_hook_that_times_out_is_killed_and_named() {
    let sb = Sandbox::new();
    sb.write("a.txt", "A");
    let pid_file = sb.work.join("slow.pid");
    let cmd = format!("echo $$ > \"{}\"; exec sleep 10", pid_file.display());
    let mut slow = hook("slowpoke", &cmd);
    slow["timeout"] = json!(200);
    settings(&sb, on("BeforeTool", None, vec![slow]));
    let started = Instant::now();
    let (fake, out) = run(
        &sb,
        &lines(&[call("read_file", json!({"file_path": "a.txt"})), text("ok")]),
    );
    assert!(started.elapsed() < Duration::from_secs(8), "{out:?}");
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(single_response(&fake), json!({"output": "A"}));
    assert!(
        out.stderr
            .contains("[WARNING] Hook(s) [slowpoke] failed for event BeforeTool."),
        "{out:?}"
    );
    let pid = sb.read("slow.pid").unwrap().trim().to_string();
    let deadline = Instant::now() + Duration::from_secs(3);
    while alive(&pid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(&pid), "hook process {pid} still runs");
}

#[test]
fn parallel_hooks_with_different_decisions_run_together_and_block() {
    let sb = Sandbox::new();
    sb.write("a.txt", "A");
    let w = sb.work.display().to_string();
    let timed = |n: &str, out: &str| {
        format!(
            "cat > /dev/null; date +%s%N > \"{w}/{n}.start\"; sleep 0.5; date +%s%N > \"{w}/{n}.end\"; echo '{out}'"
        )
    };
    settings(
        &sb,
        on(
            "BeforeTool",
            None,
            vec![
                hook("allow", &timed("a", "{}")),
                hook("deny", &timed("b", r#"{"decision":"block","reason":"r"}"#)),
            ],
        ),
    );
    let (fake, out) = run(
        &sb,
        &lines(&[call("read_file", json!({"file_path": "a.txt"})), text("ok")]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(single_response(&fake), json!({"error": "r"}));
    let t = |f: &str| -> u128 { sb.read(f).unwrap().trim().parse().unwrap() };
    let (a0, a1, b0, b1) = (t("a.start"), t("a.end"), t("b.start"), t("b.end"));
    assert!(
        a0 < b1 && b0 < a1,
        "not concurrent: a {a0}..{a1}, b {b0}..{b1}"
    );
}

#[test]
fn sequential_hooks_each_see_the_previous_rewrite() {
    let sb = Sandbox::new();
    let first = sb.write(
        "first.py",
        "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'BeforeTool', 'tool_input': {'content': 'one'}}}))\n",
    );
    let second = sb.write(
        "second.py",
        "import json, sys\nd = json.load(sys.stdin)\nc = d['tool_input']['content']\nopen(sys.argv[1], 'w').write(c)\nprint(json.dumps({'hookSpecificOutput': {'tool_input': {'content': c + '+two'}}}))\n",
    );
    let seen = sb.work.join("seen2.txt");
    let defs = json!({"BeforeTool": [{"matcher": "write_file", "sequential": true, "hooks": [
        hook("first", &format!("python3 \"{}\"", first.display())),
        hook("second", &format!("python3 \"{}\" \"{}\"", second.display(), seen.display())),
    ]}]});
    settings(&sb, defs);
    let (fake, out) = run(
        &sb,
        &lines(&[
            call(
                "write_file",
                json!({"file_path": "out.txt", "content": "orig"}),
            ),
            text("ok"),
        ]),
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(sb.read("seen2.txt").as_deref(), Some("one"));
    assert_eq!(sb.read("out.txt").as_deref(), Some("one+two"));
    let response = single_response(&fake);
    let output = response["output"].as_str().unwrap();
    assert!(
        output.ends_with(
            "\n\n[System] Tool input parameters (content) were modified by a hook before execution."
        ),
        "{output}"
    );
}

/// A BeforeModel hook's `llm_request.toolConfig` (the seeds' LLMRequest
/// field) becomes the request's `toolConfig.functionCallingConfig`, and the
/// other fields of the request stay.
#[test]
fn a_before_model_hook_sets_the_tool_config() {
    let sb = Sandbox::new();
    let py = sb.write(
        "tc.py",
        "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': 'BeforeModel', 'llm_request': {'toolConfig': {'mode': 'ANY', 'allowedFunctionNames': ['read_file']}}}}))\n",
    );
    settings(
        &sb,
        on(
            "BeforeModel",
            None,
            vec![hook("tc", &format!("python3 \"{}\"", py.display()))],
        ),
    );
    let (fake, out) = run(&sb, &lines(&[text("fine")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "fine\n");
    let requests = fake.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(
        body["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}}),
        "{body}"
    );
    let last = body["contents"].as_array().unwrap().last().unwrap();
    assert_eq!(last["parts"][0]["text"], json!("go"), "{body}");
    assert!(body["tools"].is_array(), "{body}");
}

#[test]
fn a_hook_reads_its_stdin_and_environment() {
    let sb = Sandbox::new();
    let w = sb.work.display().to_string();
    let cmd = format!(
        "cat > \"{w}/seen.json\"; env | grep -E '^(GEMINI_(PROJECT_DIR|CWD|SESSION_ID)|CLAUDE_PROJECT_DIR)=' | sort > \"{w}/env.txt\""
    );
    settings(&sb, on("BeforeAgent", None, vec![hook("reader", &cmd)]));
    let (fake, out) = run(&sb, &lines(&[text("fine")]));
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "fine\n");
    assert_eq!(fake.requests().len(), 1);
    let seen = read_json(&sb, "seen.json");
    assert_eq!(seen["hook_event_name"], json!("BeforeAgent"));
    assert_eq!(seen["prompt"], json!("go"));
    assert_eq!(seen["cwd"], json!(w));
    let sid = seen["session_id"].as_str().unwrap();
    assert_eq!(
        sb.read("env.txt").unwrap(),
        format!(
            "CLAUDE_PROJECT_DIR={w}\nGEMINI_CWD={w}\nGEMINI_PROJECT_DIR={w}\nGEMINI_SESSION_ID={sid}\n"
        )
    );
}

mod claude;
mod http;
mod list;
mod permission;
mod public;
