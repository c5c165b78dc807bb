//! Resources, roots and elicitation against the reference server
//! (`@modelcontextprotocol/server-everything`) in a headless session.

use super::everything_bin;
use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::FakeServer;
use serde_json::{Value, json};

fn session(
    sb: &Sandbox,
    turns: &[String],
    prompt: &str,
    mode: &str,
) -> Option<(FakeServer, crate::support::Output)> {
    let bin = everything_bin()?;
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"everything": {"command": bin.display().to_string(), "args": ["stdio"], "trust": true}}}));
    let fake = FakeServer::replaying(&lines(turns));
    let out = sb.run(
        &[&format!("--approval-mode={mode}"), "-p", prompt],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    Some((fake, out))
}

fn first_user_text(fake: &FakeServer) -> String {
    let body = &fake.requests()[0].body;
    let last = body["contents"].as_array().unwrap().last().unwrap();
    last["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["text"].as_str())
        .collect()
}

#[test]
fn an_at_reference_inlines_a_resource() {
    let sb = Sandbox::new();
    let Some((fake, out)) = session(
        &sb,
        &[text("read it")],
        "summarize @everything:demo://resource/static/document/features.md please",
        "default",
    ) else {
        return;
    };
    assert_eq!(out.code, 0, "{out:?}");
    let sent = first_user_text(&fake);
    assert!(
        sent.contains("\n--- Content from referenced files ---\nContent from @demo://resource/static/document/features.md:\n"),
        "{sent}"
    );
    assert!(sent.contains("\n--- End of content ---"), "{sent}");
    assert!(sent.len() > 300, "the document itself: {sent}");
}

#[test]
fn an_unlisted_resource_stays_plain_text() {
    let sb = Sandbox::new();
    let Some((fake, out)) = session(
        &sb,
        &[text("ok")],
        "look at @everything:demo://resource/static/document/nothing.md",
        "default",
    ) else {
        return;
    };
    assert_eq!(out.code, 0, "{out:?}");
    assert!(!first_user_text(&fake).contains("Content from"));
}

#[test]
fn roots_are_the_workspace_and_unanswerable_input_is_declined() {
    let sb = Sandbox::new();
    let Some((fake, out)) = session(
        &sb,
        &[
            call("get-roots-list", json!({})),
            call("trigger-elicitation-request", json!({})),
            text("done"),
        ],
        "go",
        "yolo",
    ) else {
        return;
    };
    assert_eq!(out.code, 0, "{out:?}");
    let responses: Vec<Value> = fake.function_responses();
    let roots = responses[0].to_string();
    let uri = format!("file://{}", sb.work.display());
    assert!(roots.contains(&uri), "{roots}");
    let elicited = responses[1].to_string().to_lowercase();
    assert!(elicited.contains("decline"), "{elicited}");
    assert!(
        out.stderr
            .contains("MCP server 'everything' asked for input"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_terminal_asks_for_a_servers_input_in_a_form() {
    let Some(bin) = everything_bin() else { return };
    if !crate::tui::tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return;
    }
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"everything": {"command": bin.display().to_string(), "args": ["stdio"], "trust": true}}}));
    let fake = FakeServer::replaying(&lines(&[
        call("trigger-elicitation-request", json!({})),
        text("Thanks."),
    ]));
    let t = crate::tui::Tmux::start(&sb, &fake.base_url, &[], 110, 45);
    // The prompt is taken at once; the server's tools come once it is ready.
    t.wait_for("MCP 1 ready", 20);
    t.type_text("ask me");
    t.keys(&["Enter"]);
    let s = t.wait_for("asks for input", 20);
    assert!(
        s.contains("Please provide inputs for the following fields:"),
        "{s}"
    );
    assert!(
        s.contains("It was a dark and stormy night."),
        "defaults filled: {s}"
    );
    // Enter with the required name empty is refused; then type it.
    t.keys(&["Enter"]);
    t.wait_for("name is required", 10);
    t.type_text("Ada Lovelace");
    t.keys(&["Enter"]);
    t.wait_for("Thanks.", 20);
    let responses = fake.function_responses();
    let got = responses[0].to_string();
    assert!(
        got.contains("User provided the requested information"),
        "{got}"
    );
    assert!(got.contains("Name: Ada Lovelace"), "{got}");
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn directory_add_grows_the_workspace_and_the_servers_roots() {
    let Some(bin) = everything_bin() else { return };
    if !crate::tui::tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return;
    }
    let sb = Sandbox::new();
    sb.write_home("other/note.txt", "from the other dir\n");
    let other = sb.home.join("other");
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"everything": {"command": bin.display().to_string(), "args": ["stdio"], "trust": true}}}));
    let fake = FakeServer::replaying(&lines(&[
        call("get-roots-list", json!({})),
        call(
            "read_file",
            json!({"file_path": other.join("note.txt").display().to_string()}),
        ),
        text("Seen."),
    ]));
    let t = crate::tui::Tmux::start(&sb, &fake.base_url, &[], 110, 40);
    t.wait_for("MCP 1 ready", 20);
    t.type_text(&format!("/directory add {}", other.display()));
    t.keys(&["Enter"]);
    t.wait_for("Successfully added directories:", 10);
    t.type_text("list the roots");
    t.keys(&["Enter"]);
    t.wait_for("Seen.", 20);
    let responses = fake.function_responses();
    let roots = responses[0].to_string();
    assert!(
        roots.contains(&format!("file://{}", other.display())),
        "{roots}"
    );
    assert!(
        roots.contains(&format!("file://{}", sb.work.display())),
        "{roots}"
    );
    assert!(
        responses[1].to_string().contains("from the other dir"),
        "{}",
        responses[1]
    );
    t.keys(&["C-d"]);
    t.wait_for("EXIT=0", 10);
}

