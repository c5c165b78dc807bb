//! Tests of cancellation, the timeouts and the drop path: no process of
//! the group may survive.

use super::ShellTool;
use super::tests::{Env, call, call_with, env, env_with, out, wait_gone};
use crate::tools::Tool;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn pid_file_command(e: &Env, body: &str) -> (String, PathBuf) {
    let f = e
        .root
        .join(format!("pid-{}", uuid::Uuid::new_v4().simple()));
    (format!("echo $$ > {}; {body}", f.display()), f)
}

async fn read_pid(f: &Path) -> i32 {
    for _ in 0..200 {
        if let Ok(s) = std::fs::read_to_string(f)
            && let Ok(p) = s.trim().parse()
        {
            return p;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("no pid file");
}

#[tokio::test]
async fn cancellation_kills_the_whole_group() {
    let e = env();
    let (cmd, f) = pid_file_command(&e, "echo started; sleep 30 & sleep 30");
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    let f2 = f.clone();
    let canceller = tokio::spawn(async move {
        let pid = read_pid(&f2).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        c2.cancel();
        pid
    });
    let start = Instant::now();
    let r = call_with(&e, json!({ "command": cmd }), cancel).await;
    let pgid = canceller.await.unwrap();
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(
        r.llm_text(),
        "Command was cancelled by user before it could complete. Below is the output before it was cancelled:\nstarted"
    );
    assert!(
        wait_gone(pgid, Duration::from_secs(2)).await,
        "group {pgid} survived"
    );
}

#[tokio::test]
async fn sigterm_ignored_gets_sigkill_after_a_second() {
    let e = env();
    let (cmd, f) = pid_file_command(
        &e,
        "trap '' TERM; sleep 30 & trap '' TERM; while :; do sleep 0.05; done",
    );
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    let start = Instant::now();
    let r = call_with(&e, json!({ "command": cmd }), cancel).await;
    let pgid = read_pid(&f).await;
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(1200) && took < Duration::from_secs(8),
        "{took:?}"
    );
    assert!(
        r.llm_text()
            .ends_with("There was no output before it was cancelled.")
    );
    assert!(wait_gone(pgid, Duration::from_secs(2)).await);
}

#[tokio::test]
async fn dropping_the_call_kills_the_group() {
    let e = env();
    let (cmd, f) = pid_file_command(&e, "sleep 30 & sleep 30");
    let inv = ShellTool
        .build(json!({ "command": cmd }).as_object().unwrap(), &e.ctx)
        .unwrap();
    let fut = inv.execute(&e.ctx, CancellationToken::new());
    assert!(
        tokio::time::timeout(Duration::from_millis(400), fut)
            .await
            .is_err()
    );
    let pgid = read_pid(&f).await;
    assert!(
        wait_gone(pgid, Duration::from_secs(2)).await,
        "group {pgid} survived"
    );
}

#[tokio::test]
async fn inactivity_and_total_timeouts() {
    let e = env_with(json!({"tools": {"shell": {"inactivityTimeout": 0.3}}}));
    let start = Instant::now();
    assert_eq!(
        call(&e, json!({"command": "echo start; sleep 20"}))
            .await
            .llm_text(),
        "Command was automatically cancelled because it exceeded the timeout of 0.0 minutes without output. Below is the output before it was cancelled:\nstart"
    );
    let r = call(&e, json!({"command": "sleep 20"})).await;
    assert_eq!(
        r.llm_text(),
        "Command was automatically cancelled because it exceeded the timeout of 0.0 minutes without output. There was no output before it was cancelled."
    );
    assert!(start.elapsed() < Duration::from_secs(5));
    // Output resets the timer.
    assert_eq!(
        out(&e, "for i in 1 2 3 4 5 6; do echo $i; sleep 0.1; done").await,
        "Output: 1\n2\n3\n4\n5\n6\nProcess Group PGID: <n>"
    );
    let e = env_with(json!({"tools": {"shell": {"timeout": 0.5}}}));
    let r = call(
        &e,
        json!({"command": "while :; do echo tick; sleep 0.1; done"}),
    )
    .await;
    assert!(
        r.llm_text().starts_with(
            "Command was automatically cancelled because it exceeded the total timeout of 0.0 minutes. Below is the output before it was cancelled:\ntick\n"
        ),
        "{}",
        r.llm_text()
    );
}
