//! Tests of [`super::discovery`]: probe ports, the names Gemini takes, and
//! listings from fake servers (declared models first, refusals naming them).

use super::discovery::*;
use super::provider::{ModelLimits, ProviderDecl, Providers};
use crate::config::Env;
use gemini_rs_test_support::{FakeServer, Reply};
use serde_json::json;
use std::collections::BTreeMap;

#[test]
fn probe_ports_come_from_the_variable_or_the_usual_list() {
    assert_eq!(
        probe_ports(&Env::from_pairs([])).unwrap(),
        vec![11434, 8080, 1234, 8000]
    );
    let env = Env::from_pairs([(PROBE_PORTS_VAR, "9001, 9002")]);
    assert_eq!(probe_ports(&env).unwrap(), vec![9001, 9002]);
    let env = Env::from_pairs([(PROBE_PORTS_VAR, "9001,http")]);
    assert_eq!(
        probe_ports(&env).unwrap_err().to_string(),
        "GEMINI_RS_LOCAL_PROBE_PORTS must list ports separated by commas; `http` is not a port."
    );
}

#[tokio::test]
async fn gemini_names_pass_and_others_are_refused_with_the_known_list() {
    let env = Env::from_pairs([]);
    let providers = Providers::new(&Default::default(), |_| None).unwrap();
    for ok in [
        "gemini-2.5-flash",
        "models/gemini-3-pro-preview",
        "auto",
        "gemma-3-27b-it",
    ] {
        check_model(&providers, &env, ok, "gemini-2.5-pro")
            .await
            .unwrap();
    }
    let err = check_model(&providers, &env, "gpt-5", "gemini-2.5-pro")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("Unknown model `gpt-5`. Known models: auto, gemini-3.1-pro-preview"),
        "{err}"
    );
    assert!(err.ends_with("The model stays gemini-2.5-pro."), "{err}");
    let err = check_model(&providers, &env, "nope/x", "gemini-2.5-pro")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("Known providers: gemini, openai, anthropic, ollama"),
        "{err}"
    );
    let err = check_model(&providers, &env, "openai/gpt-5", "m")
        .await
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("OPENAI_API_KEY is not set"), "{err}");
}

fn openai_lister(models: &[&str]) -> FakeServer {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let data: Vec<_> = models.iter().map(|m| json!({"id": m})).collect();
    FakeServer::with_routes([("GET /v1/models", Reply::json(200, json!({"data": data})))])
}

fn declared(base_url: &str, models: &[&str]) -> BTreeMap<String, ProviderDecl> {
    let decl = ProviderDecl {
        kind: Some("openai".into()),
        base_url: Some(base_url.into()),
        models: models
            .iter()
            .map(|m| (m.to_string(), ModelLimits::default()))
            .collect(),
        ..ProviderDecl::default()
    };
    BTreeMap::from([("local".to_string(), decl)])
}

#[tokio::test]
async fn declared_models_come_first_then_the_server_list_and_decide_what_is_known() {
    let server = openai_lister(&["a", "b", "c"]);
    let base = format!("{}/v1", server.base_url);
    let providers = Providers::new(&declared(&base, &["c"]), |_| None).unwrap();
    let env = Env::from_pairs([]);
    let choices = model_choices(&providers, &env).await;
    let local = choices.iter().find(|c| c.provider == "local").unwrap();
    assert_eq!(local.models, ["local/c", "local/a", "local/b"]);
    assert_eq!(local.note, None);
    // Without a Gemini key, Gemini's models are not offered; a note says why.
    let gemini = choices.iter().find(|c| c.provider == "gemini").unwrap();
    assert!(gemini.models.is_empty(), "{gemini:?}");
    assert!(gemini.note.as_deref().unwrap().contains("GEMINI_API_KEY"));
    assert!(
        !choices
            .iter()
            .any(|c| c.provider == "openai" || c.provider == "anthropic")
    );
    check_model(&providers, &env, "local/a", "m").await.unwrap();
    let err = check_model(&providers, &env, "local/z", "m")
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "Unknown model `local/z`. Known models: local/c, local/a, local/b. The model stays m."
    );
    // A server that cannot list does not stop a switch; the note says why.
    let providers = Providers::new(&declared("http://127.0.0.1:1/v1", &[]), |_| None).unwrap();
    check_model(&providers, &env, "local/anything", "m")
        .await
        .unwrap();
    let choices = model_choices(&providers, &env).await;
    let local = choices.iter().find(|c| c.provider == "local").unwrap();
    assert!(local.models.is_empty());
    assert!(
        local
            .note
            .as_deref()
            .unwrap()
            .contains("http://127.0.0.1:1/v1/models"),
        "{local:?}"
    );
}

#[tokio::test]
async fn local_servers_are_found_and_named_and_anthropic_lists_with_its_headers() {
    let ollama = FakeServer::with_routes([(
        "GET /api/tags",
        Reply::json(200, json!({"models": [{"name": "qwen3:8b"}]})),
    )]);
    let other = openai_lister(&["tiny"]);
    let ports = [ollama.addr().port(), other.addr().port(), 1];
    let mut found = probe_local(&ports).await;
    found.sort_by_key(|s| s.port != ports[0]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].kind, LocalKind::Ollama);
    assert_eq!(found[0].models, ["qwen3:8b"]);
    assert_eq!(found[1].kind, LocalKind::Other);
    assert_eq!(
        found[1].base_url,
        format!("http://127.0.0.1:{}/v1", ports[1])
    );
    assert_eq!(found[1].models, ["tiny"]);
    let anthropic = openai_lister(&["claude-x"]);
    let models = list_anthropic_models(&anthropic.base_url, Some("sk-ant"))
        .await
        .unwrap();
    assert_eq!(models, ["claude-x"]);
    let request = anthropic.requests().pop().unwrap();
    assert_eq!(request.header("x-api-key"), Some("sk-ant"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
}
