//! Logging in to OAuth-protected MCP servers through the binary, against
//! the conformance suite's authorization and resource servers: `mcp auth`
//! once then `mcp list` on the stored token, "needs authentication"
//! without a browser, a callback with the wrong `state`, an expired token
//! whose refresh is refused, and an authorization server answering
//! garbage.

use super::conformance::{conformance, conformance_dir, executable};
use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use std::path::Path;

/// Runs `steps` (shell lines, `$GEMINI_RS` and `$url` set, output to
/// `$GEMINI_CLI_HOME/out.txt`) as the client of the `auth/metadata-default`
/// scenario; what they printed.
fn run(sb: &Sandbox, dir: &Path, steps: &str, browser: Option<&str>) -> String {
    let script = format!(
        r#"#!/bin/sh
for url in "$@"; do :; done
cat > "$GEMINI_CLI_HOME/.gemini/settings.json" <<EOF
{{"mcpServers": {{"conf": {{"httpUrl": "$url", "timeout": 20000}}}}}}
EOF
cd "$GEMINI_CLI_HOME"
{{
{steps}
}} > "$GEMINI_CLI_HOME/out.txt" 2>&1
"#
    );
    let command = executable(sb, "client.sh", &script);
    let mut env = vec![
        ("GEMINI_RS", env!("CARGO_BIN_EXE_gemini-rs").to_string()),
        ("GEMINI_CLI_HOME", sb.home.display().to_string()),
        ("HOME", sb.home.display().to_string()),
        ("GEMINI_CLI_TRUST_WORKSPACE", "true".to_string()),
        (
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
            sb.home.join("none.json").display().to_string(),
        ),
    ];
    if let Some(b) = browser {
        env.push(("BROWSER", b.to_string()));
    }
    conformance(
        dir,
        sb,
        &[
            "client",
            "--command",
            &command,
            "--scenario",
            "auth/metadata-default",
        ],
        &env,
    );
    std::fs::read_to_string(sb.home.join("out.txt")).unwrap_or_default()
}

fn browser(sb: &Sandbox, body: &str) -> String {
    executable(
        sb,
        "browser.py",
        &format!("#!/usr/bin/env python3\nimport sys, urllib.request, urllib.parse\n{body}\n"),
    )
}

const FOLLOW: &str = "urllib.request.urlopen(sys.argv[1], timeout=30).read()";

fn tokens(sb: &Sandbox) -> serde_json::Value {
    let text = std::fs::read_to_string(sb.home.join(".gemini/mcp-oauth-tokens.json"))
        .unwrap_or_else(|_| "[]".into());
    serde_json::from_str(&text).unwrap()
}

#[test]
fn log_in_once_then_use_the_stored_token() {
    let Some(dir) = conformance_dir() else { return };
    let sb = Sandbox::new();
    let b = browser(&sb, FOLLOW);
    let out = run(
        &sb,
        &dir,
        "\"$GEMINI_RS\" mcp auth conf\nenv -u BROWSER \"$GEMINI_RS\" mcp list",
        Some(&b),
    );
    assert!(
        out.contains("Authenticated with MCP server 'conf'."),
        "{out}"
    );
    // `mcp list` names no tools (0.61's listing); connected is the token at work.
    assert!(out.contains("- Connected"), "{out}");
    let list = tokens(&sb);
    assert_eq!(list[0]["serverName"], "conf", "{list}");
    assert!(list[0]["token"]["accessToken"].is_string(), "{list}");
    assert!(list[0]["clientId"].is_string(), "{list}");
    assert!(
        list[0]["tokenUrl"].as_str().unwrap().ends_with("/token"),
        "{list}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sb.home.join(".gemini/mcp-oauth-tokens.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let out = run(&sb, &dir, "\"$GEMINI_RS\" mcp auth --logout conf", None);
    assert!(out.contains("Logged out of 'conf'."), "{out}");
    assert_eq!(tokens(&sb), serde_json::json!([]));
}

#[test]
fn without_a_browser_the_server_needs_authentication() {
    let Some(dir) = conformance_dir() else { return };
    let sb = Sandbox::new();
    let out = run(&sb, &dir, "\"$GEMINI_RS\" mcp list", None);
    assert!(
        out.contains("conf: ") && out.contains("- Needs authentication"),
        "{out}"
    );
    assert!(out.contains("Run: gemini-rs mcp auth conf"), "{out}");
    // `mcp auth` prints the URL to open by hand, then waits for it.
    let out = run(
        &sb,
        &dir,
        "timeout 5 env -u BROWSER -u DISPLAY \"$GEMINI_RS\" mcp auth conf",
        None,
    );
    assert!(
        out.contains("Open this URL in a browser to authorize 'conf':"),
        "{out}"
    );
    assert!(out.contains("response_type=code"), "{out}");
}

#[test]
fn a_callback_with_the_wrong_state_is_refused() {
    let Some(dir) = conformance_dir() else { return };
    let sb = Sandbox::new();
    // Take the code from the authorization server's redirect, send it back
    // with another state.
    let b = browser(
        &sb,
        r#"class Stop(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a):
        return None
try:
    urllib.request.build_opener(Stop).open(sys.argv[1], timeout=30)
except urllib.error.HTTPError as e:
    to = urllib.parse.urlparse(e.headers["Location"])
    q = dict(urllib.parse.parse_qsl(to.query))
    q["state"] = "forged"
    target = to._replace(query=urllib.parse.urlencode(q)).geturl()
    try:
        urllib.request.urlopen(target, timeout=30).read()
    except Exception:
        pass"#,
    );
    let out = run(&sb, &dir, "\"$GEMINI_RS\" mcp list", Some(&b));
    // 0.61's listing gives no reason; that no token was kept is the check.
    assert!(out.contains("- Disconnected"), "{out}");
    assert!(
        tokens(&sb).as_array().unwrap().is_empty(),
        "no token was kept"
    );
}

#[test]
fn an_expired_token_whose_refresh_is_refused_logs_in_again() {
    let Some(dir) = conformance_dir() else { return };
    let sb = Sandbox::new();
    sb.write_home(
        ".gemini/mcp-oauth-tokens.json",
        r#"[{"serverName": "conf", "token": {"accessToken": "old", "tokenType": "Bearer",
            "refreshToken": "stale", "expiresAt": 1000}, "clientId": "gone",
            "tokenUrl": "http://127.0.0.1:9/token", "mcpServerUrl": "x", "updatedAt": 1}]"#,
    );
    let b = browser(&sb, FOLLOW);
    let out = run(&sb, &dir, "\"$GEMINI_RS\" mcp list", Some(&b));
    assert!(out.contains("- Connected"), "{out}");
    let list = tokens(&sb);
    assert_ne!(list[0]["token"]["accessToken"], "old", "{list}");
}

