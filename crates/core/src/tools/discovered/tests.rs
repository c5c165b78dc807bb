//! Tests of command discovery with real scripts (A.14).
use super::*;
use serde_json::json;

fn setup(disc: &str, call: &str) -> (tempfile::TempDir, Settings) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("disc.py"), disc).unwrap();
    let call_path = dir.path().join("call.sh");
    std::fs::write(&call_path, call).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&call_path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let w = dir.path().display().to_string();
    let settings = Settings::from_value(json!({"tools": {
        "discoveryCommand": format!("python3 {w}/disc.py"), "callCommand": format!("{w}/call.sh")}}));
    (dir, settings)
}

const DISC: &str = "import json\nprint(json.dumps([{\"name\":\"t\",\"description\":\"d\",\"parametersJsonSchema\":{\"type\":\"object\"}},{\"functionDeclarations\":[{\"name\":\"t2\",\"parameters\":{\"type\":\"object\"}},{\"description\":\"no name\"}]}]))\n";
const CALL: &str = "#!/bin/bash\nin=$(cat)\nif [ \"$1\" = t2 ]; then echo partial; echo bad >&2; exit 4; fi\necho \"ok $1 $in\"\n";

fn ctx(dir: &Path) -> ToolContext {
    let ws = crate::workspace::Workspace::new(dir.to_path_buf(), Vec::new(), dir.join(".tmp"));
    ToolContext::new(
        Arc::new(ws),
        Arc::new(Settings::default()),
        "gemini-3-flash-preview",
    )
}

#[tokio::test]
async fn a14_discovery_and_calls() {
    let (dir, settings) = setup(DISC, CALL);
    let tools = discover_tools(&settings, dir.path(), None).unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name().to_string()).collect();
    assert_eq!(names, ["discovered_tool_t", "discovered_tool_t2"]);
    let w = dir.path().display();
    assert_eq!(
        tools[0].description(),
        format!(
            "d\n\nThis tool was discovered from the project by executing the command `python3 {w}/disc.py` on project root.\nWhen called, this tool will execute the command `{w}/call.sh t` on project root.\nTool discovery and call commands can be configured in project or user settings.\n\nWhen called, the tool call command is executed as a subprocess.\nOn success, tool output is returned as a json string.\nOtherwise, the following information is returned:\n\nStdout: Output on stdout stream. Can be `(empty)` or partial.\nStderr: Output on stderr stream. Can be `(empty)` or partial.\nError: Error or `(none)` if no error was reported for the subprocess.\nExit Code: Exit code or `(none)` if terminated by signal.\nSignal: Signal number or `(none)` if no signal was received.\n"
        )
    );
    assert_eq!(tools[0].parameter_schema(), &json!({"type": "object"}));
    assert_eq!(tools[1].parameter_schema(), &json!({}));
    assert_eq!(tools[0].kind(), ToolKind::Other);
    let c = ctx(dir.path());
    let args = json!({"x": "1"}).as_object().unwrap().clone();
    let r = tools[0]
        .build(&args, &c)
        .unwrap()
        .execute(&c, CancellationToken::new())
        .await;
    assert!(r.error.is_none(), "{r:?}");
    assert_eq!(r.llm_text(), "ok t {\"x\":\"1\"}\n");
    let args = json!({"y": "2"}).as_object().unwrap().clone();
    let r = tools[1]
        .build(&args, &c)
        .unwrap()
        .execute(&c, CancellationToken::new())
        .await;
    let e = r.error.unwrap();
    assert_eq!(e.kind, ToolErrorKind::DiscoveredToolExecutionError);
    assert_eq!(
        e.message,
        "Stdout: partial\n\nStderr: bad\n\nError: (none)\nExit Code: 4\nSignal: (none)"
    );
}

#[tokio::test]
async fn call_spawn_failure_and_cancel() {
    let dir = tempfile::tempdir().unwrap();
    let c = ctx(dir.path());
    let t = DiscoveredTool::new(
        "t",
        "",
        json!({}),
        "d",
        Some("/nonexistent/call".into()),
        dir.path().into(),
    );
    let r = t
        .build(&Map::new(), &c)
        .unwrap()
        .execute(&c, CancellationToken::new())
        .await;
    assert_eq!(
        r.error.unwrap().message,
        "Stdout: (empty)\nStderr: (empty)\nError: Error: spawn /nonexistent/call ENOENT\nExit Code: -2\nSignal: (none)"
    );
    let sleeper = dir.path().join("sleep.sh");
    std::fs::write(&sleeper, "#!/bin/sh\nsleep 30\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&sleeper, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let t = DiscoveredTool::new(
        "t",
        "",
        json!({}),
        "d",
        Some(sleeper.display().to_string()),
        dir.path().into(),
    );
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        c2.cancel();
    });
    let start = std::time::Instant::now();
    let r = t.build(&Map::new(), &c).unwrap().execute(&c, cancel).await;
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    assert!(r.error.unwrap().message.ends_with("Signal: SIGKILL"));
}

#[test]
fn discovery_errors() {
    let dir = tempfile::tempdir().unwrap();
    let run = |disc: &str| {
        let s = Settings::from_value(json!({"tools": {"discoveryCommand": disc}}));
        discover_tools(&s, dir.path(), None)
            .err()
            .map(|e| e.to_string())
    };
    assert_eq!(
        run("   ").as_deref(),
        Some("Tool discovery command is empty or contains only whitespace.")
    );
    assert_eq!(
        run("sh -c 'exit 3'").as_deref(),
        Some("Tool discovery command failed with exit code 3")
    );
    assert_eq!(
        run("echo {}").as_deref(),
        Some("Tool discovery command did not return a JSON array of tools.")
    );
    assert_eq!(
        run("head -c 10485761 /dev/zero").as_deref(),
        Some("Tool discovery command output exceeded size limit of 10485760 bytes.")
    );
    assert_eq!(
        DiscoveryError::Failed("3".into()).feedback().as_deref(),
        Some("Tool discovery command failed with code 3.")
    );
    assert!(
        discover_tools(&Settings::default(), dir.path(), None)
            .unwrap()
            .is_empty()
    );
}
