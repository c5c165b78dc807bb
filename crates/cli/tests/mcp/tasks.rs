//! MCP 2026-07-28's tasks extension and `subscriptions/listen`, against a
//! server on the official Python SDK (`mcp` 2.x, `MCPServer`): the SDK
//! serves `server/discover` and the listen streams itself; its extension
//! layer (`Extension`, `MethodBinding`, `intercept_tool_call`, SEP-2133)
//! carries the tasks extension, which the SDK does not ship, in a few
//! lines here. The ACP tests of the same server (live progress,
//! cancellation) are in `tests/acp/mcp_tasks.rs`.

use crate::e2e::{call, lines, text};
use crate::support::{Sandbox, peer_missing};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::path::PathBuf;

/// The server. Arguments: the file it logs the task requests to. Tools:
/// `slow(steps)`, run as a task when the client declared the extension
/// (`step i of n` as its status message, 0.6 s a step); `grow`, which adds the tool `fresh` and announces it on
/// the listen streams.
pub const SERVER_PY: &str = r#"
import asyncio, sys, uuid, datetime
from typing import Any
from mcp.server.mcpserver import MCPServer, Context
from mcp.server.extension import Extension, MethodBinding
from mcp_types import RequestParams

LOG = open(sys.argv[1], "a", buffering=1)
TASKS: dict[str, dict[str, Any]] = {}

def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat()

class TaskId(RequestParams):
    taskId: str

def view(t: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in t.items() if k != "job"}

async def work(task: dict[str, Any], steps: int) -> None:
    for i in range(steps):
        task["statusMessage"] = f"step {i + 1} of {steps}"
        task["lastUpdatedAt"] = now()
        await asyncio.sleep(0.6)
    task["status"] = "completed"
    task["statusMessage"] = "done"
    task["result"] = {"content": [{"type": "text", "text": f"slow work finished after {steps} steps"}]}

class Tasks(Extension):
    identifier = "io.modelcontextprotocol/tasks"

    def methods(self):
        return [MethodBinding("tasks/get", TaskId, self.get),
                MethodBinding("tasks/cancel", TaskId, self.cancel)]

    async def get(self, ctx, params):
        LOG.write(f"tasks/get {params.taskId}\n")
        return {"resultType": "complete", **view(TASKS[params.taskId])}

    async def cancel(self, ctx, params):
        LOG.write(f"tasks/cancel {params.taskId}\n")
        task = TASKS[params.taskId]
        task["job"].cancel()
        task["status"] = "cancelled"
        return {"resultType": "complete"}

    async def intercept_tool_call(self, params, ctx, call_next):
        # A task only for a client that declared the extension.
        caps = (params.meta or {}).get("io.modelcontextprotocol/clientCapabilities") or {}
        if params.name != "slow" or self.identifier not in (caps.get("extensions") or {}):
            return await call_next(ctx)
        tid = str(uuid.uuid4())
        LOG.write(f"task created {tid}\n")
        task = {"taskId": tid, "status": "working", "createdAt": now(), "lastUpdatedAt": now(),
                "ttlMs": 60000, "pollIntervalMs": 200}
        TASKS[tid] = task
        steps = int((params.arguments or {}).get("steps", 3))
        task["job"] = asyncio.ensure_future(work(task, steps))
        return {"resultType": "task", **view(task)}

srv = MCPServer("tasky", extensions=[Tasks()])

@srv.tool()
def slow(steps: int) -> str:
    """Works for a while, as a task."""
    return "never run inline"

@srv.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool `fresh`."""
    def fresh() -> str:
        """Added mid-session."""
        return "fresh tool here"
    srv.add_tool(fresh)
    await ctx.notify_tools_changed()
    LOG.write("grew\n")
    return "grown"

srv.run()
"#;

/// The Python with the 2.x SDK (its extension layer), or `None` (skipped
/// with a note; a failure on CI).
pub fn python() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = std::env::var_os("GEMINI_RS_MCP_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/mcp-py/bin/python")])
        .find(|p| {
            std::process::Command::new(p)
                .args(["-c", "import mcp.server.extension"])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        });
    if found.is_none() {
        peer_missing(
            "the Python MCP SDK 2.x",
            "python3 -m venv target/mcp-py && target/mcp-py/bin/pip install 'mcp>=2.3', or set GEMINI_RS_MCP_PYTHON",
        );
    }
    found
}

/// Writes the server into `sb`: the command and arguments to start it, and
/// the path of its log.
pub fn server(sb: &Sandbox, py: &std::path::Path) -> (String, Vec<String>, PathBuf) {
    let script = sb.write("tasky.py", SERVER_PY);
    let log = sb.work.join("tasky.log");
    let args = vec![script.display().to_string(), log.display().to_string()];
    (py.display().to_string(), args, log)
}

fn headless(
    sb: &Sandbox,
    turns: &[String],
) -> Option<(FakeServer, crate::support::Output, String)> {
    let py = python()?;
    let (command, args, log) = server(sb, &py);
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"tasky": {"command": command, "args": args, "trust": true, "timeout": 60000}}}));
    let fake = FakeServer::replaying(&lines(turns));
    let out = sb.run(
        &["-y", "-p", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    let log = std::fs::read_to_string(log).unwrap_or_default();
    Some((fake, out, log))
}

fn declared(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|t| {
            t["functionDeclarations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|d| d["name"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_long_call_made_a_task_returns_its_result() {
    let sb = Sandbox::new();
    let Some((fake, out, log)) = headless(&sb, &[call("slow", json!({"steps": 2})), text("done")])
    else {
        return;
    };
    assert_eq!(out.code, 0, "{out:?}\n{log}");
    let responses = fake.function_responses();
    let got = responses[0].to_string();
    assert!(got.contains("slow work finished after 2 steps"), "{got}");
    assert!(log.contains("task created"), "{log}");
    assert!(log.contains("tasks/get"), "polled: {log}");
    assert!(!log.contains("tasks/cancel"), "{log}");
}

#[test]
fn a_tool_announced_on_the_listen_stream_is_callable_next_turn() {
    let sb = Sandbox::new();
    // The pause lets the refreshed list arrive before the next request.
    let Some((fake, out, log)) = headless(
        &sb,
        &[
            call("grow", json!({})),
            call("run_shell_command", json!({"command": "sleep 1"})),
            call("fresh", json!({})),
            text("done"),
        ],
    ) else {
        return;
    };
    assert_eq!(out.code, 0, "{out:?}\n{log}");
    let requests = fake.requests();
    let first = declared(&requests[0].body);
    assert!(first.iter().any(|n| n == "grow"), "{first:?}");
    assert!(!first.iter().any(|n| n == "fresh"), "{first:?}");
    let third = declared(&requests[2].body);
    assert!(third.iter().any(|n| n == "fresh"), "{third:?}");
    let responses = fake.function_responses();
    let got = responses[2].to_string();
    assert!(got.contains("fresh tool here"), "{got}");
    assert!(log.contains("grew"), "{log}");
}
