//! End-to-end runs of the binary against the fake Gemini endpoint and
//! recorded sessions: exact functionResponses, files left behind, output
//! formats and exit codes, and every kind of bad input.

use crate::support::{Output, Sandbox};
use gemini_rs_test_support::{FakeServer, Fault};
use serde_json::{Value, json};

/// One streamed model turn whose single chunk holds `parts`.
pub fn turn(parts: Value) -> String {
    json!({"method": "generateContentStream", "response": [{
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
    }]})
    .to_string()
}

/// A turn that calls one tool.
pub fn call(name: &str, args: Value) -> String {
    turn(json!([{"functionCall": {"name": name, "args": args}}]))
}

/// A turn that answers with text.
pub fn text(t: &str) -> String {
    turn(json!([{"text": t}]))
}

/// Lines joined as a responses file.
pub fn lines(l: &[String]) -> String {
    l.join("\n") + "\n"
}

fn settings(sb: &Sandbox, model: &str) {
    sb.settings(
        &json!({"model": {"name": model, "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}),
    );
}

/// Runs `go` against a fake endpoint replaying `responses`.
fn run_fake(sb: &Sandbox, responses: &str, args: &[&str]) -> (FakeServer, Output) {
    let fake = FakeServer::replaying(responses);
    let mut all = vec!["--approval-mode=yolo"];
    all.extend_from_slice(args);
    all.push("go");
    let out = sb.run(&all, None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    (fake, out)
}

/// The `response` object of the only functionResponse sent back.
fn single_response(fake: &FakeServer) -> Value {
    let frs = fake.function_responses();
    assert_eq!(frs.len(), 1, "{frs:?}");
    frs[0]["functionResponse"]["response"].clone()
}

fn one_call(sb: &Sandbox, name: &str, args: Value) -> Value {
    let (fake, out) = run_fake(sb, &lines(&[call(name, args), text("done")]), &[]);
    assert_eq!(out.code, 0, "{out:?}");
    single_response(&fake)
}

#[test]
fn read_file_texts_match_the_reference() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let w = sb.work.display().to_string();
    sb.write("a.txt", "x\ny\nz");
    sb.write("t.txt", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10");
    sb.write("c.txt", "a\r\nb\r\n");
    assert_eq!(
        one_call(&sb, "read_file", json!({"file_path": "a.txt"})),
        json!({"output": "x\ny\nz"})
    );
    assert_eq!(
        one_call(&sb, "read_file", json!({"file_path": "c.txt"})),
        json!({"output": "a\r\nb\r\n"})
    );
    assert_eq!(
        one_call(
            &sb,
            "read_file",
            json!({"file_path": "t.txt", "offset": 2, "limit": 3})
        ),
        json!({"output": "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 3-5 of 10 total lines.\nAction: To read more of the file, you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use offset: 5.\n\n--- FILE CONTENT (truncated) ---\nl3\nl4\nl5"})
    );
    assert_eq!(
        one_call(&sb, "read_file", json!({"file_path": "missing.txt"})),
        json!({"error": format!("File not found: {w}/missing.txt")})
    );
    assert_eq!(
        one_call(
            &sb,
            "read_file",
            json!({"file_path": "t.txt", "offset": "2"})
        ),
        json!({"error": "params/offset must be number"})
    );
    assert_eq!(
        one_call(&sb, "read_file", json!({})),
        json!({"error": "params must have required property 'file_path'"})
    );
    let outside = one_call(&sb, "read_file", json!({"file_path": "/etc/hostname"}));
    assert_eq!(
        outside["error"],
        format!(
            "Path not in workspace: Attempted path \"/etc/hostname\" resolves outside the allowed workspace directories: {w} or the project temp directory: {}",
            sb.project_temp_dir().display()
        )
    );
}

#[test]
fn write_file_writes_exactly_and_reports_like_the_reference() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let w = sb.work.display().to_string();
    assert_eq!(
        one_call(
            &sb,
            "write_file",
            json!({"file_path": "d1/d2/n.txt", "content": "a\nb"})
        ),
        json!({"output": format!("Successfully created and wrote to new file: {w}/d1/d2/n.txt.")})
    );
    assert_eq!(sb.read("d1/d2/n.txt").as_deref(), Some("a\nb"));
    sb.write("o.txt", "old\n");
    assert_eq!(
        one_call(
            &sb,
            "write_file",
            json!({"file_path": "o.txt", "content": "new\n"})
        ),
        json!({"output": format!("Successfully overwrote file: {w}/o.txt.")})
    );
    assert_eq!(sb.read("o.txt").as_deref(), Some("new\n"));
    assert_eq!(
        one_call(&sb, "write_file", json!({"file_path": "x.txt"})),
        json!({"error": "params must have required property 'content'"})
    );
}

#[test]
fn the_same_session_replays_from_a_file_and_from_the_endpoint() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    sb.write("a.txt", "A");
    let responses = lines(&[
        turn(
            json!([{"text": "reading "}, {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}, "id": "id-a"}}]),
        ),
        text("final answer"),
    ]);
    let (fake, http) = run_fake(&sb, &responses, &[]);
    let file = sb.write_home("s.responses", &responses);
    let replay = sb.run(
        &[
            "--approval-mode=yolo",
            "--fake-responses",
            file.to_str().unwrap(),
            "go",
        ],
        None,
        &[],
    );
    assert_eq!(http.code, 0, "{http:?}");
    assert_eq!(replay.code, 0, "{replay:?}");
    assert_eq!(http.stdout, "reading \nfinal answer\n");
    assert_eq!(replay.stdout, http.stdout);
    let fr = &fake.function_responses()[0];
    assert_eq!(
        fr,
        &json!({"functionResponse": {"id": "id-a", "name": "read_file", "response": {"output": "A"}}})
    );
    let first = &fake.requests()[0];
    assert_eq!(first.api_key(), Some("dummy"));
    assert_eq!(first.model(), "gemini-2.5-flash");
    assert_eq!(
        fake.requests().len(),
        2,
        "one streamGenerateContent per turn, nothing else"
    );
}

