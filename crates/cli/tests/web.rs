//! web_fetch, google_web_search and save_memory through the binary: one
//! fake server on 127.0.0.1 serves pages, another replays the model and
//! answers the tools' own `generateContent` calls, and the requests are
//! checked.

use crate::e2e::{call, lines, text};
use crate::support::Sandbox;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::{Value, json};

/// A `generateContent` line answering with `text` (and grounding, if any).
fn answer(text: &str, grounding: Option<Value>) -> String {
    let mut candidate = json!({"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP", "index": 0});
    if let Some(g) = grounding {
        candidate["groundingMetadata"] = g;
    }
    json!({"method": "generateContent", "response": {"candidates": [candidate]}}).to_string()
}

/// Serves `body` with `content_type` at every path.
fn serve(body: &str, content_type: &str) -> FakeServer {
    FakeServer::with_routes([("/*", Reply::ok(content_type, body))])
}

fn setup() -> Sandbox {
    let sb = Sandbox::new();
    sb.settings(&json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}}}));
    sb
}

fn run(sb: &Sandbox, responses: &str) -> FakeServer {
    let fake = FakeServer::replaying(responses);
    let out = sb.run(
        &["--approval-mode=yolo", "go"],
        None,
        &[("GOOGLE_GEMINI_BASE_URL", &fake.base_url)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    fake
}

#[test]
fn web_fetch_of_a_local_page_fetches_directly_and_asks_the_model() {
    let sb = setup();
    let page = serve(
        "<html><body><h1>Title</h1><p>hello from local page</p></body></html>",
        "text/html",
    );
    let prompt = format!("summarize {} please", page.url("/page.html"));
    let fake = run(
        &sb,
        &lines(&[
            call("web_fetch", json!({"prompt": prompt})),
            answer("local summary", None),
            text("done"),
        ]),
    );
    let frs = fake.function_responses();
    assert_eq!(
        frs[0]["functionResponse"]["response"],
        json!({"output": "<untrusted_context>\nlocal summary\n</untrusted_context>"})
    );
    let utility = fake
        .requests()
        .into_iter()
        .find(|r| r.rpc() == "generateContent")
        .unwrap();
    assert_eq!(utility.model(), "gemini-2.5-flash");
    assert_eq!(
        utility.body["generationConfig"],
        json!({"temperature": 0, "topP": 1})
    );
    let sent = utility.body["contents"][0]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(sent.contains(&prompt), "{sent}");
    assert!(
        sent.contains("hello from local page"),
        "the fetched text reaches the model: {sent}"
    );
    assert!(!sent.contains("<p>"), "HTML is turned into text: {sent}");
}

#[test]
fn web_fetch_refuses_bad_prompts() {
    let sb = setup();
    let fake = run(
        &sb,
        &lines(&[
            call("web_fetch", json!({"prompt": "summarize ftp://x.y/z"})),
            text("ok"),
        ]),
    );
    assert_eq!(
        fake.function_responses()[0]["functionResponse"]["response"],
        json!({"error": "Error(s) in prompt URLs:\n- Unsupported protocol in URL: \"ftp://x.y/z\". Only http and https are supported."})
    );
    let fake = run(
        &sb,
        &lines(&[
            call("web_fetch", json!({"prompt": "summarize nothing"})),
            text("ok"),
        ]),
    );
    assert_eq!(
        fake.function_responses()[0]["functionResponse"]["response"],
        json!({"error": "The 'prompt' must contain at least one valid URL (starting with http:// or https://)."})
    );
}

#[test]
fn google_web_search_cites_its_sources() {
    let sb = setup();
    let grounding = json!({
        "groundingChunks": [{"web": {"uri": "https://rust-lang.org", "title": "Rust"}}],
        "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 7, "text": "Rust is"}, "groundingChunkIndices": [0]}]
    });
    let fake = run(
        &sb,
        &lines(&[
            call("google_web_search", json!({"query": "rust"})),
            answer("Rust is a language.", Some(grounding)),
            text("done"),
        ]),
    );
    assert_eq!(
        fake.function_responses()[0]["functionResponse"]["response"],
        json!({"output": "Web search results for \"rust\":\n\nRust is[1] a language.\n\nSources:\n[1] Rust (https://rust-lang.org)"})
    );
    let utility = fake
        .requests()
        .into_iter()
        .find(|r| r.rpc() == "generateContent")
        .unwrap();
    assert_eq!(utility.body["tools"], json!([{"googleSearch": {}}]));
    assert_eq!(
        utility.body["contents"],
        json!([{"role": "user", "parts": [{"text": "rust"}]}])
    );
}

#[test]
fn save_memory_twice_appends_under_one_section() {
    let sb = setup();
    run(
        &sb,
        &lines(&[
            call("save_memory", json!({"fact": "My favorite color is blue"})),
            call("save_memory", json!({"fact": "  - - I use tabs  "})),
            text("noted"),
        ]),
    );
    let memory = std::fs::read_to_string(sb.home.join(".gemini/GEMINI.md")).unwrap();
    assert_eq!(
        memory,
        "## Gemini Added Memories\n- My favorite color is blue\n- I use tabs\n"
    );
}

#[test]
fn one_recorded_session_uses_all_three_tools() {
    let sb = setup();
    let page = serve("plain text page: the sky is blue", "text/plain");
    let grounding = json!({
        "groundingChunks": [{"web": {"uri": "https://example.org/sky", "title": "Sky"}}],
        "groundingSupports": [{"segment": {"endIndex": 11}, "groundingChunkIndices": [0]}]
    });
    let file = sb.write_home(
        "all.responses",
        &lines(&[
            call(
                "web_fetch",
                json!({"prompt": format!("what colour? {}", page.url("/sky.txt"))}),
            ),
            answer("The sky is blue.", None),
            call("google_web_search", json!({"query": "sky colour"})),
            answer(
                "Sky is blue because of Rayleigh scattering.",
                Some(grounding),
            ),
            call("save_memory", json!({"fact": "The sky is blue"})),
            text("All three done."),
        ]),
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
    assert_eq!(out.code, 0, "{out:?}");
    assert!(out.stdout.ends_with("All three done.\n"), "{}", out.stdout);
    let memory = std::fs::read_to_string(sb.home.join(".gemini/GEMINI.md")).unwrap();
    assert_eq!(memory, "## Gemini Added Memories\n- The sky is blue\n");
    let chats = sb.project_temp_dir().join("chats");
    let session = std::fs::read_dir(&chats)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let record = std::fs::read_to_string(session).unwrap();
    for expected in [
        "The sky is blue.",
        "Web search results for \\\"sky colour\\\":\\n\\nSky is blue[1] because of Rayleigh scattering.\\n\\nSources:\\n[1] Sky (https://example.org/sky)",
        "Okay, I've remembered that",
    ] {
        assert!(
            record.contains(expected),
            "{expected} missing from the recorded session"
        );
    }
}

#[test]
fn context_files_reach_the_system_instruction() {
    let sb = setup();
    sb.write_home(".gemini/GEMINI.md", "GLOBAL-MARKER");
    sb.write("GEMINI.md", "ROOT-MARKER\n@docs/extra.md\n");
    sb.write("docs/extra.md", "IMPORTED-MARKER\n@../GEMINI.md\n");
    sb.write("pkg/GEMINI.md", "NESTED-MARKER");
    sb.write("skipped/GEMINI.md", "IGNORED-MARKER");
    sb.write(".geminiignore", "skipped/\n");
    let fake = run(&sb, &lines(&[text("ok")]));
    let system = fake.requests()[0].body["systemInstruction"]["parts"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    let pos = |m: &str| system.find(m).unwrap_or_else(|| panic!("{m} missing"));
    assert!(pos("GLOBAL-MARKER") < pos("ROOT-MARKER"));
    assert!(pos("ROOT-MARKER") < pos("IMPORTED-MARKER"));
    assert!(pos("IMPORTED-MARKER") < pos("NESTED-MARKER"));
    assert!(!system.contains("IGNORED-MARKER"));
    // As in Gemini CLI 0.61, the context file itself is not in the import
    // chain: docs/extra.md's import of it expands it once more, and its
    // import of docs/extra.md is then the cycle that is cut.
    assert_eq!(system.matches("ROOT-MARKER").count(), 2, "{system}");
    assert!(
        system.contains("<!-- File already processed: docs/extra.md -->"),
        "{system}"
    );
    assert!(system.contains("--- Context from: GEMINI.md ---"));
}
