//! Choosing the model provider: the picker the terminal UI opens without
//! credentials (a local OpenAI-compatible server found on 127.0.0.1, the
//! choice saved in the user settings), `/model` switching to another
//! provider mid-session (the next request reaches its server), unknown
//! models and providers refused with the known ones, `/auth`, and the
//! headless message without credentials.

use crate::e2e::{lines, turn};
use crate::support::Sandbox;
use crate::tui::{Tmux, tmux_available};
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::{Value, json};

/// An OpenAI-compatible server listing `models` and answering `text` once.
fn openai_server(models: &[&str], text: &str) -> FakeServer {
    let data: Vec<Value> = models
        .iter()
        .map(|m| json!({"id": m, "object": "model"}))
        .collect();
    FakeServer::builder()
        .route("GET /api/tags", Reply::json(404, json!({"error": "not found"})))
        .route("GET /v1/models", Reply::json(200, json!({"object": "list", "data": data})))
        .replies([Reply::openai_stream([
            json!({"choices": [{"index": 0, "delta": {"content": text}}]}),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 12, "completion_tokens": 4, "total_tokens": 16}}),
        ])])
        .start()
}

/// A sandbox whose settings are only the user's (the picker writes there).
fn user_only_sandbox(settings: &Value) -> Option<Sandbox> {
    if !tmux_available() {
        crate::support::peer_missing("tmux", "apt-get install tmux");
        return None;
    }
    let sb = Sandbox::new();
    sb.write_home(".gemini/settings.json", &settings.to_string());
    Some(sb)
}

fn user_settings(sb: &Sandbox) -> Value {
    serde_json::from_str(&std::fs::read_to_string(sb.home.join(".gemini/settings.json")).unwrap())
        .unwrap()
}

fn chat_requests(fake: &FakeServer) -> Vec<Value> {
    fake.requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .map(|r| r.body)
        .collect()
}

#[test]
fn without_credentials_the_picker_finds_a_local_server_and_saves_the_choice() {
    let Some(sb) = user_only_sandbox(&json!({"model": {"retry": {"initialDelayMs": 1}}})) else {
        return;
    };
    let local = openai_server(&["tiny-model"], "Hello from the local server.");
    let port = local.addr().port().to_string();
    let t = Tmux::start_env(
        &sb,
        "http://127.0.0.1:1",
        &[],
        &[
            ("GEMINI_API_KEY", ""),
            ("GEMINI_RS_LOCAL_PROBE_PORTS", &port),
        ],
        110,
        40,
    );
    let s = t.wait_for("Get started", 20);
    assert!(s.contains("GEMINI_API_KEY"), "the reason is shown: {s}");
    for choice in [
        "Gemini API key",
        "Vertex AI",
        "An OpenAI-compatible server",
        "Anthropic",
    ] {
        assert!(s.contains(choice), "{choice}: {s}");
    }
    let found = format!("5. OpenAI-compatible server on 127.0.0.1:{port} (1 model)");
    assert!(s.contains(&found), "{s}");
    t.keys(&["5"]);
    t.wait_for("tiny-model", 10);
    t.keys(&["Enter"]);
    let s = t.wait_for("mode: default", 20);
    assert!(s.contains("Using local/tiny-model; saved in"), "{s}");
    let settings = user_settings(&sb);
    assert_eq!(settings["model"]["name"], "local/tiny-model", "{settings}");
    assert_eq!(
        settings["model"]["providers"]["local"],
        json!({"type": "openai", "baseUrl": format!("http://127.0.0.1:{port}/v1")}),
        "{settings}"
    );
    assert_eq!(
        settings["model"]["retry"]["initialDelayMs"], 1,
        "the rest is kept"
    );
    t.type_text("hello");
    t.keys(&["Enter"]);
    t.wait_for("Hello from the local server.", 20);
    let chats = chat_requests(&local);
    assert_eq!(chats.len(), 1);
    assert_eq!(chats[0]["model"], "tiny-model");
    // Gemini still has no key: switching to it is refused, the model stays.
    t.type_text("/model gemini-2.5-pro");
    t.keys(&["Enter"]);
    let s = t.wait_for("The model stays", 20);
    assert!(
        s.contains("GOOGLE_GENAI_USE_VERTEXAI. The model stays"),
        "{s}"
    );
    assert!(s.contains("local/tiny-model (100% context left)"), "{s}");
}

