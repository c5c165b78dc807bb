//! The Stable Model API of Gemini CLI hooks (§9.8 of the spec,
//! `hookTranslator.ts` at v0.27.4): the hook-facing [`LLMRequest`],
//! [`LLMResponse`] and [`HookToolConfig`], and their conversions to and from
//! Gemini requests and responses.
//!
//! Hook output is arbitrary JSON written by user scripts, so every type here
//! deserializes leniently, as the JavaScript original reads it: a field of
//! the wrong type is treated as absent, a non-string message content becomes
//! its `String(value)`, and so on. Deserialization never fails on an object.
//! JavaScript's coercions are not a serde shape: these readers walk the
//! open shape of the script's `Value` by hand.

use crate::{
    Candidate, Content, FunctionCallingConfig, GenerateContentRequest, GenerateContentResponse,
    GenerationConfig, Part, ToolConfig, UsageMetadata,
};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Number, Value};

/// The model named when the request has none (`toHookLLMRequest`).
pub const DEFAULT_HOOK_MODEL: &str = "gemini-2.5-flash";

/// `LLMRequest`: `{model, messages, config, toolConfig}`. Every field is
/// optional because a hook may return a partial request; the conversion
/// from Gemini fills `model`, `messages` and `config`, and `toolConfig` when
/// the request has a function-calling config (the seeds list it; v0.27.4
/// never produced it).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LLMRequest {
    /// The model id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// One message per content that has text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<LLMMessage>>,
    /// The sampling parameters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<LLMConfig>,
    /// The function-calling config (`{mode, allowedFunctionNames}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_config: Option<HookToolConfig>,
}

/// One message of an [`LLMRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LLMMessage {
    /// `user`, `model` or `system` (any string is carried through).
    pub role: String,
    /// The text parts of the content, concatenated.
    pub content: String,
}

/// The sampling parameters of an [`LLMRequest`]: only these four travel.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LLMConfig {
    /// `temperature`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<Number>,
    /// `maxOutputTokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<Number>,
    /// `topP`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<Number>,
    /// `topK`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_k: Option<Number>,
}

/// `LLMResponse`: `{text, candidates, usageMetadata}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LLMResponse {
    /// The SDK's `response.text` (non-thought text of the first candidate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The candidates; `None` when a hook's response has no `candidates`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<LLMCandidate>>,
    /// The token counts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage_metadata: Option<UsageMetadata>,
}

/// One candidate of an [`LLMResponse`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LLMCandidate {
    /// `{role: "model", parts: [text, …]}`.
    pub content: LLMContent,
    /// `STOP`, `MAX_TOKENS`, …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The candidate index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// `[{category, probability}]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub safety_ratings: Option<Vec<Value>>,
}

/// The content of an [`LLMCandidate`]: text parts only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LLMContent {
    /// Always `model`.
    pub role: String,
    /// The text parts.
    pub parts: Vec<String>,
}

impl Default for LLMContent {
    fn default() -> Self {
        LLMContent {
            role: "model".into(),
            parts: Vec::new(),
        }
    }
}

/// The hook `toolConfig` of BeforeToolSelection: `{mode, allowedFunctionNames}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookToolConfig {
    /// `AUTO`, `ANY` or `NONE`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The function names the model may call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_function_names: Option<Vec<String>>,
}

/// `String(value)` of JavaScript for a JSON value.
pub fn js_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(js_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".into(),
        other => other.to_string(),
    }
}

fn str_field(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string)
}

fn num_field(obj: &Map<String, Value>, key: &str) -> Option<Number> {
    obj.get(key).and_then(Value::as_number).cloned()
}

