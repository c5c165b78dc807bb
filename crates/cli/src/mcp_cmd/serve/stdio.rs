//! The stdio transport: one JSON-RPC message per line on stdin, answers
//! on stdout (nothing else is written there). Each request runs in its own
//! task, so calls run concurrently and `notifications/cancelled` reaches a
//! call in flight. End of input stops the server once the calls already
//! read have answered.

use super::{McpServer, rpc_error};
use serde_json::Value;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Answers for one incoming line (a message or a batch).
pub(super) async fn answer_line(server: &McpServer, line: &str, scope: &str) -> Option<Value> {
    match serde_json::from_str(line) {
        Ok(msg) => answer(server, msg, scope).await,
        Err(e) => Some(rpc_error(Value::Null, -32700, &format!("Parse error: {e}"))),
    }
}

/// Answers for one parsed message or batch; `None` when nothing needs an
/// answer (notifications and responses only).
pub(super) async fn answer(server: &McpServer, msg: Value, scope: &str) -> Option<Value> {
    match msg {
        Value::Array(items) => {
            if items.is_empty() {
                return Some(rpc_error(Value::Null, -32600, "Invalid Request"));
            }
            let answers =
                futures::future::join_all(items.iter().map(|m| server.handle(m, scope))).await;
            let answers: Vec<Value> = answers.into_iter().flatten().collect();
            (!answers.is_empty()).then_some(Value::Array(answers))
        }
        other => server.handle(&other, scope).await,
    }
}

/// Serves until stdin closes.
pub(super) async fn serve(server: Arc<McpServer>) -> Result<(), String> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(async move {
        let mut out = tokio::io::stdout();
        while let Some(msg) = rx.recv().await {
            let mut line = msg.to_string();
            line.push('\n');
            if out.write_all(line.as_bytes()).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
    });
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        let line = match lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                tracing::warn!("mcp serve: reading stdin failed: {e}");
                break;
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let server = server.clone();
        let tx = tx.clone();
        tasks.spawn(async move {
            if let Some(answer) = answer_line(&server, &line, "stdio").await {
                let _ = tx.send(answer);
            }
        });
        // Reap finished tasks so the set does not grow without bound.
        while tasks.try_join_next().is_some() {}
    }
    // Calls already read still answer (a client may pipe its requests and
    // close its end).
    while tasks.join_next().await.is_some() {}
    drop(tx);
    let _ = writer.await;
    Ok(())
}
