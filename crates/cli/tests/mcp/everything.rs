//! Resources, roots and elicitation against the reference server
//! (`@modelcontextprotocol/server-everything`) in a headless session.

use super::everything_bin;
use crate::e2e::{call, lines, text};
use crate::fake_gemini::FakeGemini;
use crate::support::Sandbox;
use serde_json::{Value, json};

fn session(
    sb: &Sandbox,
    turns: &[String],
    prompt: &str,
    mode: &str,
) -> Option<(FakeGemini, crate::support::Output)> {
    let bin = everything_bin()?;
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "mcpServers": {"everything": {"command": bin.display().to_string(), "args": ["stdio"], "trust": true}}}));
    let fake = FakeGemini::start(&lines(turns));
    let out = sb.run(
        &[&format!("--approval-mode={mode}"), "-p", prompt],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    Some((fake, out))
}

fn first_user_text(fake: &FakeGemini) -> String {
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
