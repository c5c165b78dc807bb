//! The guard on small limits: lines pass unchanged, an oversized reply
//! becomes an error reply with its id, one without an id ends the stream.

use super::*;
use tokio::io::AsyncReadExt;

/// Reads everything through a guard with `limit`, `chunk` bytes a read.
async fn run(input: &[u8], limit: usize, chunk: usize) -> (Vec<u8>, Option<String>, Overflow) {
    let overflow = Overflow::default();
    let mut guard = LineGuard::new(input, "srv", limit, overflow.clone());
    let mut out = Vec::new();
    let mut buf = vec![0u8; chunk];
    loop {
        match guard.read(&mut buf).await {
            Ok(0) => return (out, None, overflow),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Some(e.to_string()), overflow),
        }
    }
}

fn lines(out: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(out)
        .split('\n')
        .map(str::to_string)
        .collect()
}

#[tokio::test]
async fn short_lines_pass_unchanged() {
    let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"a\":[1,2]}\nno newline";
    for chunk in [1, 3, 7, 4096] {
        let (out, err, _) = run(input, 64, chunk).await;
        assert_eq!(out, input.to_vec(), "chunk {chunk}");
        assert_eq!(err, None);
    }
}

#[tokio::test]
async fn a_line_of_exactly_the_limit_passes() {
    let line = format!("{{\"id\":1,\"result\":\"{}\"}}\n", "x".repeat(20));
    let (out, err, _) = run(line.as_bytes(), line.len(), 5).await;
    assert_eq!(out, line.as_bytes());
    assert_eq!(err, None);
}

#[tokio::test]
async fn an_oversized_reply_becomes_an_error_reply_with_its_id() {
    for (id, id_json) in [("7", json!(7)), ("\"a,}\\\"b\"", json!("a,}\"b"))] {
        // The id last, as the TypeScript SDK writes it.
        let big = format!(
            "{{\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}]}},\"jsonrpc\":\"2.0\",\"id\":{id}}}\n",
            "y".repeat(300)
        );
        let input = format!("{{\"id\":0,\"result\":{{}}}}\n{big}{{\"id\":9,\"result\":{{}}}}\n");
        for chunk in [1, 13, 4096] {
            let (out, err, overflow) = run(input.as_bytes(), 100, chunk).await;
            assert_eq!(err, None);
            assert_eq!(overflow.take(), None);
            let lines = lines(&out);
            assert_eq!(lines[0], "{\"id\":0,\"result\":{}}");
            // rmcp sees the cut-off head as one line it drops.
            assert_eq!(lines[1].len(), 100, "chunk {chunk}");
            let reply: Value = serde_json::from_str(&lines[2]).unwrap();
            assert_eq!(reply["id"], id_json);
            assert_eq!(reply["error"]["code"], json!(OVERSIZED_CODE));
            assert_eq!(
                reply["error"]["message"],
                json!(oversized_message("srv", big.len(), 100))
            );
            assert_eq!(lines[3], "{\"id\":9,\"result\":{}}");
        }
    }
}

#[tokio::test]
async fn the_message_names_the_server_and_the_size() {
    let m = oversized_message("py", 17 * 1024 * 1024 + 60, 16 * 1024 * 1024);
    assert_eq!(
        m,
        "MCP server 'py' sent a message of 17825852 bytes, over the stdio transport's limit of 16777216 bytes (16 MiB)"
    );
}

#[tokio::test]
async fn an_oversized_line_without_an_id_ends_the_stream() {
    let input = format!(
        "{{\"id\":0,\"result\":{{}}}}\n{}\n{{\"id\":9}}\n",
        "z".repeat(500)
    );
    let (out, err, overflow) = run(input.as_bytes(), 100, 64).await;
    let expected = oversized_message("srv", 501, 100);
    assert_eq!(err.as_deref(), Some(expected.as_str()));
    assert_eq!(overflow.take().map(|o| o.to_string()), Some(expected));
    assert!(out.starts_with(b"{\"id\":0,\"result\":{}}\n"));
    assert!(!String::from_utf8_lossy(&out).contains("\"id\":9"));
}

#[tokio::test]
async fn an_oversized_request_from_the_server_is_dropped() {
    let input = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"roots/list\",\"params\":{{\"x\":\"{}\"}}}}\n{{\"id\":9}}\n",
        "q".repeat(300)
    );
    let (out, err, _) = run(input.as_bytes(), 100, 4096).await;
    assert_eq!(err, None);
    let lines = lines(&out);
    assert_eq!(lines[1], "{\"id\":9}");
}

#[tokio::test]
async fn a_stream_ending_inside_an_oversized_line_keeps_the_reason() {
    let input = format!("{{\"id\":1,\"result\":\"{}", "w".repeat(300));
    let (_, err, overflow) = run(input.as_bytes(), 100, 4096).await;
    assert_eq!(err, None);
    assert_eq!(
        overflow.take().map(|o| o.to_string()),
        Some(oversized_message("srv", input.len(), 100))
    );
}

#[test]
fn the_scan_finds_top_level_keys_only() {
    let mut scan = TopLevelScan::default();
    scan.feed(br#"{"result":{"id":5,"method":"x"},"id" : "k" ,"extra":[{"id":1}]}"#);
    assert_eq!(scan.reply_id(), Some(json!("k")));
    let mut scan = TopLevelScan::default();
    scan.feed(br#"{"jsonrpc":"2.0","id":{"bad":1},"result":{}}"#);
    assert_eq!(scan.reply_id(), None);
}
