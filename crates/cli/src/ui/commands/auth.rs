//! The provider picker: what the terminal UI opens when it finds no
//! credentials, and `/auth`. The choices are Gemini's API key, Vertex AI,
//! an OpenAI-compatible server, Anthropic, and the model servers found on
//! 127.0.0.1. The choice goes into the user settings (`model.name`,
//! `model.providers.<id>`, `security.auth.selectedType`); a key typed in
//! is never written to settings: on the user's word it goes into
//! `~/.gemini/.env` with mode 0600 ([`super::auth_keep`]; Gemini CLI keeps
//! it in the system keychain, which gemini-rs does not use), else it is
//! for this run only and the note names the variable to set.

use crate::settings_file::{FileScope, read, write};
use crate::ui::view::provider_picker::{ask_text, select};
use gemini_rs_core::{Env, GeminiPaths, LocalServer};
use gemini_rs_protocol::lenient::{from_object, wrong_type_as_none};
use serde_json::{Map, Value, json};
use std::path::Path;

const OPENAI_DEFAULT: &str = "https://api.openai.com/v1";
const ANTHROPIC_DEFAULT: &str = "https://api.anthropic.com";

/// What the user chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    /// The model to use (as `-m` takes it), when the choice names one.
    pub model: Option<String>,
    /// A key typed in: its variable and value, for this run only.
    pub key: Option<(String, String)>,
    /// What was saved where, for the user.
    pub note: String,
}

/// Opens the picker under `reason` (why it opened); `Ok(None)` when the
/// user cancelled. Errors are the terminal's or the settings file's.
pub async fn choose(
    paths: &GeminiPaths,
    env: &Env,
    reason: Option<&str>,
) -> anyhow::Result<Option<Chosen>> {
    let mut text = Vec::new();
    // The reason's first line: the rest of a no-credentials message is the
    // list of choices this picker shows.
    if let Some(first) = reason.and_then(|r| r.lines().next()) {
        text.push(first.to_string());
        text.push(String::new());
    }
    text.push("Get started: which model provider should gemini-rs use?".to_string());
    let ports = match gemini_rs_core::probe_ports(env) {
        Ok(p) => p,
        Err(e) => {
            text.push(format!("  {e}"));
            Vec::new()
        }
    };
    let servers = gemini_rs_core::probe_local(&ports).await;
    if servers.is_empty() {
        let list: Vec<String> = ports.iter().map(u16::to_string).collect();
        text.push(format!(
            "  (No local model server answered on 127.0.0.1 port {}.)",
            list.join(", ")
        ));
    }
    text.push(String::new());
    let mut options = vec![
        "Gemini API key (GEMINI_API_KEY)".to_string(),
        "Vertex AI (GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or GOOGLE_API_KEY)".to_string(),
        "An OpenAI-compatible server (OPENAI_API_KEY, OPENAI_BASE_URL)".to_string(),
        "Anthropic (ANTHROPIC_API_KEY)".to_string(),
    ];
    options.extend(servers.iter().map(|s| {
        format!(
            "{} on 127.0.0.1:{} ({} model{})",
            s.kind.label(),
            s.port,
            s.models.len(),
            if s.models.len() == 1 { "" } else { "s" }
        )
    }));
    let Some(choice) = select(&text, &options, 0)? else {
        return Ok(None);
    };
    let path = paths.user_settings();
    match choice {
        0 => gemini_key(&path, env),
        1 => vertex(&path, env),
        2 => openai(&path, env).await,
        3 => anthropic(&path, env).await,
        i => match servers.get(i - 4) {
            Some(server) => local(&path, server),
            None => Ok(None),
        },
    }
}

/// The variable's value, else one typed in (kept for this run).
fn key_of(env: &Env, var: &str, what: &str) -> anyhow::Result<Option<(String, Option<String>)>> {
    if let Some(value) = env.var(var) {
        return Ok(Some((value, None)));
    }
    let text = vec![
        format!("{var} is not set. Type or paste {what}."),
        "Next you choose whether to save it in ~/.gemini/.env or use it for this run only."
            .to_string(),
    ];
    Ok(ask_text(&text, var, "", true)?.map(|v| (v.clone(), Some(v))))
}

