//! MCP client tests against a real stdio server (a hand-written Python
//! JSON-RPC server like A.15's `mcp.py`).

use super::*;
use crate::tools::{
    ToolContext, ToolErrorKind, ToolInvocation, ToolKind, ToolRegistry, ToolResult,
};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

pub(super) const MCP_PY: &str = r#"
import json, sys, os
LOG = os.environ.get("MCP_LOG")
def log(m):
    if LOG:
        with open(LOG, "a") as f: f.write(json.dumps(m) + "\n")
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
def recv():
    line = sys.stdin.readline()
    if not line: sys.exit(0)
    m = json.loads(line); log(m); return m
extra = []
TOOLS = [
 {"name": "do.it!", "description": "does it", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}},
 {"name": "fail", "inputSchema": {"type": "object"}},
 {"name": "read_file", "description": "shadow", "inputSchema": {"type": "object", "properties": {"p": {"type": "string"}}}},
 {"name": "img", "inputSchema": {"type": "object"}},
 {"name": "nullable", "inputSchema": {"type": "object", "properties": {"n": {"type": ["string", "null"]}}, "additionalProperties": False}},
 {"name": "s2020", "inputSchema": {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}},
 {"name": "slow", "inputSchema": {"type": "object"}},
 {"name": "roots", "inputSchema": {"type": "object"}},
 {"name": "grow", "inputSchema": {"type": "object"}},
]
def text(t): return {"content": [{"type": "text", "text": t}]}
def call(name, args):
    if name == "fail": return {"content": [{"type": "text", "text": "boom"}], "isError": True}
    if name == "img": return {"content": [{"type": "text", "text": "pic:"}, {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}, {"type": "resource_link", "uri": "file:///x", "name": "x"}]}
    if name == "slow":
        recv()
        return None
    if name == "roots":
        send({"jsonrpc": "2.0", "id": "r1", "method": "roots/list"})
        while True:
            m = recv()
            if m.get("id") == "r1": return text(json.dumps(m.get("result")))
    if name == "grow":
        extra.append({"name": "grown", "inputSchema": {"type": "object"}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text("grew")
    return text("hello " + json.dumps(args))
print("server starting", file=sys.stderr, flush=True)
while True:
    m = recv()
    mid = m.get("id"); meth = m.get("method")
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {"listChanged": True}}, "serverInfo": {"name": "t", "version": "1"}}})
    elif meth == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": TOOLS + extra}})
    elif meth == "tools/call":
        r = call(m["params"]["name"], m["params"].get("arguments", {}))
        if r is not None: send({"jsonrpc": "2.0", "id": mid, "result": r})
    elif meth == "ping":
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
    elif mid is not None and meth is not None:
        send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "nope"}})
"#;

/// A stand-in for the built-in `read_file`, so the server's clashes.
struct Builtin;

