//! `gemini-rs --acp` driven by a real ACP client: the official TypeScript
//! SDK (`@agentclientprotocol/sdk` from npm) running `tests/acp/client.mjs`
//! over recorded model sessions.

mod files;
mod hooks;
mod lifecycle;
mod mcp_tasks;
mod plan;
mod rollout;
mod trust;
mod wire;

use crate::e2e::{call, lines, text};
use crate::support::{Sandbox, peer_missing};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::Command;

/// The folder holding the SDK (`node_modules/@agentclientprotocol/sdk`).
pub fn client_dir() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = std::env::var_os("GEMINI_RS_ACP_CLIENT")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/acp-client")])
        .find(|d| d.join("node_modules/@agentclientprotocol/sdk").exists());
    if found.is_none() {
        peer_missing(
            "@agentclientprotocol/sdk",
            "npm install --prefix target/acp-client @agentclientprotocol/sdk, or set GEMINI_RS_ACP_CLIENT",
        );
    }
    found
}

/// Node 22 from the conformance suite's install when there is one (the
/// system's Node may be older), else `node` on PATH.
pub fn node() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    std::env::var_os("GEMINI_RS_MCP_CONFORMANCE")
        .map(PathBuf::from)
        .into_iter()
        .chain([root.join("target/mcp-conformance")])
        .map(|d| d.join("node_modules/.bin/node"))
        .find(|p| p.exists())
        .unwrap_or_else(|| PathBuf::from("node"))
}

fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    sb
}

/// Runs the client on `scenario` (its `command` filled in) against the
/// binary replaying `responses`; the client's log.
fn run(sb: &Sandbox, name: &str, responses: &str, mut scenario: Value) -> Option<Value> {
    let dir = client_dir()?;
    let script = dir.join(format!("gemini-rs-client-{name}.mjs"));
    std::fs::write(&script, include_str!("acp/client.mjs")).unwrap();
    let file = sb.write(&format!("{name}.responses"), responses);
    let home = |k: &str, v: &std::path::Path| format!("{k}={}", v.display());
    scenario["command"] = json!([
        "env",
        "-i",
        format!("PATH={}", std::env::var("PATH").unwrap_or_default()),
        home("HOME", &sb.home),
        home("GEMINI_CLI_HOME", &sb.home),
        home(
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH",
            &sb.home.join("none.json")
        ),
        "GEMINI_API_KEY=dummy",
        // Written against 0.27.4's names (tests/dialects.rs tests today's).
        "GEMINI_RS_DIALECT=0.27",
        // A scenario may say how the folder is trusted ("" for not at all).
        format!(
            "GEMINI_CLI_TRUST_WORKSPACE={}",
            scenario["trustWorkspace"].as_str().unwrap_or("true")
        ),
        env!("CARGO_BIN_EXE_gemini-rs"),
        "--acp",
        "--fake-responses",
        file,
    ]);
    scenario["cwd"] = json!(sb.work);
    let scenario_file = sb.write(&format!("{name}.scenario.json"), &scenario.to_string());
    let out = Command::new(node())
        .arg(&script)
        .arg(&scenario_file)
        .current_dir(&dir)
        .output()
        .expect("node runs the ACP client");
    let _ = std::fs::remove_file(&script);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let log: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert!(log.get("error").is_none(), "{log:#}");
    assert_eq!(
        log["exitCode"], 0,
        "the agent exits cleanly when stdin closes"
    );
    Some(log)
}

fn updates<'a>(log: &'a Value, kind: &str) -> Vec<&'a Value> {
    log["updates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["sessionUpdate"] == kind)
        .collect()
}

/// A thought and text, then a write_file call; then "Done.".
fn write_session() -> String {
    let first = json!({"method": "generateContentStream", "response": [{"candidates": [{"content": {
        "role": "model", "parts": [{"text": "**Planning**", "thought": true}, {"text": "Writing it."},
        {"functionCall": {"name": "write_file", "args": {"file_path": "n.txt", "content": "new\n"}}}]},
        "finishReason": "STOP"}]}]});
    lines(&[first.to_string(), text("Done.")])
}

