//! The runner: env, substitution, timeout, sequential vs parallel, config switches.

use super::*;
use crate::hooks::BeforeToolOutcome;
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

#[tokio::test]
async fn env_and_project_dir_substitution() {
    let fx = Fixture::new();
    let script = "pwd > \"$GEMINI_PROJECT_DIR/env.txt\"\nenv | grep -E '^(GEMINI_(CWD|PROJECT_DIR|SESSION_ID)|CLAUDE_PROJECT_DIR|MY_VAR)=' | sort >> \"$GEMINI_PROJECT_DIR/env.txt\"\n";
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
        crate::hooks::runner::expand_command("a $GEMINI_PROJECT_DIR/b", Path::new("/x y")),
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
        dialect: config::HookDialect::Gemini,
        http: None,
        prompt: None,
    };
    let env = HookEnv {
        project_dir: fx.dir.clone(),
        ..HookEnv::default()
    };
    let r = crate::hooks::runner::run_hook(
        &hook,
        b"{}",
        &env,
        crate::hooks::HookEvent::BeforeTool,
        None,
    )
    .await;
    assert!(!r.success);
    assert_eq!(
        r.error.as_ref().map(ToString::to_string).as_deref(),
        Some("Hook timed out after 200ms")
    );
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
            tool_input: Some(last),
            additional_context: None,
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
