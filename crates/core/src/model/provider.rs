//! Model providers: which wire, URL and key a model name means.
//!
//! A name is split at its first `/`: `openai/gpt-4.1` is model `gpt-4.1`
//! of provider `openai`. Names without `/`, and Gemini's own resource
//! names (`models/...`, `tunedModels/...`), are Gemini models. Built-in
//! providers: `gemini`, `openai`, `anthropic`, `ollama`; settings declare
//! more under `model.providers`.

use std::collections::BTreeMap;
use std::sync::Arc;

/// Which API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// Gemini `generateContent`.
    Gemini,
    /// OpenAI chat completions.
    OpenAiChat,
    /// Anthropic Messages.
    Anthropic,
}

impl Wire {
    /// The wire of a `type` in `model.providers`.
    pub fn from_type(kind: &str) -> Option<Wire> {
        match kind {
            "gemini" => Some(Wire::Gemini),
            "openai" => Some(Wire::OpenAiChat),
            "anthropic" => Some(Wire::Anthropic),
            _ => None,
        }
    }
}

/// Limits of one model, where known.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ModelLimits {
    /// Context window, in tokens.
    pub context_window: Option<u64>,
    /// Most output tokens.
    pub max_output_tokens: Option<u64>,
}

/// A provider declared in settings (`model.providers.<id>`), as plain data.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderDecl {
    /// `type`.
    pub kind: Option<String>,
    /// `baseUrl`.
    pub base_url: Option<String>,
    /// `apiKeyEnv`.
    pub api_key_env: Option<String>,
    /// `headers`.
    pub headers: BTreeMap<String, String>,
    /// `models`.
    pub models: BTreeMap<String, ModelLimits>,
}

/// One provider, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// The id before the `/`.
    pub id: String,
    /// Its API.
    pub wire: Wire,
    /// The API root (`None`: the Gemini wire's own default and variables).
    pub base_url: Option<String>,
    /// What chose `base_url`: its variable, its setting, or the default.
    pub base_url_from: String,
    /// The variable holding the key; `None` when no key is sent.
    pub api_key_env: Option<String>,
    /// Extra headers.
    pub headers: Vec<(String, String)>,
    /// Per-model limits from settings.
    pub models: BTreeMap<String, ModelLimits>,
}

/// Why a provider or model name cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// `X/...` where `X` is not a known provider.
    #[error(
        "Unknown model provider `{id}` in model `{model}`. Known providers: {known}. Declare \
         others under model.providers in settings.json."
    )]
    Unknown {
        /// The id.
        id: String,
        /// The whole model name.
        model: String,
        /// The known ids, comma-separated.
        known: String,
    },
    /// A declared provider has a `type` no wire answers to.
    #[error("model.providers.{id}.type is `{kind}`; use \"openai\", \"anthropic\" or \"gemini\".")]
    BadType {
        /// The provider id.
        id: String,
        /// The type given.
        kind: String,
    },
    /// A declared provider has no `baseUrl`.
    #[error("model.providers.{id}.baseUrl is missing: give the API root of the server.")]
    NoBaseUrl {
        /// The provider id.
        id: String,
    },
    /// The key variable is not set.
    #[error(
        "{var} is not set: the `{id}` provider needs an API key for model `{model}`. Set {var}."
    )]
    MissingKey {
        /// The provider id.
        id: String,
        /// The variable.
        var: String,
        /// The whole model name.
        model: String,
    },
}

/// The providers of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Providers {
    list: Vec<Provider>,
    /// The ids declared in `model.providers`.
    declared: Vec<String>,
    /// Context windows local servers reported.
    probed: ProbedWindows,
}

/// Context windows local servers reported, by model name (shared by the
/// clones of one session's providers).
#[derive(Debug, Clone, Default)]
struct ProbedWindows(Arc<std::sync::RwLock<BTreeMap<String, u64>>>);

impl ProbedWindows {
    fn get(&self, model: &str) -> Option<u64> {
        self.0.read().ok().and_then(|m| m.get(model).copied())
    }
}

