//! Tests against a server written with the official Python SDK (`mcp` from
//! PyPI; `MCPServer` in 2.x, `FastMCP` in 1.x) over stdio and legacy SSE.
//! The interpreter is `GEMINI_RS_MCP_PYTHON`, else `target/mcp-py` or
//! `python3` when it can `import mcp`; without it the tests are skipped
//! with a note, or fail on CI (`crate::test_peers`).

use super::tests::{ctx, plain};
use super::tests_peer::{Child, free_port, wait_port};
use super::*;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use tokio_util::sync::CancellationToken;

const SERVER_PY: &str = r#"
import sys
try:
    from mcp.server.mcpserver import MCPServer as Server
    V2 = True
except ImportError:
    from mcp.server.fastmcp import FastMCP as Server
    V2 = False
srv = Server("pysdk")

@srv.tool()
def add(a: int, b: int) -> str:
    """Adds two numbers."""
    return f"{a} + {b} = {a + b}"

@srv.tool()
def big(mib: int) -> str:
    """Returns mib MiB of text."""
    return "x" * (mib * 1024 * 1024)

@srv.tool()
def boom() -> str:
    """Always fails."""
    raise ValueError("it broke")

if sys.argv[1] == "stdio":
    srv.run()
else:
    port = int(sys.argv[2])
    if V2:
        srv.run("sse", host="127.0.0.1", port=port)
    else:
        srv.settings.host = "127.0.0.1"
        srv.settings.port = port
        srv.run("sse")
"#;

fn python() -> Option<PathBuf> {
    let candidates = std::env::var_os("GEMINI_RS_MCP_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/mcp-py/bin/python"),
            PathBuf::from("python3"),
        ]);
    for p in candidates {
        let ok = std::process::Command::new(&p)
            .args(["-c", "import mcp"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ok {
            return Some(p);
        }
    }
    crate::test_peers::missing(
        "the Python MCP SDK",
        "python3 -m venv target/mcp-py && target/mcp-py/bin/pip install mcp, or set GEMINI_RS_MCP_PYTHON",
    );
    None
}

async fn check(server: Value, dir: &Path) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let settings = Settings::from_value(json!({"mcpServers": {"py": server}}));
    let mgr = McpManager::start(&settings, &[dir.to_path_buf()], &[], true).await;
    assert!(mgr.failures().is_empty(), "{:?}", mgr.failures());
    let tools = mgr.tools(&|_| false);
    let c = ctx(dir);
    let call = |name: &str, args: Value| {
        let tool = tools.iter().find(|t| t.name() == name).cloned().unwrap();
        let c = c.clone();
        async move {
            let args: Map<String, Value> = args.as_object().unwrap().clone();
            tool.build(&args, &c)
                .unwrap()
                .execute(&c, CancellationToken::new())
                .await
        }
    };
    let r = call("add", json!({"a": 2, "b": 3})).await;
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!(plain(r.llm_text()), "2 + 3 = 5");
    let r = call("boom", json!({})).await;
    let e = r.error.as_ref().expect("isError result");
    // 1.x passes the exception text on, 2.x hides it.
    assert!(e.message.contains("\"isError\":true"), "{}", e.message);
    assert!(
        e.message.starts_with("MCP tool 'boom' reported tool error"),
        "{}",
        e.message
    );
    mgr.shutdown().await;
}

#[tokio::test]
async fn python_sdk_stdio() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("srv.py");
    std::fs::write(&script, SERVER_PY).unwrap();
    let server = json!({"command": py.display().to_string(), "args": [script.display().to_string(), "stdio"], "timeout": 30000});
    check(server, dir.path()).await;
}

#[tokio::test]
async fn python_sdk_sse() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("srv.py");
    std::fs::write(&script, SERVER_PY).unwrap();
    let port = free_port();
    let _child = Child(
        std::process::Command::new(&py)
            .args([
                script.display().to_string(),
                "sse".to_string(),
                port.to_string(),
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    assert!(
        wait_port(port).await,
        "the Python SSE server did not listen"
    );
    let url = format!("http://127.0.0.1:{port}/sse");
    check(
        json!({"url": url, "type": "sse", "timeout": 30000}),
        dir.path(),
    )
    .await;
}

/// A reply over the stdio line limit (16 MiB) fails the call at once with
/// the server and the size, and the server stays usable.
#[tokio::test]
async fn python_sdk_stdio_oversized_reply_fails_at_once() {
    let Some(py) = python() else { return };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("srv.py");
    std::fs::write(&script, SERVER_PY).unwrap();
    let server = json!({"command": py.display().to_string(), "args": [script.display().to_string(), "stdio"], "timeout": 600000});
    let settings = Settings::from_value(json!({"mcpServers": {"py": server}}));
    let mgr = McpManager::start(&settings, &[dir.path().to_path_buf()], &[], true).await;
    assert!(mgr.failures().is_empty(), "{:?}", mgr.failures());
    let tools = mgr.tools(&|_| false);
    let c = ctx(dir.path());
    let run = |name: &str, args: Value| {
        let tool = tools.iter().find(|t| t.name() == name).cloned().unwrap();
        let c = c.clone();
        async move {
            let args: Map<String, Value> = args.as_object().unwrap().clone();
            tool.build(&args, &c)
                .unwrap()
                .execute(&c, CancellationToken::new())
                .await
        }
    };
    let started = std::time::Instant::now();
    let r = tokio::time::timeout(
        std::time::Duration::from_secs(60),
        run("big", json!({"mib": 17})),
    )
    .await
    .expect("the oversized reply must fail the call, not wait for the timeout");
    let e = r.error.as_ref().expect("an error result");
    // The SDK sends the text twice (content and structuredContent).
    let size: usize = e
        .message
        .split("MCP server 'py' sent a message of ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no size in {}", e.message));
    assert!(size > 17 * 1024 * 1024, "{}", e.message);
    assert!(
        e.message
            .contains("over the stdio transport's limit of 16777216 bytes (16 MiB)"),
        "{}",
        e.message
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    // The connection is still good.
    let r = run("add", json!({"a": 1, "b": 1})).await;
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!(plain(r.llm_text()), "1 + 1 = 2");
    mgr.shutdown().await;
}
