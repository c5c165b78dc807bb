//! BeforeTool / AfterTool: the exit-code table, aggregation, failures.

use super::*;
use crate::hooks::{AfterToolOutcome, BeforeToolOutcome};
use serde_json::json;

#[tokio::test]
async fn exit_code_rows() {
    let fx = Fixture::new();
    assert_eq!(before(&fx, "deny_json").await, block("nope"));
    assert_eq!(before(&fx, "block_json").await, block("r"));
    assert_eq!(before(&fx, "json_string").await, block("twice"));
    assert!(fx.texts().is_empty(), "{:?}", fx.texts());

    assert_eq!(before(&fx, "exit2_stderr").await, block("nope-stderr"));
    assert_eq!(
        masked(&fx),
        failure_lines(&fx, "exit2_stderr", "BeforeTool")
    );
    fx.messages.lock().unwrap().clear();

    assert_eq!(before(&fx, "exit2_stdout").await, PROCEED);
    assert_eq!(
        masked(&fx),
        failure_lines(&fx, "exit2_stdout", "BeforeTool")
    );
    fx.messages.lock().unwrap().clear();

    for (mode, msg) in [("exit1_stderr", "warn-text"), ("exit3_stderr", "three")] {
        assert_eq!(before(&fx, mode).await, PROCEED);
        let mut want = vec![(
            HookMessageKind::SystemMessage,
            format!("Hook system message: Warning: {msg}"),
        )];
        want.extend(failure_lines(&fx, mode, "BeforeTool"));
        assert_eq!(masked(&fx), want);
        fx.messages.lock().unwrap().clear();
    }

    assert_eq!(before(&fx, "plain").await, PROCEED);
    assert_eq!(
        fx.texts(),
        vec![(
            HookMessageKind::SystemMessage,
            "Hook system message: plain text out".into()
        )]
    );
    fx.messages.lock().unwrap().clear();

    for mode in ["stderr0", "ask", "allow"] {
        assert_eq!(before(&fx, mode).await, PROCEED);
    }
    assert!(fx.texts().is_empty(), "{:?}", fx.texts());

    let changed = json!({"content": "changed"}).as_object().unwrap().clone();
    assert_eq!(
        before(&fx, "input_mod").await,
        BeforeToolOutcome::Proceed {
            tool_input: Some(changed),
            additional_context: None,
        }
    );
    assert_eq!(
        before(&fx, "stop").await,
        BeforeToolOutcome::Stop {
            reason: "halt".into()
        }
    );
    assert_eq!(
        fx.texts(),
        vec![(
            HookMessageKind::Info,
            "Hook requested to stop execution: halt".into()
        )]
    );
}

#[tokio::test]
async fn after_tool_rows() {
    let fx = Fixture::new();
    let result = crate::tools::ToolResult::text("A", "");
    let call = crate::hooks::HookToolCall {
        name: "write_file",
        args: &args(),
        mcp_context: None,
        id: "c1",
    };
    let run = |mode: &'static str| {
        let sys = fx.one("AfterTool", Some("write_file"), mode);
        let result = result.clone();
        async move {
            let response = crate::scheduler::tool_response_json(&result);
            crate::hooks::Hooks::after_tool(&sys, call, &response, None).await
        }
    };
    assert_eq!(
        run("after_ctx").await,
        AfterToolOutcome::Keep {
            additional_context: Some("&lt;x&gt; ctx".into())
        }
    );
    assert_eq!(
        run("after_deny").await,
        AfterToolOutcome::Block {
            reason: "hidden".into()
        }
    );
    assert_eq!(
        run("exit2_stderr").await,
        AfterToolOutcome::Block {
            reason: "nope-stderr".into()
        }
    );
    assert_eq!(
        run("stop").await,
        AfterToolOutcome::Stop {
            reason: "halt".into()
        }
    );
    run("dump").await;
    let d = fx.dump("dump");
    assert_eq!(
        d["tool_response"],
        json!({"llmContent": "A", "returnDisplay": ""})
    );
    assert_eq!(d["hook_event_name"], "AfterTool");
}

#[tokio::test]
async fn two_parallel_hooks_and_matchers() {
    let fx = Fixture::new();
    let sys = fx.system(json!({"BeforeTool": [
        {"matcher": "write", "hooks": [{"type": "command", "command": fx.cmd("allow")}]},
        {"matcher": ".*", "hooks": [{"type": "command", "command": fx.cmd("block_json")}]}
    ]}));
    assert_eq!(
        sys.before_tool("write_file", &args(), None).await,
        block("r")
    );
    let sys = fx.one("BeforeTool", Some("^read"), "deny_json");
    assert_eq!(sys.before_tool("write_file", &args(), None).await, PROCEED);
    assert_eq!(
        sys.before_tool("read_file", &args(), None).await,
        block("nope")
    );
}

#[tokio::test]
async fn spawn_failure_is_a_warning_not_a_block() {
    let fx = Fixture::new();
    let sys = fx.system(json!({"BeforeTool": [{"hooks": [{"type": "command", "command": "exit 7", "name": "seven"}]}]}));
    assert_eq!(sys.before_tool("x", &args(), None).await, PROCEED);
    let w = "Hook(s) [seven] failed for event BeforeTool. Press F12 to see the debug drawer for more details.";
    assert!(
        fx.texts()
            .contains(&(HookMessageKind::Warning, w.to_string()))
    );
}