#[test]
fn json_output_has_the_reference_shape() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    sb.write("a.txt", "A");
    let responses = lines(&[
        turn(
            json!([{"text": "first "}, {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}]),
        ),
        text("final answer"),
    ]);
    let (_fake, out) = run_fake(&sb, &responses, &["-o", "json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(
        out.stdout.starts_with("{\n  \"session_id\": "),
        "pretty-printed: {}",
        out.stdout
    );
    assert_eq!(v["response"], "final answer");
    let stats = &v["stats"];
    let model = &stats["models"]["gemini-2.5-flash"];
    assert_eq!(model["api"]["totalRequests"], 2);
    assert_eq!(model["tokens"]["prompt"], 200);
    assert_eq!(model["tokens"]["candidates"], 20);
    assert_eq!(model["tokens"]["total"], 220);
    assert_eq!(stats["tools"]["totalCalls"], 1);
    assert_eq!(stats["tools"]["totalSuccess"], 1);
    assert_eq!(
        stats["tools"]["byName"]["read_file"]["decisions"]["accept"],
        1
    );
    assert_eq!(
        stats["files"],
        json!({"totalLinesAdded": 0, "totalLinesRemoved": 0})
    );
}

#[test]
fn stream_json_output_has_the_reference_events() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let w = sb.work.display().to_string();
    let responses = lines(&[
        call("read_file", json!({"file_path": "missing.txt"})),
        text("final"),
    ]);
    let (_fake, out) = run_fake(&sb, &responses, &["-o", "stream-json"]);
    assert_eq!(out.code, 0, "{out:?}");
    let events: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types.first(), Some(&"init"));
    assert_eq!(types[1], "message");
    assert!(types.contains(&"tool_use") && types.contains(&"tool_result"));
    assert_eq!(types.last(), Some(&"result"));
    assert!(
        events
            .iter()
            .all(|e| e["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')))
    );
    assert_eq!(events[0]["model"], "gemini-2.5-flash");
    assert_eq!(
        events[1],
        json!({"type": "message", "timestamp": events[1]["timestamp"], "role": "user", "content": "go"})
    );
    let result = events.iter().find(|e| e["type"] == "tool_result").unwrap();
    let msg = format!("File not found: {w}/missing.txt");
    assert_eq!(result["status"], "error");
    assert_eq!(result["output"], msg);
    assert_eq!(
        result["error"],
        json!({"type": "file_not_found", "message": msg})
    );
    let end = events.last().unwrap();
    assert_eq!(end["status"], "success");
    assert_eq!(end["stats"]["total_tokens"], 220);
    assert_eq!(end["stats"]["input_tokens"], 200);
    assert_eq!(end["stats"]["output_tokens"], 20);
    assert_eq!(end["stats"]["tool_calls"], 1);
    assert!(
        out.stderr
            .contains(&format!("Error executing tool read_file: {msg}"))
    );
}

#[test]
fn unknown_tools_and_excluded_tools_get_suggestions() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let r = one_call(&sb, "raed_file", json!({"file_path": "a.txt"}));
    assert_eq!(
        r["error"].as_str().unwrap().split(" Did you mean").next(),
        Some("Tool \"raed_file\" not found.")
    );
    assert!(r["error"].as_str().unwrap().contains("\"read_file\""));
    // Headless without yolo: write_file is neither declared nor found.
    let fake = FakeServer::replaying(&lines(&[
        call("write_file", json!({"file_path": "n.txt", "content": "x"})),
        text("ok"),
    ]));
    let out = sb.run(&["go"], None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    assert_eq!(out.code, 0, "{out:?}");
    let decls = fake.requests()[0].body["tools"][0]["functionDeclarations"].clone();
    let names: Vec<&str> = decls
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"read_file") && !names.contains(&"write_file"),
        "{names:?}"
    );
    let err = single_response(&fake)["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        err.starts_with("Tool \"write_file\" not found. Did you mean"),
        "{err}"
    );
    assert!(sb.read("n.txt").is_none());
}

