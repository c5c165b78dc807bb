//! The engines rollout farms run on, with their own code: a local Ray
//! cluster (PyPI `ray`, one CPU, no dashboard) fanning `gemini-rs --acp`
//! servers out as actors (`examples/ray/rollouts.py`), and the Harbor
//! installed-agent adapter (`integrations/harbor`) driven through Harbor's
//! agent interface (PyPI `harbor`). Both against a replayed five-tool task;
//! both collect ATIF trajectories.

use crate::support::{Sandbox, peer_missing};
use crate::trajectory::{atif_python, five_tool_responses, validate};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn bin() -> String {
    std::env::var("GEMINI_RS_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_gemini-rs").into())
}

/// The Python of `var` (else `target/<dir>/bin/python`) that imports `module`.
fn python_with(var: &str, dir: &str, module: &str, install: &str) -> Option<PathBuf> {
    let found = std::env::var_os(var)
        .map(PathBuf::from)
        .into_iter()
        .chain([repo().join("target").join(dir).join("bin/python")])
        .find(|p| {
            Command::new(p)
                .args(["-c", &format!("import {module}")])
                .output()
                .is_ok_and(|o| o.status.success())
        });
    if found.is_none() {
        peer_missing(&format!("the Python {module} package"), install);
    }
    found
}

/// The environment the binary gets in `sb`, for a program that starts it.
fn env_of(sb: &Sandbox) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    sb.command::<&str>(&[], &[])
        .get_envs()
        .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
        .collect()
}

const TOOLS: [&str; 5] = [
    "list_directory",
    "read_file",
    "write_file",
    "replace",
    "read_file",
];

#[test]
fn ray_actors_host_acp_servers_and_gather_their_trajectories() {
    let Some(python) = python_with(
        "GEMINI_RS_RAY_PYTHON",
        "ray-py",
        "ray",
        "python3 -m venv target/ray-py && target/ray-py/bin/pip install ray==2.60.0, \
         or set GEMINI_RS_RAY_PYTHON",
    ) else {
        return;
    };
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    let responses = sb.write("task.responses", &five_tool_responses());
    sb.write("template/NOTES.md", "a note\n");
    let out = sb.work.join("rollouts");
    let mut cmd = Command::new(python);
    cmd.current_dir(&sb.work).env_clear().envs(env_of(&sb));
    cmd.env("RAY_USAGE_STATS_ENABLED", "0")
        .env("RAY_AUTH_MODE", "disabled");
    cmd.arg(repo().join("examples/ray/rollouts.py"))
        .args([
            "--actors",
            "2",
            "--sessions",
            "3",
            "--prompt",
            "Do the task.",
        ])
        .arg("--out")
        .arg(&out)
        .arg("--template")
        .arg(sb.work.join("template"))
        .args([
            "--",
            &bin(),
            "--acp",
            "--approval-mode",
            "yolo",
            "--fake-responses",
        ])
        .arg(&responses);
    let run = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(summary["sessions"], 6, "{summary}");
    assert_eq!(summary["stopReasons"], json!(["end_turn"]));
    assert_eq!(summary["steps"], 6 * 7);
    let files: Vec<PathBuf> = summary["trajectories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| PathBuf::from(p.as_str().unwrap()))
        .collect();
    let Some(atif) = atif_python() else { return };
    let docs = validate(&atif, &files);
    let ids: std::collections::BTreeSet<&str> = docs
        .iter()
        .filter_map(|d| d["session_id"].as_str())
        .collect();
    assert_eq!(ids.len(), 6, "each session has its own trajectory");
    for doc in &docs {
        let names: Vec<&str> = doc["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["tool_calls"][0]["function_name"].as_str())
            .collect();
        assert_eq!(names, TOOLS);
    }
}

#[test]
fn the_harbor_adapter_runs_at_harbors_agent_interface() {
    let Some(python) = python_with(
        "GEMINI_RS_HARBOR_PYTHON",
        "harbor-py",
        "harbor",
        "a Python 3.12+ venv at target/harbor-py with harbor==0.26.0 (see .ci/run), \
         or set GEMINI_RS_HARBOR_PYTHON",
    ) else {
        return;
    };
    let fake = FakeServer::replaying(&five_tool_responses());
    let sb = Sandbox::new();
    let run = Command::new(python)
        .current_dir(&sb.work)
        .env_remove("GEMINI_API_KEY")
        .env_remove("GOOGLE_GEMINI_BASE_URL")
        .arg(repo().join("integrations/harbor/tests/test_agent.py"))
        .arg(bin())
        .arg(&fake.base_url)
        .arg(TOOLS.join(","))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(summary["steps"], 7, "{summary}");
    assert!(fake.requests().len() >= 6);
}
