//! OpenTelemetry through the binary: OTLP/HTTP to a real receiver (the
//! official `opentelemetry-proto` package from PyPI decoding what arrives,
//! `tests/telemetry/otlp_collector.py`), the span tree under the caller's
//! `TRACEPARENT` and the `TRACEPARENT` of child processes, the `outfile`
//! JSON lines, an unreachable endpoint, and the settings' bad values.

use crate::e2e::{call, lines, text};
use crate::support::{Sandbox, peer_missing};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN: &str = "00f067aa0ba902b7";

/// The Python with `opentelemetry-proto` installed.
fn python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = std::env::var_os("GEMINI_RS_OTEL_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/otel-py/bin/python")])
        .find(|p| {
            Command::new(p)
                .args(["-c", "import opentelemetry.proto.collector.trace.v1"])
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        peer_missing(
            "the Python opentelemetry-proto package",
            "python3 -m venv target/otel-py && target/otel-py/bin/pip install opentelemetry-proto, \
             or set GEMINI_RS_OTEL_PYTHON",
        );
    }
    found
}

/// The receiver, killed when dropped.
struct Collector {
    child: Child,
    port: u16,
    out: PathBuf,
}

impl Drop for Collector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Collector {
    fn start(sb: &Sandbox) -> Option<Collector> {
        let python = python()?;
        let script = sb.write(
            "otlp_collector.py",
            include_str!("telemetry/otlp_collector.py"),
        );
        let out = sb.home.join("received.jsonl");
        let mut child = Command::new(python)
            .arg(&script)
            .arg(&out)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("port: {line:?}"));
        Some(Collector { child, port, out })
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The bodies received for `signal` so far.
    fn bodies(&self, signal: &str) -> Vec<Value> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|l| l["signal"] == signal)
            .map(|l| l["body"].clone())
            .collect()
    }
}

/// Every span received: (name, span id, parent id, trace id, attributes).
fn spans(bodies: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for body in bodies {
        for rs in body["resourceSpans"].as_array().unwrap() {
            for ss in rs["scopeSpans"].as_array().unwrap() {
                out.extend(ss["spans"].as_array().unwrap().iter().cloned());
            }
        }
    }
    out
}

fn attr(item: &Value, key: &str) -> Value {
    item["attributes"]
        .as_array()
        .and_then(|a| a.iter().find(|kv| kv["key"] == key))
        .map(|kv| {
            let v = &kv["value"];
            v.get("stringValue")
                .or(v.get("intValue"))
                .or(v.get("boolValue"))
                .or(v.get("doubleValue"))
                .cloned()
                .unwrap_or(Value::Null)
        })
        .unwrap_or(Value::Null)
}

fn named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|s| s["name"] == name).collect()
}

fn settings(sb: &Sandbox) {
    // A script: settings expand `$VAR` in their strings at load time.
    sb.write(
        "dump.sh",
        "printf '%s' \"$TRACEPARENT\" > \"$1.traceparent\"\n",
    );
    let dump = |what: &str| format!("bash dump.sh {what}");
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "hooks": {
            "BeforeTool": [{"hooks": [
                {"type": "command", "name": "dump", "command": dump("hook")}
            ]}],
            "BeforeModel": [{"hooks": [
                {"type": "command", "name": "model-dump", "command": dump("model-hook")}
            ]}],
            "SessionStart": [{"hooks": [
                {"type": "command", "name": "start-dump", "command": dump("start-hook")}
            ]}]
        }
    }));
}