#[test]
fn the_resource_tools_list_and_read_the_servers_resources() {
    let sb = Sandbox::new();
    let doc = "demo://resource/static/document/features.md";
    let Some((fake, out)) = session(
        &sb,
        &[
            call("list_mcp_resources", json!({})),
            call("list_mcp_resources", json!({"serverName": "nobody"})),
            call("read_mcp_resource", json!({"uri": doc})),
            call("read_mcp_resource", json!({"uri": "demo://nothing/here"})),
            call("read_mcp_resource", json!({"uri": "file:///etc/passwd"})),
            text("done"),
        ],
        "what resources are there?",
        "default",
    ) else {
        return;
    };
    assert_eq!(out.code, 0, "{out:?}");
    let body = &fake.requests()[0].body;
    let names: Vec<&str> = body["tools"][0]["functionDeclarations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert!(names.contains(&"list_mcp_resources"), "{names:?}");
    assert!(names.contains(&"read_mcp_resource"), "{names:?}");
    let responses = fake.function_responses();
    let answer = |i: usize| responses[i]["functionResponse"]["response"].clone();
    let listed = answer(0)["output"].as_str().unwrap().to_string();
    assert!(listed.starts_with("Available MCP Resources:\n"), "{listed}");
    assert!(
        listed.contains(&format!("\n- everything:{doc} | ")),
        "{listed}"
    );
    assert_eq!(
        answer(1)["output"].as_str(),
        Some("No resources found for server: nobody")
    );
    let read = answer(2)["output"].as_str().unwrap().to_string();
    assert!(read.len() > 200, "the document itself: {read}");
    assert_eq!(
        answer(3)["error"].as_str(),
        Some("Error: Resource not found for URI: demo://nothing/here")
    );
    let outside = answer(4)["error"].as_str().unwrap_or_default().to_string();
    assert!(outside.contains("/etc/passwd"), "{}", answer(4));
}

#[test]
fn the_resource_tools_are_not_offered_without_a_server_with_resources() {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}}));
    let fake = gemini_rs_test_support::FakeServer::replaying(&lines(&[text("hi")]));
    let out = sb.run(
        &["-p", "hello"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let declared = fake.requests()[0].body["tools"].to_string();
    assert!(declared.contains("read_file"), "{declared}");
    assert!(!declared.contains("list_mcp_resources"), "{declared}");
    assert!(!declared.contains("read_mcp_resource"), "{declared}");
}
