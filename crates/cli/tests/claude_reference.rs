//! Claude Code in the loop (issue 38): the sessions that
//! `e2e/claude-reference/record.py` played to Claude Code 2.1.197 are played
//! through gemini-rs (`-m anthropic/...` at the fake server, the same hook in
//! `.claude/settings.json`, `hooksConfig.claudeCompat` on) and compared with
//! the recorded goldens: the events that fire and their order, each hook
//! input's keys (exactly), value types and values (ids, paths and times
//! normalised), what each decision feeds the model next, and the files the
//! session leaves.
//!
//! Deliberate differences, as docs/claude-hooks.md lists them: `tool_response`
//! is compared by type only, the transcript entry types only for `user` and
//! `assistant`; a project's http hooks do not run ([`DELIBERATE`]).

mod hook_server;

use crate::support::{Output, Sandbox};
use gemini_rs_test_support::{FakeServer, Reply};
use hook_server::HookServer;
use serde_json::{Map, Value, json};

const FIXTURES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/claude-reference"
);
const HOOK_PY: &str = include_str!("fixtures/claude-reference/hook.py");
const MODEL: &str = "anthropic/claude-sonnet-4-5";

fn fixture(name: &str) -> Value {
    let path = format!("{FIXTURES}/{name}.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `.claude/settings.json`: every event runs hook.py, in the scenario's mode
/// for the events it names and `log` for the others; the events of `http`
/// run it behind an http hook (at `url`) instead, in the user's settings
/// or the project's as its `scope` says (as record.py writes them).
/// Returns the project's settings and the user's.
/// A scenario's `prompt_hooks` add a `prompt` hook beside the command one.
fn claude_settings(scn: &Value, events: &[Value], url: &str) -> (Value, Value) {
    let (hooks, http) = (&scn["hooks"], &scn["http"]);
    let (mut project, mut user) = (Map::new(), Map::new());
    let user_scope = http["scope"].as_str().unwrap_or("user") == "user";
    for ev in events.iter().filter_map(Value::as_str) {
        if let Some(mode) = http["events"][ev].as_str() {
            let hook = json!({"type": "http", "url": format!("{url}/hook/{mode}"), "timeout": 30});
            let to = if user_scope { &mut user } else { &mut project };
            to.insert(ev.to_string(), json!([{"matcher": "", "hooks": [hook]}]));
            continue;
        }
        let mode = hooks[ev].as_str().unwrap_or("log");
        let cmd = format!("python3 \"$CLAUDE_PROJECT_DIR/.claude/hook.py\" {mode}");
        let mut list = vec![json!({"type": "command", "command": cmd})];
        if let Some(prompt) = scn["prompt_hooks"][ev].as_str() {
            list.push(json!({"type": "prompt", "prompt": prompt, "timeout": 30}));
        }
        project.insert(ev.to_string(), json!([{"matcher": "", "hooks": list}]));
    }
    (json!({ "hooks": project }), json!({ "hooks": user }))
}

/// A scripted Claude Code call as gemini-rs's tool call.
fn our_call(tool: &str, input: &Value) -> (String, Value) {
    let mut args = input.clone();
    let name = match tool {
        "Bash" => "run_shell_command",
        "Read" => "read_file",
        "Write" => "write_file",
        "Edit" => {
            if let Some(all) = args.as_object_mut().and_then(|a| a.remove("replace_all")) {
                args["allow_multiple"] = all;
            }
            // gemini-rs's model fills its `replace`'s required field.
            args["instruction"] = json!("Edit the file.");
            "replace"
        }
        // Claude's Agent tool: the sub-agent's own tool here.
        "Agent" => {
            let agent = input["subagent_type"].as_str().unwrap_or_default();
            args = json!({"query": input["prompt"]});
            return (agent.to_string(), args);
        }
        other => other,
    };
    (name.to_string(), args)
}

/// The SSE events of one scripted turn, as record.py streams them (an
/// `error` turn: that status and body; a turn's `ours` stands for it here).
fn turn_reply(turn: &Value, n: usize) -> Reply {
    if turn.get("ours").is_some() {
        return turn_reply(&turn["ours"], n);
    }
    if let Some(status) = turn["error"]["status"].as_u64() {
        let status = u16::try_from(status).unwrap_or(500);
        return Reply::json(status, &turn["error"]["body"]);
    }
    let mut ev = vec![
        json!({"type": "message_start", "message": {"id": format!("msg_{n}"),
        "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [],
        "stop_reason": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    ];
    let mut i = 0;
    if let Some(text) = turn["text"].as_str() {
        ev.push(json!({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}}));
        ev.push(json!({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": text}}));
        ev.push(json!({"type": "content_block_stop", "index": i}));
        i += 1;
    }
    let calls = turn["calls"].as_array().cloned().unwrap_or_default();
    for (k, c) in calls.iter().enumerate() {
        let (name, args) = our_call(c["tool"].as_str().unwrap_or(""), &c["input"]);
        ev.push(
            json!({"type": "content_block_start", "index": i, "content_block": {"type": "tool_use",
            "id": format!("toolu_{n}_{k}"), "name": name, "input": {}}}),
        );
        ev.push(
            json!({"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta",
            "partial_json": args.to_string()}}),
        );
        ev.push(json!({"type": "content_block_stop", "index": i}));
        i += 1;
    }
    let stop = if calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    };
    ev.push(json!({"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}}));
    ev.push(json!({"type": "message_stop"}));
    Reply::anthropic_stream(ev)
}

/// The scripted turns with the `prompt` hooks' `judge` answers put where
/// the scenario's `order` says they are asked.
fn with_judge(scn: &Value, turns: Vec<Reply>) -> Vec<Reply> {
    let Some(order) = scn["order"].as_array() else {
        return turns;
    };
    let mut judge = scn["judge"].as_array().into_iter().flatten();
    let mut turns = turns.into_iter();
    let mut out = Vec::new();
    for step in order {
        let next = if step == "judge" {
            judge.next().map(|a| turn_reply(&json!({"text": a}), 800))
        } else {
            turns.next()
        };
        out.extend(next);
    }
    out.extend(turns);
    out
}

const NUMERIC: [&str; 1] = ["duration_ms"];
const IDS: [&str; 7] = [
    "session_id",
    "transcript_path",
    "cwd",
    "tool_use_id",
    "prompt_id",
    "agent_id",
    "agent_transcript_path",
];

/// record.py's normalisation: ids and paths replaced, times typed.
fn normalise(v: &Value, cwd: &str, home: &str, key: Option<&str>) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), normalise(x, cwd, home, Some(k))))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| normalise(x, cwd, home, None)).collect()),
        Value::Number(_) if key.is_some_and(|k| NUMERIC.contains(&k)) => json!("<number>"),
        Value::String(s) if !s.is_empty() && key.is_some_and(|k| IDS.contains(&k)) => {
            json!(format!("<{}>", key.unwrap_or_default()))
        }
        Value::String(s) => json!(s.replace(cwd, "<cwd>").replace(home, "<home>")),
        other => other.clone(),
    }
}

/// The `MARK-...` strings of a request's system prompt and messages.
fn markers(body: &Value) -> Vec<String> {
    let text = json!([body["system"], body["messages"]]).to_string();
    let mut out: Vec<String> = Vec::new();
    for (at, _) in text.match_indices("MARK-") {
        let rest = &text[at + 5..];
        let word: String = rest
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            .collect();
        let mut m = format!("MARK-{word}");
        let tail = &rest[word.len()..];
        if let Some(suffix) = tail.strip_prefix('-') {
            let letters: String = suffix
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            if !letters.is_empty() {
                m = format!("{m}-{letters}");
            }
        }
        if !out.contains(&m) {
            out.push(m);
        }
    }
    out.sort();
    out
}

/// What gemini-rs did in the golden's shape.
fn observed(
    sb: &Sandbox,
    (fake, hooks): (&FakeServer, &HookServer),
    out: &Output,
    golden: &Value,
) -> Value {
    let cwd = sb.work.display().to_string();
    let home = sb.home.display().to_string();
    let log = std::fs::read_to_string(sb.work.join(".claude/hooklog.jsonl")).unwrap_or_default();
    let events: Vec<Value> = log
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|e| {
            json!({"event": e["input"]["hook_event_name"], "mode": e["mode"],
                "input": normalise(&e["input"], &cwd, &home, None),
                "transcript_types": e["transcript_types"]})
        })
        .collect();
    let mut model = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for req in fake.requests() {
        let body = &req.body;
        if body["tools"].as_array().is_none_or(Vec::is_empty) {
            continue;
        }
        let m = markers(body);
        let last = body["messages"]
            .as_array()
            .and_then(|a| a.last())
            .cloned()
            .unwrap_or_default();
        let results: Vec<Value> = last["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| json!({"is_error": b["is_error"].as_bool().unwrap_or(false)}))
            .collect();
        let new: Vec<&String> = m.iter().filter(|x| !seen.contains(x)).collect();
        model.push(json!({"new_markers": new, "tool_results": results}));
        seen.extend(m.iter().cloned());
    }
    let files: Map<String, Value> = golden["files"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(f, _)| (f.clone(), sb.read(f).map_or(Value::Null, Value::from)))
        .collect();
    let mut ours = json!({"exit_code": out.code, "events": events, "model": model, "files": files});
    if golden.get("judge_requests").is_some() {
        ours["judge_arguments"] = judge_arguments(fake, &cwd, &home);
    }
    if golden.get("http_requests").is_some() {
        ours["http_requests"] = hooks
            .requests()
            .into_iter()
            .map(|(path, content_type)| json!({"path": path, "content_type": content_type}))
            .collect();
    }
    ours
}

/// The `$ARGUMENTS` each `prompt` hook sent its model (the requests
/// without tools), normalised.
fn judge_arguments(fake: &FakeServer, cwd: &str, home: &str) -> Value {
    fake.requests()
        .iter()
        .filter(|r| r.body["tools"].as_array().is_none_or(Vec::is_empty))
        .filter_map(|r| {
            let text = r.body["messages"][0]["content"][0]["text"]
                .as_str()
                .or_else(|| r.body["messages"][0]["content"].as_str())?
                .to_string();
            let args: Value = serde_json::from_str(text.get(text.find('{')?..)?).ok()?;
            Some(normalise(&args, cwd, home, None))
        })
        .collect()
}

/// JSON's type name of `v`.
fn type_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every way `ours` differs from `theirs` for one hook input.
fn input_diffs(at: &str, theirs: &Value, ours: &Value, diffs: &mut Vec<String>) {
    let (Some(t), Some(o)) = (theirs.as_object(), ours.as_object()) else {
        diffs.push(format!("{at}: not an object: {ours}"));
        return;
    };
    for k in t.keys().filter(|k| !o.contains_key(*k)) {
        diffs.push(format!("{at}: missing `{k}` ({})", t[k]));
    }
    for k in o.keys().filter(|k| !t.contains_key(*k)) {
        diffs.push(format!("{at}: extra `{k}` ({})", o[k]));
    }
    for (k, tv) in t {
        let Some(ov) = o.get(k) else { continue };
        // `tool_response` is compared by type only (see the module doc).
        let same = if k == "tool_response" {
            type_of(tv) == type_of(ov)
        } else {
            tv == ov
        };
        if !same {
            diffs.push(format!("{at}: `{k}` is {ov}, Claude Code sends {tv}"));
        }
    }
}

/// Every difference between the golden and what gemini-rs did.
fn diffs(golden: &Value, ours: &Value) -> Vec<String> {
    let mut d = Vec::new();
    if golden["exit_code"] != ours["exit_code"] {
        d.push(format!(
            "exit code {} where Claude Code exits {}",
            ours["exit_code"], golden["exit_code"]
        ));
    }
    let names = |v: &Value| -> Vec<String> {
        v["events"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|e| e["event"].as_str().unwrap_or("?").to_string())
            .collect()
    };
    let (theirs, our) = (names(golden), names(ours));
    if theirs != our {
        d.push(format!("events {our:?} where Claude Code fires {theirs:?}"));
    }
    let empty = Vec::new();
    let tev = golden["events"].as_array().unwrap_or(&empty);
    let oev = ours["events"].as_array().unwrap_or(&empty);
    for (i, (t, o)) in tev.iter().zip(oev).enumerate() {
        if t["event"] != o["event"] {
            continue;
        }
        let at = format!("#{i} {}", t["event"].as_str().unwrap_or("?"));
        input_diffs(&at, &t["input"], &o["input"], &mut d);
        for kind in ["user", "assistant"] {
            let has = |v: &Value| {
                v["transcript_types"]
                    .as_array()
                    .is_some_and(|a| a.contains(&json!(kind)))
            };
            if has(t) != has(o) {
                d.push(format!("{at}: transcript has `{kind}` entries: {}", has(o)));
            }
        }
    }
    if golden["model"] != ours["model"] {
        d.push(format!(
            "the model received {} where Claude Code sends {}",
            ours["model"], golden["model"]
        ));
    }
    if golden.get("http_requests") != ours.get("http_requests") {
        d.push(format!(
            "http hooks were asked {} where Claude Code asks {}",
            ours["http_requests"], golden["http_requests"]
        ));
    }
    if let Some(asked) = golden["judge_requests"].as_array() {
        let theirs: Vec<&Value> = asked.iter().map(|r| &r["arguments"]).collect();
        if json!(theirs) != ours["judge_arguments"] {
            d.push(format!(
                "prompt hooks sent {} where Claude Code sends {theirs:?}",
                ours["judge_arguments"]
            ));
        }
    }
    if golden["files"] != ours["files"] {
        d.push(format!(
            "files {} where Claude Code leaves {}",
            ours["files"], golden["files"]
        ));
    }
    d
}

/// Plays the recorded session `name` through gemini-rs; its differences.
fn play(name: &str, events: &[Value]) -> Vec<String> {
    let golden = fixture(name);
    let (ours, _) = run_scenario(name, events, &golden);
    diffs(&golden, &ours)
        .into_iter()
        .map(|d| format!("{name}: {d}"))
        .collect()
}

/// Runs the scenario `name` through gemini-rs: what it did in the golden's
/// shape, and its stderr.
fn run_scenario(name: &str, events: &[Value], golden: &Value) -> (Value, String) {
    let spec = fixture("scenarios");
    let scn = spec["scenarios"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("no scenario {name}"))
        .clone();
    let sb = Sandbox::new();
    let cwd = sb.work.display().to_string();
    sb.write(".claude/hook.py", HOOK_PY);
    let hooks = HookServer::start(&sb.work);
    // A scenario's own `events` narrow the hooked events to those.
    let events = scn["events"].as_array().map_or(events, Vec::as_slice);
    let (project, user) = claude_settings(&scn, events, &hooks.url);
    let agents = scn["agents"].as_object().cloned().unwrap_or_default();
    for (name, desc) in &agents {
        let desc = desc.as_str().unwrap_or_default();
        sb.write_home(
            &format!(".gemini/agents/{name}.md"),
            &format!("---\nname: {name}\ndescription: {desc}\n---\nYou help.\n"),
        );
    }
    sb.write(".claude/settings.json", &project.to_string());
    if user["hooks"].as_object().is_some_and(|h| !h.is_empty()) {
        let dir = sb.home.join(".claude");
        std::fs::create_dir_all(&dir).expect("~/.claude");
        std::fs::write(dir.join("settings.json"), user.to_string()).expect("user settings");
    }
    for (file, text) in scn["files"].as_object().into_iter().flatten() {
        sb.write(file, text.as_str().unwrap_or_default());
    }
    sb.settings(&json!({"model": {"retry": {"initialDelayMs": 1}},
        "hooksConfig": {"claudeCompat": true},
        "experimental": {"enableAgents": !agents.is_empty()}}));
    let turns: Vec<Reply> = scn["turns"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(n, t)| {
            let t: Value = serde_json::from_str(&t.to_string().replace("<cwd>", &cwd))
                .unwrap_or_else(|_| t.clone());
            turn_reply(&t, n)
        })
        .chain(std::iter::repeat_with(|| turn_reply(&json!({"text": "Nothing more."}), 99)).take(3))
        .collect();
    let fake = FakeServer::with_replies(with_judge(&scn, turns));
    let prompt = scn["prompt"].as_str().unwrap_or("Please go.");
    let mut args = vec!["-m", MODEL, "-p", prompt];
    if golden["mode"] == "bypassPermissions" {
        args.push("--approval-mode=yolo");
    }
    let out = sb.run(
        &args,
        None,
        &[
            ("ANTHROPIC_BASE_URL", &fake.base_url),
            ("ANTHROPIC_API_KEY", "dummy"),
        ],
    );
    assert!(!out.stderr.contains("panicked"), "{name}: {out:?}");
    let ours = observed(&sb, (&fake, &hooks), &out, golden);
    (ours, out.stderr)
}

/// The sessions where gemini-rs differs from Claude Code on purpose (see
/// docs/claude-hooks.md), each checked by a test of its own.
const DELIBERATE: [&str; 1] = [
    // Claude Code 2.1.197 runs the http hooks of a project's
    // `.claude/settings.json`; gemini-rs only the user's.
    "http_project",
];

#[test]
fn claude_hooks_do_what_they_do_under_claude_code() {
    let spec = fixture("scenarios");
    let events = spec["events"].as_array().cloned().unwrap_or_default();
    let names: Vec<String> = spec["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["name"].as_str().map(String::from))
        .filter(|n| !DELIBERATE.contains(&n.as_str()))
        .collect();
    let only = std::env::var("CLAUDE_REFERENCE_ONLY").unwrap_or_default();
    let chosen = |n: &str| only.is_empty() || only.split(',').any(|o| o == n);
    let mut all = Vec::new();
    for name in names.iter().filter(|n| chosen(n)) {
        all.extend(play(name, &events));
    }
    assert!(
        all.is_empty(),
        "{} differences from Claude Code:\n{}",
        all.len(),
        all.join("\n")
    );
}

/// The project's http hooks do not run (a deliberate difference): where
/// Claude Code asked them (the golden), gemini-rs warns and runs the
/// command hooks alone, so the shell call they would deny runs.
#[test]
fn a_projects_http_hooks_are_skipped_with_a_warning() {
    let spec = fixture("scenarios");
    let events = spec["events"].as_array().cloned().unwrap_or_default();
    let golden = fixture("http_project");
    assert!(
        golden["http_requests"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "Claude Code asked them"
    );
    let (ours, stderr) = run_scenario("http_project", &events, &golden);
    assert_eq!(ours["http_requests"], json!([]), "{stderr}");
    assert!(
        stderr.contains("An http hook runs only from the user's ~/.claude/settings.json; skipped"),
        "{stderr}"
    );
    assert_eq!(ours["files"]["ran.txt"], "ran\n");
    let fired: Vec<&Value> = ours["events"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| &e["event"])
        .collect();
    assert!(
        !fired.contains(&&json!("UserPromptSubmit")),
        "its http hooks stand for the command hooks: {fired:?}"
    );
}