impl PartialEq for ProbedWindows {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || {
            let a = self.0.read().map(|m| m.clone()).unwrap_or_default();
            let b = other.0.read().map(|m| m.clone()).unwrap_or_default();
            a == b
        }
    }
}

impl Eq for ProbedWindows {}

/// A model name resolved to its provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved<'p, 'm> {
    /// The provider (`gemini` for bare names).
    pub provider: &'p Provider,
    /// The model name the provider's API knows.
    pub model: &'m str,
}

impl Providers {
    /// The built-in providers (their URLs read through `env`) plus the
    /// declared ones, which may also redefine a built-in id.
    pub fn new(
        declared: &BTreeMap<String, ProviderDecl>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Providers, ProviderError> {
        // The URL from `name`, or the default; and what chose it.
        let var = |name: &str, default: &str| match env(name) {
            Some(url) => (url, name.to_string()),
            None => (
                default.to_string(),
                format!("the default ({name} changes it)"),
            ),
        };
        let (ollama_host, ollama_from) = var("OLLAMA_HOST", "http://127.0.0.1:11434");
        let ollama = format!("{}/v1", ollama_host.trim_end_matches('/'));
        let builtin = |id: &str, wire, base: Option<(String, String)>, key: Option<&str>| {
            let (base_url, base_url_from) = match base {
                Some((url, from)) => (Some(url), from),
                None => (None, String::new()),
            };
            Provider {
                id: id.to_string(),
                wire,
                base_url,
                base_url_from,
                api_key_env: key.map(str::to_string),
                headers: Vec::new(),
                models: BTreeMap::new(),
            }
        };
        let mut list = vec![
            builtin("gemini", Wire::Gemini, None, Some("GEMINI_API_KEY")),
            builtin(
                "openai",
                Wire::OpenAiChat,
                Some(var("OPENAI_BASE_URL", "https://api.openai.com/v1")),
                Some("OPENAI_API_KEY"),
            ),
            builtin(
                "anthropic",
                Wire::Anthropic,
                Some(var("ANTHROPIC_BASE_URL", "https://api.anthropic.com")),
                Some("ANTHROPIC_API_KEY"),
            ),
            builtin(
                "ollama",
                Wire::OpenAiChat,
                Some((ollama, ollama_from)),
                None,
            ),
        ];
        for (id, decl) in declared {
            let kind = decl.kind.as_deref().unwrap_or("openai");
            let wire = Wire::from_type(kind).ok_or_else(|| ProviderError::BadType {
                id: id.clone(),
                kind: kind.to_string(),
            })?;
            let base_url = match (&decl.base_url, wire) {
                (Some(url), _) => Some(url.clone()),
                (None, Wire::Gemini) => None,
                (None, Wire::OpenAiChat | Wire::Anthropic) => {
                    return Err(ProviderError::NoBaseUrl { id: id.clone() });
                }
            };
            let provider = Provider {
                id: id.clone(),
                wire,
                base_url_from: if base_url.is_some() {
                    format!("model.providers.{id}.baseUrl")
                } else {
                    String::new()
                },
                base_url,
                api_key_env: decl.api_key_env.clone().filter(|v| !v.is_empty()),
                headers: decl
                    .headers
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                models: decl.models.clone(),
            };
            match list.iter_mut().find(|p| p.id == *id) {
                Some(existing) => *existing = provider,
                None => list.push(provider),
            }
        }
        let declared = declared.keys().cloned().collect();
        Ok(Providers {
            list,
            declared,
            probed: ProbedWindows::default(),
        })
    }

    /// Every provider, built-ins first.
    pub fn all(&self) -> &[Provider] {
        &self.list
    }

    /// True when `id` is declared in `model.providers`.
    pub fn is_declared(&self, id: &str) -> bool {
        self.declared.iter().any(|d| d == id)
    }

    /// The provider and bare model of `model`.
    pub fn resolve<'p, 'm>(&'p self, model: &'m str) -> Result<Resolved<'p, 'm>, ProviderError> {
        let gemini = |model: &'m str| Resolved {
            provider: &self.list[0],
            model,
        };
        let Some((id, rest)) = model.split_once('/') else {
            return Ok(gemini(model));
        };
        if matches!(id, "models" | "tunedModels") {
            return Ok(gemini(model));
        }
        match self.list.iter().find(|p| p.id == id) {
            Some(provider) => Ok(Resolved {
                provider,
                model: rest,
            }),
            None => Err(ProviderError::Unknown {
                id: id.to_string(),
                model: model.to_string(),
                known: self.ids().join(", "),
            }),
        }
    }

