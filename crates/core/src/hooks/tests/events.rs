//! Input fields of every event, agent, session and model events.

use super::*;
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse};
use serde_json::json;

#[tokio::test]
async fn input_fields_and_aliases() {
    let fx = Fixture::new();
    let sys = fx.one("BeforeTool", None, "dump");
    let mcp = json!({"server_name": "s", "tool_name": "t"});
    sys.before_tool("read_file", &args(), Some(&mcp)).await;
    let d = fx.dump("dump");
    let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "timestamp",
            "tool_name",
            "tool_input",
            "mcp_context"
        ]
    );
    assert_eq!(d["session_id"], "sid-1");
    assert_eq!(d["transcript_path"], "");
    assert_eq!(d["cwd"], fx.dir.to_str().unwrap());
    assert_eq!(d["hook_event_name"], "BeforeTool");
    let ts = regex::Regex::new(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$").unwrap();
    assert!(ts.is_match(d["timestamp"].as_str().unwrap()));
    assert_eq!(
        d["tool_input"],
        json!({"file_path": "w.txt", "content": "orig"})
    );
    assert_eq!(d["mcp_context"], mcp);

    let sys = fx.one("BeforeAgent", None, "dump");
    assert_eq!(
        sys.before_agent("go").await,
        AgentHookOutcome::Proceed {
            additional_context: None
        }
    );
    assert_eq!(fx.dump("dump")["prompt"], "go");
    let sys = fx.one("AfterAgent", None, "dump");
    sys.after_agent("go", "thinking \ndone", false).await;
    let d = fx.dump("dump");
    assert_eq!(
        (d["hook_event_name"].as_str(), d["prompt_response"].as_str()),
        (Some("AfterAgent"), Some("thinking \ndone"))
    );
    assert_eq!(d["stop_hook_active"], false);
    let sys = fx.one("PreCompress", Some("auto"), "dump");
    sys.pre_compress("manual").await;
    assert!(!fx.log().contains("PreCompress"));
    sys.pre_compress("auto").await;
    assert_eq!(fx.dump("dump")["trigger"], "auto");
    let sys = fx.one("SessionEnd", Some("exit"), "dump");
    sys.session_end("exit").await;
    assert_eq!(fx.dump("dump")["reason"], "exit");
    let sys = fx.one("Notification", None, "dump");
    sys.notification("Tool Shell requires execution", &json!({"type": "exec"}))
        .await;
    let d = fx.dump("dump");
    assert_eq!(d["notification_type"], "ToolPermission");
    assert_eq!(d["details"], json!({"type": "exec"}));
}

#[tokio::test]
async fn claude_events_get_claude_input() {
    let fx = Fixture::new();
    let sys = fx.one("PreToolUse", Some("Write"), "dump");
    let call = crate::hooks::HookToolCall {
        name: "write_file",
        args: &args(),
        mcp_context: None,
        id: "call-7",
    };
    sys.pre_tool_use(call).await;
    let d = fx.dump("dump");
    let keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "session_id",
            "transcript_path",
            "cwd",
            "permission_mode",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id"
        ]
    );
    assert_eq!(d["hook_event_name"], "PreToolUse");
    assert_eq!(d["tool_name"], "Write");
    assert_eq!(d["tool_use_id"], "call-7");
    assert_eq!(d["permission_mode"], "default");
    let sys = fx.one("Stop", None, "dump");
    sys.after_agent("go", "thinking \ndone", true).await;
    let d = fx.dump("dump");
    assert_eq!(d["hook_event_name"], "Stop");
    assert_eq!(d["stop_hook_active"], true);
    assert_eq!(d["last_assistant_message"], "thinking \ndone");
    assert!(d.get("prompt_response").is_none());
    let sys = fx.one("PreCompact", Some("auto|manual"), "dump");
    sys.pre_compress("manual").await;
    assert_eq!(fx.dump("dump")["hook_event_name"], "PreCompact");
}

