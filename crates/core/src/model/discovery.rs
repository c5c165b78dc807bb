//! Which models a provider offers and which local model servers run on
//! this machine: the provider picker's and `/model`'s lists, and the check
//! that refuses a model no provider knows.
//!
//! Local servers are probed on 127.0.0.1 at their usual ports (Ollama
//! 11434, llama.cpp 8080, LM Studio 1234, vLLM 8000), all at once with a
//! short timeout; `GEMINI_RS_LOCAL_PROBE_PORTS` (comma-separated ports)
//! replaces that list. A provider's models come from its server where it
//! can say (`/v1/models`, Anthropic's `/v1/models`, Ollama's `/api/tags`),
//! else from `model.providers.<id>.models`.

use super::http::build_client;
use super::provider::{Provider, ProviderError, Providers, Wire};
use crate::config::Env;
use futures::future::join_all;
use serde::Deserialize;
use std::time::Duration;

/// The variable that replaces the probed ports (`11434,8080`).
pub const PROBE_PORTS_VAR: &str = "GEMINI_RS_LOCAL_PROBE_PORTS";

/// The Gemini models offered by name (as Gemini CLI 0.61 offers them),
/// `auto` first.
pub const GEMINI_MODELS: &[&str] = &[
    "auto",
    "gemini-3.1-pro-preview",
    "gemini-3-pro-preview",
    "gemini-3-flash-preview",
    "gemini-2.5-pro",
    "gemini-2.5-flash",
    "gemini-2.5-flash-lite",
];

/// How long a local probe may take (connect and answer).
const PROBE_TIMEOUT: Duration = Duration::from_millis(800);
/// How long listing a provider's models may take.
const LIST_TIMEOUT: Duration = Duration::from_secs(4);

/// A kind of local model server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalKind {
    /// Ollama (answers `/api/tags`).
    Ollama,
    /// llama.cpp's `llama-server`.
    LlamaCpp,
    /// LM Studio.
    LmStudio,
    /// vLLM.
    Vllm,
    /// Another OpenAI-compatible server.
    Other,
}

impl LocalKind {
    /// The provider id the picker saves it under.
    pub fn id(self) -> &'static str {
        match self {
            LocalKind::Ollama => "ollama",
            LocalKind::LlamaCpp => "llamacpp",
            LocalKind::LmStudio => "lmstudio",
            LocalKind::Vllm => "vllm",
            LocalKind::Other => "local",
        }
    }

    /// Its name for people.
    pub fn label(self) -> &'static str {
        match self {
            LocalKind::Ollama => "Ollama",
            LocalKind::LlamaCpp => "llama.cpp",
            LocalKind::LmStudio => "LM Studio",
            LocalKind::Vllm => "vLLM",
            LocalKind::Other => "OpenAI-compatible server",
        }
    }

    /// The kind usually listening on `port`.
    fn of_port(port: u16) -> LocalKind {
        match port {
            11434 => LocalKind::Ollama,
            8080 => LocalKind::LlamaCpp,
            1234 => LocalKind::LmStudio,
            8000 => LocalKind::Vllm,
            _ => LocalKind::Other,
        }
    }
}

/// A model server found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalServer {
    /// What it is.
    pub kind: LocalKind,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its OpenAI-compatible API root (`http://127.0.0.1:<port>/v1`).
    pub base_url: String,
    /// The models it serves.
    pub models: Vec<String>,
}

/// Why models could not be listed or a model cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    /// `GEMINI_RS_LOCAL_PROBE_PORTS` holds something that is not a port.
    #[error("{PROBE_PORTS_VAR} must list ports separated by commas; `{value}` is not a port.")]
    BadPort {
        /// The entry.
        value: String,
    },
    /// The server could not be asked, or answered with an error.
    #[error("could not list the models at {url}: {message}")]
    Listing {
        /// The URL asked.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The provider's API has no listing gemini-rs reads.
    #[error(
        "the `{id}` provider's models cannot be listed; name them under model.providers.{id}.models"
    )]
    NotListable {
        /// The provider id.
        id: String,
    },
    /// The provider name is not known, or its key is not set.
    #[error("{0}")]
    Provider(#[from] ProviderError),
    /// The provider does not offer the model.
    #[error("Unknown model `{model}`. Known models: {known}. The model stays {current}.")]
    UnknownModel {
        /// The name asked for.
        model: String,
        /// The known names, comma-separated.
        known: String,
        /// The session's model.
        current: String,
    },
}

