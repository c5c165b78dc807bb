//! `gemini-rs mcp add|remove|list|serve`, run for real. Peers that are not
//! installed (server-everything, the conformance suite) skip their tests
//! with a note, or fail them on CI (`support::peer_missing`).

mod conformance;
mod conformance_cases;
mod everything;
mod late;
mod lifecycle;
mod oauth;
mod serve_edges;
pub mod tasks;

use crate::support::{Sandbox, peer_missing};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

pub fn everything_bin() -> Option<PathBuf> {
    let rel = "node_modules/.bin/mcp-server-everything";
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = std::env::var_os("GEMINI_RS_MCP_EVERYTHING")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/mcp-peer").join(rel)])
        .find(|p| p.exists());
    if found.is_none() {
        peer_missing(
            "@modelcontextprotocol/server-everything",
            "npm install --prefix target/mcp-peer @modelcontextprotocol/server-everything, or set GEMINI_RS_MCP_EVERYTHING",
        );
    }
    found
}

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn add_and_remove_edit_the_settings_files() {
    let sb = Sandbox::new();
    sb.write(
        ".gemini/settings.json",
        "{\n  // keep me\n  \"model\": {\"name\": \"m\"}\n}\n",
    );
    let out = sb.run(
        &[
            "mcp",
            "add",
            "-e",
            "A=1",
            "-e",
            "B=x=y",
            "--timeout",
            "5000",
            "--trust",
            "--include-tools",
            "a,b",
            "srv",
            "npx",
            "-y",
            "some-server",
            "--flag",
        ],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("MCP server \"srv\" added to project settings. (stdio)"),
        "{out:?}"
    );
    assert!(out.stdout.contains("comments"), "{out:?}");
    let project = read_json(&sb.work.join(".gemini/settings.json"));
    assert_eq!(project["model"]["name"], "m");
    assert_eq!(
        project["mcpServers"]["srv"],
        json!({"command": "npx", "args": ["-y", "some-server", "--flag"], "env": {"A": "1", "B": "x=y"},
               "timeout": 5000, "trust": true, "includeTools": ["a", "b"]})
    );

    let out = sb.run(
        &[
            "mcp",
            "add",
            "-s",
            "user",
            "-t",
            "http",
            "-H",
            "X-Api-Key: abc",
            "--exclude-tools",
            "z",
            "remote",
            "http://127.0.0.1:1/mcp",
        ],
        None,
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stdout
            .contains("MCP server \"remote\" added to user settings. (http)"),
        "{out:?}"
    );
    let user = read_json(&sb.home.join(".gemini/settings.json"));
    assert_eq!(
        user["mcpServers"]["remote"],
        json!({"url": "http://127.0.0.1:1/mcp", "type": "http", "headers": {"X-Api-Key": "abc"}, "excludeTools": ["z"]})
    );

    let out = sb.run(
        &["mcp", "add", "-t", "sse", "srv", "http://h/sse"],
        None,
        &[],
    );
    assert!(
        out.stdout
            .contains("MCP server \"srv\" is already configured within project settings."),
        "{out:?}"
    );
    assert!(
        out.stdout
            .contains("MCP server \"srv\" updated in project settings."),
        "{out:?}"
    );

    let out = sb.run(&["mcp", "remove", "srv"], None, &[]);
    assert_eq!(
        out.stdout.trim(),
        "Server \"srv\" removed from project settings."
    );
    let out = sb.run(&["mcp", "remove", "srv"], None, &[]);
    assert_eq!(
        out.stdout.trim(),
        "Server \"srv\" not found in project settings."
    );
    let out = sb.run(&["mcp", "remove", "--scope", "user", "remote"], None, &[]);
    assert_eq!(
        out.stdout.trim(),
        "Server \"remote\" removed from user settings."
    );
    assert_eq!(
        read_json(&sb.home.join(".gemini/settings.json"))["mcpServers"],
        json!({})
    );
}

