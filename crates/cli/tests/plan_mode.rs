//! Plan mode through the binary: headless `--approval-mode plan` refuses
//! every change but the plan with Gemini CLI 0.61's refusals, keeps plan
//! paths inside the plans folder and ends with the plan; a headless run
//! may enter plan mode itself; hooks and stream-json name the mode.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

/// The permission bits of `path`.
/// Plan mode as today's Gemini CLI has it (0.27.4 needed
/// `experimental.plan`, hid the plan's writes headless and had no
/// `enter_plan_mode`: tests/dialects.rs).
const TODAY: (&str, &str) = ("GEMINI_RS_DIALECT", "today");

fn mode_of(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn settings(sb: &Sandbox, extra: Value) {
    let mut s = json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}});
    if let (Some(s), Some(extra)) = (s.as_object_mut(), extra.as_object()) {
        s.extend(extra.clone());
    }
    sb.settings(&s);
}

fn declared(fake: &FakeServer, request: usize) -> Vec<String> {
    fake.requests()[request].body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect()
}

fn responses(fake: &FakeServer) -> Vec<Value> {
    fake.function_responses()
        .iter()
        .map(|r| r["functionResponse"]["response"].clone())
        .collect()
}

const PLAN: &str = "# Plan\n\n1. Add the flag.\n2. Test it.\n";

#[test]
fn headless_plan_mode_refuses_changes_and_ends_with_the_plan() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let outside = sb.work.join("src.txt").display().to_string();
    let fake = FakeServer::replaying(&lines(&[
        call("run_shell_command", json!({"command": "touch hacked.txt"})),
        call(
            "write_file",
            json!({"file_path": "src.txt", "content": "x"}),
        ),
        call("write_file", json!({"file_path": outside, "content": "x"})),
        call(
            "write_file",
            json!({"file_path": "feature.md", "content": PLAN}),
        ),
        call(
            "exit_plan_mode",
            json!({"plan_filename": "../../outside.md"}),
        ),
        call("exit_plan_mode", json!({"plan_filename": "feature.md"})),
        text("never asked for"),
    ]));
    let out = sb.run(
        &[
            "--approval-mode",
            "plan",
            "-o",
            "stream-json",
            "-p",
            "plan it",
        ],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url), TODAY],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let events: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    assert_eq!(events[0]["type"], "init");
    assert_eq!(events[0]["approval_mode"], "plan");
    let sid = events[0]["session_id"].as_str().unwrap();
    let plans = sb.project_temp_dir().join(sid).join("plans");

    // Reading and the plan only: no shell, no enter_plan_mode.
    let names = declared(&fake, 0);
    for name in ["read_file", "write_file", "replace", "exit_plan_mode"] {
        assert!(names.contains(&name.to_string()), "{name}: {names:?}");
    }
    for name in ["run_shell_command", "enter_plan_mode", "web_fetch"] {
        assert!(!names.contains(&name.to_string()), "{name}: {names:?}");
    }
    let write = &fake.requests()[0].body["tools"][0]["functionDeclarations"]
        [names.iter().position(|n| n == "write_file").unwrap()];
    assert!(
        write["description"]
            .as_str()
            .unwrap()
            .contains(&plans.display().to_string()),
        "{write}"
    );

    let system = fake.requests()[0].body["systemInstruction"]["parts"][0]["text"].to_string();
    assert!(system.contains("# Plan Mode"), "{system}");
    assert!(system.contains(&plans.display().to_string()), "{system}");

    let r = responses(&fake);
    // Plan mode removes the shell, as 0.61 does (the `plan-shell` golden).
    assert!(
        r[0]["error"]
            .as_str()
            .unwrap()
            .starts_with("Tool \"run_shell_command\" not found."),
        "{:?}",
        r[0]
    );
    assert_eq!(
        r[1],
        json!({"error": "Tool execution denied by policy. You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files."})
    );
    assert_eq!(
        r[2],
        json!({"error": format!("Access denied: plan path ({outside}) must be within the designated plans directory ({}).", plans.display())})
    );
    assert!(
        r[3]["output"]
            .as_str()
            .unwrap()
            .contains(&plans.join("feature.md").display().to_string()),
        "{:?}",
        r[3]
    );
    assert_eq!(
        r[4],
        json!({"error": format!("Access denied: plan path (../../outside.md) must be within the designated plans directory ({}).", plans.display())})
    );
    // The run ends with the plan: no request after exit_plan_mode.
    assert_eq!(fake.requests().len(), 6);
    assert!(!sb.work.join("hacked.txt").exists());
    assert!(!sb.work.join("src.txt").exists());
    assert_eq!(
        std::fs::read_to_string(plans.join("feature.md")).unwrap(),
        PLAN
    );
    let last_message = events
        .iter()
        .rev()
        .find(|e| e["type"] == "message")
        .unwrap();
    assert_eq!(last_message["content"], PLAN, "{events:?}");
    assert_eq!(events.last().unwrap()["type"], "result");
    assert_eq!(events.last().unwrap()["status"], "success");
}