#[test]
fn a_prompt_streams_thoughts_text_and_an_allowed_write() {
    let sb = sandbox();
    let Some(log) = run(
        &sb,
        "allow",
        &write_session(),
        json!({"permission": "allow_once", "prompts": ["write n.txt"]}),
    ) else {
        return;
    };
    let init = &log["answers"]["initialize"];
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(init["agentCapabilities"]["loadSession"], true);
    assert_eq!(log["answers"]["new"]["modes"]["currentModeId"], "default");
    assert_eq!(
        log["answers"]["prompts"],
        json!([{"stopReason": "end_turn"}])
    );
    assert_eq!(
        updates(&log, "agent_thought_chunk")[0]["content"]["text"],
        "**Planning**"
    );
    let said: String = updates(&log, "agent_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(said, "Writing it.Done.");
    let calls = updates(&log, "tool_call");
    assert_eq!(calls[0]["kind"], "edit");
    assert_eq!(calls[0]["title"], "WriteFile: n.txt");
    let perms = log["permissions"].as_array().unwrap();
    assert_eq!(perms.len(), 1);
    let kinds: Vec<&str> = perms[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
    assert_eq!(perms[0]["toolCall"]["content"][0]["type"], "diff");
    assert_eq!(perms[0]["toolCall"]["content"][0]["newText"], "new\n");
    let done = updates(&log, "tool_call_update");
    let last = done.last().unwrap();
    assert_eq!(last["status"], "completed");
    assert_eq!(last["content"][0]["type"], "diff");
    assert_eq!(sb.read("n.txt").as_deref(), Some("new\n"));
    assert!(!updates(&log, "available_commands_update").is_empty());
    assert_eq!(log["answers"]["unknownMethod"]["code"], -32601);
}

#[test]
fn a_rejected_write_changes_nothing() {
    let sb = sandbox();
    let Some(log) = run(
        &sb,
        "reject",
        &write_session(),
        json!({"permission": "reject_once", "prompts": ["write n.txt"]}),
    ) else {
        return;
    };
    assert_eq!(log["answers"]["prompts"][0]["stopReason"], "end_turn");
    let done = updates(&log, "tool_call_update");
    assert_eq!(done.last().unwrap()["status"], "failed");
    assert!(sb.read("n.txt").is_none());
}

#[test]
fn allow_always_asks_once() {
    let sb = sandbox();
    let write = |path: &str| call("write_file", json!({"file_path": path, "content": "x"}));
    let responses = lines(&[write("a.txt"), write("b.txt"), text("Both written.")]);
    let Some(log) = run(
        &sb,
        "always",
        &responses,
        json!({"permission": "allow_always", "prompts": ["write both"]}),
    ) else {
        return;
    };
    assert_eq!(log["permissions"].as_array().unwrap().len(), 1);
    assert_eq!(sb.read("a.txt").as_deref(), Some("x"));
    assert_eq!(sb.read("b.txt").as_deref(), Some("x"));
}

#[test]
fn cancel_mid_tool_ends_the_prompt_as_cancelled() {
    let sb = sandbox();
    let responses = lines(&[call("run_shell_command", json!({"command": "sleep 30"}))]);
    let started = std::time::Instant::now();
    let Some(log) = run(
        &sb,
        "cancel",
        &responses,
        json!({"permission": "allow_once", "cancelOnRun": true, "prompts": ["wait"]}),
    ) else {
        return;
    };
    assert_eq!(log["answers"]["prompts"][0]["stopReason"], "cancelled");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the sleep was killed"
    );
    let done = updates(&log, "tool_call_update");
    assert_eq!(done.last().unwrap()["status"], "failed");
}

#[test]
fn cancelling_while_a_permission_is_unanswered_ends_cleanly() {
    let sb = sandbox();
    let Some(log) = run(
        &sb,
        "never",
        &write_session(),
        json!({"permission": "never", "prompts": ["write n.txt"]}),
    ) else {
        return;
    };
    assert_eq!(log["answers"]["prompts"][0]["stopReason"], "cancelled");
    assert!(sb.read("n.txt").is_none());
}

#[test]
fn modes_and_loading_a_recorded_session() {
    let sb = sandbox();
    let responses = lines(&[
        call("write_file", json!({"file_path": "m.txt", "content": "m"})),
        text("Written without asking."),
    ]);
    let Some(log) = run(
        &sb,
        "mode",
        &responses,
        json!({"mode": "yolo", "prompts": ["write m.txt"]}),
    ) else {
        return;
    };
    assert!(log["permissions"].as_array().unwrap().is_empty());
    let mode = updates(&log, "current_mode_update");
    assert_eq!(mode[0]["currentModeId"], "yolo");
    assert_eq!(sb.read("m.txt").as_deref(), Some("m"));
    // Load it again: the history comes back as updates.
    let id = log["sessionId"].as_str().unwrap().to_string();
    let Some(loaded) = run(&sb, "load", "", json!({"load": id})) else {
        return;
    };
    let users = updates(&loaded, "user_message_chunk");
    assert!(
        users.iter().any(|u| u["content"]["text"] == "write m.txt"),
        "{loaded:#}"
    );
    let said = updates(&loaded, "agent_message_chunk");
    assert!(
        said.iter()
            .any(|u| u["content"]["text"] == "Written without asking.")
    );
    assert_eq!(updates(&loaded, "tool_call")[0]["kind"], "edit");
}

#[test]
fn a_session_recorded_by_gemini_cli_0_61_is_loaded() {
    use crate::today_sessions::{UPSTREAM_0_61, UPSTREAM_0_61_ID, install};
    let sb = sandbox();
    install(
        &sb.home.join(".gemini/tmp/work/chats"),
        UPSTREAM_0_61,
        chrono::Duration::minutes(5),
    );
    let Some(loaded) = run(&sb, "load61", "", json!({"load": UPSTREAM_0_61_ID})) else {
        return;
    };
    let users = updates(&loaded, "user_message_chunk");
    assert!(
        users.iter().any(|u| u["content"]["text"] == "read a.txt"),
        "{loaded:#}"
    );
    assert!(
        !users
            .iter()
            .any(|u| u.to_string().contains("session_context")),
        "{loaded:#}"
    );
    let said = updates(&loaded, "agent_message_chunk");
    assert!(
        said.iter()
            .any(|u| u["content"]["text"] == "The file says hello world."),
        "{loaded:#}"
    );
    assert_eq!(updates(&loaded, "tool_call")[0]["kind"], "read");
}

#[test]
fn mcp_servers_from_the_client_are_used() {
    let Some(everything) = crate::mcp::everything_bin() else {
        return;
    };
    let sb = sandbox();
    let responses = lines(&[call("echo", json!({"message": "hi there"})), text("echoed")]);
    let servers =
        json!([{"name": "everything", "command": everything, "args": ["stdio"], "env": []}]);
    let Some(log) = run(
        &sb,
        "mcp",
        &responses,
        json!({"mode": "yolo", "mcpServers": servers, "prompts": ["echo"]}),
    ) else {
        return;
    };
    let done = updates(&log, "tool_call_update");
    let last = done.last().unwrap();
    assert_eq!(last["status"], "completed", "{log:#}");
    assert!(
        last["content"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("hi there")
    );
}

#[test]
fn the_upstream_say_hello_scenario() {
    let sb = sandbox();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/upstream");
    let responses =
        std::fs::read_to_string(dir.join("hooks-system.session-startup.responses")).unwrap();
    let Some(log) = run(&sb, "hello", &responses, json!({"prompts": ["Say hello"]})) else {
        return;
    };
    let said: String = updates(&log, "agent_message_chunk")
        .iter()
        .map(|u| u["content"]["text"].as_str().unwrap())
        .collect();
    assert!(said.contains("Hello"), "{said}");
    assert_eq!(log["answers"]["prompts"][0]["stopReason"], "end_turn");
}

#[test]
fn a_custom_command_asks_before_its_shell_command_runs() {
    let sb = sandbox();
    sb.write_home(
        ".gemini/commands/st.toml",
        "prompt = \"Status: !{echo hi}\"\n",
    );
    let Some(log) = run(
        &sb,
        "ask",
        &lines(&[text("ok")]),
        json!({"permission": "allow_once", "prompts": ["/st"]}),
    ) else {
        return;
    };
    assert_eq!(
        log["answers"]["prompts"][0]["stopReason"], "end_turn",
        "{log:#}"
    );
    let perms = log["permissions"].as_array().unwrap();
    assert_eq!(perms.len(), 1, "{log:#}");
    assert_eq!(perms[0]["toolCall"]["title"], "Confirm Shell Command");
    assert_eq!(
        perms[0]["toolCall"]["content"][0]["content"]["text"],
        "echo hi"
    );
    let commands = &updates(&log, "available_commands_update")[0]["availableCommands"];
    assert_eq!(commands[0]["name"], "st");
}

#[test]
fn a_sub_agent_shows_its_calls_and_a_cancel_ends_them() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "experimental": {"enableAgents": true}}));
    sb.write_home(
        ".gemini/agents/sleeper.md",
        "---\nname: sleeper\ndescription: Waits.\ntools: [run_shell_command]\n---\nWait.\n",
    );
    let responses = lines(&[
        call("sleeper", json!({"query": "wait"})),
        call("run_shell_command", json!({"command": "sleep 30.75"})),
        text("Stopped."),
    ]);
    let started = std::time::Instant::now();
    let Some(log) = run(
        &sb,
        "subagent",
        &responses,
        json!({"permission": "allow_once", "cancelOnUpdate": "▶ run_shell_command",
            "prompts": ["go", "and now?"]}),
    ) else {
        return;
    };
    assert_eq!(log["answers"]["prompts"][0]["stopReason"], "cancelled");
    assert_eq!(log["answers"]["prompts"][1]["stopReason"], "end_turn");
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    let left = Command::new("pgrep")
        .args(["-f", "sleep 30.75"])
        .output()
        .unwrap();
    assert!(
        left.stdout.is_empty(),
        "the nested command was left running"
    );
    // The nested shell call asked for permission like any other.
    let asked = log["permissions"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{asked:?}");
    // The delegating call listed the nested call as its content, then failed.
    let calls = updates(&log, "tool_call");
    let parent = calls[0]["toolCallId"].clone();
    let contents: Vec<String> = updates(&log, "tool_call_update")
        .into_iter()
        .filter(|u| u["toolCallId"] == parent)
        .filter_map(|u| {
            u["content"][0]["content"]["text"]
                .as_str()
                .map(String::from)
        })
        .collect();
    assert!(
        contents.iter().any(|t| t == "▶ run_shell_command"),
        "{contents:?}"
    );
    let last = updates(&log, "tool_call_update")
        .into_iter()
        .rfind(|u| u["toolCallId"] == parent)
        .unwrap()
        .clone();
    assert_eq!(last["status"], "failed", "{last}");
    // Every call of the cancelled prompt is answered in the recorded chat.
    let chats = sb.project_temp_dir().join("chats");
    let file = std::fs::read_dir(&chats).unwrap().next().unwrap().unwrap();
    let chat = std::fs::read_to_string(file.path()).unwrap();
    assert!(
        chat.contains("\"name\": \"sleeper\"") || chat.contains("\"name\":\"sleeper\""),
        "{chat}"
    );
    assert!(chat.contains("cancelled"), "{chat}");
}