    /// The provider ids, built-ins first.
    pub fn ids(&self) -> Vec<&str> {
        self.list.iter().map(|p| p.id.as_str()).collect()
    }

    /// The limits of `model`: settings first, then what its local server
    /// said, then what is known of it.
    pub fn limits(&self, model: &str) -> ModelLimits {
        let known = known_limits(model);
        let declared = self
            .resolve(model)
            .ok()
            .and_then(|r| r.provider.models.get(r.model).copied())
            .unwrap_or_default();
        ModelLimits {
            context_window: declared
                .context_window
                .or_else(|| self.probed.get(model))
                .or(known.context_window),
            max_output_tokens: declared.max_output_tokens.or(known.max_output_tokens),
        }
    }

    /// Keeps the context window `model`'s local server reported.
    pub fn set_probed_window(&self, model: &str, window: u64) {
        if let Ok(mut m) = self.probed.0.write() {
            m.insert(model.to_string(), window);
        }
    }

    /// A lookup of context windows the agent keeps (cheap to clone).
    pub fn context_windows(self: &Arc<Self>) -> ContextWindows {
        ContextWindows(Some(self.clone()))
    }
}

/// The context window of any model name, for compression and the footer.
#[derive(Debug, Clone, Default)]
pub struct ContextWindows(Option<Arc<Providers>>);

impl ContextWindows {
    /// The window of `model` in tokens.
    pub fn get(&self, model: &str) -> u64 {
        let limits = match &self.0 {
            Some(p) => p.limits(model),
            None => known_limits(model),
        };
        limits.context_window.unwrap_or(DEFAULT_WINDOW)
    }

    /// The window of `model` when something says it (settings, its local
    /// server, what is known of it); `None` where [`ContextWindows::get`]
    /// would assume one.
    pub fn known(&self, model: &str) -> Option<u64> {
        match &self.0 {
            Some(p) => p.limits(model),
            None => known_limits(model),
        }
        .context_window
    }

    /// The id and API root (when not Gemini's default) of the provider
    /// `model` goes to; `None` when the name names no known provider.
    pub fn provider(&self, model: &str) -> Option<(String, Option<String>)> {
        let providers = self.0.as_ref()?;
        let resolved = providers.resolve(model).ok()?;
        Some((
            resolved.provider.id.clone(),
            resolved.provider.base_url.clone(),
        ))
    }

    /// The providers behind the lookup, when the session has them.
    pub fn providers(&self) -> Option<&Arc<Providers>> {
        self.0.as_ref()
    }

    /// The wire `model` is spoken over (Gemini when it cannot be told).
    pub fn wire(&self, model: &str) -> Wire {
        self.0
            .as_ref()
            .and_then(|p| p.resolve(model).ok().map(|r| r.provider.wire))
            .unwrap_or(Wire::Gemini)
    }
}

/// The window assumed for models nothing is known of (local models).
const DEFAULT_WINDOW: u64 = 32_768;