#[test]
fn a_headless_run_enters_plan_mode_and_hooks_see_the_mode() {
    let sb = Sandbox::new();
    let hook = sb.write(
        "hook.sh",
        "#!/bin/bash\ncat >> \"$GEMINI_PROJECT_DIR/hook-inputs.jsonl\"\necho >> \"$GEMINI_PROJECT_DIR/hook-inputs.jsonl\"\necho \"$GEMINI_PLANS_DIR\" > \"$GEMINI_PROJECT_DIR/plans-dir.txt\"\necho '{}'\n",
    );
    settings(
        &sb,
        json!({"general": {"plan": {"directory": "docs/plans"}},
            "hooks": {"BeforeTool": [{"matcher": "write_file",
                "hooks": [{"type": "command", "command": format!("bash {}", hook.display())}]}]}}),
    );
    let fake = FakeServer::replaying(&lines(&[
        call("enter_plan_mode", json!({"reason": "a larger change"})),
        call("write_file", json!({"file_path": "p.md", "content": PLAN})),
        call("exit_plan_mode", json!({"plan_filename": "p.md"})),
    ]));
    let out = sb.run(
        &["-p", "plan it"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url), TODAY],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let first = declared(&fake, 0);
    assert!(first.contains(&"enter_plan_mode".to_string()), "{first:?}");
    assert!(!first.contains(&"exit_plan_mode".to_string()), "{first:?}");
    let second = declared(&fake, 1);
    assert!(second.contains(&"exit_plan_mode".to_string()), "{second:?}");
    assert!(
        !second.contains(&"enter_plan_mode".to_string()),
        "{second:?}"
    );
    assert_eq!(
        responses(&fake)[0],
        json!({"output": "Switching to Plan mode."})
    );
    let system = |i: usize| fake.requests()[i].body["systemInstruction"].to_string();
    assert!(!system(0).contains("# Plan Mode"));
    assert!(system(1).contains("# Plan Mode"));
    // The plan folder of `general.plan.directory`, inside the project; a
    // plan is private to the user (issue 41.7), and so is the folder made.
    assert_eq!(sb.read("docs/plans/p.md").as_deref(), Some(PLAN));
    assert_eq!(mode_of(&sb.work.join("docs/plans/p.md")), 0o600);
    assert_eq!(mode_of(&sb.work.join("docs/plans")), 0o700);
    assert!(out.stdout.contains("1. Add the flag."), "{out:?}");
    let input: Value = serde_json::from_str(
        sb.read("hook-inputs.jsonl")
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(input["approval_mode"], "plan", "{input}");
    assert_eq!(
        sb.read("plans-dir.txt").unwrap().trim(),
        sb.work.join("docs/plans").display().to_string()
    );
}

#[test]
fn a_policy_file_rule_targets_plan_mode() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let policy = sb.write(
        "plan-policy.toml",
        "[[rule]]\ntoolName = \"glob\"\ndecision = \"deny\"\npriority = 100\nmodes = [\"plan\"]\ndenyMessage = \"No globbing while planning.\"\n",
    );
    let fake = FakeServer::replaying(&lines(&[
        call("glob", json!({"pattern": "*.md"})),
        text("ok"),
    ]));
    let out = sb.run(
        &[
            "--approval-mode",
            "plan",
            "--policy",
            policy.to_str().unwrap(),
            "-p",
            "look",
        ],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        responses(&fake)[0],
        json!({"error": "Tool execution denied by policy. No globbing while planning."})
    );
    // Declared and refused, as 0.27.4 (the `deny-modes` golden of
    // tests/dialects.rs); today's dialect removes it instead.
    assert!(declared(&fake, 0).contains(&"glob".to_string()));
}

/// A stdio MCP server with a tool it marks read-only (`lookup`) and one it
/// does not (`edit`).
const ANNOTATED_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "docs", "version": "1"}}
    elif method == "tools/list":
        schema = {"type": "object"}
        result = {"tools": [
            {"name": "lookup", "description": "reads", "inputSchema": schema,
             "annotations": {"readOnlyHint": True}},
            {"name": "edit", "description": "writes", "inputSchema": schema,
             "annotations": {"readOnlyHint": False}}]}
    elif method == "tools/call":
        name = msg["params"]["name"]
        result = {"content": [{"type": "text", "text": name + " ran"}]}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\n")
    sys.stdout.flush()
"#;

#[test]
fn a_policy_on_tool_annotations_lets_read_only_mcp_tools_run_while_planning() {
    // Gemini CLI 0.61's documented rule for read-only MCP tools in plan mode.
    let sb = Sandbox::new();
    let script = sb.write_home("docs-server.py", ANNOTATED_SERVER);
    settings(
        &sb,
        json!({"mcpServers": {"docs": {"command": "python3", "args": [script]}}}),
    );
    sb.write_home(
        ".gemini/policies/mcp-read-only.toml",
        "[[rule]]\nmcpName = \"*\"\ntoolAnnotations = { readOnlyHint = true }\ndecision = \"allow\"\npriority = 100\nmodes = [\"plan\"]\n",
    );
    let fake = FakeServer::replaying(&lines(&[
        call("lookup", json!({})),
        call("edit", json!({})),
        text("ok"),
    ]));
    let out = sb.run(
        &["--approval-mode", "plan", "-p", "look"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let got = responses(&fake);
    let wrapped = "<untrusted_context>\nlookup ran\n</untrusted_context>";
    assert_eq!(got[0], json!({"output": wrapped}), "{got:?}");
    let refusal = got[1]["error"].as_str().unwrap_or_default();
    assert!(refusal.contains("You are in Plan Mode"), "{got:?}");
    let names = declared(&fake, 0);
    assert!(names.contains(&"lookup".to_string()), "{names:?}");
    // Declared and refused in the `0.27` dialect, as 0.27.4 did.
    assert!(names.contains(&"edit".to_string()), "{names:?}");
}