/// An MCP server whose authorization metadata is garbage: every POST (and
/// the legacy SSE stream) asks for authorization, every other GET answers
/// JSON that does not parse.
fn garbage_server() -> FakeServer {
    let server = FakeServer::builder().start();
    let metadata = server.url("/.well-known/oauth-protected-resource");
    let unauthorized = Reply::untyped(401, "{}").header(
        "WWW-Authenticate",
        &format!("Bearer resource_metadata=\"{metadata}\""),
    );
    server.route("POST /*", unauthorized.clone());
    server.route("GET /sse", unauthorized);
    server.route("GET /*", Reply::json(200, "{not json"));
    server
}

#[test]
fn garbage_from_the_authorization_server_is_reported_and_the_session_goes_on() {
    let sb = Sandbox::new();
    let server = garbage_server();
    let url = server.url("/mcp");
    let fake = FakeServer::replaying(&crate::e2e::lines(&[crate::e2e::text("still here")]));
    sb.settings(&serde_json::json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"bad": {"httpUrl": url, "timeout": 10000},
            "bad-sse": {"url": url.replace("/mcp", "/sse"), "type": "sse", "timeout": 10000}}}));
    let b = browser(&sb, FOLLOW);
    let out = sb.run(
        &["-p", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url), ("BROWSER", &b)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.contains("still here"), "{out:?}");
    for server in ["bad", "bad-sse"] {
        let line = format!("Error connecting to MCP server '{server}': authentication failed");
        assert!(out.stderr.contains(&line), "{}", out.stderr);
    }
}

#[test]
fn mcp_auth_in_the_terminal_shows_the_url_and_logs_in() {
    let Some(dir) = conformance_dir() else { return };
    if !crate::tui::tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return;
    }
    let sb = Sandbox::new();
    // Inside the scenario: the UI in tmux without a browser, `/mcp auth
    // conf`, then the URL it shows is followed the way a browser would.
    let steps = r#"sock="$GEMINI_CLI_HOME/tmux.sock"
tmux -S "$sock" -f /dev/null new-session -d -s ui -x 200 -y 50 "env -u BROWSER -u DISPLAY GEMINI_API_KEY=dummy '$GEMINI_RS'; sleep 30"
screen() { tmux -S "$sock" capture-pane -p -J -t ui -S -200; }
wait_for() { for i in $(seq 1 100); do screen | grep -q "$1" && return 0; sleep 0.1; done; echo "TIMEOUT $1"; screen; return 1; }
wait_for "Needs authentication\|needs authentication"
tmux -S "$sock" send-keys -t ui -l "/mcp auth conf"
tmux -S "$sock" send-keys -t ui Enter
wait_for "response_type=code"
# The URL is wrapped to the screen's width: join its lines.
url=$(screen | awk "/authorize 'conf':/ {on=1; next} on && /^  [^ ]/ {printf \"%s\", \$1; next} on {exit}")
python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=30).read()" "$url"
wait_for "Authenticated with MCP server 'conf'"
screen
tmux -S "$sock" kill-server"#;
    let out = run(&sb, &dir, steps, None);
    assert!(!out.contains("TIMEOUT"), "{out}");
    assert!(
        out.contains(
            "Authenticated with MCP server 'conf'. Its tools are available from the next session."
        ),
        "{out}"
    );
    assert!(tokens(&sb)[0]["token"]["accessToken"].is_string());
}
