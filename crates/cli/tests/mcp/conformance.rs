//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! run with node 22): server scenarios against `gemini-rs mcp serve
//! --port`, client scenarios against `mcp list` and a whole headless
//! session. Found through `GEMINI_RS_MCP_CONFORMANCE` (a directory with
//! `node_modules/.bin/conformance` and `node_modules/node/bin/node`),
//! or `target/mcp-conformance`; skipped when absent, failed on CI.

use super::serve_http;
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
    (out.status.success() && text.contains(" 0 failed"), text)
}

#[test]
fn conformance_server_scenarios() {
    let Some(dir) = conformance_dir() else { return };
    let sb = Sandbox::new();
    let served = serve_http(&sb, "default");
    let url = format!("http://127.0.0.1:{}/mcp", served.port);
    // The scenarios that apply to a tools-only server without test tools.
    for scenario in [
        "server-initialize",
        "ping",
        "tools-list",
        "logging-set-level",
        "server-sse-multiple-streams",
        "server-sse-polling",
        "dns-rebinding-protection",
    ] {
        let (ok, text) = conformance(
            &dir,
            &sb,
            &["server", "--url", &url, "--scenario", scenario],
            &[],
        );
        assert!(ok, "{scenario}:\n{text}");
    }
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

/// Runs one client scenario: `tool` is what the (fake) model calls, `None`
/// for `mcp list`. The fake model's function responses come back.
fn client_scenario(
    dir: &std::path::Path,
    scenario: &str,
    tool: Option<(&str, serde_json::Value)>,
) -> (bool, String, Vec<serde_json::Value>) {
    let sb = Sandbox::new();
    let turns = match &tool {
        Some((name, args)) => vec![
            crate::e2e::call(name, args.clone()),
            crate::e2e::text("done"),
        ],
        None => vec![crate::e2e::text("unused")],
    };
    let fake = gemini_rs_test_support::FakeServer::replaying(&crate::e2e::lines(&turns));
    let command = executable(&sb, "client.sh", CLIENT_SH);
    let browser = executable(&sb, "browser.py", BROWSER_PY);
    let mode = if tool.is_some() { "agent" } else { "list" };
    let env = vec![
        ("GEMINI_RS", env!("CARGO_BIN_EXE_gemini-rs").to_string()),
        ("GEMINI_CLI_HOME", sb.home.display().to_string()),
        ("HOME", sb.home.display().to_string()),
        ("GEMINI_CLI_TRUST_WORKSPACE", "true".to_string()),
        ("GEMINI_API_KEY", "dummy".to_string()),
        ("GOOGLE_GEMINI_BASE_URL", fake.base_url.clone()),
        (
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
            sb.home.join("none.json").display().to_string(),
        ),
        ("CONFORMANCE_MODE", mode.to_string()),
        ("BROWSER", browser),
    ];
    let (ok, text) = conformance(
        dir,
        &sb,
        &[
            "client",
            "--command",
            &command,
            "--scenario",
            scenario,
            "--timeout",
            "60000",
        ],
        &env,
    );
    let tokens = sb.home.join(".gemini/mcp-oauth-tokens.json");
    if scenario.starts_with("auth/") && ok {
        assert!(tokens.exists(), "{scenario}: no token file");
    }
    (ok, text, fake.function_responses())
}

/// Every non-draft client scenario of the suite: `initialize` through `mcp
/// list`, the others through a headless session whose (fake) model calls
/// the scenario's tool; the OAuth ones log in through a `$BROWSER` that
/// follows the redirects.
#[test]
fn conformance_client_scenarios() {
    let Some(dir) = conformance_dir() else { return };
    let mut scenarios: Vec<(&str, Option<(&str, serde_json::Value)>)> = vec![
        ("initialize", None),
        ("tools_call", Some(("add_numbers", json!({"a": 5, "b": 3})))),
        ("sse-retry", Some(("test_reconnection", json!({})))),
        (
            "elicitation-sep1034-client-defaults",
            Some(("test_client_elicitation_defaults", json!({}))),
        ),
    ];
    for auth in [
        "metadata-default",
        "metadata-var1",
        "metadata-var2",
        "metadata-var3",
        "basic-cimd",
        "scope-from-www-authenticate",
        "scope-from-scopes-supported",
        "scope-omitted-when-undefined",
        "scope-step-up",
        "scope-retry-limit",
        "token-endpoint-auth-basic",
        "token-endpoint-auth-post",
        "token-endpoint-auth-none",
        "pre-registration",
        "2025-03-26-oauth-metadata-backcompat",
        "2025-03-26-oauth-endpoint-fallback",
    ] {
        let name: &'static str = Box::leak(format!("auth/{auth}").into_boxed_str());
        scenarios.push((name, Some(("test-tool", json!({})))));
    }
    // Four at a time.
    let mut failures = Vec::new();
    for chunk in scenarios.chunks(4) {
        let results: Vec<_> = std::thread::scope(|scope| {
            // Collected so that all four start before the first join.
            #[allow(clippy::needless_collect)]
            let handles: Vec<_> = chunk
                .iter()
                .map(|(name, tool)| {
                    let dir = &dir;
                    scope.spawn(move || (*name, client_scenario(dir, name, tool.clone())))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (name, (ok, text, responses)) in results {
            if !ok {
                failures.push(format!("{name}:\n{text}"));
            }
            if name == "tools_call" {
                assert!(
                    responses
                        .iter()
                        .any(|r| r.to_string().contains("The sum of 5 and 3 is 8")),
                    "{responses:?}"
                );
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of 20 failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