/// The note on a key typed in (none when it came from the environment):
/// kept in `~/.gemini/.env` beside the settings `path` when the user says so.
fn keep_note(path: &Path, var: &str, typed: Option<&String>) -> anyhow::Result<String> {
    match (typed, path.parent()) {
        (Some(value), Some(dir)) => Ok(format!("\n{}", super::auth_keep::offer(dir, var, value)?)),
        _ => Ok(String::new()),
    }
}

/// Edits the user settings with `edit` and writes them.
fn save(path: &Path, edit: impl FnOnce(&mut Map<String, Value>)) -> anyhow::Result<()> {
    let mut file = read(path, FileScope::User).map_err(anyhow::Error::msg)?;
    edit(&mut file.value);
    write(&file).map_err(anyhow::Error::msg)
}

/// Runs `edit` on the object at `key` in `map` (a new one when it is
/// missing or not an object).
fn within(map: &mut Map<String, Value>, key: &str, edit: impl FnOnce(&mut Map<String, Value>)) {
    let mut inner = match map.remove(key) {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    edit(&mut inner);
    map.insert(key.to_string(), Value::Object(inner));
}

/// Saves Gemini as the provider: `selectedType`, and a `model.name` of
/// another provider removed.
fn save_gemini(path: &Path, selected: &str) -> anyhow::Result<()> {
    save(path, |s| {
        within(s, "security", |security| {
            within(security, "auth", |auth| {
                auth.insert("selectedType".into(), json!(selected));
            })
        });
        if let Some(Value::Object(model)) = s.get_mut("model") {
            let section: ModelSection = from_object(&Value::Object(model.clone()));
            let other = section
                .name
                .is_some_and(|n| n.contains('/') && !n.starts_with("models/"));
            if other {
                model.remove("name");
            }
        }
    })
}

/// The `model` section of a settings file, as far as saving reads it.
#[derive(Default, serde::Deserialize)]
struct ModelSection {
    #[serde(default, deserialize_with = "wrong_type_as_none")]
    name: Option<String>,
}

fn gemini_key(path: &Path, env: &Env) -> anyhow::Result<Option<Chosen>> {
    let what = "your Gemini API key (from https://aistudio.google.com/app/apikey)";
    let Some((_, typed)) = key_of(env, "GEMINI_API_KEY", what)? else {
        return Ok(None);
    };
    save_gemini(path, "gemini-api-key")?;
    let kept = keep_note(path, "GEMINI_API_KEY", typed.as_ref())?;
    Ok(Some(Chosen {
        model: None,
        key: typed.map(|v| ("GEMINI_API_KEY".to_string(), v)),
        note: format!("Using the Gemini API; saved in {}.{kept}", path.display()),
    }))
}

fn vertex(path: &Path, env: &Env) -> anyhow::Result<Option<Chosen>> {
    let project = env.var("GOOGLE_CLOUD_PROJECT").is_some();
    let location = env.var("GOOGLE_CLOUD_LOCATION").is_some();
    let mut typed = None;
    if !(project && location) && env.var("GOOGLE_API_KEY").is_none() {
        let text = vec![
            "Vertex AI needs GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (with Google Cloud credentials),"
                .to_string(),
            "or a Google Cloud API key for express mode. Set the first two and start again, or type the key."
                .to_string(),
        ];
        let Some(key) = ask_text(&text, "GOOGLE_API_KEY", "", true)? else {
            return Ok(None);
        };
        typed = Some(("GOOGLE_API_KEY".to_string(), key));
    }
    save_gemini(path, "vertex-ai")?;
    Ok(Some(Chosen {
        model: None,
        key: typed,
        note: format!("Using Vertex AI; saved in {}.", path.display()),
    }))
}

/// Lets the user pick one of `models`, or type a name when there are none.
fn pick_model(
    title: &str,
    models: &[String],
    why_none: Option<String>,
) -> anyhow::Result<Option<String>> {
    if models.is_empty() {
        let mut text = vec![title.to_string()];
        text.extend(why_none);
        return Ok(ask_text(&text, "Model", "", false)?);
    }
    let text = vec![title.to_string(), String::new()];
    Ok(select(&text, models, 0)?.and_then(|i| models.get(i).cloned()))
}

/// Saves `provider/model` as the model, with `declared` under
/// `model.providers.<provider>` when given.
fn save_model(
    path: &Path,
    provider: &str,
    model: &str,
    declared: Option<Value>,
) -> anyhow::Result<String> {
    let name = format!("{provider}/{model}");
    save(path, |s| {
        within(s, "model", |settings| {
            settings.insert("name".into(), json!(name));
            if let Some(decl) = declared {
                within(settings, "providers", |providers| {
                    providers.insert(provider.to_string(), decl);
                });
            }
        })
    })?;
    Ok(name)
}

async fn openai(path: &Path, env: &Env) -> anyhow::Result<Option<Chosen>> {
    let initial = env
        .var("OPENAI_BASE_URL")
        .unwrap_or_else(|| OPENAI_DEFAULT.to_string());
    let text = vec!["The server's API root (its chat completions live under it):".to_string()];
    let Some(base) = ask_text(&text, "Base URL", &initial, false)? else {
        return Ok(None);
    };
    let what = "the server's API key (none when it needs no key)";
    let Some((key, typed)) = key_of(env, "OPENAI_API_KEY", what)? else {
        return Ok(None);
    };
    let listed = gemini_rs_core::list_openai_models(&base, Some(&key)).await;
    let (models, why) = split(listed);
    let Some(model) = pick_model(&format!("Models of {base}:"), &models, why)? else {
        return Ok(None);
    };
    // A server without a key is declared without one, so the next start
    // needs no OPENAI_API_KEY either.
    let keyless = matches!(key.trim(), "" | "none");
    let declared = if keyless {
        Some(json!({"type": "openai", "baseUrl": base}))
    } else {
        (Some(base.as_str()) != env.var("OPENAI_BASE_URL").as_deref() && base != OPENAI_DEFAULT)
            .then(|| json!({"type": "openai", "baseUrl": base, "apiKeyEnv": "OPENAI_API_KEY"}))
    };
    let name = save_model(path, "openai", &model, declared)?;
    let kept = match keyless {
        true => String::new(),
        false => keep_note(path, "OPENAI_API_KEY", typed.as_ref())?,
    };
    Ok(Some(Chosen {
        note: format!("Using {name}; saved in {}.{kept}", path.display()),
        model: Some(name),
        key: typed
            .filter(|_| !keyless)
            .map(|v| ("OPENAI_API_KEY".to_string(), v)),
    }))
}

async fn anthropic(path: &Path, env: &Env) -> anyhow::Result<Option<Chosen>> {
    let what = "your Anthropic API key";
    let Some((key, typed)) = key_of(env, "ANTHROPIC_API_KEY", what)? else {
        return Ok(None);
    };
    let base = env
        .var("ANTHROPIC_BASE_URL")
        .unwrap_or_else(|| ANTHROPIC_DEFAULT.to_string());
    let (models, why) = split(gemini_rs_core::list_anthropic_models(&base, Some(&key)).await);
    let Some(model) = pick_model("Anthropic's models:", &models, why)? else {
        return Ok(None);
    };
    let name = save_model(path, "anthropic", &model, None)?;
    let kept = keep_note(path, "ANTHROPIC_API_KEY", typed.as_ref())?;
    Ok(Some(Chosen {
        note: format!("Using {name}; saved in {}.{kept}", path.display()),
        model: Some(name),
        key: typed.map(|v| ("ANTHROPIC_API_KEY".to_string(), v)),
    }))
}

fn split(
    listed: Result<Vec<String>, gemini_rs_core::DiscoveryError>,
) -> (Vec<String>, Option<String>) {
    match listed {
        Ok(models) => (models, None),
        Err(e) => (
            Vec::new(),
            Some(format!(
                "(The list is not available: {e}.) Type the model's name."
            )),
        ),
    }
}

fn local(path: &Path, server: &LocalServer) -> anyhow::Result<Option<Chosen>> {
    let title = format!(
        "Models of {} on 127.0.0.1:{}:",
        server.kind.label(),
        server.port
    );
    let why = Some("(The server lists no models.) Type the model's name.".to_string());
    let Some(model) = pick_model(&title, &server.models, why)? else {
        return Ok(None);
    };
    let id = server.kind.id();
    // The built-in `ollama` provider already means the default port.
    let builtin = id == "ollama" && server.port == 11434;
    let declared = (!builtin).then(|| json!({"type": "openai", "baseUrl": server.base_url}));
    let name = save_model(path, id, &model, declared)?;
    Ok(Some(Chosen {
        note: format!("Using {name}; saved in {}.", path.display()),
        model: Some(name),
        key: None,
    }))
}
