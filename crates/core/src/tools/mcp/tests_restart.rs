//! A stdio server killed between two calls is restarted on the next call,
//! and the `mcp_<server>_<tool>` alias finds the tool.

use super::tests::{ctx, plain};
use super::*;
use crate::tools::ToolRegistry;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

const PID_PY: &str = r#"
import json, os, sys
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    m = json.loads(line); mid = m.get("id"); meth = m.get("method")
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "pid", "version": "1"}}})
    elif meth == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [{"name": "pid", "inputSchema": {"type": "object"}}, {"name": "exit", "inputSchema": {"type": "object"}}]}})
    elif meth == "tools/call":
        if m["params"]["name"] == "exit":
            os._exit(3)
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": str(os.getpid())}]}})
    elif mid is not None:
        send({"jsonrpc": "2.0", "id": mid, "result": {}})
"#;

async fn call(tool: &Arc<dyn Tool>, c: &crate::tools::ToolContext) -> crate::tools::ToolResult {
    let args: Map<String, Value> = Map::new();
    tool.build(&args, c)
        .unwrap()
        .execute(c, CancellationToken::new())
        .await
}

#[tokio::test]
async fn killed_server_is_restarted_on_next_call() {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join("pid.py");
    std::fs::write(&py, PID_PY).unwrap();
    let settings = Settings::from_value(json!({"mcpServers": {
        "p s": {"command": "python3", "args": [py.display().to_string()], "timeout": 20000}
    }}));
    let mgr = McpManager::start(&settings, &[dir.path().to_path_buf()], &[], true).await;
    assert!(mgr.failures().is_empty(), "{:?}", mgr.failures());
    let tools = mgr.tools(&|_| false);
    let pid_tool = tools.iter().find(|t| t.name() == "pid").unwrap().clone();
    let exit_tool = tools.iter().find(|t| t.name() == "exit").unwrap().clone();
    let c = ctx(dir.path());

    let first: i32 = plain(call(&pid_tool, &c).await.llm_text()).parse().unwrap();
    // SAFETY: plain kill(2) of the child we started.
    unsafe { libc::kill(first, libc::SIGKILL) };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !mgr.connections()[0].is_closed() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let r = call(&pid_tool, &c).await;
    assert!(r.error.is_none(), "{r:?}");
    let second: i32 = plain(r.llm_text()).parse().unwrap();
    assert_ne!(first, second);

    // A server that dies during the call: restarted once, the retried call
    // fails the same way, and the error is a tool error, not a crash.
    let r = call(&exit_tool, &c).await;
    assert!(r.error.is_some(), "{r:?}");
    let r = call(&pid_tool, &c).await;
    assert!(r.error.is_none(), "{r:?}");

    // The later `mcp_<server>_<tool>` form is an alias.
    let aliases = mgr.mcp_prefixed_aliases();
    assert!(
        aliases.contains(&("mcp_p_s_pid".to_string(), "pid".to_string())),
        "{aliases:?}"
    );
    let mut reg = ToolRegistry::new();
    for t in tools {
        reg.register(t);
    }
    reg.add_aliases(aliases);
    assert_eq!(reg.get("mcp_p_s_pid").unwrap().tool.name(), "pid");

    // After shutdown nothing is restarted.
    mgr.shutdown().await;
    let r = call(&pid_tool, &c).await;
    assert!(r.error.is_some());
}
