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

fn conformance_dir() -> Option<PathBuf> {
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
fn conformance(
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
    cmd.args(args).env("PATH", &path).current_dir(&sb.work);
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

const CLIENT_SH: &str = r#"#!/bin/sh
for url in "$@"; do :; done
cat > "$GEMINI_CLI_HOME/.gemini/settings.json" <<EOF
{"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
 "security": {"auth": {"selectedType": "gemini-api-key"}},
 "mcpServers": {"conf": {"httpUrl": "$url", "trust": true, "timeout": 20000}}}
EOF
cd "$GEMINI_CLI_HOME"
if [ "$CONFORMANCE_MODE" = list ]; then
  exec "$GEMINI_RS" mcp list
fi
exec "$GEMINI_RS" --approval-mode=yolo -p go </dev/null
"#;

/// The client side: `initialize` through `mcp list`, `tools_call` through
/// a whole headless session whose (fake) model calls `add_numbers`.
#[test]
fn conformance_client_scenarios() {
    let Some(dir) = conformance_dir() else { return };
    let sb = Sandbox::new();
    let fake = crate::fake_gemini::FakeGemini::start(&crate::e2e::lines(&[
        crate::e2e::call("add_numbers", json!({"a": 5, "b": 3})),
        crate::e2e::text("done"),
    ]));
    let script = sb.write("client.sh", CLIENT_SH);
    let mut perms = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap();
    let env = |mode: &str| {
        vec![
            ("GEMINI_RS", env!("CARGO_BIN_EXE_gemini-rs").to_string()),
            ("GEMINI_CLI_HOME", sb.home.display().to_string()),
            ("HOME", sb.home.display().to_string()),
            ("GEMINI_API_KEY", "dummy".to_string()),
            ("GOOGLE_GEMINI_BASE_URL", fake.base_url.clone()),
            (
                "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
                sb.home.join("none.json").display().to_string(),
            ),
            ("CONFORMANCE_MODE", mode.to_string()),
        ]
    };
    let command = script.display().to_string();
    let (ok, text) = conformance(
        &dir,
        &sb,
        &["client", "--command", &command, "--scenario", "initialize"],
        &env("list"),
    );
    assert!(ok && text.contains("Passed: 1/1"), "initialize:\n{text}");
    let (ok, text) = conformance(
        &dir,
        &sb,
        &["client", "--command", &command, "--scenario", "tools_call"],
        &env("agent"),
    );
    assert!(ok && text.contains("Passed: 1/1"), "tools_call:\n{text}");
    let responses = fake.function_responses();
    assert!(
        responses
            .iter()
            .any(|r| r.to_string().contains("The sum of 5 and 3 is 8")),
        "{responses:?}"
    );
}