#[test]
fn otlp_span_tree_hangs_under_traceparent_and_children_get_their_spans() {
    let sb = Sandbox::new();
    settings(&sb);
    let Some(collector) = Collector::start(&sb) else {
        return;
    };
    let fake = FakeServer::replaying(&lines(&[
        call(
            "run_shell_command",
            json!({"command": "printf '%s' \"$TRACEPARENT\" > shell.traceparent"}),
        ),
        text("done"),
    ]));
    let traceparent = format!("00-{TRACE_ID}-{CALLER_SPAN}-01");
    let out = sb.run(
        &["--approval-mode=yolo", "-p", "go"],
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_TELEMETRY_ENABLED", "true"),
            ("GEMINI_TELEMETRY_OTLP_ENDPOINT", &collector.endpoint()),
            ("GEMINI_TELEMETRY_OTLP_PROTOCOL", "http"),
            ("TRACEPARENT", &traceparent),
            ("TRACESTATE", "vendor=1"),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // The export finished before the process exited (the flush at the end).
    let spans = spans(&collector.bodies("traces"));
    assert!(spans.iter().all(|s| s["traceId"] == TRACE_ID), "{spans:#?}");
    let id = |s: &Value| s["spanId"].as_str().unwrap().to_string();
    let parent = |s: &Value| s["parentSpanId"].as_str().unwrap_or("").to_string();
    let session = named(&spans, "session");
    assert_eq!(session.len(), 1, "{spans:#?}");
    assert_eq!(parent(session[0]), CALLER_SPAN);
    assert_eq!(attr(session[0], "outcome"), "answered");
    let turn = named(&spans, "turn");
    assert_eq!(turn.len(), 1);
    assert_eq!(parent(turn[0]), id(session[0]));
    assert_eq!(attr(turn[0], "outcome"), "answered");
    let llm = named(&spans, "llm_call");
    assert_eq!(llm.len(), 2, "{spans:#?}");
    for call in &llm {
        assert_eq!(parent(call), id(turn[0]));
        assert_eq!(attr(call, "gen_ai.request.model"), "gemini-2.5-flash");
        assert_eq!(attr(call, "gen_ai.usage.input_tokens"), "100");
    }
    let tool = named(&spans, "tool_call");
    assert_eq!(tool.len(), 1);
    assert_eq!(parent(tool[0]), id(turn[0]));
    assert_eq!(attr(tool[0], "gen_ai.tool.name"), "run_shell_command");
    assert_eq!(attr(tool[0], "success"), true);
    let hooks = named(&spans, "hook_call");
    let hook_of = |event: &str| -> Vec<&Value> {
        hooks
            .iter()
            .copied()
            .filter(|h| attr(h, "hook_event_name") == event)
            .collect()
    };
    let hook = hook_of("BeforeTool");
    assert_eq!(hook.len(), 1, "{spans:#?}");
    assert_eq!(attr(hook[0], "exit_code"), "0");
    // Each hook's span hangs under the step that fired it.
    assert_eq!(parent(hook[0]), id(tool[0]), "BeforeTool under its call");
    let model_hooks = hook_of("BeforeModel");
    assert_eq!(model_hooks.len(), 2, "{spans:#?}");
    let llm_ids: Vec<String> = llm.iter().map(|s| id(s)).collect();
    for h in &model_hooks {
        assert!(
            llm_ids.contains(&parent(h)),
            "BeforeModel under an llm_call: {h:#}"
        );
    }
    assert_ne!(parent(model_hooks[0]), parent(model_hooks[1]));
    let start = hook_of("SessionStart");
    assert_eq!(start.len(), 1, "{spans:#?}");
    assert_eq!(parent(start[0]), id(session[0]), "no turn yet: the session");
    // Child processes carry the trace id and the span id of their own span.
    let child_traceparent = |what: &str| sb.read(&format!("{what}.traceparent")).unwrap();
    assert_eq!(
        child_traceparent("shell"),
        format!("00-{TRACE_ID}-{}-01", id(tool[0]))
    );
    assert_eq!(
        child_traceparent("hook"),
        format!("00-{TRACE_ID}-{}-01", id(hook[0]))
    );
    let logs = Value::from(collector.bodies("logs")).to_string();
    for event in [
        "gemini_cli.user_prompt",
        "gemini_cli.api_request",
        "gemini_cli.api_response",
        "gemini_cli.tool_call",
        "gemini_cli.hook_call",
    ] {
        assert!(logs.contains(event), "{event} missing: {logs}");
    }
    let metrics = Value::from(collector.bodies("metrics")).to_string();
    for name in [
        "gemini_cli.token.usage",
        "gemini_cli.tool.call.count",
        "gemini_cli.api.request.latency",
    ] {
        assert!(metrics.contains(name), "{name} missing: {metrics}");
    }
}

#[test]
fn outfile_gets_spans_logs_and_metrics_as_json_lines() {
    let sb = Sandbox::new();
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": "true"})),
        text("done"),
    ]));
    let outfile = sb.home.join("telemetry.log");
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "telemetry": {"enabled": true, "outfile": outfile, "logPrompts": false}
    }));
    let out = sb.run(
        &["--approval-mode=yolo", "-p", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&outfile).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let spans: Vec<&Value> = records
        .iter()
        .filter(|r| r.get("_spanContext").is_some())
        .collect();
    let names: Vec<&str> = spans.iter().map(|s| s["name"].as_str().unwrap()).collect();
    for name in ["session", "turn", "llm_call", "tool_call"] {
        assert!(names.contains(&name), "{name} missing: {names:?}");
    }
    let trace = spans[0]["_spanContext"]["traceId"].as_str().unwrap();
    assert_eq!(trace.len(), 32);
    assert!(spans.iter().all(|s| s["_spanContext"]["traceId"] == trace));
    assert!(
        spans
            .iter()
            .all(|s| s["startTime"].as_array().is_some_and(|t| t.len() == 2))
    );
    let logs: Vec<&Value> = records
        .iter()
        .filter(|r| r.get("hrTime").is_some())
        .collect();
    let events: Vec<&str> = logs
        .iter()
        .map(|l| l["attributes"]["event.name"].as_str().unwrap())
        .collect();
    assert!(events.contains(&"gemini_cli.user_prompt"), "{events:?}");
    assert!(events.contains(&"gemini_cli.tool_call"), "{events:?}");
    let prompt = logs
        .iter()
        .find(|l| l["attributes"]["event.name"] == "gemini_cli.user_prompt")
        .unwrap();
    assert_eq!(prompt["attributes"]["prompt_length"], 2);
    // logPrompts: false keeps the prompt's text out.
    assert!(prompt["attributes"].get("prompt").is_none(), "{prompt}");
    assert_eq!(prompt["_body"], "User prompt. Length: 2.");
    // Metrics: the reader's export at exit, as Gemini CLI's file metric
    // exporter writes it (cumulative `ResourceMetrics`).
    let exports: Vec<&Value> = records
        .iter()
        .filter(|r| r.get("scopeMetrics").is_some())
        .collect();
    assert_eq!(
        records.len(),
        spans.len() + logs.len() + exports.len(),
        "{text}"
    );
    let last = exports
        .last()
        .unwrap_or_else(|| panic!("no metrics: {text}"));
    assert!(last["resource"]["_rawAttributes"].is_array(), "{last}");
    let metrics = last["scopeMetrics"][0]["metrics"].as_array().unwrap();
    let metric = |name: &str| {
        metrics
            .iter()
            .find(|m| m["descriptor"]["name"] == name)
            .unwrap_or_else(|| panic!("{name} missing: {last}"))
    };
    let tokens = metric("gemini_cli.token.usage");
    assert_eq!(tokens["descriptor"]["type"], "COUNTER");
    assert_eq!(tokens["aggregationTemporality"], 1);
    assert_eq!(tokens["dataPointType"], 3);
    let input: u64 = tokens["dataPoints"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["attributes"]["type"] == "input")
        .map(|p| p["value"].as_u64().unwrap())
        .sum();
    assert_eq!(input, 200, "two model calls of 100 input tokens: {tokens}");
    let calls = metric("gemini_cli.tool.call.count");
    let point = &calls["dataPoints"][0];
    assert_eq!(point["attributes"]["function_name"], "run_shell_command");
    assert_eq!(point["attributes"]["success"], true);
    assert_eq!(point["value"], 1);
    assert!(point["startTime"].as_array().is_some_and(|t| t.len() == 2));
    let latency = metric("gemini_cli.tool.call.latency");
    assert_eq!(latency["descriptor"]["unit"], "ms");
    assert_eq!(latency["dataPointType"], 0);
    assert_eq!(latency["dataPoints"][0]["value"]["count"], 1);
}