#[test]
fn config_options_switch_the_model_and_the_mode() {
    let sb = sandbox();
    let responses = lines(&[
        call("write_file", json!({"file_path": "c.txt", "content": "c"})),
        text("Written."),
    ]);
    let configs = json!([
        {"configId": "model", "value": "gemini-2.5-pro"},
        {"configId": "model", "value": "nosuch/model-x"},
        {"configId": "mode", "value": "yolo"},
        {"configId": "colour", "value": "blue"}
    ]);
    let Some(log) = run(
        &sb,
        "config",
        &responses,
        json!({"configs": configs, "prompts": ["write c.txt"]}),
    ) else {
        return;
    };
    let current = |options: &Value, id: &str| {
        let option = options
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["id"] == id)
            .unwrap_or_else(|| panic!("no {id} option: {options:#}"))
            .clone();
        option["currentValue"].as_str().unwrap().to_string()
    };
    let created = &log["answers"]["new"]["configOptions"];
    assert_eq!(current(created, "model"), "gemini-2.5-flash", "{log:#}");
    assert_eq!(current(created, "mode"), "default");
    let models = created
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "model")
        .unwrap()["options"]
        .to_string();
    assert!(models.contains("gemini-2.5-pro"), "{models}");
    let answers = log["answers"]["configs"].as_array().unwrap();
    assert_eq!(
        current(&answers[0]["configOptions"], "model"),
        "gemini-2.5-pro"
    );
    assert!(
        answers[1]["message"]
            .as_str()
            .unwrap_or("")
            .contains("nosuch"),
        "{answers:#?}"
    );
    assert_eq!(current(&answers[2]["configOptions"], "mode"), "yolo");
    assert_eq!(
        current(&answers[2]["configOptions"], "model"),
        "gemini-2.5-pro"
    );
    assert!(
        answers[3]["message"]
            .as_str()
            .unwrap_or("")
            .contains("colour")
    );
    // yolo: the write runs without a permission request.
    assert!(log["permissions"].as_array().unwrap().is_empty(), "{log:#}");
    assert_eq!(sb.read("c.txt").as_deref(), Some("c"));
}