#[test]
fn api_errors_map_to_clear_messages_and_exit_1() {
    for (status, needle) in [
        (400, "bad request body"),
        (401, "API key"),
        (403, "API key"),
        (404, "not found"),
    ] {
        let sb = Sandbox::new();
        settings(&sb, "gemini-2.5-flash");
        let fake = FakeServer::replaying(&lines(&[text("never")]));
        fake.push_fault(Fault::Status(
            status,
            json!({"error": {"code": status, "message": "bad request body", "status": "X"}}),
        ));
        let out = sb.run(&["go"], None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
        assert_eq!(out.code, 1, "{status}: {out:?}");
        assert!(out.stderr.contains(needle), "{status}: {}", out.stderr);
        assert_eq!(fake.requests().len(), 1, "{status} is not retried");
    }
}

#[test]
fn transient_errors_and_early_cuts_are_retried() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let fake = FakeServer::replaying(&lines(&[text("hello there")]));
    fake.push_fault(Fault::Status(
        429,
        json!({"error": {"code": 429, "message": "slow down"}}),
    ));
    fake.push_fault(Fault::Status(
        500,
        json!({"error": {"code": 500, "message": "oops"}}),
    ));
    fake.push_fault(Fault::CutBeforeFirstChunk);
    let out = sb.run(&["go"], None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "hello there\n");
    assert_eq!(fake.requests().len(), 4);
}

#[test]
fn a_stream_cut_after_a_chunk_is_an_error() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let fake = FakeServer::replaying(&lines(&[text("hello there, long text")]));
    fake.push_fault(Fault::CutAfterFirstChunk);
    let out = sb.run(&["go"], None, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)]);
    assert_eq!(out.code, 1, "{out:?}");
    assert!(!out.stderr.is_empty());
}

#[test]
fn replay_files_fail_clearly() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let missing = sb.home.join("nope.responses");
    let out = sb.run(
        &["--fake-responses", missing.to_str().unwrap(), "go"],
        None,
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("nope.responses"), "{}", out.stderr);
    let bad = sb.write_home("bad.responses", &format!("{}\nnot json\n", text("a")));
    let out = sb.run(
        &["--fake-responses", bad.to_str().unwrap(), "go"],
        None,
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(out.stderr.contains("bad.responses:2"), "{}", out.stderr);
    let short = sb.write_home(
        "short.responses",
        &lines(&[call("read_file", json!({"file_path": "a"}))]),
    );
    let out = sb.run(
        &[
            "--approval-mode=yolo",
            "--fake-responses",
            short.to_str().unwrap(),
            "go",
        ],
        None,
        &[],
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr
            .contains("No more mock responses for generateContentStream"),
        "{}",
        out.stderr
    );
}

