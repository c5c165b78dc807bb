//! Auth checks and the model client: the REST client with the user's key,
//! or a replay of recorded responses, optionally recorded.

use super::config::{SessionConfig, StartError, StartErrorKind};
use crate::config::{Env, GeminiPaths, Settings};
use crate::events::{AgentEvent, EventSender};
use crate::model::google_auth::GoogleCredentials;
use crate::model::provider::{ModelLimits, Provider, ProviderDecl, ProviderError, Providers, Wire};
use crate::model::router::{ClientFactory, ProviderRouter};
use crate::model::{
    AnthropicClient, ContentGenerator, GeminiClient, GeminiConfig, ModelError, Named,
    OpenAiChatClient, RecordingGenerator, ReplayGenerator, ResponseSink, RetryConfig, RetryNotice,
    Transport, VertexTarget, WireConfig, name_error,
};
use gemini_rs_protocol::events::ApiOrigin;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

fn auth_error(class: &'static str, message: String) -> StartError {
    StartError::new(StartErrorKind::Auth, class, message)
}

/// Every way to give gemini-rs a model, with its variables: the end of
/// the message of a run without credentials.
const NO_CREDENTIALS_CHOICES: &str = "The model providers and what each needs:
  - Gemini API key: GEMINI_API_KEY=<key>
  - Vertex AI: GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or with GOOGLE_API_KEY (express mode)
  - An OpenAI-compatible server: OPENAI_API_KEY=<key> (and OPENAI_BASE_URL=<url> for a server other than OpenAI's), with -m openai/<model>
  - Anthropic: ANTHROPIC_API_KEY=<key>, with -m anthropic/<model>
  - Ollama on this machine: -m ollama/<model> (OLLAMA_HOST when it is not at http://127.0.0.1:11434)
  - llama.cpp, LM Studio, vLLM or another local server: declare it under model.providers in settings.json (\"type\": \"openai\", \"baseUrl\": \"http://127.0.0.1:<port>/v1\") and use -m <id>/<model>
Run gemini-rs in a terminal to choose one from a list; it also finds the servers running on this machine.";

/// How the built-in Gemini provider authenticates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GeminiAuth {
    /// The Gemini API with `GEMINI_API_KEY` (none when replaying).
    ApiKey(Option<String>),
    /// Vertex AI with a project and location (OAuth2 credentials).
    Vertex {
        /// `GOOGLE_CLOUD_PROJECT`.
        project: String,
        /// `GOOGLE_CLOUD_LOCATION`.
        location: String,
    },
    /// Vertex AI express mode with `GOOGLE_API_KEY`.
    VertexExpress(String),
}

/// How to authenticate, after checking the selected and enforced auth
/// types (`needs_key`: fail when the credentials a live call needs are
/// missing).
pub fn check_auth(
    settings: &Settings,
    paths: &GeminiPaths,
    environment: &Env,
    needs_key: bool,
) -> Result<GeminiAuth, StartError> {
    let env = |k: &str| environment.var(k);
    let truthy = |k: &str| env(k).is_some_and(|v| v.eq_ignore_ascii_case("true"));
    let auth = &settings.typed().security.auth;
    let selected = auth.selected_type.clone().filter(|s| !s.is_empty());
    let from_env = if truthy("GOOGLE_GENAI_USE_GCA") {
        Some("oauth-personal")
    } else if truthy("GOOGLE_GENAI_USE_VERTEXAI") {
        Some("vertex-ai")
    } else if env("GEMINI_API_KEY").is_some() {
        Some("gemini-api-key")
    } else {
        None
    };
    let current = selected.or(from_env.map(str::to_string));
    if let Some(enforced) = auth.enforced_type.as_deref().filter(|s| !s.is_empty())
        && current.as_deref() != Some(enforced)
    {
        return Err(auth_error(
            "Error",
            format!(
                "The enforced authentication type is '{enforced}', but the current type is '{}'. Please re-authenticate with the correct type.",
                current.as_deref().unwrap_or("none")
            ),
        ));
    }
    if current.as_deref() == Some("vertex-ai") {
        return match (
            env("GOOGLE_CLOUD_PROJECT"),
            env("GOOGLE_CLOUD_LOCATION"),
            env("GOOGLE_API_KEY"),
        ) {
            (Some(project), Some(location), _) => Ok(GeminiAuth::Vertex { project, location }),
            (_, _, Some(key)) => Ok(GeminiAuth::VertexExpress(key)),
            _ if !needs_key => Ok(GeminiAuth::ApiKey(None)),
            _ => Err(auth_error(
                "FatalAuthenticationError",
                "When using Vertex AI, you must specify either:\n\
                 • GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION environment variables.\n\
                 • GOOGLE_API_KEY environment variable (if using express mode).\n\
                 Update your environment and try again."
                    .to_string(),
            )),
        };
    }
    let key = env("GEMINI_API_KEY");
    if needs_key {
        match current.as_deref() {
            Some("oauth-personal") | Some("cloud-shell") | Some("compute-default-credentials") => {
                return Err(auth_error(
                    "FatalAuthenticationError",
                    format!(
                        "Authentication type '{}' is not supported by gemini-rs: Google's login is only for Gemini CLI itself. Use an API key (GEMINI_API_KEY, selectedType \"gemini-api-key\") or Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true) in {}.",
                        current.as_deref().unwrap_or(""),
                        paths.user_settings().display()
                    ),
                ));
            }
            _ if key.is_none() => {
                return Err(auth_error(
                    "FatalAuthenticationError",
                    format!(
                        "Please set an Auth method in your {} or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI\n{NO_CREDENTIALS_CHOICES}",
                        paths.user_settings().display()
                    ),
                ));
            }
            _ => {}
        }
    }
    Ok(GeminiAuth::ApiKey(key))
}

/// The providers of a session: the built-ins plus `model.providers`.
pub fn providers(settings: &Settings, environment: &Env) -> Result<Arc<Providers>, StartError> {
    let declared: BTreeMap<String, ProviderDecl> = settings
        .typed()
        .model
        .providers
        .iter()
        .map(|(id, p)| {
            let decl = ProviderDecl {
                kind: p.kind.clone(),
                base_url: p.base_url.clone().filter(|u| !u.is_empty()),
                api_key_env: p.api_key_env.clone(),
                headers: p.headers.clone(),
                models: p
                    .models
                    .iter()
                    .map(|(m, l)| {
                        let limits = ModelLimits {
                            context_window: l.context_window,
                            max_output_tokens: l.max_output_tokens,
                        };
                        (m.clone(), limits)
                    })
                    .collect(),
            };
            (id.clone(), decl)
        })
        .collect();
    Providers::new(&declared, |k: &str| environment.var(k))
        .map(Arc::new)
        .map_err(|e| StartError::new(StartErrorKind::Config, "FatalConfigError", e.to_string()))
}

/// The model client: a replay of recorded responses, or a router to each
/// provider's API; answers are recorded when `--record-responses` is given.
/// Auth is checked for the provider of `model` (the session's first model).
pub fn generator(
    config: &SessionConfig,
    model: &str,
    providers: &Arc<Providers>,
    (events, stats): (&EventSender, &SharedStats),
) -> Result<Arc<dyn ContentGenerator>, StartError> {
    let resolved = providers
        .resolve(model)
        .map_err(|e| StartError::new(StartErrorKind::Config, "FatalConfigError", e.to_string()))?;
    let builtin_gemini = resolved.provider.wire == Wire::Gemini && resolved.provider.id == "gemini";
    let needs_key = config.replay.is_none();
    check_auth(
        &config.settings,
        &config.paths,
        &config.env,
        needs_key && builtin_gemini,
    )?;
    if needs_key
        && !builtin_gemini
        && let Some(var) = &resolved.provider.api_key_env
        && config.env.var(var).is_none()
    {
        let missing = ProviderError::MissingKey {
            id: resolved.provider.id.clone(),
            var: var.clone(),
            model: model.to_string(),
        };
        return Err(auth_error("FatalAuthenticationError", missing.to_string()));
    }
    let sink = config
        .record_responses
        .clone()
        .map(|path| Arc::new(ResponseSink::new(path)));
    if let Some((file, mode)) = &config.replay {
        // The file named on the command line: one that is there but not a
        // regular file (or too large) is bad input (42); a missing one is
        // an error (1), as in Gemini CLI.
        let replay = ReplayGenerator::from_file(file, *mode).map_err(|e| match e {
            ModelError::ResponsesFile { .. } if file.exists() => {
                StartError::new(StartErrorKind::Input, "FatalInputError", e.to_string())
            }
            _ => StartError::new(StartErrorKind::Other, "Error", e.to_string()),
        })?;
        return Ok(match sink {
            Some(sink) => Arc::new(RecordingGenerator::with_sink(Arc::new(replay), sink)),
            None => Arc::new(replay),
        });
    }
    let mut retry = RetryConfig::default();
    if let Some(ms) = config.settings.retry_initial_delay_ms() {
        retry.initial_delay_ms = ms;
    }
    let transport = transport(&config.settings, events.clone(), stats.clone());
    let settings = config.settings.clone();
    let paths = config.paths.clone();
    let environment = config.env.clone();
    let factory: ClientFactory = Box::new(move |provider| {
        let parts = ClientParts {
            settings: &settings,
            paths: &paths,
            environment: &environment,
            retry: &retry,
            transport: &transport,
        };
        client(provider, &parts, sink.clone())
    });
    Ok(Arc::new(ProviderRouter::new(providers.clone(), factory)))
}

/// The session's stats, shared by its agents and its model client.
pub type SharedStats = Arc<std::sync::Mutex<crate::events::stats::SessionStats>>;

/// The timeouts and caps of model calls from `model.connectTimeoutSeconds`,
/// `model.streamIdleTimeoutSeconds` and `model.maxStreamMegabytes`; each
/// retry wait is reported on `events`, and its failed attempt counted in
/// `stats` (as Gemini CLI counts every failed request).
fn transport(settings: &Settings, events: EventSender, stats: SharedStats) -> Transport {
    let model = &settings.typed().model;
    let mut transport = Transport::default();
    if let Some(s) = model.connect_timeout_seconds.filter(|s| *s > 0) {
        transport.connect_timeout = Duration::from_secs(s);
    }
    if let Some(s) = model.stream_idle_timeout_seconds.filter(|s| *s > 0) {
        transport.idle_timeout = Duration::from_secs(s);
    }
    if let Some(mb) = model.max_stream_megabytes.filter(|mb| *mb > 0) {
        transport.max_stream_bytes = mb.saturating_mul(1 << 20);
    }
    transport.on_retry = Some(Arc::new(move |notice: RetryNotice| {
        if let Ok(mut stats) = stats.lock() {
            stats.record_retried_failure(&notice.model, notice.error_type, notice.latency);
        }
        events.emit_detached(AgentEvent::ModelRetry {
            attempt: notice.attempt,
            max_attempts: notice.max_attempts,
            delay_ms: u64::try_from(notice.delay.as_millis()).unwrap_or(u64::MAX),
            reason: notice.reason,
        });
    }));
    transport
}

/// The built-in Gemini provider's client settings: the Gemini API
/// (`GOOGLE_GEMINI_BASE_URL` overrides its URL) or Vertex AI
/// (`GOOGLE_VERTEX_BASE_URL` overrides its URL; else the location's).
fn builtin_gemini_config(
    auth: GeminiAuth,
    home: &Path,
    parts: &ClientParts<'_>,
) -> Result<(GeminiConfig, ApiOrigin), ModelError> {
    let environment = parts.environment;
    let env = |k: &str| environment.var(k);
    let vertex_url = |location: Option<&str>| {
        env("GOOGLE_VERTEX_BASE_URL").unwrap_or_else(|| match location {
            Some(l) if l != "global" => format!("https://{l}-aiplatform.googleapis.com"),
            _ => "https://aiplatform.googleapis.com".to_string(),
        })
    };
    let from = |var: &str| match env(var) {
        Some(_) => var.to_string(),
        None => format!("the default ({var} changes it)"),
    };
    let (api_key, base_url, vertex) = match auth {
        GeminiAuth::ApiKey(key) => (
            key.unwrap_or_default(),
            gemini_base_url(&env)
                .unwrap_or_else(|| "https://generativelanguage.googleapis.com".to_string()),
            None,
        ),
        GeminiAuth::Vertex { project, location } => {
            let credentials = GoogleCredentials::find(env, home)?;
            let base = vertex_url(Some(&location));
            let target = VertexTarget {
                project_location: Some((project, location)),
                credentials: Some(Arc::new(credentials)),
            };
            (String::new(), base, Some(target))
        }
        GeminiAuth::VertexExpress(key) => {
            let target = VertexTarget {
                project_location: None,
                credentials: None,
            };
            (key, vertex_url(None), Some(target))
        }
    };
    let origin = ApiOrigin {
        provider: "gemini".to_string(),
        api: if vertex.is_some() {
            "Vertex AI"
        } else {
            "Gemini API"
        }
        .to_string(),
        base_url: base_url.clone(),
        configured_by: if vertex.is_some() {
            from("GOOGLE_VERTEX_BASE_URL")
        } else {
            gemini_base_url_from(&env).map_or_else(
                || from("GOOGLE_GEMINI_BASE_URL"),
                |(_, var)| var.to_string(),
            )
        },
    };
    let config = GeminiConfig {
        api_key,
        vertex,
        base_url,
        retry: parts.retry.clone(),
        proxy: None,
        transport: parts.transport.clone(),
    };
    Ok((config, origin))
}

/// What every provider's client is built from.
struct ClientParts<'a> {
    settings: &'a Settings,
    paths: &'a GeminiPaths,
    environment: &'a Env,
    retry: &'a RetryConfig,
    transport: &'a Transport,
}

/// A Gemini-wire client, recording its answers when `sink` is given (the
/// other wires record their own raw events).
fn recorded(
    gemini: Arc<dyn ContentGenerator>,
    sink: Option<Arc<ResponseSink>>,
) -> Arc<dyn ContentGenerator> {
    match sink {
        Some(sink) => Arc::new(RecordingGenerator::with_sink(gemini, sink)),
        None => gemini,
    }
}

/// Builds the client of one provider, its errors naming it; a missing key
/// is an error naming the variable to set.
fn client(
    provider: &Provider,
    parts: &ClientParts<'_>,
    sink: Option<Arc<ResponseSink>>,
) -> Result<Arc<dyn ContentGenerator>, ModelError> {
    let env = |k: &str| parts.environment.var(k);
    if provider.id == "gemini" && provider.wire == Wire::Gemini {
        let auth = check_auth(parts.settings, parts.paths, parts.environment, true)
            .map_err(|e| ModelError::Setup { message: e.message })?;
        let (config, origin) = builtin_gemini_config(auth, &parts.paths.home, parts)?;
        let gemini = GeminiClient::new(config)?;
        return Ok(Arc::new(Named::new(
            recorded(Arc::new(gemini), sink),
            origin,
        )));
    }
    let (base_url, configured_by) = match &provider.base_url {
        Some(url) => (url.clone(), provider.base_url_from.clone()),
        None => match gemini_base_url_from(&env) {
            Some((url, var)) => (url, var.to_string()),
            None => (
                "https://generativelanguage.googleapis.com".to_string(),
                "the default (GOOGLE_GEMINI_BASE_URL changes it)".to_string(),
            ),
        },
    };
    let origin = ApiOrigin {
        provider: provider.id.clone(),
        api: match provider.wire {
            Wire::Gemini => "Gemini API",
            Wire::OpenAiChat => "OpenAI-compatible API",
            Wire::Anthropic => "Anthropic API",
        }
        .to_string(),
        base_url: base_url.clone(),
        configured_by,
    };
    let key = match &provider.api_key_env {
        Some(var) => Some(env(var).ok_or_else(|| {
            let missing = ModelError::Setup {
                message: format!(
                    "{var} is not set: the `{}` provider needs an API key. Set {var}.",
                    provider.id
                ),
            };
            name_error(missing, &origin)
        })?),
        None => None,
    };
    let wire_config = WireConfig {
        base_url: base_url.clone(),
        api_key: key.clone(),
        api_key_env: provider.api_key_env.clone(),
        headers: provider.headers.clone(),
        retry: parts.retry.clone(),
        max_output_tokens: provider
            .models
            .iter()
            .filter_map(|(m, l)| Some((m.clone(), l.max_output_tokens?)))
            .collect(),
        recorder: sink.clone(),
        transport: parts.transport.clone(),
    };
    let client: Arc<dyn ContentGenerator> = match provider.wire {
        Wire::Gemini => {
            let gemini = GeminiClient::new(GeminiConfig {
                api_key: key.unwrap_or_default(),
                vertex: None,
                base_url,
                retry: parts.retry.clone(),
                proxy: None,
                transport: parts.transport.clone(),
            })?;
            recorded(Arc::new(gemini), sink)
        }
        Wire::OpenAiChat => Arc::new(OpenAiChatClient::new(wire_config)?),
        Wire::Anthropic => Arc::new(AnthropicClient::new(wire_config)?),
    };
    Ok(Arc::new(Named::new(client, origin)))
}

/// The Gemini API endpoint override: `GOOGLE_GEMINI_BASE_URL`, else
/// `GEMINI_API_BASE_URL` (the name GitHub Agentic Workflows sets to put
/// its gateway in front of the model).
fn gemini_base_url(env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
    gemini_base_url_from(env).map(|(url, _)| url)
}

/// [`gemini_base_url`] and the variable that set it.
fn gemini_base_url_from(env: &dyn Fn(&str) -> Option<String>) -> Option<(String, &'static str)> {
    ["GOOGLE_GEMINI_BASE_URL", "GEMINI_API_BASE_URL"]
        .into_iter()
        .find_map(|var| env(var).map(|url| (url, var)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn timeouts_and_caps_come_from_settings_and_retries_become_events() {
        let (tx, mut rx) = crate::events::event_channel();
        let settings = Settings::from_value(json!({"model": {"connectTimeoutSeconds": 7,
            "streamIdleTimeoutSeconds": 60, "maxStreamMegabytes": 4}}));
        let stats = SharedStats::default();
        let t = transport(&settings, tx.clone(), stats.clone());
        assert_eq!(t.connect_timeout, Duration::from_secs(7));
        assert_eq!(
            t.connect_timeout_for("http://127.0.0.1:1"),
            Duration::from_secs(2)
        );
        assert_eq!(t.idle_timeout, Duration::from_secs(60));
        assert_eq!(t.max_stream_bytes, 4 << 20);
        let notify = t.on_retry.clone().unwrap();
        notify(RetryNotice {
            attempt: 2,
            max_attempts: 5,
            delay: Duration::from_millis(1500),
            reason: "busy".into(),
            model: "m".into(),
            error_type: "ApiError",
            latency: Duration::from_millis(3),
        });
        assert_eq!(
            rx.try_recv().unwrap(),
            AgentEvent::ModelRetry {
                attempt: 2,
                max_attempts: 5,
                delay_ms: 1500,
                reason: "busy".into()
            }
        );
        // The retried attempt counts when the agent's request of that
        // model does, under the agent's role.
        let request = gemini_rs_protocol::events::StatsRequest {
            model: "m",
            role: "main",
            latency: Duration::from_millis(5),
            error: None,
        };
        let mut counted = stats.lock().unwrap().clone();
        counted.record(&request, None, false);
        let json = counted.to_json();
        let api = &json["models"]["m"]["api"];
        assert_eq!(
            (&api["totalRequests"], &api["totalErrors"]),
            (&json!(2), &json!(1))
        );
        assert_eq!(api["errorsByType"], json!({"ApiError": 1}));
        assert_eq!(json["models"]["m"]["roles"]["main"]["totalErrors"], 1);
        let defaults = transport(&Settings::from_value(json!({})), tx, stats);
        assert_eq!(defaults.connect_timeout, Duration::from_secs(30));
        assert_eq!(defaults.idle_timeout, Duration::from_secs(300));
    }
}
