//! Tests against `@modelcontextprotocol/server-everything` over stdio. The
//! server is found through `GEMINI_RS_MCP_EVERYTHING` (the path of its
//! `mcp-server-everything` bin), else under `target/mcp-peer` or
//! `node_modules/.bin` of the workspace root; without it the tests are
//! skipped with a note, or fail on CI (`crate::test_peers`). Covers stdio,
//! streamable HTTP and the legacy SSE transport.

use super::tests::{ctx, plain};
use super::*;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

pub(super) fn everything_bin() -> Option<PathBuf> {
    let rel = "node_modules/.bin/mcp-server-everything";
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::env::var_os("GEMINI_RS_MCP_EVERYTHING")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/mcp-peer").join(rel), root.join(rel)])
        .find(|p| p.exists())
}

/// A free port on 127.0.0.1 (bound, then released).
pub(super) use gemini_rs_test_support::free_port;

/// Waits until something listens on the port (or 20 s pass).
pub(super) async fn wait_port(port: u16) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// A child process killed on drop.
pub(super) struct Child(pub std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Skips (or, on CI, fails) a test whose server is missing.
fn skip_everything() {
    crate::test_peers::missing(
        "@modelcontextprotocol/server-everything",
        "npm install --prefix target/mcp-peer @modelcontextprotocol/server-everything, or set GEMINI_RS_MCP_EVERYTHING",
    );
}

/// Starts server-everything over HTTP (`streamableHttp` or `sse`).
fn everything_http(bin: &PathBuf, mode: &str) -> (Child, u16) {
    let port = free_port();
    let child = std::process::Command::new(bin)
        .arg(mode)
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    (Child(child), port)
}

/// Lists, calls `echo`, `get-sum` and `get-tiny-image` on one server.
async fn check_everything(server: Value) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let settings = Settings::from_value(json!({"mcpServers": {"everything": server}}));
    let mgr = McpManager::start(&settings, &[dir.path().to_path_buf()], &[], true).await;
    assert!(mgr.failures().is_empty(), "{:?}", mgr.failures());
    let tools = mgr.tools(&|_| false);
    let find = |n: &str| {
        tools
            .iter()
            .find(|t| t.name() == n)
            .cloned()
            .unwrap_or_else(|| panic!("no {n}"))
    };
    let c = ctx(dir.path());
    let call = |name: &str, args: Value| {
        let tool = find(name);
        let c = c.clone();
        async move {
            let args: Map<String, Value> = args.as_object().unwrap().clone();
            tool.build(&args, &c)
                .unwrap()
                .execute(&c, CancellationToken::new())
                .await
        }
    };
    let r = call("echo", json!({"message": "hi"})).await;
    assert_eq!(plain(r.llm_text()), "Echo: hi");
    let r = call("get-sum", json!({"a": 1, "b": 2})).await;
    assert_eq!(plain(r.llm_text()), "The sum of 1 and 2 is 3.");
    let r = call("get-tiny-image", json!({})).await;
    assert!(
        plain(r.llm_text()).contains(
            "[Tool 'get-tiny-image' provided the following image data with mime-type: image/png]"
        ),
        "{}",
        plain(r.llm_text())
    );
    assert!(r.llm_content.iter().any(|p| {
        p.inline_data
            .as_ref()
            .is_some_and(|b| b.mime_type == "image/png" && !b.data.is_empty())
    }));
    mgr.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
async fn server_everything_stdio() {
    let Some(bin) = everything_bin() else {
        return skip_everything();
    };
    check_everything(
        json!({"command": bin.display().to_string(), "args": ["stdio"], "timeout": 20000}),
    )
    .await;
}

#[tokio::test]
async fn server_everything_streamable_http() {
    let Some(bin) = everything_bin() else {
        return skip_everything();
    };
    let (_child, port) = everything_http(&bin, "streamableHttp");
    assert!(wait_port(port).await, "server-everything did not listen");
    let url = format!("http://127.0.0.1:{port}/mcp");
    check_everything(json!({"httpUrl": url, "timeout": 20000})).await;
    // A bare url tries streamable HTTP first.
    check_everything(json!({"url": url, "timeout": 20000})).await;
}

#[tokio::test]
async fn server_everything_sse() {
    let Some(bin) = everything_bin() else {
        return skip_everything();
    };
    let (_child, port) = everything_http(&bin, "sse");
    assert!(wait_port(port).await, "server-everything did not listen");
    let url = format!("http://127.0.0.1:{port}/sse");
    check_everything(json!({"url": url, "type": "sse", "timeout": 20000})).await;
}

#[tokio::test]
async fn two_servers_with_clashing_tool_names() {
    let Some(bin) = everything_bin() else {
        return skip_everything();
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = tempfile::tempdir().unwrap();
    let server = json!({"command": bin.display().to_string(), "args": ["stdio"], "timeout": 20000});
    let settings = Settings::from_value(json!({"mcpServers": {"first": server, "second": server}}));
    let mgr = McpManager::start(&settings, &[dir.path().to_path_buf()], &[], true).await;
    assert!(mgr.failures().is_empty(), "{:?}", mgr.failures());
    let tools = mgr.tools(&|_| false);
    let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
    assert!(
        names.contains(&"echo") && names.contains(&"second__echo"),
        "{names:?}"
    );
    assert!(!names.contains(&"first__echo"), "{names:?}");
    // Both answer, and the qualified form finds the first server's tool.
    assert_eq!(
        mgr.qualified_lookup_name("first__echo").as_deref(),
        Some("echo")
    );
    let c = ctx(dir.path());
    for name in ["echo", "second__echo"] {
        let tool = tools.iter().find(|t| t.name() == name).unwrap();
        let args = json!({"message": name});
        let r = tool
            .build(args.as_object().unwrap(), &c)
            .unwrap()
            .execute(&c, CancellationToken::new())
            .await;
        assert_eq!(plain(r.llm_text()), format!("Echo: {name}"));
    }
    mgr.shutdown().await;
}
