//! Limits that hold, through the binary: a shell command that allocates
//! without end trips `--max-memory-mb`, one that sleeps for ever trips
//! `--max-wall-seconds` (or `limits.wallSeconds`); each ends the session
//! with exit 59 and stop reason `resource_limit` naming the limit, the
//! stats carry `peakMemoryMb` and `cpuMs`, and the command is gone.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::process::Command;
use std::time::{Duration, Instant};

fn settings(sb: &Sandbox, extra: Value) {
    let mut s = json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}});
    if let (Some(s), Some(extra)) = (s.as_object_mut(), extra.as_object()) {
        s.extend(extra.clone());
    }
    sb.settings(&s);
}

/// True while a process whose command line contains `needle` runs.
fn running(needle: &str) -> bool {
    Command::new("pgrep")
        .args(["-f", needle])
        .output()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false)
}

fn gone_within(needle: &str, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    while Instant::now() < deadline {
        if !running(needle) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    !running(needle)
}

#[test]
fn a_runaway_allocation_trips_the_memory_limit_and_its_command_is_ended() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    // bash keeps the whole output of the substitution in one variable.
    let marker = "limits-mem-5959";
    let command = format!(": {marker}; x=$(head -c 4000000000 /dev/zero | tr '\\0' x); sleep 300");
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": command})),
        text("unreachable"),
    ]));
    let started = Instant::now();
    let out = sb.run(
        &[
            "--approval-mode=yolo",
            "--max-memory-mb",
            "200",
            "-o",
            "json",
            "-p",
            "go",
        ],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 59, "{}", out.stderr);
    assert!(started.elapsed() < Duration::from_secs(60));
    let body: Value =
        serde_json::from_str(&out.stderr).unwrap_or_else(|e| panic!("{e}: {}", out.stderr));
    let error = &body["error"];
    assert_eq!(error["type"], "FatalResourceLimitError", "{body}");
    assert_eq!(error["stopReason"], "resource_limit", "{body}");
    assert_eq!(error["limit"], "memory", "{body}");
    assert_eq!(error["code"], 59, "{body}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("over its limit of 200 MB"),
        "{body}"
    );
    let peak = body["stats"]["peakMemoryMb"].as_u64().unwrap();
    assert!(peak > 200, "{body}");
    assert!(body["stats"]["cpuMs"].as_u64().is_some(), "{body}");
    assert!(
        gone_within(marker, Duration::from_secs(2)),
        "the command still runs"
    );
    assert!(!running("head -c 4000000000"), "its pipeline still runs");
}

#[test]
fn a_command_that_sleeps_for_ever_trips_the_wall_clock() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": "sleep 591.25"})),
        text("unreachable"),
    ]));
    let started = Instant::now();
    let out = sb.run(
        &[
            "--approval-mode=yolo",
            "--max-wall-seconds",
            "2",
            "-o",
            "stream-json",
            "-p",
            "go",
        ],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    let took = started.elapsed();
    assert_eq!(out.code, 59, "{}", out.stderr);
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(15),
        "{took:?}"
    );
    let result: Value = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["type"] == "result")
        .unwrap_or_else(|| panic!("no result line: {}", out.stdout));
    assert_eq!(result["status"], "error", "{result}");
    assert_eq!(result["error"]["stopReason"], "resource_limit", "{result}");
    assert_eq!(result["error"]["limit"], "wall_clock", "{result}");
    assert!(
        result["stats"]["peakMemoryMb"].as_u64().unwrap() > 0,
        "{result}"
    );
    assert!(result["stats"]["cpuMs"].as_u64().is_some(), "{result}");
    assert!(out.stderr.contains("wall-clock limit"), "{}", out.stderr);
    assert!(
        gone_within("sleep 591.25", Duration::from_secs(2)),
        "sleep still runs"
    );
}

#[test]
fn the_setting_limits_the_wall_clock_without_the_flag() {
    let sb = Sandbox::new();
    settings(&sb, json!({"limits": {"wallSeconds": 1}}));
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": "sleep 592.5"})),
        text("unreachable"),
    ]));
    let out = sb.run(
        &["--approval-mode=yolo", "-p", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 59, "{}", out.stderr);
    assert!(
        out.stderr.contains("The session ran for 1 s"),
        "{}",
        out.stderr
    );
    assert!(gone_within("sleep 592.5", Duration::from_secs(2)));
}

#[test]
fn a_limit_of_zero_is_refused() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    for flag in ["--max-memory-mb", "--max-wall-seconds"] {
        let out = sb.run(&[flag, "0", "-p", "go"], None, &[]);
        assert_eq!(out.code, 42, "{flag}: {}", out.stderr);
        assert!(out.stderr.contains(flag), "{}", out.stderr);
    }
}

#[test]
fn a_run_within_its_limits_reports_what_it_used() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let fake = FakeServer::replaying(&lines(&[text("done")]));
    let out = sb.run(
        &[
            "--max-memory-mb",
            "4000",
            "--max-wall-seconds",
            "60",
            "-o",
            "json",
            "-p",
            "go",
        ],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let body: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(body["response"], "done");
    assert!(
        body["stats"]["peakMemoryMb"].as_u64().unwrap() > 0,
        "{body}"
    );
    assert!(body["stats"]["cpuMs"].as_u64().is_some(), "{body}");
}
