//! The parameter schemas each dialect declares (`tool-schemas`), today's
//! parameters of the built-ins at work (`tool-params`),
//! `write_file`'s success text (`write-file`) and `web_fetch`'s refusal of
//! private and local hosts (`web-fetch-hosts`), in both dialects.

use super::capture::without_pgid;
use super::{check, check_against, compare, golden, play};
use serde_json::{Value, json};

/// The text of response `i` (its output, else its error).
fn answer(responses: &Value, i: usize) -> String {
    let r = &responses[i][1];
    r["output"]
        .as_str()
        .or_else(|| r["error"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn today_the_new_parameters_work_as_0_61s() {
    let mut theirs = golden("tool-params", "today");
    // A deliberate difference (docs/dialects.md): headless 0.61 hid a
    // background command's first output and said to press Ctrl+B;
    // gemini-rs answers as 0.61's interactive path does, with the output
    // `delay_ms` waited for.
    let last = &mut theirs["responses"][10];
    assert_eq!(
        last[1]["output"],
        "<untrusted_context>\nCommand moved to background (PID: <pid>). Output hidden. Press Ctrl+B to view.\n</untrusted_context>"
    );
    last[1]["output"] = json!(
        "<untrusted_context>\nCommand is running in background. PID: <pid>. Initial output:\nstarted\n</untrusted_context>"
    );
    check_against("tool-params", "today", theirs);
}

#[test]
fn v027_todays_parameters_work_too() {
    // A deliberate difference (docs/dialects.md): 0.27.4 ignored today's
    // parameters (its golden reads whole files and refuses `blocked`);
    // gemini-rs takes them in both dialects, answering in 0.27.4's words.
    let ours = without_pgid(play("tool-params", "0.27")["responses"].take());
    let read = answer(&ours, 0);
    assert!(
        read.contains("Showing lines 2-4 of 6") && read.ends_with("two\nthree\nfour"),
        "{read}"
    );
    assert!(answer(&ours, 1).ends_with("four\nfive\n"), "{ours}");
    assert!(answer(&ours, 2).ends_with("one\ntwo"), "{ours}");
    assert!(
        answer(&ours, 3).starts_with("Successfully modified file: <tmp>/b.txt (3 replacements)."),
        "{ours}"
    );
    assert!(
        answer(&ours, 4).contains("Expected 1 occurrence but found 3"),
        "{ours}"
    );
    let filtered = answer(&ours, 5);
    assert!(
        filtered.starts_with("Found 3 matches") && !filtered.contains("o.md"),
        "{filtered}"
    );
    assert!(!filtered.contains("L3: foo 3 skip"), "{filtered}");
    assert!(
        answer(&ours, 6).ends_with(":\ndocs/o.md\nsrc/m.js\nsrc/n.js"),
        "{ours}"
    );
    assert!(answer(&ours, 7).starts_with("Found 3 matches"), "{ours}");
    assert!(
        answer(&ours, 8)
            .starts_with("Found 2 matches for pattern \"foo\" in the workspace directory (results limited to 2 matches for performance)"),
        "{ours}"
    );
    assert!(answer(&ours, 9).ends_with("2. [blocked] deploy"), "{ours}");
    assert!(answer(&ours, 10).contains("PID: <pid>"), "{ours}");
}

#[test]
fn today_write_file_shows_the_code_written() {
    check("write-file", "today");
}

#[test]
fn v027_write_file_names_only_the_file() {
    check("write-file", "0.27");
}

#[test]
fn today_web_fetch_skips_private_and_local_hosts() {
    check("web-fetch-hosts", "today");
}

#[test]
fn v027_web_fetch_fetches_local_hosts_itself() {
    // 0.27.4 fetched a private first URL directly (the port is closed);
    // its other answers depend on its fake endpoint's turn order, so the
    // first is compared.
    let ours = play("web-fetch-hosts", "0.27")["responses"].take();
    let theirs = golden("web-fetch-hosts", "0.27")["responses"].take();
    let prefix = "Error during fallback fetch for http://127.0.0.1:9/page: ";
    assert!(answer(&theirs, 0).starts_with(prefix), "{theirs}");
    assert!(answer(&ours, 0).starts_with(prefix), "{ours}");
    assert!(!ours.to_string().contains("Blocked Host"), "{ours}");
}

#[test]
fn today_built_in_tools_declare_0_61s_parameter_schemas() {
    let mut theirs = golden("tool-schemas", "today");
    // A deliberate difference (docs/dialects.md, "Skills"): 0.61 brings
    // a built-in skill about installing Google's Antigravity CLI, which
    // gemini-rs does not ship; the enum of skills is otherwise the same.
    let skills = &mut theirs["schemas"]["activate_skill"]["properties"]["name"]["enum"];
    if let Some(names) = skills.as_array_mut() {
        names.retain(|n| n != "antigravity-support");
    }
    check_against("tool-schemas", "today", theirs);
}

#[test]
fn v027_built_in_tools_declare_0_27_4s_parameter_schemas() {
    let mut ours = play("tool-schemas", "0.27");
    // A deliberate difference (docs/dialects.md): `read_many_files` is a
    // model tool in the `0.27` dialect.
    if let Some(declared) = ours["declared"].as_array_mut() {
        declared.retain(|n| n != "read_many_files");
    }
    if let Some(schemas) = ours["schemas"].as_object_mut() {
        schemas.remove("read_many_files");
    }
    compare("tool-schemas", "0.27", ours, golden("tool-schemas", "0.27"));
}
