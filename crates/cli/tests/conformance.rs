//! Replays the upstream Gemini CLI scenarios of
//! `conformance/upstream/scenarios.json` through the binary, as its
//! README describes, and checks what a user can see.

use crate::support::{Output, Sandbox};
use crate::tui::{Tmux, tmux_available as tui_available};
use serde_json::{Map, Value};
use std::path::PathBuf;

fn upstream_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/upstream")
}

fn catalogue() -> Value {
    let text = std::fs::read_to_string(upstream_dir().join("scenarios.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn deep_merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                deep_merge(b.entry(k.clone()).or_insert(Value::Null), v);
            }
        }
        (b, o) => *b = o.clone(),
    }
}

fn substitute(value: &Value, work: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("@WORK@", work)),
        Value::Array(a) => Value::Array(a.iter().map(|v| substitute(v, work)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), substitute(v, work)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn json_path<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(doc, |v, key| v.get(key))
}

fn check(expect: &[Value], out: &Output, sb: &Sandbox) -> Vec<String> {
    let mut failures = Vec::new();
    let hook_log = sb.read("hook-log.txt").unwrap_or_default();
    let json_doc: Option<Value> = serde_json::from_str(out.stdout.trim()).ok();
    for e in expect {
        let Value::Object(e) = e else { continue };
        for (kind, arg) in e {
            let s = arg.as_str().unwrap_or_default();
            let ok = match kind.as_str() {
                "exit_code" => Some(out.code as i64) == arg.as_i64(),
                "stdout_contains" => out.stdout.contains(s),
                "stdout_not_contains" => !out.stdout.contains(s),
                "stderr_contains" => out.stderr.contains(s),
                "output_contains" => out.stdout.contains(s) || out.stderr.contains(s),
                "output_not_contains" => !out.stdout.contains(s) && !out.stderr.contains(s),
                "file_equals" => sb.read(arg[0].as_str().unwrap()).as_deref() == arg[1].as_str(),
                "file_absent" => !sb.work.join(s).exists(),
                "json_stdout_path_equals" => {
                    json_doc
                        .as_ref()
                        .and_then(|d| json_path(d, arg[0].as_str().unwrap()))
                        == Some(&arg[1])
                }
                "json_stdout_has" => json_doc
                    .as_ref()
                    .and_then(|d| json_path(d, s))
                    .is_some_and(|v| !v.is_null() && v != ""),
                "json_stdout_lacks" => json_doc.as_ref().is_some_and(|d| json_path(d, s).is_none()),
                "hook_ran" => hook_log
                    .lines()
                    .any(|l| l == s || l.starts_with(&format!("{s} "))),
                "hook_not_ran" => !hook_log
                    .lines()
                    .any(|l| l == s || l.starts_with(&format!("{s} "))),
                other => panic!("unknown check {other}"),
            };
            if !ok {
                failures.push(format!("{kind}: {arg}"));
            }
        }
    }
    failures
}

fn run_step(
    sb: &Sandbox,
    scenario: &Map<String, Value>,
    step: &Value,
    responses: Option<&str>,
    skip: usize,
) -> Output {
    let work = sb.work.to_str().unwrap();
    let step = substitute(step, work);
    let mut args: Vec<String> = Vec::new();
    if let Some(file) = responses {
        let text = std::fs::read_to_string(upstream_dir().join(file)).unwrap();
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .skip(skip)
            .collect();
        let copy = sb.home.join(format!("replay-{skip}.responses"));
        std::fs::write(&copy, kept.join("\n") + "\n").unwrap();
        let flag = if scenario.get("non_strict").and_then(Value::as_bool) == Some(true) {
            "--fake-responses-non-strict"
        } else {
            "--fake-responses"
        };
        args.push(flag.to_string());
        args.push(copy.to_str().unwrap().to_string());
    }
    for a in step["args"].as_array().into_iter().flatten() {
        args.push(a.as_str().unwrap().to_string());
    }
    if let Some(p) = step["prompt"].as_str() {
        args.push(p.to_string());
    }
    let env: Vec<(String, String)> = scenario
        .get("env")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let env_refs: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    sb.run(&arg_refs, step["stdin"].as_str(), &env_refs)
}

/// Writes the scenario's settings and files into a fresh sandbox.
fn prepare(catalogue: &Value, scenario: &Map<String, Value>) -> Sandbox {
    let sb = Sandbox::new();
    let work = sb.work.to_str().unwrap().to_string();
    let mut settings = catalogue["base_settings"].clone();
    deep_merge(&mut settings, &scenario["settings"]);
    sb.settings(&substitute(&settings, &work));
    for (rel, text) in scenario
        .get("files")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        sb.write(rel, &text.as_str().unwrap().replace("@WORK@", &work));
    }
    for (rel, text) in scenario
        .get("home_files")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        sb.write_home(rel, &text.as_str().unwrap().replace("@WORK@", &work));
    }
    sb
}