impl LLMRequest {
    /// Reads a (possibly partial) request the way Gemini CLI does; `None`
    /// when `v` is not an object.
    pub fn from_value(v: &Value) -> Option<LLMRequest> {
        let obj = v.as_object()?;
        Some(LLMRequest {
            model: str_field(obj, "model"),
            messages: obj
                .get("messages")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(LLMMessage::from_value).collect()),
            config: obj.get("config").and_then(LLMConfig::from_value),
            tool_config: obj.get("toolConfig").and_then(HookToolConfig::from_value),
        })
    }
}

impl LLMMessage {
    /// A message from any JSON: a missing role is `user`, a missing content
    /// `undefined`, any other content its `String(value)`.
    pub fn from_value(v: &Value) -> LLMMessage {
        LLMMessage {
            role: match v.get("role") {
                Some(Value::String(r)) => r.clone(),
                _ => "user".into(),
            },
            content: v
                .get("content")
                .map_or_else(|| "undefined".into(), js_string),
        }
    }
}

impl LLMConfig {
    /// The four numbers of a config object; `None` when `v` is not an object.
    pub fn from_value(v: &Value) -> Option<LLMConfig> {
        let obj = v.as_object()?;
        Some(LLMConfig {
            temperature: num_field(obj, "temperature"),
            max_output_tokens: num_field(obj, "maxOutputTokens"),
            top_p: num_field(obj, "topP"),
            top_k: num_field(obj, "topK"),
        })
    }
}

impl LLMResponse {
    /// Reads a hook's response; `None` when `v` is not an object.
    pub fn from_value(v: &Value) -> Option<LLMResponse> {
        let obj = v.as_object()?;
        Some(LLMResponse {
            text: str_field(obj, "text"),
            candidates: obj
                .get("candidates")
                .and_then(Value::as_array)
                .map(|a| a.iter().map(LLMCandidate::from_value).collect()),
            usage_metadata: obj
                .get("usageMetadata")
                .and_then(|u| serde_json::from_value::<UsageMetadata>(u.clone()).ok()),
        })
    }

    /// True when the first candidate has at least one part (AfterModel only
    /// replaces a chunk then).
    pub fn has_parts(&self) -> bool {
        self.candidates
            .as_ref()
            .and_then(|c| c.first())
            .is_some_and(|c| !c.content.parts.is_empty())
    }
}

impl LLMCandidate {
    /// A candidate from any JSON; parts become their `String(value)`.
    pub fn from_value(v: &Value) -> LLMCandidate {
        let empty = Map::new();
        let obj = v.as_object().unwrap_or(&empty);
        LLMCandidate {
            content: LLMContent {
                role: "model".into(),
                parts: v
                    .pointer("/content/parts")
                    .and_then(Value::as_array)
                    .map(|ps| ps.iter().map(js_string).collect())
                    .unwrap_or_default(),
            },
            finish_reason: str_field(obj, "finishReason"),
            index: obj
                .get("index")
                .and_then(Value::as_u64)
                .and_then(|i| u32::try_from(i).ok()),
            safety_ratings: obj.get("safetyRatings").and_then(Value::as_array).cloned(),
        }
    }
}

impl HookToolConfig {
    /// `{mode, allowedFunctionNames}`; `None` when `v` is not an object.
    pub fn from_value(v: &Value) -> Option<HookToolConfig> {
        let obj = v.as_object()?;
        Some(HookToolConfig {
            mode: str_field(obj, "mode"),
            allowed_function_names: obj
                .get("allowedFunctionNames")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                }),
        })
    }
}

/// Implements a lenient `Deserialize` through `from_value`.
macro_rules! lenient_deserialize {
    ($ty:ty, $what:literal, |$v:ident| $conv:expr) => {
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let $v = Value::deserialize(d)?;
                $conv.ok_or_else(|| serde::de::Error::custom(concat!($what, " must be an object")))
            }
        }
    };
}

