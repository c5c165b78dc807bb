//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! run with node 22): server scenarios against `gemini-rs mcp serve
//! --port`, client scenarios against `mcp list` and a whole headless
//! session. Found through `GEMINI_RS_MCP_CONFORMANCE` (a directory with
//! `node_modules/.bin/conformance` and `node_modules/node/bin/node`),
//! or `target/mcp-conformance`; skipped when absent, failed on CI.

use super::conformance_cases::{Case, REFUSED_LOGINS, client_cases, echo_model};
use crate::support::Sandbox;
use serde_json::json;
use std::path::PathBuf;
use std::process::Command;

pub(super) fn conformance_dir() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = std::env::var_os("GEMINI_RS_MCP_CONFORMANCE")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/mcp-conformance")])
        .find(|d| {
            d.join("node_modules/.bin/conformance").exists()
                && d.join("node_modules/node/bin/node").exists()
        });
    if found.is_none() {
        crate::support::peer_missing(
            "@modelcontextprotocol/conformance with node 22",
            "npm install --prefix target/mcp-conformance node@22 @modelcontextprotocol/conformance, or set GEMINI_RS_MCP_CONFORMANCE",
        );
    }
    found
}

/// Runs the conformance CLI with node 22 first on PATH.
pub(super) fn conformance(
    dir: &std::path::Path,
    sb: &Sandbox,
    args: &[&str],
    env: &[(&str, String)],
) -> (bool, String) {
    let node_bin = dir.join("node_modules/node/bin");
    let path = format!(
        "{}:{}",
        node_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(dir.join("node_modules/.bin/conformance"));
    // The scenarios call tools by their bare names, as 0.27.4 declared them.
    cmd.args(args)
        .env("PATH", &path)
        .env("GEMINI_RS_DIALECT", "0.27")
        .current_dir(&sb.work);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let passed = text.contains(" 0 failed") || text.contains("Baseline check passed");
    (out.status.success() && passed, text)
}

/// The server scenarios of the suite (0.2.0-alpha.12) that apply to a
/// server of gemini-rs's own tools, by the revision they are scored at.
const SERVER_SCENARIOS: &[(&str, &[&str])] = &[
    (
        "2025-11-25",
        &[
            "server-initialize",
            "server-session-lifecycle",
            "ping",
            "tools-list",
            "logging-set-level",
            "server-sse-multiple-streams",
            "server-sse-polling",
            "dns-rebinding-protection",
        ],
    ),
    (
        "2026-07-28",
        &[
            "server-stateless",
            "tools-list",
            "server-sse-multiple-streams",
            "dns-rebinding-protection",
            "caching",
            "http-header-validation",
            "sep-2164-resource-not-found",
            "input-required-result-unsupported-methods",
        ],
    ),
];

/// The server scenarios left out, and why: each needs the suite's own
/// fixture server (its `test_*` tools, prompts, resources, completions,
/// sampling or elicitation test tools), which a server of gemini-rs's
/// built-in tools does not have. A trailing `*` matches a prefix.
const SERVER_EXCLUDED: &[(&str, &str)] = &[
    (
        "completion-complete",
        "completions of the fixture's test prompt",
    ),
    ("tools-call-*", "the fixture's test_* tools"),
    (
        "json-schema-2020-12",
        "the fixture's json_schema_2020_12_tool",
    ),
    (
        "elicitation-sep1034-defaults",
        "the fixture's elicitation test tool",
    ),
    (
        "elicitation-sep1330-enums",
        "the fixture's elicitation test tool",
    ),
    (
        "resources-*",
        "the fixture's test:// resources and subscriptions",
    ),
    ("prompts-*", "the fixture's test prompts"),
    (
        "http-custom-header-server-validation",
        "a tool with x-mcp-header parameters",
    ),
    (
        "input-required-result-*",
        "the fixture's MRTR test tools and prompt",
    ),
];

fn excluded(scenario: &str) -> bool {
    SERVER_EXCLUDED
        .iter()
        .any(|(name, _)| match name.strip_suffix('*') {
            Some(prefix) => scenario.starts_with(prefix),
            None => scenario == *name,
        })
}

/// Every server scenario the suite lists at `version` is either run or
/// left out above with its reason (a new scenario is not missed).
fn check_coverage(dir: &std::path::Path, sb: &Sandbox, version: &str, run: &[&str]) {
    let (_, listed) = conformance(
        dir,
        sb,
        &["list", "--server", "--spec-version", version],
        &[],
    );
    let scenarios: Vec<&str> = listed
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(!scenarios.is_empty(), "{listed}");
    for scenario in scenarios {
        assert!(
            run.contains(&scenario) || excluded(scenario),
            "{version}: server scenario {scenario} is neither run nor excluded"
        );
    }
}

/// The checks of applicable scenarios that only the suite's fixture server
/// can exercise ("Not testable" without its diagnostic tools).
const BASELINE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/mcp-conformance-baseline.yml"
);