/// Runs an interactive scenario in tmux (80x80), as the catalogue's README
/// describes: wait for the prompt, play the steps, then check.
fn run_interactive(catalogue: &Value, scenario: &Map<String, Value>) -> Result<(), String> {
    let name = scenario["name"].as_str().unwrap_or_default();
    let sb = prepare(catalogue, scenario);
    let work = sb.work.to_str().unwrap().to_string();
    let file = scenario["responses"].as_str().unwrap();
    let copy = sb.home.join("replay.responses");
    std::fs::copy(upstream_dir().join(file), &copy).unwrap();
    let mut args = vec![
        "--fake-responses".to_string(),
        copy.to_str().unwrap().to_string(),
    ];
    for a in scenario["args"].as_array().into_iter().flatten() {
        args.push(a.as_str().unwrap().replace("@WORK@", &work));
    }
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let tmux = Tmux::start(&sb, "http://127.0.0.1:9", &arg_refs, 80, 80);
    tmux.wait_for("Type your message", 20);
    for step in scenario["steps"].as_array().into_iter().flatten() {
        if let Some(text) = step["send"].as_str() {
            for (i, piece) in text.split('\r').enumerate() {
                if i > 0 {
                    tmux.keys(&["Enter"]);
                }
                if !piece.is_empty() {
                    tmux.type_text(piece);
                }
            }
        } else if let Some(needle) = step["expect"].as_str() {
            let secs = step["timeout_s"].as_u64().unwrap_or(10);
            wait_for_ci(&tmux, needle, secs).map_err(|screen| {
                format!("{name}: timed out waiting for {needle:?}; screen:\n{screen}")
            })?;
        } else if let Some(secs) = step["sleep_s"].as_f64() {
            std::thread::sleep(std::time::Duration::from_secs_f64(secs));
        }
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    let out = Output {
        code: 0,
        stdout: tmux.screen(),
        stderr: String::new(),
    };
    drop(tmux);
    let failures = check(scenario["expect"].as_array().unwrap(), &out, &sb);
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{name}: {failures:?}\nscreen: {}", out.stdout))
    }
}

/// Waits until the screen shows `needle` (case-insensitive).
fn wait_for_ci(tmux: &Tmux, needle: &str, secs: u64) -> Result<(), String> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let needle = needle.to_lowercase();
    loop {
        let screen = tmux.screen();
        if screen.to_lowercase().contains(&needle) {
            return Ok(());
        }
        if std::time::Instant::now() > deadline {
            return Err(screen);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn every_interactive_upstream_scenario_passes() {
    if !tui_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return;
    }
    let catalogue = catalogue();
    let scenarios: Vec<Map<String, Value>> = catalogue["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("needs").and_then(Value::as_str) == Some("interactive"))
        .map(|s| s.as_object().unwrap().clone())
        .collect();
    assert_eq!(scenarios.len(), 4);
    let failures: Vec<String> = scenarios
        .iter()
        .filter_map(|s| run_interactive(&catalogue, s).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} scenario(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

fn run_scenario(catalogue: &Value, name: &str) -> Result<(), String> {
    let scenario = catalogue["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no scenario {name}"))
        .as_object()
        .unwrap();
    let sb = prepare(catalogue, scenario);
    let responses = scenario["responses"].as_str();
    let first = Value::Object(scenario.clone());
    let out = run_step(&sb, scenario, &first, responses, 0);
    let failures = check(scenario["expect"].as_array().unwrap(), &out, &sb);
    if !failures.is_empty() {
        return Err(format!(
            "{name}: {failures:?}\nstdout: {}\nstderr: {}",
            out.stdout, out.stderr
        ));
    }
    if let Some(then) = scenario.get("then") {
        let skip = then["responses_skip"].as_u64().unwrap_or(0) as usize;
        let out = run_step(&sb, scenario, then, responses, skip);
        let failures = check(then["expect"].as_array().unwrap(), &out, &sb);
        if !failures.is_empty() {
            return Err(format!(
                "{name} (then): {failures:?}\nstdout: {}\nstderr: {}",
                out.stdout, out.stderr
            ));
        }
    }
    Ok(())
}

/// Every scenario a headless v0.27.4 runner can run (no `needs` mark).
fn headless_scenarios(catalogue: &Value) -> Vec<String> {
    catalogue["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s.get("needs").is_none_or(Value::is_null))
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_headless_upstream_scenario_passes() {
    let catalogue = catalogue();
    let names = headless_scenarios(&catalogue);
    assert!(
        names.len() >= 42,
        "only {} headless scenarios found",
        names.len()
    );
    let failures: Vec<String> = names
        .iter()
        .filter_map(|name| run_scenario(&catalogue, name).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} scenario(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