lenient_deserialize!(LLMRequest, "LLMRequest", |v| LLMRequest::from_value(&v));
lenient_deserialize!(LLMResponse, "LLMResponse", |v| LLMResponse::from_value(&v));
lenient_deserialize!(LLMConfig, "LLMConfig", |v| LLMConfig::from_value(&v));
lenient_deserialize!(
    HookToolConfig,
    "toolConfig",
    |v| HookToolConfig::from_value(&v)
);
lenient_deserialize!(LLMMessage, "LLMMessage", |v| Some(LLMMessage::from_value(
    &v
)));
lenient_deserialize!(LLMCandidate, "LLMCandidate", |v| Some(
    LLMCandidate::from_value(&v)
));

impl<'de> Deserialize<'de> for LLMContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let parts = v
            .get("parts")
            .and_then(Value::as_array)
            .map(|ps| ps.iter().map(js_string).collect())
            .unwrap_or_default();
        Ok(LLMContent {
            role: "model".into(),
            parts,
        })
    }
}

/// `toHookLLMRequest`: `model` (`model`, else the default), one message per
/// content with text (roles `model`, `system`, else `user`; text parts
/// concatenated), the four sampling numbers, and `toolConfig` from the
/// request's `functionCallingConfig` when it has one (a gemini-rs addition:
/// the seeds list it, v0.27.4 left it out).
pub fn to_hook_llm_request(request: &GenerateContentRequest, model: Option<&str>) -> LLMRequest {
    let messages = request
        .contents
        .iter()
        .filter_map(|c| {
            let text: String = c.parts.iter().filter_map(|p| p.text.as_deref()).collect();
            if text.is_empty() {
                return None;
            }
            let role = match c.role.as_deref() {
                Some("model") => "model",
                Some("system") => "system",
                _ => "user",
            };
            Some(LLMMessage {
                role: role.into(),
                content: text,
            })
        })
        .collect();
    let config = request
        .generation_config
        .as_ref()
        .map(|g| LLMConfig {
            temperature: g.temperature.clone(),
            max_output_tokens: g.max_output_tokens.clone(),
            top_p: g.top_p.clone(),
            top_k: g.top_k.clone(),
        })
        .unwrap_or_default();
    let model = model
        .filter(|m| !m.is_empty())
        .unwrap_or(DEFAULT_HOOK_MODEL);
    let tool_config = request
        .tool_config
        .as_ref()
        .and_then(|t| t.function_calling_config.as_ref())
        .map(|f| HookToolConfig {
            mode: f.mode.clone(),
            allowed_function_names: f.allowed_function_names.clone(),
        })
        .filter(|t| t.mode.is_some() || t.allowed_function_names.is_some());
    LLMRequest {
        model: Some(model.into()),
        messages: Some(messages),
        config: Some(config),
        tool_config,
    }
}

/// `toHookLLMResponse`: the SDK text, text-only candidates (finishReason,
/// index, `{category, probability}` ratings) and the three token counts.
pub fn to_hook_llm_response(response: &GenerateContentResponse) -> LLMResponse {
    let candidates = response
        .candidates
        .iter()
        .flatten()
        .map(|c| LLMCandidate {
            content: LLMContent {
                role: "model".into(),
                parts: c
                    .content
                    .iter()
                    .flat_map(|content| content.parts.iter())
                    .filter_map(|p| p.text.clone())
                    .collect(),
            },
            finish_reason: c.finish_reason.clone(),
            index: c.index,
            safety_ratings: c.safety_ratings.as_ref().map(|r| {
                r.iter()
                    .map(|r| {
                        let mut m = Map::new();
                        for k in ["category", "probability"] {
                            if let Some(v) = r.get(k) {
                                m.insert(k.into(), v.clone());
                            }
                        }
                        Value::Object(m)
                    })
                    .collect()
            }),
        })
        .collect();
    LLMResponse {
        text: sdk_text(response),
        candidates: Some(candidates),
        usage_metadata: response.usage_metadata.as_ref().map(|u| UsageMetadata {
            prompt_token_count: u.prompt_token_count,
            candidates_token_count: u.candidates_token_count,
            total_token_count: u.total_token_count,
            ..UsageMetadata::default()
        }),
    }
}