/// Wall time of one replayed run with `env`.
fn timed_run(sb: &Sandbox, env: &[(&str, &str)]) -> Duration {
    let fake = FakeServer::replaying(&lines(&[text("done")]));
    let mut env = env.to_vec();
    env.push(("GOOGLE_GEMINI_BASE_URL", &fake.base_url));
    let start = Instant::now();
    let out = sb.run(&["-p", "go"], None, &env);
    let took = start.elapsed();
    assert_eq!(out.code, 0, "{}", out.stderr);
    took
}

#[test]
fn an_unreachable_endpoint_does_not_hold_the_exit() {
    let sb = Sandbox::new();
    settings(&sb);
    let off = timed_run(&sb, &[]);
    // A port nobody listens on, and an address that never answers.
    for endpoint in ["http://127.0.0.1:9", "http://10.255.255.1:4318"] {
        let on = timed_run(
            &sb,
            &[
                ("GEMINI_TELEMETRY_ENABLED", "true"),
                ("GEMINI_TELEMETRY_OTLP_ENDPOINT", endpoint),
            ],
        );
        assert!(
            on < off + Duration::from_millis(1500),
            "{endpoint}: {on:?} with telemetry, {off:?} without"
        );
    }
}

#[test]
fn bad_values_stop_and_unsupported_ones_warn() {
    let sb = Sandbox::new();
    settings(&sb);
    let out = sb.run(&["-p", "go"], None, &[("GEMINI_TELEMETRY_TARGET", "aws")]);
    assert_eq!(out.code, 52, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("Invalid telemetry target: aws. Valid values are: local, gcp"),
        "{}",
        out.stderr
    );
    let fake = FakeServer::replaying(&lines(&[text("done"), text("done")]));
    let outfile = sb.home.join("t.log");
    let out = sb.run(
        &["-p", "go"],
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_TELEMETRY_ENABLED", "1"),
            ("GEMINI_TELEMETRY_TARGET", "gcp"),
            ("GEMINI_TELEMETRY_OUTFILE", outfile.to_str().unwrap()),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("Telemetry target \"gcp\" is not supported"),
        "{}",
        out.stderr
    );
    assert!(
        std::fs::read_to_string(&outfile)
            .unwrap()
            .contains("\"session\"")
    );
    let out = sb.run(
        &["-p", "go"],
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_TELEMETRY_ENABLED", "true"),
            ("GEMINI_TELEMETRY_OTLP_PROTOCOL", "grpc"),
            ("GEMINI_TELEMETRY_OTLP_ENDPOINT", "http://127.0.0.1:9"),
        ],
    );
    assert!(
        out.stderr
            .contains("\"grpc\" is not supported by gemini-rs")
            && out
                .stderr
                .contains("sending OTLP over HTTP to http://127.0.0.1:9"),
        "{}",
        out.stderr
    );
}