#[test]
fn model_switches_to_an_openai_compatible_server_mid_session_and_refuses_unknown_ones() {
    let settings = json!({"model": {"name": "gemini-2.5-flash", "retry": {"initialDelayMs": 1}},
        "security": {"auth": {"selectedType": "gemini-api-key"}}});
    let Some(sb) = user_only_sandbox(&settings) else {
        return;
    };
    let gemini = FakeServer::replaying(&lines(&[turn(json!([{"text": "unused"}]))]));
    let openai = openai_server(&["gpt-5", "gpt-5-mini"], "Answered by gpt-5.");
    let base = format!("{}/v1", openai.base_url);
    let t = Tmux::start_env(
        &sb,
        &gemini.base_url,
        &[],
        &[("OPENAI_BASE_URL", &base), ("OPENAI_API_KEY", "sk-test")],
        120,
        40,
    );
    t.wait_for("mode: default", 20);
    t.type_text("/model openai/gpt-9");
    t.keys(&["Enter"]);
    let s = t.wait_for("Unknown model `openai/gpt-9`", 20);
    assert!(
        s.contains(
            "Known models: openai/gpt-5, openai/gpt-5-mini. The model stays gemini-2.5-flash."
        ),
        "{s}"
    );
    t.type_text("/model nowhere/x");
    t.keys(&["Enter"]);
    let s = t.wait_for("Unknown model provider `nowhere`", 20);
    assert!(
        s.contains("Known providers: gemini, openai, anthropic, ollama"),
        "{s}"
    );
    t.type_text("/model openai/gpt-5");
    t.keys(&["Enter"]);
    t.wait_for("Model set to openai/gpt-5.", 20);
    t.type_text("who answers?");
    t.keys(&["Enter"]);
    t.wait_for("Answered by gpt-5.", 20);
    let chats = chat_requests(&openai);
    assert_eq!(chats.len(), 1);
    assert_eq!(chats[0]["model"], "gpt-5");
    assert!(
        !gemini.paths().iter().any(|p| p.contains("GenerateContent")),
        "nothing went to Gemini: {:?}",
        gemini.paths()
    );
}

#[test]
fn model_alone_lists_every_provider_and_auth_opens_the_provider_picker() {
    let settings = json!({"model": {"name": "gemini-2.5-flash"},
        "security": {"auth": {"selectedType": "gemini-api-key"}}});
    let Some(sb) = user_only_sandbox(&settings) else {
        return;
    };
    let gemini = FakeServer::replaying(&lines(&[turn(json!([{"text": "unused"}]))]));
    let openai = openai_server(&["gpt-5"], "unused");
    let base = format!("{}/v1", openai.base_url);
    let t = Tmux::start_env(
        &sb,
        &gemini.base_url,
        &[],
        &[
            ("OPENAI_BASE_URL", &base),
            ("OPENAI_API_KEY", "sk-test"),
            ("GEMINI_RS_LOCAL_PROBE_PORTS", "1"),
        ],
        120,
        40,
    );
    t.wait_for("mode: default", 20);
    t.type_text("/model");
    t.keys(&["Enter"]);
    let s = t.wait_for("Choose a model (now gemini-2.5-flash)", 20);
    assert!(s.contains("● 6. gemini-2.5-flash"), "{s}");
    assert!(s.contains("8. openai/gpt-5"), "{s}");
    t.keys(&["Down", "Down", "Enter"]);
    t.wait_for("Model set to openai/gpt-5.", 20);
    t.type_text("/auth");
    t.keys(&["Enter"]);
    let s = t.wait_for("Get started", 20);
    assert!(
        s.contains("No local model server answered on 127.0.0.1 port 1."),
        "{s}"
    );
    t.keys(&["Escape"]);
    t.type_text("/about");
    t.keys(&["Enter"]);
    t.wait_for("openai/gpt-5", 20);
}

#[test]
fn headless_without_credentials_lists_every_provider_and_the_servers_found() {
    let sb = Sandbox::new();
    let local = openai_server(&["tiny-model"], "unused");
    let port = local.addr().port().to_string();
    let out = sb.run(
        &["-p", "hi"],
        None,
        &[
            ("GEMINI_API_KEY", ""),
            ("GEMINI_RS_LOCAL_PROBE_PORTS", &port),
        ],
    );
    assert_eq!(out.code, 41, "{out:?}");
    for needed in [
        "GEMINI_API_KEY=<key>",
        "GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION",
        "GOOGLE_API_KEY (express mode)",
        "OPENAI_API_KEY=<key> (and OPENAI_BASE_URL=<url>",
        "-m openai/<model>",
        "ANTHROPIC_API_KEY=<key>, with -m anthropic/<model>",
        "-m ollama/<model> (OLLAMA_HOST",
        "llama.cpp, LM Studio, vLLM",
        "model.providers",
    ] {
        assert!(out.stderr.contains(needed), "{needed}: {}", out.stderr);
    }
    let found = format!(
        "Found on this machine: OpenAI-compatible server at http://127.0.0.1:{port}/v1 (models: tiny-model)."
    );
    assert!(out.stderr.contains(&found), "{}", out.stderr);
}

