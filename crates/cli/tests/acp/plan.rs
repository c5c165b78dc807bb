//! ACP's `plan` session mode: offered by `session/new`, chosen with
//! `session/set_mode`; while planning only the plan is written, and the
//! plan approval (a permission request) leaves plan mode for auto_edit.

use super::{run, sandbox, updates};
use crate::e2e::{call, lines, text};
use serde_json::json;

#[test]
fn switching_to_plan_mode_and_approving_the_plan() {
    let sb = sandbox();
    let responses = lines(&[
        call(
            "write_file",
            json!({"file_path": "src.txt", "content": "early"}),
        ),
        call(
            "write_file",
            json!({"file_path": "plan.md", "content": "# Plan\n\n1. Write src.txt\n"}),
        ),
        call("exit_plan_mode", json!({"plan_filename": "plan.md"})),
        call(
            "write_file",
            json!({"file_path": "src.txt", "content": "done"}),
        ),
        text("Implemented."),
    ]);
    let Some(log) = run(
        &sb,
        "plan",
        &responses,
        json!({"mode": "plan", "permission": "allow_always", "prompts": ["plan and do it"]}),
    ) else {
        return;
    };
    let modes = &log["answers"]["new"]["modes"]["availableModes"];
    assert!(
        modes.as_array().unwrap().iter().any(|m| m["id"] == "plan"),
        "{modes}"
    );
    let switched: Vec<&str> = updates(&log, "current_mode_update")
        .iter()
        .map(|u| u["currentModeId"].as_str().unwrap())
        .collect();
    assert_eq!(switched, ["plan", "auto_edit"], "{log:#}");
    // The config options follow: their mode is the one the plan left in.
    let config_modes: Vec<String> = updates(&log, "config_option_update")
        .iter()
        .filter_map(|u| {
            let options = u["configOptions"].as_array()?;
            let mode = options.iter().find(|o| o["id"] == "mode")?;
            Some(mode["currentValue"].as_str()?.to_string())
        })
        .collect();
    assert_eq!(
        config_modes.last().map(String::as_str),
        Some("auto_edit"),
        "{log:#}"
    );
    // Only the plan approval was asked; its choices are the plan dialog's.
    let asked = log["permissions"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{log:#}");
    let names: Vec<&str> = asked[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "Yes, automatically accept edits",
            "Yes, manually accept edits",
            "No, keep planning"
        ]
    );
    // The early write was refused; the one after approval ran.
    assert_eq!(sb.read("src.txt").as_deref(), Some("done"));
    assert!(sb.read("plan.md").is_none());
}
