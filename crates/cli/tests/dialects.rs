//! Scripted sessions played through gemini-rs in a dialect and compared
//! with what Gemini CLI itself did (issue 36): the scenarios are
//! `e2e/reference/scenarios.json`, the goldens `tests/dialects/<dialect>/`,
//! recorded from the reference programs by `e2e/reference/record.sh`.
//! Each golden holds the tools declared in the first request and every
//! function response, paths written `<tmp>` (project) and `<home>`.

mod capture;
mod params;
mod policy;
mod stats;

use crate::e2e::lines;
use crate::support::Sandbox;
use capture::{
    without_descriptions, without_ours, without_pgid, without_project_dirs, without_suggestions,
};
use gemini_rs_test_support::{FakeServer, Fault};
use serde_json::{Value, json};
use std::path::PathBuf;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scenarios() -> Value {
    let path = repo().join("e2e/reference/scenarios.json");
    serde_json::from_str(&std::fs::read_to_string(&path).expect("scenarios.json"))
        .expect("scenarios.json is JSON")
}

/// One model turn of a scenario as a responses-file line: a streamed turn
/// of the conversation, or with `side` the answer to a tool's own model
/// call (web_fetch's, not streamed).
fn model_turn(step: &Value) -> String {
    let parts = match step.get("call").and_then(Value::as_str) {
        Some(name) => json!([{"functionCall": {"name": name, "args": step["args"].clone()}}]),
        None => json!([{"text": step["text"].clone()}]),
    };
    if step["side"].as_bool() == Some(true) {
        return json!({"method": "generateContent", "response": {
            "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}]
        }})
        .to_string();
    }
    crate::e2e::turn(parts)
}

/// The fake endpoint playing `scenario`'s model turns in `dialect`.
fn serve(scenario: &Value, dialect: &str) -> FakeServer {
    // A step marked `only` is played in that dialect alone (as recorded);
    // one with a `status` is an HTTP error reply to that model request.
    let steps: Vec<&Value> = scenario["turns"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["only"].as_str().is_none_or(|d| d == dialect))
        .collect();
    let turns: Vec<String> = steps
        .iter()
        .filter(|s| s.get("status").is_none())
        .map(|s| model_turn(s))
        .collect();
    // Each turn streamed as the recorder streamed it to the reference.
    let fake = FakeServer::builder()
        .replay_as_recorded(&lines(&turns))
        .start();
    let last_error = steps.iter().rposition(|s| s.get("status").is_some());
    for step in steps.iter().take(last_error.map_or(0, |i| i + 1)) {
        fake.push_fault(match step["status"].as_u64() {
            Some(status) => Fault::Status(status as u16, step["body"].clone()),
            None => Fault::Pass,
        });
    }
    fake
}

/// What the model was shown when `scenario` ran in `dialect`, as the
/// recorder writes it.
fn play(name: &str, dialect: &str) -> Value {
    play_with_output(name, dialect).0
}