#[tokio::test]
async fn agent_and_session_events() {
    let fx = Fixture::new();
    let sys = fx.system(json!({
        "BeforeAgent": [{"hooks": [{"type": "command", "command": fx.cmd("agent_ctx")}]}],
        "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": fx.cmd("session_ctx")}]}]
    }));
    let s = sys.session_start("startup").await;
    assert_eq!(
        s.system_message.as_deref(),
        Some("hello-from-session-start")
    );
    assert_eq!(s.additional_context.as_deref(), Some("session-ctx"));
    assert_eq!(
        fx.texts(),
        vec![(
            HookMessageKind::SystemMessage,
            "Hook system message: hello-from-session-start".into()
        )]
    );
    assert_eq!(
        sys.session_start("resume").await,
        SessionStartOutcome::default()
    );
    assert_eq!(
        sys.before_agent("go").await,
        AgentHookOutcome::Proceed {
            additional_context: Some("agent-ctx".into())
        }
    );

    let deny = fx
        .one("BeforeAgent", None, "agent_deny")
        .before_agent("go")
        .await;
    assert_eq!(deny.message(), Some("agent-nope"));
    assert!(matches!(deny, AgentHookOutcome::Block { .. }));
    let stop = fx
        .one("BeforeAgent", None, "agent_stop")
        .before_agent("go")
        .await;
    assert_eq!(
        stop,
        AgentHookOutcome::Stop {
            reason: "agent-halt".into(),
            system_message: Some("sys".into()),
            clear_context: false
        }
    );
    assert_eq!(stop.message(), Some("sys"));
    let after = fx
        .one("AfterAgent", None, "agent_deny")
        .after_agent("go", "first", false)
        .await;
    assert_eq!(
        after,
        AgentHookOutcome::Block {
            reason: "agent-nope".into(),
            system_message: None,
            clear_context: false
        }
    );
}

fn llm_request() -> GenerateContentRequest {
    serde_json::from_value(json!({
        "contents": [{"role": "user", "parts": [{"text": "ctx"}]}, {"role": "user", "parts": [{"text": "go"}]}],
        "generationConfig": {"temperature": 1, "topP": 0.95, "topK": 64}
    }))
    .unwrap()
}

#[tokio::test]
async fn model_events() {
    let fx = Fixture::new();
    let req = llm_request();
    let m = "gemini-3-flash-preview";

    let sys = fx.one("BeforeModel", None, "dump");
    assert_eq!(
        sys.before_model(&req, m).await,
        BeforeModelOutcome::Proceed {
            request: None,
            model: None
        }
    );
    assert_eq!(
        fx.dump("dump")["llm_request"],
        json!({"model": m, "messages": [{"role": "user", "content": "ctx"}, {"role": "user", "content": "go"}],
               "config": {"temperature": 1, "topP": 0.95, "topK": 64}})
    );
    let out = fx
        .one("BeforeModel", None, "deny_json")
        .before_model(&req, m)
        .await;
    assert_eq!(
        out,
        BeforeModelOutcome::Block {
            reason: "nope".into(),
            system_message: None
        }
    );
    let out = fx
        .one("BeforeModel", None, "stop")
        .before_model(&req, m)
        .await;
    assert_eq!(
        out,
        BeforeModelOutcome::Stop {
            reason: "halt".into(),
            system_message: None
        }
    );
    let BeforeModelOutcome::Respond { response } = fx
        .one("BeforeModel", None, "model_synth")
        .before_model(&req, m)
        .await
    else {
        panic!("expected a synthetic response")
    };
    assert_eq!(response.text(), "synthetic");
    assert_eq!(
        response.first_candidate().unwrap().finish_reason.as_deref(),
        Some("STOP")
    );
    let BeforeModelOutcome::Proceed {
        request: Some(new),
        model: None,
    } = fx
        .one("BeforeModel", None, "model_rewrite")
        .before_model(&req, m)
        .await
    else {
        panic!("expected a rewritten request")
    };
    assert_eq!(
        serde_json::to_value(&new.contents).unwrap(),
        json!([{"role": "user", "parts": [{"text": "rewritten"}]}])
    );
    assert_eq!(
        serde_json::to_value(&new.generation_config).unwrap(),
        json!({"temperature": 0.1})
    );

    let tc = fx
        .one("BeforeToolSelection", None, "tool_select")
        .before_tool_selection(&req, m)
        .await;
    assert_eq!(
        serde_json::to_value(tc).unwrap(),
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}})
    );
    assert_eq!(
        fx.one("BeforeToolSelection", None, "stderr0")
            .before_tool_selection(&req, m)
            .await,
        None
    );

    let chunk: GenerateContentResponse = serde_json::from_value(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "thinking "}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
    }))
    .unwrap();
    let sys = fx.one("AfterModel", None, "dump");
    assert_eq!(
        sys.after_model(&req, m, &chunk).await,
        AfterModelOutcome::Proceed { response: None }
    );
    assert_eq!(
        serde_json::to_string(&fx.dump("dump")["llm_response"]).unwrap(),
        r#"{"text":"thinking ","candidates":[{"content":{"role":"model","parts":["thinking "]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"totalTokenCount":110}}"#
    );
    let AfterModelOutcome::Proceed { response: Some(r) } = fx
        .one("AfterModel", None, "chunk_rewrite")
        .after_model(&req, m, &chunk)
        .await
    else {
        panic!("expected a replaced chunk")
    };
    assert_eq!(r.text(), "NEW");
    let out = fx
        .one("AfterModel", None, "block_json")
        .after_model(&req, m, &chunk)
        .await;
    assert_eq!(
        out,
        AfterModelOutcome::Block {
            reason: "r".into(),
            system_message: None
        }
    );
}