#[test]
fn list_reports_status_and_tools() {
    let sb = Sandbox::new();
    let out = sb.run(&["mcp", "list"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stderr.trim(), "No MCP servers configured.");

    let mut servers = json!({"broken": {"command": "/nonexistent/server"}});
    let everything = everything_bin();
    if let Some(bin) = &everything {
        servers["everything"] = json!({"command": bin.display().to_string(), "args": ["stdio"]});
    }
    sb.write(
        ".gemini/settings.json",
        &json!({"mcpServers": servers}).to_string(),
    );
    sb.write_home(
        ".gemini/extensions/ext/gemini-extension.json",
        &json!({"name": "ext", "version": "1.0.0", "mcpServers": {"extsrv": {"command": "/nonexistent/ext"}}}).to_string(),
    );
    let out = sb.run(&["mcp", "list"], None, &[]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stderr.contains("Configured MCP servers:"), "{out:?}");
    assert!(
        out.stderr
            .contains("✗ broken: /nonexistent/server  (stdio) - Disconnected"),
        "{out:?}"
    );
    assert!(
        out.stderr
            .contains("✗ extsrv (from ext): /nonexistent/ext  (stdio) - Disconnected"),
        "{out:?}"
    );
    if let Some(bin) = &everything {
        let line = format!("✓ everything: {} stdio (stdio) - Connected", bin.display());
        assert!(out.stderr.contains(&line), "{out:?}");
    }
}

/// Pipes JSON-RPC lines into `mcp serve` and returns the answers by id.
fn serve_stdio(sb: &Sandbox, mode: &str, requests: &[Value]) -> Vec<Value> {
    serve_stdio_with(sb, &["--approval-mode", mode], requests)
}

/// [`serve_stdio`] with other `mcp serve` arguments.
fn serve_stdio_with(sb: &Sandbox, args: &[&str], requests: &[Value]) -> Vec<Value> {
    let mut input = String::new();
    input.push_str(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}).to_string());
    input.push('\n');
    input.push_str("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    for r in requests {
        input.push_str(&r.to_string());
        input.push('\n');
    }
    let mut all = vec!["mcp", "serve"];
    all.extend_from_slice(args);
    let out = sb.run(&all, Some(&input), &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let mut answers: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    answers.sort_by_key(|a| a["id"].as_i64().unwrap_or(-1));
    answers
}

fn call(id: i64, name: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}})
}