/// [`play`]'s golden and the run's output.
fn play_with_output(name: &str, dialect: &str) -> (Value, crate::support::Output) {
    let all = scenarios();
    let scenario = &all[name];
    let sb = Sandbox::new();
    let home = sb.home.display().to_string();
    let files = scenario["files"].as_object().cloned().unwrap_or_default();
    for (rel, content) in &files {
        sb.write(rel, content.as_str().unwrap_or_default());
    }
    let home_files = scenario["home_files"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    for (rel, content) in &home_files {
        sb.write_home(
            rel,
            &content
                .as_str()
                .unwrap_or_default()
                .replace("<home>", &home),
        );
    }
    let mut settings = json!({
        "model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}
    });
    let extra = scenario["settings"].to_string().replace("<home>", &home);
    if let (Some(s), Ok(Value::Object(extra))) = (
        settings.as_object_mut(),
        serde_json::from_str::<Value>(&extra),
    ) {
        s.extend(extra);
    }
    sb.write_home(".gemini/settings.json", &settings.to_string());
    let fake = serve(scenario, dialect);
    let flags: Vec<String> = scenario["flags"]
        .as_array()
        .map(|f| {
            f.iter()
                .filter_map(Value::as_str)
                .map(|a| a.replace("<home>", &home))
                .collect()
        })
        .unwrap_or_default();
    let mut args: Vec<&str> = flags.iter().map(String::as_str).collect();
    args.extend(["-p", "go"]);
    let out = sb.run(
        &args,
        None,
        &[
            ("GOOGLE_GEMINI_BASE_URL", &fake.base_url),
            ("GEMINI_RS_DIALECT", dialect),
        ],
    );
    assert_eq!(out.code, 0, "{name}: {out:?}");
    let requests: Vec<Value> = fake
        .requests()
        .into_iter()
        .map(|r| r.body)
        .filter(|b| b.get("tools").is_some())
        .collect();
    let mut declared: Vec<String> = requests
        .first()
        .and_then(|b| b["tools"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .flat_map(|g| {
            g["functionDeclarations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|d| d["name"].as_str().map(str::to_string))
        .collect();
    declared.sort();
    let mut extra = capture::captured(scenario, &sb, &out);
    if scenario["schemas"].as_bool() == Some(true) {
        let tools = requests
            .first()
            .map(|b| b["tools"].clone())
            .unwrap_or_default();
        let names = compared(scenario, &json!(declared));
        extra.insert("schemas".into(), capture::schemas(&tools, &names));
    }
    let mut responses = Vec::new();
    for body in &requests {
        let last = body["contents"].as_array().and_then(|c| c.last()).cloned();
        for part in last
            .and_then(|c| c["parts"].as_array().cloned())
            .unwrap_or_default()
        {
            if let Some(fr) = part.get("functionResponse") {
                responses.push(json!([fr["name"], fr["response"]]));
            }
        }
    }
    let mut golden = json!({"declared": declared, "responses": responses});
    if let Some(map) = golden.as_object_mut() {
        map.extend(extra);
    }
    let text = golden
        .to_string()
        .replace(&sb.work.display().to_string(), "<tmp>")
        .replace(&home, "<home>");
    let golden = serde_json::from_str(&without_project_dirs(&text)).expect("normalised golden");
    (golden, out)
}

/// The golden of `name` recorded from the reference of `dialect`.
fn golden(name: &str, dialect: &str) -> Value {
    let path = repo().join(format!("crates/cli/tests/dialects/{dialect}/{name}.json"));
    let text = std::fs::read_to_string(&path).expect("golden");
    serde_json::from_str(&without_project_dirs(&text)).expect("golden JSON")
}

/// The declared names the scenario compares (`compare_declared`: names,
/// or prefixes ending in `*`); every name when it lists none.
fn compared(scenario: &Value, declared: &Value) -> Vec<String> {
    let patterns: Vec<&str> = scenario["compare_declared"]
        .as_array()
        .map(|p| p.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    declared
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_str)
        .filter(|n| {
            patterns.iter().any(|p| match p.strip_suffix('*') {
                Some(prefix) => n.starts_with(prefix),
                None => n == p,
            })
        })
        .map(str::to_string)
        .collect()
}

/// Plays `name` in `dialect` and compares it with the golden.
fn check(name: &str, dialect: &str) {
    check_against(name, dialect, golden(name, dialect));
}

/// Plays `name` in `dialect` and compares it with `theirs`.
fn check_against(name: &str, dialect: &str, theirs: Value) {
    compare(name, dialect, play(name, dialect), theirs);
}

/// Compares what `name` showed through gemini-rs in `dialect` (`ours`)
/// with `theirs`.
fn compare(name: &str, dialect: &str, mut ours: Value, mut theirs: Value) {
    let all = scenarios();
    for side in [&mut ours, &mut theirs] {
        side["responses"] = without_pgid(without_suggestions(side["responses"].take()));
    }
    assert_eq!(
        ours["responses"], theirs["responses"],
        "{name} ({dialect}): function responses differ"
    );
    assert_eq!(
        compared(&all[name], &ours["declared"]),
        compared(&all[name], &theirs["declared"]),
        "{name} ({dialect}): declared tools differ"
    );
    check_captured(name, dialect, &ours, &theirs);
}

/// Compares what the golden captured beyond the model's view: the
/// parameter schemas (descriptions are our own words), `-o json`'s and
/// `-o stream-json`'s answers and the session file's record shapes.
fn check_captured(name: &str, dialect: &str, ours: &Value, theirs: &Value) {
    if let Some(schemas) = theirs.get("schemas") {
        assert_eq!(
            without_descriptions(&ours["schemas"]),
            without_descriptions(schemas),
            "{name} ({dialect}): parameter schemas differ"
        );
    }
    for key in ["json", "stream", "session"] {
        if let Some(expected) = theirs.get(key) {
            assert_eq!(
                without_ours(&ours[key]),
                *expected,
                "{name} ({dialect}): {key} differs"
            );
        }
    }
}

#[test]
fn today_mcp_tools_are_declared_prefixed_and_their_results_wrapped() {
    check("mcp-names", "today");
}

#[test]
fn today_wrong_parameter_types_get_the_schema_error() {
    check("param-type", "today");
}

#[test]
fn v027_mcp_tools_keep_their_names_and_results_are_wrapped_as_today() {
    let ours = play("mcp-names", "0.27");
    let mut theirs = golden("mcp-names", "0.27");
    // Deliberate differences from 0.27.4 (docs/dialects.md): today's
    // `mcp_<server>_<tool>` is accepted in every dialect, and a server's
    // text reaches the model as untrusted context in both.
    theirs["responses"][0][1] = json!({"output": "found x on line 3"});
    for response in theirs["responses"].as_array_mut().into_iter().flatten() {
        if let Some(text) = response[1]["output"].as_str() {
            response[1]["output"] =
                json!(format!("<untrusted_context>\n{text}\n</untrusted_context>"));
        }
    }
    assert_eq!(ours["responses"], theirs["responses"]);
    let all = scenarios();
    assert_eq!(
        compared(&all["mcp-names"], &ours["declared"]),
        compared(&all["mcp-names"], &theirs["declared"])
    );
}

#[test]
fn today_plan_mode_removes_the_shell() {
    check("plan-shell", "today");
}

#[test]
fn today_a_deny_for_some_modes_removes_the_tool_there() {
    check("deny-modes", "today");
}

#[test]
fn v027_plan_mode_hides_what_headless_default_hides() {
    check("plan-shell", "0.27");
}

#[test]
fn v027_a_deny_for_some_modes_keeps_the_tool_declared_and_refuses_it() {
    check("deny-modes", "0.27");
}

#[test]
fn v027_an_allow_rule_does_not_declare_the_headless_shell() {
    check("echo-redirect", "0.27");
}

#[test]
fn today_a_headless_ask_rule_keeps_the_tool() {
    check("headless-ask", "today");
}

#[test]
fn today_a_redirect_under_an_allow_rule_asks() {
    check("echo-redirect", "today");
}

#[test]
fn v027_wrong_parameter_types_get_the_schema_error_too() {
    // A deliberate difference (docs/dialects.md): 0.27.4 ignored today's
    // `start_line`/`end_line`; gemini-rs accepts them in both dialects,
    // so checks their types in both.
    let ours = play("param-type", "0.27");
    let today = golden("param-type", "today");
    assert_eq!(ours["responses"], today["responses"]);
}

#[test]
fn v027_a_headless_ask_rule_is_refused_as_a_deny() {
    check("headless-ask", "0.27");
}

#[test]
fn today_tool_texts_are_0_61s() {
    check("texts", "today");
}

#[test]
fn v027_tool_texts_are_0_27_4s() {
    let ours = play("texts", "0.27");
    let mut theirs = golden("texts", "0.27");
    // A deliberate difference (docs/dialects.md): `read_many_files` is a
    // model tool in the `0.27` dialect, which 0.27.4 only used for
    // `@path`; it reads the files it is asked for.
    let last = theirs["responses"]
        .as_array_mut()
        .and_then(|r| r.last_mut());
    let Some(last) = last else {
        panic!("the texts golden ends with read_many_files");
    };
    assert_eq!(last[0], "read_many_files");
    let read = &ours["responses"][9];
    assert_eq!(read[0], "read_many_files");
    let text = read[1]["output"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("--- <tmp>/a.txt ---\n\none\ntwo") && text.contains("bye again"),
        "{text}"
    );
    *last = read.clone();
    assert_eq!(ours["responses"], theirs["responses"]);
}

#[test]
fn today_shell_and_web_fetch_output_is_untrusted_context() {
    check("untrusted", "today");
}

#[test]
fn v027_shell_and_web_fetch_output_is_untrusted_context_as_today() {
    // A deliberate difference (docs/dialects.md): what a command printed
    // and what a page said reach the model as untrusted context in both
    // dialects, as MCP results do.
    let mut ours = play("untrusted", "0.27");
    let mut theirs = golden("untrusted", "0.27");
    for response in theirs["responses"].as_array_mut().into_iter().flatten() {
        if let Some(text) = response[1]["output"].as_str() {
            response[1]["output"] =
                json!(format!("<untrusted_context>\n{text}\n</untrusted_context>"));
        }
    }
    for side in [&mut ours, &mut theirs] {
        side["responses"] = without_pgid(side["responses"].take());
    }
    assert_eq!(ours["responses"], theirs["responses"]);
}

/// What a subcommand scenario printed through gemini-rs in `dialect`, as
/// the recorder writes it (`exit`, `stdout`, `stderr`).
fn play_command(name: &str, dialect: &str) -> Value {
    let all = scenarios();
    let scenario = &all[name];
    let sb = Sandbox::new();
    let home = sb.home.display().to_string();
    for (key, home_side) in [("files", false), ("home_files", true)] {
        let files = scenario[key].as_object().cloned().unwrap_or_default();
        for (rel, content) in &files {
            let content = content
                .as_str()
                .unwrap_or_default()
                .replace("<home>", &home);
            if home_side {
                sb.write_home(rel, &content);
            } else {
                sb.write(rel, &content);
            }
        }
    }
    let mut settings = json!({"security": {"auth": {"selectedType": "gemini-api-key"}}});
    let extra = scenario["settings"].to_string().replace("<home>", &home);
    if let (Some(s), Ok(Value::Object(extra))) = (
        settings.as_object_mut(),
        serde_json::from_str::<Value>(&extra),
    ) {
        s.extend(extra);
    }
    sb.write_home(".gemini/settings.json", &settings.to_string());
    for setup in scenario["setup"].as_array().into_iter().flatten() {
        let args: Vec<String> = setup
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.replace("<home>", &home))
                    .collect()
            })
            .unwrap_or_default();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = sb.run(&args, None, &[("GEMINI_RS_DIALECT", dialect)]);
        assert_eq!(out.code, 0, "{name}: setup {args:?}: {out:?}");
    }
    let args: Vec<String> = scenario["command"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = sb.run(&args, None, &[("GEMINI_RS_DIALECT", dialect)]);
    // An extension's id hashes where it was installed from (checked by
    // the unit tests of core's `queries::extensions`).
    let clean = |s: &str| {
        let s = s
            .replace(&sb.work.display().to_string(), "<tmp>")
            .replace(&home, "<home>");
        s.lines()
            .map(|l| match l.strip_prefix(" ID: ") {
                Some(id) if id.len() == 64 => " ID: <id>".to_string(),
                _ => l.to_string(),
            })
            .map(|l| l + "\n")
            .collect::<String>()
    };
    json!({"exit": out.code, "stdout": clean(&out.stdout), "stderr": clean(&out.stderr)})
}

/// Plays the subcommand scenario `name` in `dialect` and compares it with
/// the golden.
fn check_command(name: &str, dialect: &str) {
    assert_eq!(
        play_command(name, dialect),
        golden(name, dialect),
        "{name} ({dialect})"
    );
}

#[test]
fn today_mcp_list_prints_0_61s_words_on_stderr() {
    check_command("cmd-mcp-list", "today");
}

#[test]
fn v027_mcp_list_prints_0_27_4s_words_on_stderr() {
    check_command("cmd-mcp-list", "0.27");
}

#[test]
fn today_skills_list_prints_0_61s_words_on_stdout() {
    check_command("cmd-skills-list", "today");
}

#[test]
fn v027_skills_list_prints_0_27_4s_words_on_stderr() {
    check_command("cmd-skills-list", "0.27");
}

#[test]
fn today_extensions_list_prints_0_61s_words_on_stderr() {
    check_command("cmd-extensions-list", "today");
}

#[test]
fn v027_extensions_list_prints_0_27_4s_words_on_stderr() {
    check_command("cmd-extensions-list", "0.27");
}

#[test]
fn today_built_in_tools_answer_common_errors_in_0_61s_words() {
    check("tool-errors", "today");
}

#[test]
fn v027_built_in_tools_answer_common_errors_in_0_27_4s_words() {
    let all = scenarios();
    let ours = play("tool-errors", "0.27");
    let theirs = golden("tool-errors", "0.27");
    assert_eq!(
        without_suggestions(ours["responses"].clone()),
        without_suggestions(theirs["responses"].clone())
    );
    // A deliberate difference (docs/dialects.md): `read_many_files` is a
    // model tool in the `0.27` dialect.
    let mut declared = compared(&all["tool-errors"], &ours["declared"]);
    declared.retain(|n| n != "read_many_files");
    assert_eq!(declared, compared(&all["tool-errors"], &theirs["declared"]));
}

#[test]
fn today_stream_json_events_of_a_two_tool_session() {
    check("stream-two-tools", "today");
}

#[test]
fn v027_stream_json_events_of_a_two_tool_session() {
    check("stream-two-tools", "0.27");
}

#[test]
fn today_session_file_records_have_0_61s_shapes() {
    check("session-file", "today");
}

#[test]
fn v027_session_file_has_0_27_4s_shape() {
    check("session-file", "0.27");
}

#[test]
fn today_extensions_list_shows_skills_and_settings_as_0_61() {
    check_command("cmd-extensions-settings", "today");
}

#[test]
fn v027_extensions_list_shows_skills_but_not_settings_as_0_27_4() {
    check_command("cmd-extensions-settings", "0.27");
}