impl Tool for Builtin {
    fn name(&self) -> &str {
        "read_file"
    }
    fn display_name(&self) -> &str {
        "ReadFile"
    }
    fn description(&self) -> &str {
        ""
    }
    fn kind(&self) -> ToolKind {
        ToolKind::Read
    }
    fn parameter_schema(&self) -> &Value {
        static S: std::sync::OnceLock<Value> = std::sync::OnceLock::new();
        S.get_or_init(|| json!({"type": "object"}))
    }
    fn build(
        &self,
        _: &Map<String, Value>,
        _: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, crate::tools::ToolError> {
        Err(crate::tools::ToolError::invalid_params("unused"))
    }
}

/// A result's text without the `<untrusted_context>` wrapping every MCP
/// text gets (its own tests are in gemini-rs-mcp's `convert`).
pub(super) fn plain(text: String) -> String {
    text.replace("<untrusted_context>\n", "")
        .replace("\n</untrusted_context>", "")
}

pub(super) fn ctx(dir: &Path) -> ToolContext {
    let ws = crate::workspace::Workspace::new(dir.to_path_buf(), Vec::new(), dir.join(".tmp"));
    ToolContext::new(
        Arc::new(ws),
        Arc::new(Settings::default()),
        "gemini-3-flash-preview",
    )
}

fn server_file(dir: &Path) -> String {
    let p = dir.join("mcp.py");
    std::fs::write(&p, MCP_PY).unwrap();
    p.display().to_string()
}

async fn start(settings: Value, dir: &Path) -> McpManager {
    McpManager::start(
        &Settings::from_value(settings),
        &[dir.to_path_buf()],
        &[],
        true,
    )
    .await
}

async fn run(
    reg: &ToolRegistry,
    mgr: &McpManager,
    name: &str,
    a: Value,
    c: &ToolContext,
) -> ToolResult {
    let lookup = if reg.get(name).is_some() {
        Some(name.to_string())
    } else {
        mgr.qualified_lookup_name(name)
    };
    let Some(lookup) = lookup else {
        return ToolResult::from_error(crate::tools::ToolError::new(
            ToolErrorKind::ToolNotRegistered,
            reg.not_found_message(name),
        ));
    };
    match reg.build(&lookup, &a, c) {
        Ok(call) => call.invocation.execute(c, CancellationToken::new()).await,
        Err(e) => ToolResult::from_error(e),
    }
}

fn err(r: &ToolResult) -> String {
    r.error
        .as_ref()
        .map(|e| e.message.clone())
        .unwrap_or_else(|| format!("no error: {r:?}"))
}

/// A15's calls: answers, tool errors, images, validation, and every name
/// form of a tool.
async fn calls_answer_as_gemini_cli(reg: &ToolRegistry, mgr: &McpManager, c: &ToolContext) {
    let r = run(reg, mgr, "do.it_", json!({"x": "1"}), c).await;
    assert_eq!(plain(r.llm_text()), "hello {\"x\": \"1\"}");
    let r = run(reg, mgr, "fail", json!({}), c).await;
    assert_eq!(
        r.error.as_ref().map(|e| e.kind),
        Some(ToolErrorKind::McpToolError)
    );
    assert_eq!(
        err(&r),
        "MCP tool 'fail' reported tool error for function call: {\"name\":\"fail\",\"args\":{}} with response: [{\"functionResponse\":{\"name\":\"fail\",\"response\":{\"content\":[{\"type\":\"text\",\"text\":\"boom\"}],\"isError\":true}}}]"
    );
    let r = run(reg, mgr, "my-srv__read_file", json!({"p": "q"}), c).await;
    assert_eq!(plain(r.llm_text()), "hello {\"p\": \"q\"}");
    let r = run(reg, mgr, "img", json!({}), c).await;
    assert_eq!(
        plain(r.llm_text()),
        "pic:\n[Tool 'img' provided the following image data with mime-type: image/png]\nResource Link: x at file:///x"
    );
    let inline: Vec<_> = r
        .llm_content
        .iter()
        .filter_map(|p| p.inline_data.as_ref())
        .collect();
    assert_eq!(inline.len(), 1);
    assert_eq!(
        (inline[0].mime_type.as_str(), inline[0].data.as_str()),
        ("image/png", "iVBORw0KGgo=")
    );
    let r = run(reg, mgr, "nullable", json!({"n": null}), c).await;
    assert_eq!(plain(r.llm_text()), "hello {\"n\": null}");
    let r = run(reg, mgr, "do.it_", json!({}), c).await;
    assert_eq!(err(&r), "params must have required property 'x'");
    let r = run(reg, mgr, "my-srv__do.it_", json!({"x": "2"}), c).await;
    assert_eq!(plain(r.llm_text()), "hello {\"x\": \"2\"}");
    // Today's names find the tool too (`mcp_<server>_<tool>`, Claude's
    // `mcp__<server>__<tool>`).
    let r = run(reg, mgr, "mcp_my-srv_do.it_", json!({"x": "3"}), c).await;
    assert_eq!(plain(r.llm_text()), "hello {\"x\": \"3\"}");
    let r = run(reg, mgr, "mcp__my-srv__do.it!", json!({"x": "4"}), c).await;
    assert_eq!(plain(r.llm_text()), "hello {\"x\": \"4\"}");
    let r = run(reg, mgr, "s2020", json!({}), c).await;
    assert_eq!(
        err(&r),
        "no schema with key or ref \"https://json-schema.org/draft/2020-12/schema\""
    );
}

/// Policy names, rules and lookups of the stdio server's tools.
fn policy_forms_of_the_tools(mgr: &McpManager) {
    let do_it = mgr.qualified_lookup("my-srv__do.it_").unwrap();
    assert_eq!(do_it.name(), "do.it_");
    assert_eq!(
        mgr.policy_name_of("do.it_").as_deref(),
        Some("my-srv__do.it!")
    );
    assert!(mgr.qualified_lookup("do.it_").is_none());
    assert!(
        mgr.qualified_aliases()
            .contains(&("my-srv__do.it_".to_string(), "do.it_".to_string()))
    );
    assert!(
        !mgr.qualified_aliases()
            .iter()
            .any(|(q, _)| q == "my-srv__read_file")
    );
    assert!(mgr.policy_names().contains(&(
        "my-srv__read_file".to_string(),
        "my-srv__read_file".to_string()
    )));
    let rules = mgr.policy_rules();
    assert_eq!(rules.len(), 1);
    assert_eq!(
        (rules[0].tool_name.as_str(), rules[0].priority),
        ("my-srv__*", 2.2)
    );
}

#[tokio::test]
async fn a15_stdio_server() {
    let dir = tempfile::tempdir().unwrap();
    let py = server_file(dir.path());
    let mgr = start(
        json!({"mcpServers": {"my-srv": {"command": "python3", "args": [py], "trust": true}}}),
        dir.path(),
    )
    .await;
    assert!(mgr.failures().is_empty(), "{:?}", mgr.failures());
    let mut reg = ToolRegistry::new();
    reg.register(Arc::new(Builtin));
    let tools = mgr.tools(&|n| reg.is_registered(n));
    let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
    assert_eq!(
        names,
        [
            "do.it_",
            "fail",
            "my-srv__read_file",
            "img",
            "nullable",
            "s2020",
            "slow",
            "roots",
            "grow"
        ]
    );
    let first = &tools[0];
    assert_eq!(first.display_name(), "do.it! (my-srv MCP Server)");
    assert_eq!(first.kind(), ToolKind::Other);
    let decl = serde_json::to_value(first.declaration()).unwrap();
    assert_eq!(
        decl["parametersJsonSchema"],
        json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]})
    );
    // The schema is passed through untouched (§6.4).
    assert_eq!(
        tools[5].parameter_schema()["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        tools[4].parameter_schema()["properties"]["n"]["type"],
        json!(["string", "null"])
    );
    for t in tools {
        reg.register(t);
    }
    let c = ctx(dir.path());
    calls_answer_as_gemini_cli(&reg, &mgr, &c).await;
    policy_forms_of_the_tools(&mgr);
    // Trusted: no confirmation.
    let call = reg.build("fail", &json!({}), &c).unwrap();
    assert!(call.invocation.confirmation(&c).await.is_none());

    // roots = the workspace dirs.
    let r = run(&reg, &mgr, "roots", json!({}), &c).await;
    let roots: Value = serde_json::from_str(&plain(r.llm_text())).unwrap();
    let base = dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .to_string();
    assert_eq!(roots["roots"][0]["name"], json!(base));
    assert_eq!(roots["roots"][0]["uri"], json!(super::file_uri(dir.path())));

    // tools/list_changed refreshes the list.
    let mut changes = mgr.changes();
    let r = run(&reg, &mgr, "grow", json!({}), &c).await;
    assert_eq!(plain(r.llm_text()), "grew");
    tokio::time::timeout(Duration::from_secs(10), changes.changed())
        .await
        .unwrap()
        .unwrap();
    let names: Vec<String> = mgr
        .tools(&|n| n == "read_file")
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert!(names.contains(&"grown".to_string()), "{names:?}");
    mgr.shutdown().await;
}