/// A stdio MCP server (plain JSON-RPC lines) that writes the
/// `TRACEPARENT` it was started with to the file named by argv[1].
const MCP_SERVER: &str = r#"
import json, os, sys
with open(sys.argv[1], "w") as f:
    f.write(os.environ.get("TRACEPARENT", ""))
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("id") is None:
        continue
    if msg.get("method") == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "t", "version": "1"}}
    elif msg.get("method") == "tools/list":
        result = {"tools": [{"name": "ping", "description": "pong", "inputSchema": {"type": "object"}}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
"#;

#[test]
fn an_mcp_stdio_server_gets_the_session_span() {
    let sb = Sandbox::new();
    let script = sb.write_home("mcp-server.py", MCP_SERVER);
    let seen = sb.home.join("mcp.traceparent");
    let outfile = sb.home.join("telemetry.log");
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"t": {"command": "python3", "args": [script, seen], "trust": true}},
        "telemetry": {"enabled": true, "outfile": outfile}
    }));
    let fake = FakeServer::replaying(&lines(&[text("done")]));
    let traceparent = format!("00-{TRACE_ID}-{CALLER_SPAN}-01");
    let out = sb.run(
        &["-p", "hi"],
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("TRACEPARENT", &traceparent),
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let session: Value = std::fs::read_to_string(&outfile)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["name"] == "session")
        .unwrap();
    assert_eq!(session["parentSpanContext"]["spanId"], CALLER_SPAN);
    let span = session["_spanContext"]["spanId"].as_str().unwrap();
    assert_eq!(
        std::fs::read_to_string(&seen).unwrap(),
        format!("00-{TRACE_ID}-{span}-01")
    );
}

#[test]
fn a_sub_agent_runs_in_a_span_under_its_call() {
    let sb = Sandbox::new();
    let outfile = sb.home.join("telemetry.log");
    sb.settings(&json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "experimental": {"enableAgents": true},
        "telemetry": {"enabled": true, "outfile": outfile}
    }));
    sb.write_home(
        ".gemini/agents/reader.md",
        "---\nname: reader\ndescription: Reads files.\ntools: [read_file]\nmax_turns: 2\n---\nYou read files.\n",
    );
    sb.write("a.txt", "hello\n");
    let fake = FakeServer::replaying(&lines(&[
        call("reader", json!({"query": "read a"})),
        call("read_file", json!({"file_path": "a.txt"})),
        call("glob", json!({"pattern": "*"})),
        call("glob", json!({"pattern": "*"})),
        text("done"),
    ]));
    let out = sb.run(
        &["--approval-mode=yolo", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let spans: Vec<Value> = std::fs::read_to_string(&outfile)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r.get("_spanContext").is_some())
        .collect();
    let id = |s: &Value| s["_spanContext"]["spanId"].clone();
    let parent = |s: &Value| s["parentSpanContext"]["spanId"].clone();
    let find = |name: &str, tool: Option<&str>| {
        spans
            .iter()
            .find(|s| {
                s["name"] == name && tool.is_none_or(|t| s["attributes"]["gen_ai.tool.name"] == t)
            })
            .unwrap_or_else(|| panic!("{name} {tool:?} missing: {spans:#?}"))
    };
    let delegation = find("tool_call", Some("reader"));
    let agent = find("sub_agent", None);
    assert_eq!(parent(agent), id(delegation));
    assert_eq!(agent["attributes"]["gen_ai.agent.name"], "reader");
    assert_eq!(agent["attributes"]["status"], "success");
    assert_eq!(parent(find("tool_call", Some("read_file"))), id(agent));
    let nested_llm = spans
        .iter()
        .filter(|s| s["name"] == "llm_call" && parent(s) == id(agent))
        .count();
    assert!(nested_llm >= 2, "{spans:#?}");
}
