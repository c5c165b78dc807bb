//! Issue 25.3: ACP starts without the trust check, as in Gemini CLI 0.61,
//! but an untrusted folder's own settings, hooks and commands stay
//! unloaded.

use super::{run, sandbox, updates};
use crate::e2e::{call, lines, text};
use serde_json::json;

#[test]
fn an_untrusted_folder_serves_prompts_without_its_own_parts() {
    let sb = sandbox();
    let hook = json!({"type": "command", "command": "touch hook-ran.txt"});
    let project = json!({"hooks": {"SessionStart": [{"hooks": [hook]}]}});
    sb.write(".gemini/settings.json", &project.to_string());
    sb.write(
        ".gemini/commands/mine.toml",
        "prompt = \"project command\"\n",
    );
    sb.write_home(".gemini/commands/ours.toml", "prompt = \"user command\"\n");
    let scenario = json!({"permission": "allow_once", "prompts": ["hi"], "trustWorkspace": ""});
    let Some(log) = run(&sb, "untrusted", &lines(&[text("ok")]), scenario) else {
        return;
    };
    assert_eq!(
        log["answers"]["prompts"][0]["stopReason"], "end_turn",
        "{log:#}"
    );
    assert!(sb.read("hook-ran.txt").is_none(), "an untrusted hook ran");
    let names: Vec<&str> = updates(&log, "available_commands_update")[0]["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(names.contains(&"ours"), "{names:?}");
    assert!(!names.contains(&"mine"), "{names:?}");
    // The same folder, trusted: its hook and command load.
    let scenario = json!({"permission": "allow_once", "prompts": ["hi"]});
    let Some(log) = run(&sb, "trusted", &lines(&[text("ok")]), scenario) else {
        return;
    };
    assert!(
        sb.read("hook-ran.txt").is_some(),
        "the trusted hook did not run"
    );
    let commands = &updates(&log, "available_commands_update")[0]["availableCommands"];
    assert!(commands.to_string().contains("\"mine\""), "{commands}");
}

/// Issue 41.3: in an untrusted folder neither `session/set_mode` nor the
/// mode config option leaves `default` (or `plan`): the refusal is an
/// error the client can show, and a shell call still asks.
#[test]
fn an_untrusted_folder_cannot_raise_its_mode() {
    let sb = sandbox();
    let responses = lines(&[
        call("run_shell_command", json!({"command": "touch ran.txt"})),
        text("done"),
    ]);
    for (mode, configs) in [
        ("yolo", json!([{"configId": "mode", "value": "yolo"}])),
        (
            "autoEdit",
            json!([{"configId": "mode", "value": "auto_edit"}]),
        ),
    ] {
        let scenario = json!({"mode": mode, "configs": configs, "permission": "reject_once",
            "prompts": ["run it"], "trustWorkspace": ""});
        let Some(log) = run(&sb, "untrusted-mode", &responses, scenario) else {
            return;
        };
        let refused = &log["answers"]["setMode"];
        assert_eq!(refused["code"], -32602, "{log:#}");
        assert!(
            refused["message"]
                .as_str()
                .unwrap()
                .contains("not available in an untrusted folder"),
            "{refused}"
        );
        let config = &log["answers"]["configs"][0];
        assert_eq!(config["code"], -32602, "{config}");
        assert_eq!(log["permissions"].as_array().unwrap().len(), 1, "{log:#}");
        assert!(sb.read("ran.txt").is_none(), "the command ran unasked");
    }
    // Plan mode stays available.
    let scenario = json!({"mode": "plan", "prompts": [], "trustWorkspace": ""});
    let Some(log) = run(&sb, "untrusted-plan", &lines(&[]), scenario) else {
        return;
    };
    assert_eq!(log["answers"]["setMode"], json!({}), "{log:#}");
}

/// Issue 41.3: "always allow" on an edit in an untrusted folder allows that
/// tool for the session but does not switch it to auto_edit (a trusted
/// folder's answer does): a later shell call still asks.
#[test]
fn always_allowing_an_edit_in_an_untrusted_folder_keeps_default_mode() {
    let sb = sandbox();
    let write = |path: &str| call("write_file", json!({"file_path": path, "content": "x"}));
    let responses = lines(&[
        write("a.txt"),
        write("b.txt"),
        call("run_shell_command", json!({"command": "touch ran.txt"})),
        text("done"),
    ]);
    let scenario = json!({"permission": "allow_always", "prompts": ["write both"],
        "trustWorkspace": ""});
    let Some(log) = run(&sb, "untrusted-always", &responses, scenario) else {
        return;
    };
    assert_eq!(sb.read("a.txt").as_deref(), Some("x"));
    assert_eq!(sb.read("b.txt").as_deref(), Some("x"));
    // One question for the writes, one for the shell command: no mode change.
    assert_eq!(log["permissions"].as_array().unwrap().len(), 2, "{log:#}");
    let modes = updates(&log, "current_mode_update");
    assert!(modes.is_empty(), "{modes:?}");
    // The same answers in a trusted folder switch it to auto_edit.
    let scenario = json!({"permission": "allow_always", "prompts": ["write both"]});
    let Some(log) = run(&sb, "trusted-always", &responses, scenario) else {
        return;
    };
    let modes = updates(&log, "current_mode_update");
    assert_eq!(modes.len(), 1, "{log:#}");
}