/// What is known of well-known models, by their bare name.
pub fn known_limits(model: &str) -> ModelLimits {
    let bare = match model.split_once('/') {
        Some(("models" | "tunedModels", _)) | None => model.rsplit('/').next().unwrap_or(model),
        Some((_, rest)) => rest,
    };
    let both = |window: u64, out: u64| ModelLimits {
        context_window: Some(window),
        max_output_tokens: Some(out),
    };
    let window = |window: u64| ModelLimits {
        context_window: Some(window),
        max_output_tokens: None,
    };
    match bare {
        m if m.starts_with("gemini-1.5-pro") => window(2_097_152),
        m if m.starts_with("gemini-2.0-flash-preview-image") => window(32_000),
        m if m.starts_with("gemini") => window(1_048_576),
        m if m.starts_with("claude-opus-4") => both(200_000, 32_000),
        m if m.starts_with("claude-sonnet-4") || m.starts_with("claude-3-7-sonnet") => {
            both(200_000, 64_000)
        }
        m if m.starts_with("claude-haiku-4") => both(200_000, 64_000),
        m if m.starts_with("claude") => both(200_000, 8_192),
        m if m.starts_with("gpt-4.1") => both(1_047_576, 32_768),
        m if m.starts_with("gpt-5") => both(400_000, 128_000),
        m if m.starts_with("gpt-4o") || m.starts_with("gpt-4-turbo") => both(128_000, 16_384),
        m if m.starts_with("o1") || m.starts_with("o3") || m.starts_with("o4") => {
            both(200_000, 100_000)
        }
        _ => ModelLimits::default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn providers(declared: &[(&str, ProviderDecl)]) -> Result<Providers, ProviderError> {
        let declared = declared
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        Providers::new(&declared, |name| {
            (name == "OLLAMA_HOST").then(|| "http://10.0.0.2:11434/".to_string())
        })
    }

    #[test]
    fn names_split_at_the_first_slash() {
        let p = providers(&[]).unwrap();
        let r = p.resolve("openai/gpt-4.1").unwrap();
        assert_eq!((r.provider.id.as_str(), r.model), ("openai", "gpt-4.1"));
        let r = p.resolve("ollama/qwen3:8b").unwrap();
        assert_eq!(
            r.provider.base_url.as_deref(),
            Some("http://10.0.0.2:11434/v1")
        );
        assert_eq!(r.provider.api_key_env, None);
        for gemini in [
            "gemini-2.5-pro",
            "models/gemini-2.5-pro",
            "gemini/gemini-2.5-pro",
        ] {
            let r = p.resolve(gemini).unwrap();
            assert_eq!(r.provider.wire, Wire::Gemini, "{gemini}");
        }
        assert_eq!(
            p.resolve("gemini/gemini-2.5-pro").unwrap().model,
            "gemini-2.5-pro"
        );
        let err = p.resolve("mistral/large").unwrap_err().to_string();
        assert!(
            err.contains("`mistral`") && err.contains("gemini, openai, anthropic, ollama"),
            "{err}"
        );
    }

    #[test]
    fn declared_providers_keep_the_rest_of_the_name() {
        let decl = ProviderDecl {
            kind: Some("openai".into()),
            base_url: Some("https://openrouter.ai/api/v1".into()),
            api_key_env: Some("OPENROUTER_API_KEY".into()),
            models: [(
                "meta-llama/llama-3.3-70b".to_string(),
                ModelLimits {
                    context_window: Some(131_072),
                    max_output_tokens: None,
                },
            )]
            .into(),
            ..ProviderDecl::default()
        };
        let p = providers(&[("openrouter", decl)]).unwrap();
        let r = p.resolve("openrouter/meta-llama/llama-3.3-70b").unwrap();
        assert_eq!(r.model, "meta-llama/llama-3.3-70b");
        assert_eq!(r.provider.wire, Wire::OpenAiChat);
        let windows = Arc::new(p).context_windows();
        assert_eq!(windows.get("openrouter/meta-llama/llama-3.3-70b"), 131_072);
        assert_eq!(windows.get("anthropic/claude-sonnet-4-5"), 200_000);
        assert_eq!(windows.get("gemini-2.5-pro"), 1_048_576);
        assert_eq!(windows.get("ollama/gemma3"), DEFAULT_WINDOW);
    }

    #[test]
    fn bad_declarations_are_named() {
        let bad_type = ProviderDecl {
            kind: Some("cohere".into()),
            ..ProviderDecl::default()
        };
        let err = providers(&[("x", bad_type)]).unwrap_err().to_string();
        assert!(err.contains("model.providers.x.type"), "{err}");
        let no_url = ProviderDecl {
            kind: Some("anthropic".into()),
            ..ProviderDecl::default()
        };
        let err = providers(&[("y", no_url)]).unwrap_err().to_string();
        assert!(err.contains("model.providers.y.baseUrl"), "{err}");
    }
}