#[test]
fn a_gemini_key_typed_into_the_picker_is_used_for_the_run_and_never_saved() {
    let Some(sb) = user_only_sandbox(&json!({"model": {"name": "gemini-2.5-flash"}})) else {
        return;
    };
    let gemini = FakeServer::replaying(&lines(&[turn(json!([{"text": "Keyed answer."}]))]));
    let t = Tmux::start_env(
        &sb,
        &gemini.base_url,
        &[],
        &[("GEMINI_API_KEY", ""), ("GEMINI_RS_LOCAL_PROBE_PORTS", "1")],
        110,
        40,
    );
    t.wait_for("Get started", 20);
    t.keys(&["1"]);
    t.wait_for("GEMINI_API_KEY is not set", 10);
    t.type_text("typed-key-42");
    let s = t.wait_for("GEMINI_API_KEY: ************", 10);
    assert!(!s.contains("typed-key-42"), "the key is masked: {s}");
    t.keys(&["Enter"]);
    t.wait_for("Keep GEMINI_API_KEY for the next start?", 10);
    t.keys(&["Enter"]);
    let s = t.wait_for("mode: default", 20);
    assert!(
        s.contains("GEMINI_API_KEY is used for this run only"),
        "{s}"
    );
    assert!(!sb.home.join(".gemini/.env").exists());
    t.type_text("hello");
    t.keys(&["Enter"]);
    t.wait_for("Keyed answer.", 20);
    let sent = gemini
        .requests()
        .into_iter()
        .find(|r| r.path.contains("GenerateContent"))
        .unwrap();
    assert_eq!(sent.header("x-goog-api-key"), Some("typed-key-42"));
    let saved = std::fs::read_to_string(sb.home.join(".gemini/settings.json")).unwrap();
    assert!(!saved.contains("typed-key-42"), "{saved}");
    let settings: Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(
        settings["security"]["auth"]["selectedType"],
        "gemini-api-key"
    );
    assert_eq!(settings["model"]["name"], "gemini-2.5-flash", "{settings}");
}

#[test]
fn a_typed_key_kept_on_request_is_read_by_the_next_start() {
    use std::os::unix::fs::PermissionsExt;
    let Some(sb) = user_only_sandbox(&json!({"model": {"name": "gemini-2.5-flash"}})) else {
        return;
    };
    let gemini = FakeServer::replaying(&lines(&[turn(json!([{"text": "Next start."}]))]));
    let t = Tmux::start_env(
        &sb,
        &gemini.base_url,
        &[],
        &[("GEMINI_API_KEY", ""), ("GEMINI_RS_LOCAL_PROBE_PORTS", "1")],
        110,
        40,
    );
    t.wait_for("Get started", 20);
    t.keys(&["1"]);
    t.wait_for("GEMINI_API_KEY is not set", 10);
    t.type_text("kept-key-7");
    t.keys(&["Enter"]);
    t.wait_for("Keep GEMINI_API_KEY for the next start?", 10);
    t.keys(&["2"]);
    let s = t.wait_for("mode: default", 20);
    assert!(s.contains("(mode 0600); the next start reads it"), "{s}");
    t.kill_session();
    let env_file = sb.home.join(".gemini/.env");
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        "GEMINI_API_KEY='kept-key-7'\n"
    );
    let mode = std::fs::metadata(&env_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // The next start, headless, without the variable: the file gives it.
    let out = sb.run(
        &["-p", "hello"],
        None,
        &[
            ("GEMINI_API_KEY", ""),
            ("GOOGLE_GEMINI_BASE_URL", &gemini.base_url),
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "Next start.");
    let sent = gemini.requests();
    let last = sent
        .iter()
        .rev()
        .find(|r| r.path.contains("GenerateContent"));
    assert_eq!(
        last.and_then(|r| r.header("x-goog-api-key")),
        Some("kept-key-7")
    );
}

#[test]
fn a_keyless_server_entered_by_hand_works_for_the_next_run() {
    let Some(sb) = user_only_sandbox(&json!({})) else {
        return;
    };
    let server = openai_server(&["tiny-model"], "unused");
    let base = format!("{}/v1", server.base_url);
    let t = Tmux::start_env(
        &sb,
        "http://127.0.0.1:1",
        &[],
        &[
            ("GEMINI_API_KEY", ""),
            ("GEMINI_RS_LOCAL_PROBE_PORTS", "1"),
            ("OPENAI_BASE_URL", &base),
        ],
        110,
        40,
    );
    t.wait_for("Get started", 20);
    t.keys(&["3"]);
    t.wait_for("Base URL", 10);
    t.keys(&["Enter"]);
    t.wait_for("OPENAI_API_KEY is not set", 10);
    t.type_text("none");
    t.keys(&["Enter"]);
    t.wait_for("tiny-model", 10);
    t.keys(&["Enter"]);
    let s = t.wait_for("mode: default", 20);
    assert!(!s.contains("Keep OPENAI_API_KEY"), "{s}");
    t.kill_session();
    let settings = user_settings(&sb);
    assert_eq!(settings["model"]["name"], "openai/tiny-model", "{settings}");
    assert_eq!(
        settings["model"]["providers"]["openai"],
        json!({"type": "openai", "baseUrl": base}),
        "no apiKeyEnv: {settings}"
    );
    // The next `-p`, with neither variable set, reaches the server.
    let out = sb.run(
        &["-p", "hello"],
        None,
        &[("GEMINI_API_KEY", ""), ("OPENAI_BASE_URL", "")],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout.trim(), "unused");
    assert_eq!(chat_requests(&server).len(), 1);
}
