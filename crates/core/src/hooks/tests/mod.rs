//! End-to-end tests of the hook system with real hook scripts (python3 and
//! bash) in a temporary project dir.

use super::*;
use crate::hooks::BeforeToolOutcome;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Mutex;

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
            ..HookEnv::default()
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

const PROCEED: BeforeToolOutcome = BeforeToolOutcome::Proceed {
    tool_input: None,
    additional_context: None,
};

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

mod events;
mod runner;
mod tools;

#[test]
fn a_model_error_reads_as_claude_codes_stop_failure() {
    use crate::hooks::claude::stop_failure;
    use gemini_rs_protocol::events::{ApiOrigin, ModelError};
    let provider = |status: u16| ModelError::Provider {
        provider: "The Anthropic API".into(),
        status,
        message: "bad request".into(),
    };
    assert_eq!(
        stop_failure(&provider(400)),
        ("unknown", "API Error: 400 bad request".to_string())
    );
    let wrapped = ModelError::RetriesExhausted {
        attempts: 3,
        last: Box::new(provider(529)),
    };
    assert_eq!(stop_failure(&wrapped).0, "server_error");
    let at = ModelError::AtProvider {
        origin: Box::new(ApiOrigin {
            provider: "anthropic".into(),
            api: "Anthropic API".into(),
            base_url: "http://127.0.0.1:1".into(),
            configured_by: "ANTHROPIC_BASE_URL".into(),
        }),
        hint: None,
        error: Box::new(ModelError::RateLimited {
            message: "slow down".into(),
        }),
    };
    assert_eq!(
        stop_failure(&at),
        ("rate_limit", "API Error: 429 slow down".to_string())
    );
    let auth = ModelError::Auth {
        status: 401,
        message: "no".into(),
    };
    assert_eq!(stop_failure(&auth).0, "authentication_failed");
}
