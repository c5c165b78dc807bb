//! Tests against `@modelcontextprotocol/server-everything` over stdio. The
//! server is found through `GEMINI_RS_MCP_EVERYTHING` (the path of its
//! `mcp-server-everything` bin), else under `node_modules/.bin` of the
//! workspace root or `/tmp/mcpeer`; without it the test is skipped with a
//! note.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::tests::ctx;
use super::*;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn everything_bin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GEMINI_RS_MCP_EVERYTHING") {
        return Some(PathBuf::from(p));
    }
    let rel = "node_modules/.bin/mcp-server-everything";
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel);
    [root, PathBuf::from("/tmp/mcpeer").join(rel)]
        .into_iter()
        .find(|p| p.exists())
}

#[tokio::test]
async fn server_everything_stdio() {
    let Some(bin) = everything_bin() else {
        eprintln!(
            "skipped: @modelcontextprotocol/server-everything is not installed (npm install --prefix /tmp/mcpeer @modelcontextprotocol/server-everything)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let settings = Settings::from_value(
        json!({"mcpServers": {"everything": {"command": bin.display().to_string(), "args": ["stdio"], "timeout": 20000}}}),
    );
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
    assert_eq!(r.llm_text(), "Echo: hi");
    let r = call("get-sum", json!({"a": 1, "b": 2})).await;
    assert_eq!(r.llm_text(), "The sum of 1 and 2 is 3.");
    let r = call("get-tiny-image", json!({})).await;
    assert!(
        r.llm_text().contains(
            "[Tool 'get-tiny-image' provided the following image data with mime-type: image/png]"
        ),
        "{}",
        r.llm_text()
    );
    assert!(r.llm_content.iter().any(|p| {
        p.inline_data
            .as_ref()
            .is_some_and(|b| b.mime_type == "image/png" && !b.data.is_empty())
    }));
    mgr.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(20));
}