/// The ports to probe: `GEMINI_RS_LOCAL_PROBE_PORTS`, else the usual ones.
pub fn probe_ports(env: &Env) -> Result<Vec<u16>, DiscoveryError> {
    match env.var(PROBE_PORTS_VAR) {
        None => Ok(vec![11434, 8080, 1234, 8000]),
        Some(list) => list
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| {
                p.parse::<u16>().map_err(|_| DiscoveryError::BadPort {
                    value: p.to_string(),
                })
            })
            .collect(),
    }
}

/// The model servers answering on 127.0.0.1 at `ports`, probed at once;
/// those that do not answer in time are left out.
pub async fn probe_local(ports: &[u16]) -> Vec<LocalServer> {
    let Ok(client) = client(PROBE_TIMEOUT) else {
        return Vec::new();
    };
    let probes = ports.iter().map(|&port| probe(&client, port));
    join_all(probes).await.into_iter().flatten().collect()
}

async fn probe(client: &reqwest::Client, port: u16) -> Option<LocalServer> {
    let root = format!("http://127.0.0.1:{port}");
    let base_url = format!("{root}/v1");
    // Both questions at once: a server that accepts and never answers
    // costs one timeout, not two.
    let (tags, listed) = futures::join!(
        ollama_tags(client, &root),
        openai_models(client, &base_url, None, &[])
    );
    let (kind, models) = match (tags, listed) {
        (Ok(models), _) => (LocalKind::Ollama, models),
        (Err(_), Ok(models)) => (LocalKind::of_port(port), models),
        (Err(_), Err(_)) => return None,
    };
    Some(LocalServer {
        kind,
        port,
        base_url,
        models,
    })
}