#[test]
fn record_then_replay_gives_identical_output() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    sb.write("a.txt", "A");
    let responses = lines(&[
        turn(
            json!([{"text": "let me look "}, {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}]),
        ),
        text("it says A"),
    ]);
    let fake = FakeServer::replaying(&responses);
    let rec = sb.home.join("rec.responses");
    let live = sb.run(
        &[
            "--approval-mode=yolo",
            "--record-responses",
            rec.to_str().unwrap(),
            "go",
        ],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(live.code, 0, "{live:?}");
    let recorded = std::fs::read_to_string(&rec).unwrap();
    assert_eq!(recorded.lines().count(), 2);
    let replay = sb.run(
        &[
            "--approval-mode=yolo",
            "--fake-responses",
            rec.to_str().unwrap(),
            "go",
        ],
        None,
        &[],
    );
    assert_eq!(replay.code, 0, "{replay:?}");
    assert_eq!(replay.stdout, live.stdout);
}

#[test]
fn exit_codes_for_config_auth_input_and_turn_limit() {
    let sb = Sandbox::new();
    sb.write(
        ".gemini/settings.json",
        "{\n  \"model\": {\n    \"name\": oops\n  }\n}",
    );
    let out = sb.run(&["go"], None, &[]);
    assert_eq!(out.code, 52, "{out:?}");
    assert!(
        out.stderr.contains("settings.json") && out.stderr.contains("line 3"),
        "{}",
        out.stderr
    );

    let sb = Sandbox::new();
    let out = sb.run(&["go"], None, &[("GEMINI_API_KEY", "")]);
    assert_eq!(out.code, 41, "{out:?}");
    assert!(out.stderr.contains("GEMINI_API_KEY"), "{}", out.stderr);

    let out = sb.run(&[], Some(""), &[]);
    assert_eq!(out.code, 42, "{out:?}");
    assert!(
        out.stderr.contains("No input provided via stdin."),
        "{}",
        out.stderr
    );

    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash", "maxSessionTurns": 1}}));
    sb.write("a.txt", "A");
    let file = sb.write_home(
        "r.responses",
        &lines(&[call("read_file", json!({"file_path": "a.txt"})), text("x")]),
    );
    let out = sb.run(
        &[
            "--approval-mode=yolo",
            "--fake-responses",
            file.to_str().unwrap(),
            "go",
        ],
        None,
        &[],
    );
    assert_eq!(out.code, 53, "{out:?}");
    assert!(
        out.stderr
            .contains("Reached max session turns for this session."),
        "{}",
        out.stderr
    );
}

#[test]
fn stdin_and_prompt_are_combined() {
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let fake = FakeServer::replaying(&lines(&[text("ok")]));
    let out = sb.run(
        &["from arg"],
        Some("from stdin\n"),
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let contents = fake.requests()[0].body["contents"].clone();
    let last = contents.as_array().unwrap().last().unwrap();
    assert_eq!(last["parts"][0]["text"], "from stdin\n\nfrom arg");
}

/// Arguments that are not UTF-8: a prompt is a clear input error (exit
/// 42, not a panic); a path is used as it is.
#[test]
fn arguments_that_are_not_utf8_never_panic() {
    use std::os::unix::ffi::OsStrExt;
    let sb = Sandbox::new();
    settings(&sb, "gemini-2.5-flash");
    let bad = std::ffi::OsStr::from_bytes(b"caf\xff");
    let run = |args: &[&std::ffi::OsStr]| sb.command(args, &[]).output().unwrap();
    let out = run(&["-p".as_ref(), bad]);
    assert_eq!(out.status.code(), Some(42), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("UTF-8"));
    let out = run(&["mcp".as_ref(), "list".as_ref(), bad]);
    assert_eq!(out.status.code(), Some(42), "{out:?}");

    let dir = sb.work.join(std::ffi::OsStr::from_bytes(b"dir-\xff"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("inside.txt"), "found me").unwrap();
    let responses = lines(&[
        call("read_file", json!({"file_path": "inside.txt"})),
        text("done"),
    ]);
    let fake = FakeServer::replaying(&responses);
    let dir_args: [&std::ffi::OsStr; 5] = [
        "--approval-mode=yolo".as_ref(),
        "--include-directories".as_ref(),
        dir.as_os_str(),
        "-p".as_ref(),
        "go".as_ref(),
    ];
    let out = sb
        .command(&dir_args, &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(single_response(&fake)["output"], "found me");
}