/// Runs `scenarios` at `version` against `url`, all at once; the failures.
fn run_server_scenarios(
    dir: &std::path::Path,
    sb: &Sandbox,
    url: &str,
    version: &str,
    scenarios: &[&str],
) -> Vec<String> {
    std::thread::scope(|scope| {
        // Collected so that all start before the first join.
        #[allow(clippy::needless_collect)]
        let handles: Vec<_> = scenarios
            .iter()
            .map(|scenario| {
                scope.spawn(move || {
                    let mut args = vec![
                        "server",
                        "--url",
                        url,
                        "--scenario",
                        scenario,
                        "--spec-version",
                        version,
                    ];
                    // Only where a check needs the fixture: a baseline
                    // also fails a scenario on its warnings (SHOULDs).
                    if ["server-stateless", "caching"].contains(scenario) {
                        args.extend(["--expected-failures", BASELINE]);
                    }
                    (*scenario, conformance(dir, sb, &args, &[]))
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| {
                let (scenario, (ok, text)) = h.join().unwrap();
                (!ok).then(|| format!("{version} {scenario}:\n{text}"))
            })
            .collect()
    })
}

/// `mcp serve --port` at both revisions: the workspace's files offered as
/// resources, so that the resource scenario reads from a real list.
#[test]
fn conformance_server_scenarios() {
    let Some(dir) = conformance_dir() else { return };
    let sb = Sandbox::new();
    let served = super::serve_http_with(&sb, &["--approval-mode", "default", "--resources"]);
    let url = format!("http://127.0.0.1:{}/mcp", served.port);
    let mut failures = Vec::new();
    for (version, scenarios) in SERVER_SCENARIOS {
        check_coverage(&dir, &sb, version, scenarios);
        failures.extend(run_server_scenarios(&dir, &sb, &url, version, scenarios));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The client under test: writes the settings for the scenario's server
/// (the context's pre-registered client into `oauth`, a client ID metadata
/// document URL for servers that take one), then runs `mcp list` or a
/// whole headless session.
const CLIENT_SH: &str = r#"#!/bin/sh
for url in "$@"; do :; done
python3 - "$url" <<'PY'
import json, os, sys
ctx = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
oauth = {"clientMetadataUrl": "https://conformance-test.local/client-metadata.json"}
if ctx.get("client_id"):
    oauth["clientId"] = ctx["client_id"]
if ctx.get("client_secret"):
    oauth["clientSecret"] = ctx["client_secret"]
settings = {"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "mcpServers": {"conf": {"httpUrl": sys.argv[1], "trust": True, "timeout": 20000, "oauth": oauth}}}
with open(os.path.join(os.environ["GEMINI_CLI_HOME"], ".gemini", "settings.json"), "w") as f:
    json.dump(settings, f)
PY
cd "$GEMINI_CLI_HOME"
if [ "$CONFORMANCE_MODE" = list ]; then
  exec "$GEMINI_RS" mcp list
fi
exec "$GEMINI_RS" --approval-mode=yolo -p go </dev/null
"#;

/// The user's part of a login: "opens" the authorization URL by following
/// its redirects, which end at gemini-rs's loopback callback.
const BROWSER_PY: &str = r#"#!/usr/bin/env python3
import sys, urllib.request
urllib.request.urlopen(sys.argv[1], timeout=30).read()
"#;

pub(super) fn executable(sb: &Sandbox, name: &str, text: &str) -> String {
    let path = sb.write(name, text);
    let mut perms = std::fs::metadata(&path).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&path, perms).unwrap();
    path.display().to_string()
}

/// Runs one client scenario; the fake model's function responses come back.
fn client_scenario(dir: &std::path::Path, case: &Case) -> (bool, String, Vec<serde_json::Value>) {
    let sb = Sandbox::new();
    let turns = match case.calls.is_empty() {
        false => {
            let parts: Vec<_> = case
                .calls
                .iter()
                .map(|(name, args)| json!({"functionCall": {"name": name, "args": args}}))
                .collect();
            vec![crate::e2e::turn(json!(parts)), crate::e2e::text("done")]
        }
        true => vec![crate::e2e::text("unused")],
    };
    let fake = gemini_rs_test_support::FakeServer::replaying(&crate::e2e::lines(&turns));
    let mut model_url = fake.base_url.clone();
    let mut echo = None;
    if case.scenario == "json-schema-2020-12-preservation" {
        let (child, url) = echo_model(&sb);
        (echo, model_url) = (Some(child), url);
    }
    let command = executable(&sb, "client.sh", CLIENT_SH);
    let browser = executable(&sb, "browser.py", BROWSER_PY);
    let mode = if case.calls.is_empty() && echo.is_none() {
        "list"
    } else {
        "agent"
    };
    let env = vec![
        ("GEMINI_RS", env!("CARGO_BIN_EXE_gemini-rs").to_string()),
        ("GEMINI_CLI_HOME", sb.home.display().to_string()),
        ("HOME", sb.home.display().to_string()),
        ("GEMINI_CLI_TRUST_WORKSPACE", "true".to_string()),
        ("GEMINI_API_KEY", "dummy".to_string()),
        ("GOOGLE_GEMINI_BASE_URL", model_url),
        (
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
            sb.home.join("none.json").display().to_string(),
        ),
        ("CONFORMANCE_MODE", mode.to_string()),
        ("BROWSER", browser),
    ];
    let mut args = vec![
        "client",
        "--command",
        &command,
        "--scenario",
        &case.scenario,
        "--timeout",
        "60000",
    ];
    if let Some(version) = case.version {
        args.extend(["--spec-version", version]);
    }
    let (ok, mut text) = conformance(dir, &sb, &args, &env);
    if let Some(mut child) = echo {
        let _ = child.kill();
        let _ = child.wait();
    }
    let tokens = sb.home.join(".gemini/mcp-oauth-tokens.json");
    let refused = REFUSED_LOGINS.contains(&case.scenario.as_str());
    let login_missing = case.scenario.starts_with("auth/") && !refused && !tokens.exists();
    if login_missing {
        text.push_str("\nno token file after the login");
    }
    (ok && !login_missing, text, fake.function_responses())
}

/// Every client scenario at both revisions: `initialize` and the
/// metadata ones through `mcp list`, the others through a headless
/// session whose (fake) model calls the scenario's tools; the OAuth ones
/// log in through a `$BROWSER` that follows the redirects. Six at a time.
#[test]
fn conformance_client_scenarios() {
    let Some(dir) = conformance_dir() else { return };
    let cases = client_cases();
    // Every client scenario the suite lists at each revision is run at it.
    let sb = Sandbox::new();
    for version in ["2025-11-25", "2026-07-28"] {
        let args = ["list", "--client", "--spec-version", version];
        let (_, listed) = conformance(&dir, &sb, &args, &[]);
        let scenarios: Vec<&str> = listed
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- "))
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert!(!scenarios.is_empty(), "{listed}");
        for scenario in scenarios {
            assert!(
                cases
                    .iter()
                    .any(|c| c.scenario == scenario && c.version == Some(version)),
                "client scenario {scenario} is not run at {version}"
            );
        }
    }
    let mut failures = Vec::new();
    for chunk in cases.chunks(6) {
        let results: Vec<_> = std::thread::scope(|scope| {
            // Collected so that all start before the first join.
            #[allow(clippy::needless_collect)]
            let handles: Vec<_> = chunk
                .iter()
                .map(|case| {
                    let dir = &dir;
                    scope.spawn(move || (case, client_scenario(dir, case)))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (case, (ok, text, responses)) in results {
            let version = case.version.unwrap_or("own revision");
            if !ok {
                failures.push(format!("{} at {version}:\n{text}", case.scenario));
            }
            if case.scenario == "tools_call"
                && !responses
                    .iter()
                    .any(|r| r.to_string().contains("The sum of 5 and 3 is 8"))
            {
                failures.push(format!("tools_call at {version}: {responses:?}"));
            }
            // After a login the server's tool is listed and called: the
            // model gets its answer, not an error.
            // (`scope-retry-limit`'s server never grants enough: the client
            // gives up after three logins and the tool stays out of reach.)
            let scenario = case.scenario.as_str();
            let logged_in = scenario.starts_with("auth/")
                && !REFUSED_LOGINS.contains(&scenario)
                && scenario != "auth/scope-retry-limit";
            let called = responses.iter().any(|r| {
                let r = &r["functionResponse"];
                r["name"] == "test-tool" && r["response"].get("error").is_none()
            });
            if logged_in && !called {
                failures.push(format!(
                    "{scenario} at {version}: test-tool not called: {responses:?}"
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
