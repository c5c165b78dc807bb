//! End-to-end tests of the hook system with real hook scripts (python3 and
//! bash) in a temporary project dir.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::scheduler::{AfterToolOutcome, BeforeToolOutcome};
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const HOOK_PY: &str = r#"
import json, os, sys
mode = sys.argv[1]
data = sys.stdin.read()
here = os.path.dirname(os.path.abspath(__file__))
inp = json.loads(data)
with open(os.path.join(here, "log.txt"), "a") as f:
    f.write(mode + " " + inp["hook_event_name"] + "\n")
def out(o):
    print(json.dumps(o))
if mode == "deny_json": out({"decision": "deny", "reason": "nope"})
elif mode == "block_json": out({"decision": "block", "reason": "r"})
elif mode == "exit2_stderr":
    sys.stderr.write("nope-stderr\n"); sys.exit(2)
elif mode == "exit2_stdout":
    out({"decision": "deny", "reason": "x"}); sys.exit(2)
elif mode == "exit1_stderr":
    sys.stderr.write("warn-text\n"); sys.exit(1)
elif mode == "exit3_stderr":
    sys.stderr.write("three\n"); sys.exit(3)
elif mode == "plain": print("plain text out")
elif mode == "stderr0": sys.stderr.write("junk\n")
elif mode == "input_mod": out({"hookSpecificOutput": {"tool_input": {"content": "changed"}}})
elif mode == "stop": out({"continue": False, "stopReason": "halt"})
elif mode == "ask": out({"decision": "ask"})
elif mode == "allow": out({"decision": "allow"})
elif mode == "after_ctx": out({"hookSpecificOutput": {"additionalContext": "<x> ctx"}})
elif mode == "after_deny": out({"decision": "deny", "reason": "hidden"})
elif mode == "session_ctx": out({"systemMessage": "hello-from-session-start", "hookSpecificOutput": {"additionalContext": "session-ctx"}})
elif mode == "agent_ctx": out({"hookSpecificOutput": {"additionalContext": "agent-ctx"}})
elif mode == "agent_deny": out({"decision": "deny", "reason": "agent-nope"})
elif mode == "agent_stop": out({"continue": False, "stopReason": "agent-halt", "systemMessage": " sys "})
elif mode == "tool_select": out({"hookSpecificOutput": {"toolConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}}})
elif mode == "model_rewrite": out({"hookSpecificOutput": {"llm_request": {"messages": [{"role": "user", "content": "rewritten"}], "config": {"temperature": 0.1}}}})
elif mode == "model_synth": out({"decision": "block", "hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"role": "model", "parts": ["synthetic"]}}]}}})
elif mode == "chunk_rewrite": out({"hookSpecificOutput": {"llm_response": {"candidates": [{"content": {"role": "model", "parts": ["NEW"]}, "finishReason": "STOP"}]}}})
elif mode == "seq_a": out({"hookSpecificOutput": {"tool_input": {"content": "A"}, "additionalContext": "ctxA"}})
elif mode.startswith("dump"):
    with open(os.path.join(here, mode + ".json"), "w") as f:
        f.write(data)
    if mode == "dump_b": out({"hookSpecificOutput": {"tool_input": {"file_path": "B"}}})
elif mode == "json_string": print(json.dumps(json.dumps({"decision": "block", "reason": "twice"})))
"#;

struct Fixture {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    messages: Arc<Mutex<Vec<HookMessage>>>,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("my proj");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("hook.py"), HOOK_PY).unwrap();
        Fixture {
            _tmp: tmp,
            dir,
            messages: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// `python3 "<dir>/hook.py" <mode>`, as upstream scenarios spell it.
    fn cmd(&self, mode: &str) -> String {
        format!("python3 \"{}/hook.py\" {mode}", self.dir.display())
    }

    fn system(&self, hooks: Value) -> HookSystem {
        self.system_with(json!({ "hooks": hooks }))
    }

    fn system_with(&self, settings: Value) -> HookSystem {
        let config = HookConfig::from_value(&settings, "project");
        let env = HookEnv {
            project_dir: self.dir.clone(),
            session_id: "sid-1".into(),
            transcript_path: String::new(),
        };
        let store = self.messages.clone();
        let sink: HookMessageSink = Arc::new(move |m| store.lock().unwrap().push(m));
        HookSystem::new(config, env, sink)
    }

    fn one(&self, event: &str, matcher: Option<&str>, mode: &str) -> HookSystem {
        let mut def = json!({"hooks": [{"type": "command", "command": self.cmd(mode)}]});
        if let Some(m) = matcher {
            def["matcher"] = json!(m);
        }
        self.system(json!({ event: [def] }))
    }

    fn texts(&self) -> Vec<(HookMessageKind, String)> {
        self.messages
            .lock()
            .unwrap()
            .iter()
            .map(|m| (m.kind, m.text.clone()))
            .collect()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("log.txt")).unwrap_or_default()
    }

    fn dump(&self, name: &str) -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(self.dir.join(format!("{name}.json"))).unwrap(),
        )
        .unwrap()
    }
}

fn args() -> Map<String, Value> {
    json!({"file_path": "w.txt", "content": "orig"})
        .as_object()
        .unwrap()
        .clone()
}

async fn before(fx: &Fixture, mode: &str) -> BeforeToolOutcome {
    fx.one("BeforeTool", Some("write_file"), mode)
        .before_tool("write_file", &args(), None)
        .await
}

fn block(r: &str) -> BeforeToolOutcome {
    BeforeToolOutcome::Block { reason: r.into() }
}

const PROCEED: BeforeToolOutcome = BeforeToolOutcome::Proceed { tool_input: None };

/// The failure lines for one failed hook, duration masked.
fn failure_lines(fx: &Fixture, mode: &str, event: &str) -> Vec<(HookMessageKind, String)> {
    let name = fx.cmd(mode);
    let w = format!(
        "Hook(s) [{name}] failed for event {event}. Press F12 to see the debug drawer for more details."
    );
    vec![
        (
            HookMessageKind::Info,
            format!(
                "Hook execution for {event}: 0 succeeded, 1 failed ({name}), total duration: MSms"
            ),
        ),
        (HookMessageKind::Info, w.clone()),
        (HookMessageKind::Warning, w),
    ]
}

fn masked(fx: &Fixture) -> Vec<(HookMessageKind, String)> {
    let re = regex::Regex::new(r"total duration: \d+ms").unwrap();
    fx.texts()
        .into_iter()
        .map(|(k, t)| (k, re.replace(&t, "total duration: MSms").into_owned()))
        .collect()
}

#[tokio::test]
async fn exit_code_rows() {
    let fx = Fixture::new();
    assert_eq!(before(&fx, "deny_json").await, block("nope"));
    assert_eq!(before(&fx, "block_json").await, block("r"));
    assert_eq!(before(&fx, "json_string").await, block("twice"));
    assert!(fx.texts().is_empty());

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
    assert!(fx.texts().is_empty());

    let changed = json!({"content": "changed"}).as_object().unwrap().clone();
    assert_eq!(
        before(&fx, "input_mod").await,
        BeforeToolOutcome::Proceed {
            tool_input: Some(changed)
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
    let call = crate::scheduler::HookToolCall {
        name: "write_file",
        args: &args(),
        mcp_context: None,
    };
    let run = |mode: &'static str| {
        let sys = fx.one("AfterTool", Some("write_file"), mode);
        let result = result.clone();
        async move { ToolHooks::after_tool(&sys, call, &result).await }
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
async fn input_fields_and_aliases() {
    let fx = Fixture::new();
    let sys = fx.one("PreToolUse", None, "dump");
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

    let sys = fx.one("UserPromptSubmit", None, "dump");
    assert_eq!(
        sys.before_agent("go").await,
        AgentHookOutcome::Proceed {
            additional_context: None
        }
    );
    assert_eq!(fx.dump("dump")["prompt"], "go");
    let sys = fx.one("Stop", None, "dump");
    sys.after_agent("go", "thinking \ndone", false).await;
    let d = fx.dump("dump");
    assert_eq!(
        (d["hook_event_name"].as_str(), d["prompt_response"].as_str()),
        (Some("AfterAgent"), Some("thinking \ndone"))
    );
    assert_eq!(d["stop_hook_active"], false);
    let sys = fx.one("PreCompact", Some("auto"), "dump");
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
async fn env_and_project_dir_substitution() {
    let fx = Fixture::new();
    let script = "pwd > \"$GEMINI_PROJECT_DIR/env.txt\"\nenv | grep -E '^(GEMINI|CLAUDE|MY_)' | sort >> \"$GEMINI_PROJECT_DIR/env.txt\"\n";
    std::fs::write(fx.dir.join("env.sh"), script).unwrap();
    let sys = fx.system(json!({"BeforeTool": [{"hooks": [
        {"type": "command", "command": "bash $GEMINI_PROJECT_DIR/env.sh", "env": {"MY_VAR": "v"}},
        {"type": "command", "command": "test -f ${CLAUDE_PROJECT_DIR}/env.sh && echo ok > ${CLAUDE_PROJECT_DIR}/sub.txt"}
    ]}]}));
    assert_eq!(sys.before_tool("x", &args(), None).await, PROCEED);
    assert!(fx.texts().is_empty(), "{:?}", fx.texts());
    let d = fx.dir.to_str().unwrap();
    let got = std::fs::read_to_string(fx.dir.join("env.txt")).unwrap();
    let want = format!(
        "{d}\nCLAUDE_PROJECT_DIR={d}\nGEMINI_CWD={d}\nGEMINI_PROJECT_DIR={d}\nGEMINI_SESSION_ID=sid-1\nMY_VAR=v\n"
    );
    assert_eq!(got, want);
    assert_eq!(
        std::fs::read_to_string(fx.dir.join("sub.txt")).unwrap(),
        "ok\n"
    );
    assert_eq!(
        runner::expand_command("a $GEMINI_PROJECT_DIR/b", Path::new("/x y")),
        "a '/x y'/b"
    );
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks existence.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[tokio::test]
async fn timeout_kills_the_process_group() {
    let fx = Fixture::new();
    let cmd = "sleep 30 & echo $! > child.pid; echo $$ > main.pid; wait";
    let sys = fx.system(
        json!({"BeforeTool": [{"hooks": [{"type": "command", "command": cmd, "timeout": 200}]}]}),
    );
    let start = Instant::now();
    assert_eq!(sys.before_tool("x", &args(), None).await, PROCEED);
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    let w = format!(
        "Hook(s) [{cmd}] failed for event BeforeTool. Press F12 to see the debug drawer for more details."
    );
    assert!(fx.texts().contains(&(HookMessageKind::Warning, w)));
    let pid = |f: &str| {
        std::fs::read_to_string(fx.dir.join(f))
            .unwrap()
            .trim()
            .parse::<i32>()
            .unwrap()
    };
    let (main, child) = (pid("main.pid"), pid("child.pid"));
    let deadline = Instant::now() + Duration::from_secs(3);
    while (alive(main) || alive(child)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!alive(main) && !alive(child));

    let hook = config::CommandHook {
        name: None,
        command: "sleep 5".into(),
        timeout_ms: 200,
        description: None,
        env: vec![],
    };
    let env = HookEnv {
        project_dir: fx.dir.clone(),
        ..HookEnv::default()
    };
    let r = runner::run_hook(&hook, b"{}", &env).await;
    assert!(!r.success);
    assert_eq!(r.error.as_deref(), Some("Hook timed out after 200ms"));
    assert_eq!(r.output, None);
}

#[tokio::test]
async fn sequential_hooks_see_previous_changes() {
    let fx = Fixture::new();
    let hooks = |seq: bool| {
        json!({"BeforeTool": [
            {"hooks": [{"type": "command", "command": fx.cmd("seq_a")}]},
            {"sequential": seq, "hooks": [{"type": "command", "command": fx.cmd("dump_b")}]}
        ], "BeforeAgent": [
            {"sequential": seq, "hooks": [{"type": "command", "command": fx.cmd("seq_a")}, {"type": "command", "command": fx.cmd("dump_b")}]}
        ]})
    };
    let sys = fx.system(hooks(true));
    let out = sys.before_tool("write_file", &args(), None).await;
    assert_eq!(
        fx.dump("dump_b")["tool_input"],
        json!({"file_path": "w.txt", "content": "A"})
    );
    let last = json!({"file_path": "B"}).as_object().unwrap().clone();
    assert_eq!(
        out,
        BeforeToolOutcome::Proceed {
            tool_input: Some(last)
        }
    );
    let out = sys.before_agent("go").await;
    assert_eq!(fx.dump("dump_b")["prompt"], "go\n\nctxA");
    assert_eq!(
        out,
        AgentHookOutcome::Proceed {
            additional_context: Some("ctxA".into())
        }
    );

    let sys = fx.system(hooks(false));
    sys.before_tool("write_file", &args(), None).await;
    assert_eq!(
        fx.dump("dump_b")["tool_input"],
        json!({"file_path": "w.txt", "content": "orig"})
    );
    sys.before_agent("go").await;
    assert_eq!(fx.dump("dump_b")["prompt"], "go");
}

#[tokio::test]
async fn parallel_hooks_run_concurrently() {
    let fx = Fixture::new();
    let h =
        |n: u32| json!({"type": "command", "command": format!("sleep 0.5; echo {n} >/dev/null")});
    let sys = fx.system(json!({"BeforeTool": [{"hooks": [h(1), h(2), h(3), h(4)]}]}));
    let start = Instant::now();
    sys.before_tool("x", &args(), None).await;
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
}

#[tokio::test]
async fn disabled_and_duplicate_hooks() {
    let fx = Fixture::new();
    let h = json!({"type": "command", "command": fx.cmd("allow")});
    let named = json!({"type": "command", "command": fx.cmd("deny_json"), "name": "denier"});
    let unnamed_off = json!({"type": "command", "command": fx.cmd("block_json")});
    let sys = fx.system_with(json!({
        "hooksConfig": {"disabled": ["denier", fx.cmd("block_json")]},
        "hooks": {"BeforeTool": [{"hooks": [h, named, unnamed_off]}, {"matcher": "write", "hooks": [h]}]}
    }));
    assert_eq!(sys.before_tool("write_file", &args(), None).await, PROCEED);
    assert_eq!(fx.log(), "allow BeforeTool\n");

    let off = fx.system_with(
        json!({"hooksConfig": {"enabled": false}, "hooks": {"BeforeTool": [{"hooks": [h]}]}}),
    );
    assert!(!off.has_hooks(HookEvent::BeforeTool));
    assert_eq!(off.before_tool("write_file", &args(), None).await, PROCEED);
    assert_eq!(fx.log(), "allow BeforeTool\n");
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