#[test]
fn serve_stdio_default_mode_runs_read_only_tools() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "hello from the workspace\n");
    let answers = serve_stdio(
        &sb,
        "default",
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            call(
                2,
                "read_file",
                json!({"absolute_path": sb.work.join("notes.txt").display().to_string()}),
            ),
            call(
                3,
                "write_file",
                json!({"file_path": sb.work.join("new.txt").display().to_string(), "content": "x"}),
            ),
            call(4, "read_file", json!({"absolute_path": "/etc/passwd"})),
            call(5, "no_such_tool", json!({})),
            json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
        ],
    );
    let by_id = |id: i64| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .unwrap_or_else(|| panic!("no answer {id}: {answers:?}"))
    };
    assert_eq!(by_id(0)["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(by_id(0)["result"]["serverInfo"]["name"], "gemini-rs");
    let tools = by_id(1)["result"]["tools"].as_array().unwrap();
    let read = tools.iter().find(|t| t["name"] == "read_file").unwrap();
    assert_eq!(read["inputSchema"]["type"], "object");
    assert!(tools.iter().any(|t| t["name"] == "run_shell_command"));
    assert_eq!(by_id(2)["result"]["isError"], false, "{:?}", by_id(2));
    assert!(
        by_id(2)["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("hello from the workspace")
    );
    assert_eq!(by_id(3)["result"]["isError"], true);
    assert_eq!(
        by_id(3)["result"]["content"][0]["text"],
        "Tool \"write_file\" requires confirmation, which \"gemini-rs mcp serve\" does not support in approval mode default; start it with --approval-mode=auto_edit or yolo."
    );
    assert!(!sb.work.join("new.txt").exists());
    assert_eq!(
        by_id(4)["result"]["isError"],
        true,
        "outside the workspace: {:?}",
        by_id(4)
    );
    assert_eq!(by_id(5)["error"]["code"], -32602);
    assert_eq!(by_id(6)["result"], json!({}));
}

#[test]
fn serve_stdio_auto_edit_and_yolo_widen() {
    let sb = Sandbox::new();
    let file = sb.work.join("new.txt").display().to_string();
    let answers = serve_stdio(
        &sb,
        "auto_edit",
        &[
            call(
                1,
                "write_file",
                json!({"file_path": file, "content": "written\n"}),
            ),
            call(2, "run_shell_command", json!({"command": "echo hi"})),
        ],
    );
    assert_eq!(answers[1]["result"]["isError"], false, "{answers:?}");
    assert_eq!(sb.read("new.txt").as_deref(), Some("written\n"));
    assert_eq!(answers[2]["result"]["isError"], true, "{answers:?}");
    let answers = serve_stdio(
        &sb,
        "yolo",
        &[call(
            1,
            "run_shell_command",
            json!({"command": "echo from-shell"}),
        )],
    );
    assert_eq!(answers[1]["result"]["isError"], false, "{answers:?}");
    assert!(
        answers[1]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("from-shell")
    );
}

/// `mcp serve --port 0` in the sandbox; the port it printed.
pub(super) struct Served {
    child: Child,
    pub(super) port: u16,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn serve_http(sb: &Sandbox, mode: &str) -> Served {
    serve_http_with(sb, &["--approval-mode", mode])
}

/// `mcp serve --port 0` with `args` after it.
pub(super) fn serve_http_with(sb: &Sandbox, args: &[&str]) -> Served {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gemini-rs"))
        .current_dir(&sb.work)
        .env("HOME", &sb.home)
        .env("GEMINI_CLI_HOME", &sb.home)
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
        .env("GEMINI_CLI_SYSTEM_SETTINGS_PATH", sb.home.join("none.json"))
        .args(["mcp", "serve", "--port", "0"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let line = lines.next().unwrap().unwrap();
    let port = line
        .rsplit(':')
        .next()
        .and_then(|p| p.trim_end_matches("/mcp").parse().ok())
        .unwrap_or_else(|| panic!("no port in {line}"));
    std::thread::spawn(move || for _ in lines {});
    Served { child, port }
}

#[test]
fn serve_http_with_our_own_client() {
    let sb = Sandbox::new();
    sb.write("notes.txt", "over http\n");
    let served = serve_http(&sb, "default");
    let url = format!("http://127.0.0.1:{}/mcp", served.port);
    // A second project whose only MCP server is the first one's `mcp serve`.
    let client = Sandbox::new();
    client.settings(&json!({"mcpServers": {"self": {"httpUrl": url, "timeout": 20000}}}));
    let listed = client.run(&["mcp", "list"], None, &[]);
    assert_eq!(listed.code, 0, "{listed:?}");
    assert!(
        listed
            .stderr
            .contains(&format!("✓ self: {url} (http) - Connected")),
        "{listed:?}"
    );
    // The model of the second project calls the served read_file.
    let notes = sb.work.join("notes.txt").display().to_string();
    let responses = crate::e2e::lines(&[
        crate::e2e::call("self__read_file", json!({"file_path": notes})),
        crate::e2e::text("done"),
    ]);
    client.write("r.responses", &responses);
    let run = client.run(
        &[
            "--fake-responses",
            "r.responses",
            "-y",
            "-o",
            "json",
            "-p",
            "read it",
        ],
        None,
        &[("GEMINI_API_KEY", "dummy")],
    );
    assert_eq!(run.code, 0, "{run:?}");
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(out["stats"]["tools"]["totalSuccess"], 1, "{run:?}");
}

#[test]
fn serve_resources_offers_the_workspace_files_read_only() {
    let sb = Sandbox::new();
    sb.write("notes/a.md", "# A\n");
    sb.write("img.png", "\u{89}PNG\r\n");
    sb.write(".geminiignore", "secret.txt\n");
    sb.write("secret.txt", "hidden");
    let uri = |rel: &str| format!("file://{}", sb.work.join(rel).display());
    let read = |id: i64, u: String| json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": {"uri": u}});
    let answers = serve_stdio_with(
        &sb,
        &["--resources"],
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"}),
            read(2, uri("notes/a.md")),
            read(3, "file:///etc/passwd".into()),
            read(4, uri("secret.txt")),
            json!({"jsonrpc": "2.0", "id": 5, "method": "resources/templates/list"}),
        ],
    );
    assert!(answers[0]["result"]["capabilities"]["resources"].is_object());
    let listed: Vec<&str> = answers[1]["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert!(
        listed.contains(&"notes/a.md") && listed.contains(&"img.png"),
        "{listed:?}"
    );
    assert!(!listed.contains(&"secret.txt"), "{listed:?}");
    assert_eq!(answers[2]["result"]["contents"][0]["text"], "# A\n");
    assert_eq!(answers[3]["error"]["code"], -32002, "{}", answers[3]);
    assert_eq!(answers[4]["error"]["code"], -32002, "{}", answers[4]);
    assert_eq!(
        answers[5]["result"]["resourceTemplates"][0]["uriTemplate"],
        "file:///{path}"
    );
    // Without --resources, no resources.
    let plain = serve_stdio(
        &sb,
        "default",
        &[json!({"jsonrpc": "2.0", "id": 1, "method": "resources/list"})],
    );
    assert!(
        plain[0]["result"]["capabilities"]
            .get("resources")
            .is_none()
    );
    assert_eq!(plain[1]["error"]["code"], -32601);
}