fn client(timeout: Duration) -> Result<reqwest::Client, DiscoveryError> {
    let builder = reqwest::Client::builder()
        .user_agent(concat!("gemini-rs/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(timeout)
        .timeout(timeout);
    build_client(builder).map_err(|e| DiscoveryError::Listing {
        url: String::new(),
        message: e.to_string(),
    })
}

#[derive(Deserialize)]
struct OpenAiList {
    data: Vec<OpenAiModel>,
}

#[derive(Deserialize)]
struct OpenAiModel {
    id: String,
}

#[derive(Deserialize)]
struct OllamaTags {
    models: Vec<OllamaModel>,
}

#[derive(Deserialize)]
struct OllamaModel {
    name: String,
}

/// GETs `url` and reads its JSON as `T`.
async fn get_json<T: serde::de::DeserializeOwned>(
    request: reqwest::RequestBuilder,
    url: &str,
) -> Result<T, DiscoveryError> {
    let failed = |message: String| DiscoveryError::Listing {
        url: url.to_string(),
        message,
    };
    let response = request.send().await.map_err(|e| failed(e.to_string()))?;
    let status = response.status();
    if !status.is_success() {
        return Err(failed(format!("HTTP {status}")));
    }
    let body = response.bytes().await.map_err(|e| failed(e.to_string()))?;
    serde_json::from_slice(&body).map_err(|e| failed(format!("unexpected answer: {e}")))
}

async fn ollama_tags(client: &reqwest::Client, root: &str) -> Result<Vec<String>, DiscoveryError> {
    let url = format!("{root}/api/tags");
    let tags: OllamaTags = get_json(client.get(&url), &url).await?;
    Ok(tags.models.into_iter().map(|m| m.name).collect())
}

async fn openai_models(
    client: &reqwest::Client,
    base_url: &str,
    key: Option<&str>,
    headers: &[(String, String)],
) -> Result<Vec<String>, DiscoveryError> {
    let url = format!("{}/models", base_url.trim_end_matches('/'));
    let mut request = client.get(&url);
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    for (k, v) in headers {
        request = request.header(k, v);
    }
    let list: OpenAiList = get_json(request, &url).await?;
    Ok(list.data.into_iter().map(|m| m.id).collect())
}

async fn anthropic_models(
    client: &reqwest::Client,
    base_url: &str,
    key: Option<&str>,
    headers: &[(String, String)],
) -> Result<Vec<String>, DiscoveryError> {
    let url = format!("{}/v1/models", base_url.trim_end_matches('/'));
    let mut request = client.get(&url).header("anthropic-version", "2023-06-01");
    if let Some(key) = key {
        request = request.header("x-api-key", key);
    }
    for (k, v) in headers {
        request = request.header(k, v);
    }
    let list: OpenAiList = get_json(request, &url).await?;
    Ok(list.data.into_iter().map(|m| m.id).collect())
}

/// The models `provider` offers, by the names its API knows: the built-in
/// Gemini provider's named models, or what the server lists.
pub async fn list_models(provider: &Provider, env: &Env) -> Result<Vec<String>, DiscoveryError> {
    let key = provider.api_key_env.as_deref().and_then(|v| env.var(v));
    let base = provider.base_url.as_deref();
    match (provider.wire, base) {
        (Wire::Gemini, _) if provider.id == "gemini" => {
            Ok(GEMINI_MODELS.iter().map(ToString::to_string).collect())
        }
        (Wire::OpenAiChat, Some(base)) => {
            openai_models(
                &client(LIST_TIMEOUT)?,
                base,
                key.as_deref(),
                &provider.headers,
            )
            .await
        }
        (Wire::Anthropic, Some(base)) => {
            anthropic_models(
                &client(LIST_TIMEOUT)?,
                base,
                key.as_deref(),
                &provider.headers,
            )
            .await
        }
        _ => Err(DiscoveryError::NotListable {
            id: provider.id.clone(),
        }),
    }
}

/// The models an OpenAI-compatible server at `base_url` lists
/// (`GET <base_url>/models`).
pub async fn list_openai_models(
    base_url: &str,
    key: Option<&str>,
) -> Result<Vec<String>, DiscoveryError> {
    openai_models(&client(LIST_TIMEOUT)?, base_url, key, &[]).await
}

/// The models the Anthropic API at `base_url` lists.
pub async fn list_anthropic_models(
    base_url: &str,
    key: Option<&str>,
) -> Result<Vec<String>, DiscoveryError> {
    anthropic_models(&client(LIST_TIMEOUT)?, base_url, key, &[]).await
}

/// One provider's models for `/model`'s picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderModels {
    /// The provider id.
    pub provider: String,
    /// The names to give `/model` (`provider/model`; bare for Gemini).
    pub models: Vec<String>,
    /// Why the server's list is missing, when it is.
    pub note: Option<String>,
}

/// True when the user set up `provider` (a declared one, or a built-in
/// whose variables are set); Gemini always counts.
fn configured(provider: &Provider, declared: bool, env: &Env) -> bool {
    let set = |v: &str| env.var(v).is_some();
    declared
        || match provider.id.as_str() {
            "gemini" => true,
            "openai" => set("OPENAI_API_KEY") || set("OPENAI_BASE_URL"),
            "anthropic" => set("ANTHROPIC_API_KEY") || set("ANTHROPIC_BASE_URL"),
            _ => false,
        }
}

/// True when something can reach the Gemini API: a key, Vertex AI, or
/// another endpoint (a proxy, a test server).
fn gemini_credentials(env: &Env) -> bool {
    let set = |v: &str| env.var(v).is_some_and(|v| !v.is_empty());
    set("GEMINI_API_KEY")
        || set("GOOGLE_API_KEY")
        || set("GOOGLE_GEMINI_BASE_URL")
        || env
            .var("GOOGLE_GENAI_USE_VERTEXAI")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
}

/// The models known without asking any server: Gemini's named models and
/// the ones declared for every configured provider (`provider/model`).
pub fn known_models(providers: &Providers, env: &Env) -> Vec<String> {
    let mut out: Vec<String> = GEMINI_MODELS.iter().map(ToString::to_string).collect();
    for p in providers.all() {
        if p.id == "gemini" || !configured(p, providers.is_declared(&p.id), env) {
            continue;
        }
        out.extend(p.models.keys().map(|m| format!("{}/{m}", p.id)));
    }
    out
}

/// The models of every configured provider (Ollama when it answers),
/// listed at once.
pub async fn model_choices(providers: &Providers, env: &Env) -> Vec<ProviderModels> {
    let lists = providers.all().iter().map(|p| async move {
        let declared = providers.is_declared(&p.id);
        let wanted = configured(p, declared, env) || p.id == "ollama";
        if !wanted {
            return None;
        }
        if p.id == "gemini" && !declared && !gemini_credentials(env) {
            // Gemini's models would only fail: say what they need instead.
            return Some(ProviderModels {
                provider: p.id.clone(),
                models: Vec::new(),
                note: Some(
                    "no GEMINI_API_KEY or Vertex AI settings; /auth sets a key up".to_string(),
                ),
            });
        }
        let listed = list_models(p, env).await;
        if p.id == "ollama" && !declared && env.var("OLLAMA_HOST").is_none() && listed.is_err() {
            return None;
        }
        let (listed, note) = match listed {
            Ok(models) => (models, None),
            Err(e) => (Vec::new(), Some(e.to_string())),
        };
        let extra = listed.into_iter().filter(|m| !p.models.contains_key(m));
        let models = p
            .models
            .keys()
            .cloned()
            .chain(extra)
            .map(|m| match p.id.as_str() {
                "gemini" => m,
                id => format!("{id}/{m}"),
            })
            .collect();
        Some(ProviderModels {
            provider: p.id.clone(),
            models,
            note,
        })
    });
    join_all(lists).await.into_iter().flatten().collect()
}

/// True for a name the Gemini API may know: its families, its resource
/// names and the `auto` aliases.
fn gemini_name(model: &str) -> bool {
    let bare = model.strip_prefix("models/").unwrap_or(model);
    model.starts_with("tunedModels/")
        || bare.starts_with("gemini-")
        || bare.starts_with("gemma-")
        || matches!(
            bare,
            "auto" | "auto-gemini-2.5" | "auto-gemini-3" | "pro" | "flash" | "flash-lite"
        )
}

/// Checks that `model` can be switched to: its provider is known, its key
/// is set, and the provider offers it (where that can be told). `current`
/// is the session's model, named in the refusal.
pub async fn check_model(
    providers: &Providers,
    env: &Env,
    model: &str,
    current: &str,
) -> Result<(), DiscoveryError> {
    let resolved = providers.resolve(model)?;
    let provider = resolved.provider;
    if let Some(var) = &provider.api_key_env
        && env.var(var).is_none()
        && provider.id != "gemini"
    {
        return Err(ProviderError::MissingKey {
            id: provider.id.clone(),
            var: var.clone(),
            model: model.to_string(),
        }
        .into());
    }
    let unknown = |known: Vec<String>| DiscoveryError::UnknownModel {
        model: model.to_string(),
        known: known.join(", "),
        current: current.to_string(),
    };
    if provider.id == "gemini" && provider.wire == Wire::Gemini {
        if gemini_name(resolved.model) {
            return Ok(());
        }
        let mut known: Vec<String> = GEMINI_MODELS.iter().map(ToString::to_string).collect();
        for other in model_choices(providers, env).await {
            if other.provider != "gemini" {
                known.extend(other.models);
            }
        }
        return Err(unknown(known));
    }
    let mut known: Vec<String> = provider.models.keys().cloned().collect();
    if let Ok(listed) = list_models(provider, env).await {
        let extra: Vec<String> = listed.into_iter().filter(|m| !known.contains(m)).collect();
        known.extend(extra);
    }
    let wanted = resolved.model;
    let offered = known
        .iter()
        .any(|k| k == wanted || k.strip_suffix(":latest") == Some(wanted));
    if known.is_empty() || offered {
        return Ok(());
    }
    let id = &provider.id;
    Err(unknown(
        known.into_iter().map(|m| format!("{id}/{m}")).collect(),
    ))
}
