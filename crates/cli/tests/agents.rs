//! Sub-agents through the binary, against the fake Gemini endpoint: the
//! nested model calls come from the same recording, in order. Every
//! functionResponse text below is what Gemini CLI v0.27.4 sent on the same
//! recordings (run offline against a fake endpoint).

use crate::e2e::{call, lines, text};
use crate::support::{Output, Sandbox};
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

const READER: &str = "---\nname: reader\ndescription: Reads files for you.\ndisplay_name: Reader\ntools: [read_file]\nmax_turns: 2\ntemperature: 0.3\n---\nYou read files. Today is ${today}.\n";

fn settings(sb: &Sandbox, extra: Value) {
    let mut s = json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}});
    if let (Some(s), Some(extra)) = (s.as_object_mut(), extra.as_object()) {
        s.extend(extra.clone());
    }
    sb.settings(&s);
}

fn with_agents(sb: &Sandbox, extra: Value) {
    let mut all = json!({"experimental": {"enableAgents": true}});
    if let (Some(a), Some(extra)) = (all.as_object_mut(), extra.as_object()) {
        a.extend(extra.clone());
    }
    settings(sb, all);
    sb.write_home(".gemini/agents/reader.md", READER);
}

fn run(sb: &Sandbox, turns: &[String], args: &[&str]) -> (FakeServer, Output) {
    let fake = FakeServer::replaying(&lines(turns));
    let mut all = args.to_vec();
    all.push("go");
    let out = sb.run(&all, None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    (fake, out)
}

fn report() -> Value {
    json!({"SummaryOfFindings": "a.txt holds hello", "ExplorationTrace": ["listed", "read a.txt"],
        "RelevantLocations": [{"FilePath": "a.txt", "Reasoning": "it", "KeySymbols": ["hello"]}]})
}

/// `(name, response)` of every functionResponse sent, in order.
fn responses(fake: &FakeServer) -> Vec<(String, Value)> {
    fake.function_responses()
        .into_iter()
        .map(|p| {
            let fr = &p["functionResponse"];
            (
                fr["name"].as_str().unwrap().to_string(),
                fr["response"].clone(),
            )
        })
        .collect()
}

fn finished(name: &str, reason: &str, result: &str) -> Value {
    json!({"output": format!("Subagent '{name}' finished.\nTermination Reason: {reason}\nResult:\n{result}")})
}

fn declared(body: &Value) -> Vec<String> {
    body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_investigator_lists_reads_and_reports() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    sb.write("a.txt", "hello\n");
    let (fake, out) = run(
        &sb,
        &[
            call(
                "codebase_investigator",
                json!({"objective": "what is in a.txt"}),
            ),
            call("list_directory", json!({"dir_path": "."})),
            call("read_file", json!({"file_path": "a.txt"})),
            call("complete_task", json!({"report": report()})),
            text("done"),
        ],
        &["--approval-mode=yolo", "-o", "stream-json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let reqs = fake.requests();
    let main = declared(&reqs[0].body);
    let at = |n: &str| main.iter().position(|x| x == n).unwrap();
    assert_eq!(at("cli_help"), at("codebase_investigator") + 1, "{main:?}");
    assert!(!main.contains(&"complete_task".to_string()));
    // The nested requests: the investigator's model, tools and prompt.
    assert_eq!(reqs[1].model(), "gemini-2.5-pro");
    assert_eq!(
        declared(&reqs[1].body),
        [
            "list_directory",
            "read_file",
            "glob",
            "search_file_content",
            "complete_task"
        ]
    );
    assert_eq!(reqs[1].body["contents"].as_array().unwrap().len(), 1);
    let system = reqs[1].body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(system.contains("Codebase Investigator"), "{system}");
    assert!(system.contains(sb.work.to_str().unwrap()), "{system}");
    let got = responses(&fake);
    let dir = sb.work.display();
    assert_eq!(
        got[0],
        (
            "list_directory".into(),
            json!({"output": format!("Directory listing for {dir}:\n[DIR] .gemini\na.txt")})
        )
    );
    assert_eq!(got[1], ("read_file".into(), json!({"output": "hello\n"})));
    let pretty = serde_json::to_string_pretty(&report()).unwrap();
    assert_eq!(
        got[2],
        (
            "codebase_investigator".into(),
            finished("codebase_investigator", "GOAL", &pretty)
        )
    );
    // stream-json: the nested calls are marked with the delegating call.
    let events: Vec<Value> = out
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let parent = events
        .iter()
        .find(|e| e["type"] == "tool_use" && e["tool_name"] == "codebase_investigator")
        .unwrap()["tool_id"]
        .clone();
    let nested: Vec<&Value> = events
        .iter()
        .filter(|e| e.get("parent_tool_id") == Some(&parent))
        .collect();
    let names: Vec<&str> = nested
        .iter()
        .filter_map(|e| e["tool_name"].as_str())
        .collect();
    assert_eq!(names, ["list_directory", "read_file", "complete_task"]);
    assert_eq!(nested.len(), 6, "{nested:?}");
    let result = events.iter().find(|e| e["type"] == "result").unwrap();
    assert_eq!(result["stats"]["tool_calls"], 3, "{result}");
    // The nested model calls count too: five requests.
    assert_eq!(result["stats"]["total_tokens"], 550, "{result}");
}

#[test]
fn forgetting_complete_task_gets_one_grace_turn() {
    for (grace, reason, result) in [
        (
            call("complete_task", json!({"report": report()})),
            "GOAL",
            serde_json::to_string_pretty(&report()).unwrap(),
        ),
        (
            text("still nothing"),
            "ERROR_NO_COMPLETE_TASK_CALL",
            "Agent stopped calling tools but did not call 'complete_task'.".to_string(),
        ),
    ] {
        let sb = Sandbox::new();
        settings(&sb, json!({}));
        let (fake, out) = run(
            &sb,
            &[
                call("codebase_investigator", json!({"objective": "x"})),
                text("I looked."),
                grace,
                text("done"),
            ],
            &["--approval-mode=yolo"],
        );
        assert_eq!(out.code, 0, "{out:?}");
        let reqs = fake.requests();
        let warning =
            reqs[2].body["contents"].as_array().unwrap().last().unwrap()["parts"][0]["text"]
                .as_str()
                .unwrap()
                .to_string();
        assert!(
            warning.starts_with(
                "You have stopped calling tools without finishing. You have one final chance"
            ),
            "{warning}"
        );
        let got = responses(&fake);
        assert_eq!(
            got.last().unwrap().1,
            finished("codebase_investigator", reason, &result)
        );
    }
}

#[test]
fn a_bad_report_and_a_missing_one_are_refused_as_the_reference_does() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let (fake, out) = run(
        &sb,
        &[
            call("codebase_investigator", json!({"objective": "x"})),
            call("complete_task", json!({"report": {"SummaryOfFindings": 3}})),
            call("complete_task", json!({})),
            call("write_file", json!({"file_path": "b.txt", "content": "x"})),
            call("complete_task", json!({"report": report()})),
            text("done"),
        ],
        &["--approval-mode=yolo", "-o", "json"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    // The stats count the nested model calls under their own model.
    let json: Value = serde_json::from_str(&out.stdout).unwrap();
    let models = &json["stats"]["models"];
    assert_eq!(
        models["gemini-2.5-pro"]["api"]["totalRequests"], 4,
        "{models}"
    );
    assert_eq!(
        models["gemini-2.5-flash"]["api"]["totalRequests"], 2,
        "{models}"
    );
    let got = responses(&fake);
    assert_eq!(
        got[0],
        (
            "complete_task".into(),
            json!({"error": "Output validation failed: {\"formErrors\":[],\"fieldErrors\":{\"SummaryOfFindings\":[\"Expected string, received number\"],\"ExplorationTrace\":[\"Required\"],\"RelevantLocations\":[\"Required\"]}}"})
        )
    );
    assert_eq!(
        got[1].1,
        json!({"error": "Missing required argument 'report' for completion."})
    );
    assert_eq!(
        got[2],
        (
            "write_file".into(),
            json!({"error": "Unauthorized tool call: 'write_file' is not available to this agent."})
        )
    );
    assert!(sb.read("b.txt").is_none());
    assert!(got[3].1["output"].as_str().unwrap().contains("GOAL"));
}

#[test]
fn a_user_agent_uses_only_its_tools_and_its_turns() {
    let sb = Sandbox::new();
    with_agents(&sb, json!({}));
    sb.write_home(".gemini/agents/broken.md", "---\nname: Broken Name\n---\n");
    sb.write("a.txt", "hello\n");
    let (fake, out) = run(
        &sb,
        &[
            call("reader", json!({"query": "read a"})),
            call("read_file", json!({"file_path": "a.txt"})),
            call("glob", json!({"pattern": "*"})),
            call("glob", json!({"pattern": "*"})),
            text("done"),
        ],
        &["--approval-mode=yolo"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("broken.md") && out.stderr.contains("slug"),
        "{}",
        out.stderr
    );
    let reqs = fake.requests();
    let decl = reqs[0].body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "reader")
        .unwrap()
        .clone();
    assert_eq!(decl["description"], "Reads files for you.");
    assert_eq!(declared(&reqs[1].body), ["read_file", "complete_task"]);
    assert_eq!(reqs[1].body["generationConfig"]["temperature"], 0.3);
    let system = reqs[1].body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    assert!(system.starts_with("You read files. Today is "), "{system}");
    assert!(!system.contains("${today}"));
    let got = responses(&fake);
    assert_eq!(got[0], ("read_file".into(), json!({"output": "hello\n"})));
    assert_eq!(
        got[1],
        (
            "glob".into(),
            json!({"error": "Unauthorized tool call: 'glob' is not available to this agent."})
        )
    );
    assert_eq!(
        got.last().unwrap().1,
        finished("reader", "MAX_TURNS", "Agent reached max turns limit (2).")
    );
}

#[test]
fn agents_need_the_switch_and_yolo_headless() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    sb.write_home(".gemini/agents/reader.md", READER);
    let (fake, out) = run(
        &sb,
        &[
            call("codebase_investigator", json!({"objective": "x"})),
            text("done"),
        ],
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!declared(&fake.requests()[0].body).contains(&"reader".to_string()));
    assert_eq!(
        responses(&fake)[0].1,
        json!({"error": "Tool execution denied by policy."})
    );
}

#[test]
fn a_missing_input_fails_before_the_agent_runs() {
    let sb = Sandbox::new();
    with_agents(&sb, json!({}));
    let (fake, out) = run(
        &sb,
        &[call("reader", json!({})), text("done")],
        &["--approval-mode=yolo"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        responses(&fake)[0].1,
        json!({"error": "Template validation failed: Missing required input parameters: query. Available inputs: cliVersion, activeModel, today"})
    );
    assert_eq!(fake.requests().len(), 2, "no nested model call");
}

#[test]
fn out_of_time_the_running_command_is_ended_and_hooks_see_nested_calls() {
    let sb = Sandbox::new();
    let log = sb.work.join("before-tool.log");
    let hook = format!("cat >> '{}'; echo >> '{}'", log.display(), log.display());
    with_agents(
        &sb,
        json!({"agents": {"overrides": {"sleeper": {"runConfig": {"maxTimeMinutes": 0.02}}}},
            "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": hook}]}]}}),
    );
    sb.write_home(
        ".gemini/agents/sleeper.md",
        "---\nname: sleeper\ndescription: Waits.\ntools: [run_shell_command]\n---\nWait.\n",
    );
    let started = std::time::Instant::now();
    let (fake, out) = run(
        &sb,
        &[
            call("sleeper", json!({"query": "wait"})),
            call("run_shell_command", json!({"command": "sleep 20.25"})),
            call("complete_task", json!({"result": "gave up waiting"})),
            text("done"),
        ],
        &["--approval-mode=yolo"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(started.elapsed() < std::time::Duration::from_secs(15));
    let left = std::process::Command::new("pgrep")
        .args(["-f", "sleep 20.25"])
        .output()
        .unwrap();
    assert!(left.stdout.is_empty(), "the command was left running");
    let reqs = fake.requests();
    // The grace turn answers the cancelled command, then warns.
    let last = reqs[2].body["contents"].as_array().unwrap().last().unwrap()["parts"].clone();
    assert!(
        last[0]["functionResponse"]["name"] == "run_shell_command",
        "{last}"
    );
    assert!(
        last[1]["text"]
            .as_str()
            .unwrap()
            .starts_with("You have exceeded the time limit."),
        "{last}"
    );
    assert_eq!(
        responses(&fake).last().unwrap().1,
        finished("sleeper", "GOAL", "gave up waiting")
    );
    let hooked = std::fs::read_to_string(&log).unwrap();
    assert!(hooked.contains("\"tool_name\":\"sleeper\""), "{hooked}");
    assert!(
        hooked.contains("\"tool_name\":\"run_shell_command\""),
        "{hooked}"
    );
}

#[test]
fn the_ui_folds_a_sub_agents_calls_and_acknowledges_project_agents() {
    if !crate::tui::tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return;
    }
    let sb = Sandbox::new();
    settings(&sb, json!({"experimental": {"enableAgents": true}}));
    sb.write(
        ".gemini/agents/local.md",
        &READER.replace("reader", "local"),
    );
    sb.write("a.txt", "hello\n");
    let fake = FakeServer::replaying(&lines(&[
        call("codebase_investigator", json!({"objective": "look"})),
        call("list_directory", json!({"dir_path": "."})),
        call("glob", json!({"pattern": "*.txt"})),
        call("read_file", json!({"file_path": "a.txt"})),
        call("read_file", json!({"file_path": "a.txt"})),
        call("complete_task", json!({"report": report()})),
        text("All looked at."),
    ]));
    let t = crate::tui::Tmux::start(&sb, &fake.base_url, &[], 110, 40);
    t.wait_for("acknowledge them: local", 20);
    t.type_text("/agents acknowledge");
    t.keys(&["Enter"]);
    t.wait_for("Acknowledged local", 10);
    let acks =
        std::fs::read_to_string(sb.home.join(".gemini/acknowledgments/agents.json")).unwrap();
    assert!(acks.contains("\"local\""), "{acks}");
    t.type_text("look around");
    t.keys(&["Enter"]);
    let s = t.wait_for("All looked at.", 20);
    assert!(s.contains("✓ codebase_investigator"), "{s}");
    assert!(
        s.contains("2 earlier call(s) of the agent (ctrl+o to show)"),
        "{s}"
    );
    assert!(s.contains("↳ ✓ read_file a.txt"), "{s}");
    assert!(s.contains("↳ ✓ complete_task"), "{s}");
    assert!(!s.contains("↳ ✓ glob"), "folded: {s}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn cli_help_answers_from_the_bundled_docs() {
    let sb = Sandbox::new();
    settings(&sb, json!({}));
    let answer = json!({"answer": "Use -m openai/<model>.", "sources": ["README.md"]});
    let (fake, out) = run(
        &sb,
        &[
            call("cli_help", json!({"question": "How do I use OpenAI?"})),
            call("get_internal_docs", json!({})),
            call("get_internal_docs", json!({"path": "README.md"})),
            call("complete_task", json!({"report": answer})),
            text("done"),
        ],
        &["--approval-mode=yolo"],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let reqs = fake.requests();
    assert_eq!(reqs[1].model(), "gemini-2.5-flash");
    assert_eq!(
        declared(&reqs[1].body),
        ["get_internal_docs", "complete_task"]
    );
    let got = responses(&fake);
    let list = got[0].1["output"].as_str().unwrap();
    assert!(
        list.contains("- README.md") && list.contains("- agents.md"),
        "{list}"
    );
    let readme = got[1].1["output"].as_str().unwrap();
    assert!(readme.contains("## Model providers"), "{readme}");
    assert_eq!(
        got.last().unwrap().1,
        finished(
            "cli_help",
            "GOAL",
            &serde_json::to_string_pretty(&answer).unwrap()
        )
    );
}