#[tokio::test]
async fn cancel_sends_notification_and_timeout_fails_call() {
    let dir = tempfile::tempdir().unwrap();
    let py = server_file(dir.path());
    let log = dir.path().join("log.jsonl");
    let mgr = start(
        json!({"mcpServers": {"s": {"command": "python3", "args": [py], "env": {"MCP_LOG": log.display().to_string()}, "timeout": 3000}}}),
        dir.path(),
    )
    .await;
    assert!(mgr.failures().is_empty(), "{:?}", mgr.failures());
    let tools = mgr.tools(&|_| false);
    let slow = tools.iter().find(|t| t.name() == "slow").unwrap();
    let c = ctx(dir.path());
    let inv = slow.build(&Map::new(), &c).unwrap();
    // Untrusted: confirmation details of §6.6.
    assert_eq!(
        inv.confirmation(&c).await,
        Some(crate::tools::ConfirmationDetails::Mcp {
            title: "Confirm MCP Tool Execution".into(),
            server_name: "s".into(),
            tool_name: "slow".into(),
            tool_display_name: "slow (s MCP Server)".into(),
        })
    );
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    let r = inv.execute(&c, cancel).await;
    assert_eq!(err(&r), tool::ABORTED_MESSAGE);
    let mut seen = false;
    for _ in 0..50 {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains("notifications/cancelled") {
            let call_id = text
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|m| m["params"]["name"] == "slow")
                .unwrap()["id"]
                .clone();
            let cancelled = text
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .find(|m| m["method"] == "notifications/cancelled")
                .unwrap();
            assert_eq!(cancelled["params"]["requestId"], call_id);
            seen = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(seen, "no notifications/cancelled in the server log");
    // The client asks `server/discover` first (MCP 2026-07-28); this 2025
    // server does not know it, so the client falls back to `initialize`.
    let text = std::fs::read_to_string(&log).unwrap();
    let messages: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(messages[0]["method"], "server/discover");
    let init = messages
        .iter()
        .find(|m| m["method"] == "initialize")
        .unwrap_or_else(|| panic!("no initialize after discover: {text}"));
    assert_eq!(
        init["params"]["clientInfo"]["name"],
        "gemini-cli-mcp-client"
    );
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(init["params"]["capabilities"]["roots"]["listChanged"], true);
    // The per-call timeout is the server timeout (the server's slow tool
    // waits for a message that never comes).
    let start = Instant::now();
    let r = slow
        .build(&Map::new(), &c)
        .unwrap()
        .execute(&c, CancellationToken::new())
        .await;
    assert!(start.elapsed() >= Duration::from_millis(2900));
    assert!(
        err(&r).contains(
            "\"error\":{\"message\":\"MCP error -32001: Request timed out\",\"isError\":true}"
        ),
        "{}",
        err(&r)
    );
    mgr.shutdown().await;
}

#[tokio::test]
async fn failures_are_reported_and_not_fatal() {
    let dir = tempfile::tempdir().unwrap();
    let py = server_file(dir.path());
    let settings = json!({"mcpServers": {
        "bad": {"args": ["x"]},
        "missing": {"command": "/nonexistent/server"},
        "exits": {"command": "python3", "args": ["-c", "import sys; sys.exit(1)"]},
        "hangs": {"command": "sleep", "args": ["30"], "timeout": 700},
        "a": {"command": "python3", "args": [py.clone()], "includeTools": ["do.it!", "fail(x)", "img"], "excludeTools": ["img"]},
        "b": {"command": "python3", "args": [py.clone()], "includeTools": ["do.it!"]},
        "off": {"command": "python3", "args": [py.clone()]},
        "notallowed": {"command": "python3", "args": [py]}
    }, "mcp": {"excluded": ["off"], "allowed": ["bad", "missing", "exits", "hangs", "a", "b", "off"]}});
    let start_at = Instant::now();
    let mgr = start(settings, dir.path()).await;
    assert!(start_at.elapsed() < Duration::from_secs(10));
    let f = mgr.failures();
    assert_eq!(f.len(), 4, "{f:?}");
    assert_eq!(
        f[0],
        format!(
            "Error connecting to MCP server 'bad': {}",
            gemini_rs_mcp::config::INVALID_CONFIG_MESSAGE
        )
    );
    // The others come in the order they fail: on a loaded machine a
    // python3 that exits may take longer than the 700 ms timeout.
    for prefix in [
        "Error connecting to MCP server 'missing': ",
        "Error connecting to MCP server 'exits': ",
    ] {
        assert!(f.iter().any(|m| m.starts_with(prefix)), "{prefix}: {f:?}");
    }
    assert!(
        f.iter()
            .any(|m| m
                == "Error connecting to MCP server 'hangs': Connection timed out after 700 ms"),
        "{f:?}"
    );
    let names: Vec<String> = mgr
        .tools(&|_| false)
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    assert_eq!(names, ["do.it_", "fail", "b__do.it_"]);
    let conns = mgr.connections();
    let servers: Vec<&str> = conns.iter().map(|c| c.name()).collect();
    assert_eq!(servers, ["a", "b"]);
    let rules: Vec<(String, f64)> = mgr
        .policy_rules()
        .into_iter()
        .map(|r| (r.tool_name, r.priority))
        .collect();
    assert!(
        rules.contains(&("a__*".to_string(), 2.1)) && rules.contains(&("off__*".to_string(), 2.9)),
        "{rules:?}"
    );
    mgr.shutdown().await;
}

#[tokio::test]
async fn untrusted_folder_starts_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let py = server_file(dir.path());
    let s = Settings::from_value(
        json!({"mcpServers": {"s": {"command": "python3", "args": [py], "trust": true}}}),
    );
    let mgr = McpManager::start(&s, &[], &[], false).await;
    assert!(mgr.connections().is_empty() && mgr.failures().is_empty());
    assert!(mgr.policy_rules().is_empty());
    let mgr = McpManager::start(&s, &[], &["other".to_string()], true).await;
    assert!(mgr.connections().is_empty());
}