/// The SDK's `response.text`: non-thought text of the first candidate, or
/// `None` when it has no text part.
fn sdk_text(response: &GenerateContentResponse) -> Option<String> {
    let parts = &response.first_candidate()?.content.as_ref()?.parts;
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| !p.is_thought())
        .filter_map(|p| p.text.as_deref())
        .collect();
    (!texts.is_empty()).then(|| texts.concat())
}

/// `fromHookLLMRequest` applied to `base`: given `messages` replace all
/// contents (one text part each); a given `config` sets temperature,
/// maxOutputTokens, topP and topK (absent keys are cleared); a given
/// `toolConfig` sets the functionCallingConfig's mode and
/// allowedFunctionNames the same way. The rest of `base` is kept. Returns
/// the new request and the hook's `model`, if any.
pub fn from_hook_llm_request(
    hook: &LLMRequest,
    base: &GenerateContentRequest,
) -> (GenerateContentRequest, Option<String>) {
    let mut req = base.clone();
    if let Some(messages) = &hook.messages {
        req.contents = messages
            .iter()
            .map(|m| Content {
                role: Some(m.role.clone()),
                parts: vec![Part::text(m.content.clone())],
                extra: Default::default(),
            })
            .collect();
    }
    if let Some(cfg) = &hook.config {
        let g = req
            .generation_config
            .get_or_insert_with(GenerationConfig::default);
        g.temperature = cfg.temperature.clone();
        g.max_output_tokens = cfg.max_output_tokens.clone();
        g.top_p = cfg.top_p.clone();
        g.top_k = cfg.top_k.clone();
    }
    if let Some(tc) = &hook.tool_config {
        let mut tool_config = req.tool_config.take().unwrap_or_default();
        let mut fcc = tool_config
            .function_calling_config
            .take()
            .unwrap_or_default();
        fcc.mode = tc.mode.clone();
        fcc.allowed_function_names = tc.allowed_function_names.clone();
        let fcc_empty = fcc.mode.is_none() && fcc.allowed_function_names.is_none();
        tool_config.function_calling_config = (!fcc_empty || !fcc.extra.is_empty()).then_some(fcc);
        req.tool_config = (tool_config.function_calling_config.is_some()
            || !tool_config.extra.is_empty())
        .then_some(tool_config);
    }
    (req, hook.model.clone())
}

/// `fromHookLLMResponse`: candidates with text parts, finishReason, index
/// and safetyRatings, and usageMetadata. The `text` field is derived data
/// and is not carried back.
pub fn from_hook_llm_response(hook: &LLMResponse) -> GenerateContentResponse {
    let candidates = hook.candidates.as_ref().map(|cands| {
        cands
            .iter()
            .map(|c| Candidate {
                content: Some(Content {
                    role: Some("model".into()),
                    parts: c.content.parts.iter().map(Part::text).collect(),
                    extra: Default::default(),
                }),
                finish_reason: c.finish_reason.clone(),
                index: c.index,
                safety_ratings: c.safety_ratings.clone(),
                ..Candidate::default()
            })
            .collect()
    });
    GenerateContentResponse {
        candidates,
        usage_metadata: hook.usage_metadata.clone(),
        ..GenerateContentResponse::default()
    }
}

/// `fromHookToolConfig`: `{functionCallingConfig: {mode, allowedFunctionNames}}`,
/// or no functionCallingConfig when both are absent.
pub fn from_hook_tool_config(hook: &HookToolConfig) -> ToolConfig {
    let function_calling_config = (hook.mode.is_some() || hook.allowed_function_names.is_some())
        .then(|| FunctionCallingConfig {
            mode: hook.mode.clone(),
            allowed_function_names: hook.allowed_function_names.clone(),
            extra: Default::default(),
        });
    ToolConfig {
        function_calling_config,
        extra: Default::default(),
    }
}
