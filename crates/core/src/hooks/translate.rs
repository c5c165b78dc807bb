//! The Stable Model API of hooks (§9.8, `hookTranslator.ts`): Gemini
//! requests and responses to and from the hook-facing `LLMRequest`,
//! `LLMResponse` and tool config.

use gemini_rs_protocol::{
    Candidate, Content, FunctionCallingConfig, GenerateContentRequest, GenerateContentResponse,
    GenerationConfig, Part, ToolConfig, UsageMetadata,
};
use serde_json::{Map, Value, json};

/// The model named when the request has none.
pub const DEFAULT_HOOK_MODEL: &str = "gemini-2.5-flash";

/// `toHookLLMRequest`: `{model, messages, config}` (no `toolConfig`).
/// Contents without text are omitted; the config keeps only temperature,
/// maxOutputTokens, topP and topK.
pub fn to_hook_llm_request(request: &GenerateContentRequest, model: Option<&str>) -> Value {
    let messages: Vec<Value> = request
        .contents
        .iter()
        .filter_map(|c| {
            let texts: Vec<&str> = c.parts.iter().filter_map(|p| p.text.as_deref()).collect();
            let text = texts.concat();
            if text.is_empty() {
                return None;
            }
            let role = match c.role.as_deref() {
                Some("model") => "model",
                Some("system") => "system",
                _ => "user",
            };
            Some(json!({"role": role, "content": text}))
        })
        .collect();
    let mut config = Map::new();
    if let Some(g) = &request.generation_config {
        let fields = [
            ("temperature", &g.temperature),
            ("maxOutputTokens", &g.max_output_tokens),
            ("topP", &g.top_p),
            ("topK", &g.top_k),
        ];
        for (k, v) in fields {
            if let Some(n) = v {
                config.insert(k.into(), Value::Number(n.clone()));
            }
        }
    }
    let model = model
        .filter(|m| !m.is_empty())
        .unwrap_or(DEFAULT_HOOK_MODEL);
    json!({"model": model, "messages": messages, "config": config})
}

/// `toHookLLMResponse`: text, text-only candidates and the three token counts.
pub fn to_hook_llm_response(response: &GenerateContentResponse) -> Value {
    let mut out = Map::new();
    if let Some(text) = sdk_text(response) {
        out.insert("text".into(), Value::String(text));
    }
    let candidates: Vec<Value> = response
        .candidates
        .iter()
        .flatten()
        .map(|c| {
            let parts: Vec<Value> = c
                .content
                .iter()
                .flat_map(|content| content.parts.iter())
                .filter_map(|p| p.text.clone().map(Value::String))
                .collect();
            let mut cand = Map::new();
            cand.insert("content".into(), json!({"role": "model", "parts": parts}));
            if let Some(f) = &c.finish_reason {
                cand.insert("finishReason".into(), Value::String(f.clone()));
            }
            if let Some(i) = c.index {
                cand.insert("index".into(), Value::from(i));
            }
            if let Some(r) = &c.safety_ratings {
                let ratings: Vec<Value> = r
                    .iter()
                    .map(|r| {
                        let mut m = Map::new();
                        for k in ["category", "probability"] {
                            if let Some(v) = r.get(k) {
                                m.insert(k.into(), v.clone());
                            }
                        }
                        Value::Object(m)
                    })
                    .collect();
                cand.insert("safetyRatings".into(), Value::Array(ratings));
            }
            Value::Object(cand)
        })
        .collect();
    out.insert("candidates".into(), Value::Array(candidates));
    if let Some(u) = &response.usage_metadata {
        let mut m = Map::new();
        let fields = [
            ("promptTokenCount", u.prompt_token_count),
            ("candidatesTokenCount", u.candidates_token_count),
            ("totalTokenCount", u.total_token_count),
        ];
        for (k, v) in fields {
            if let Some(v) = v {
                m.insert(k.into(), Value::from(v));
            }
        }
        out.insert("usageMetadata".into(), Value::Object(m));
    }
    Value::Object(out)
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

/// `fromHookLLMRequest` applied to `base`: a given `messages` list replaces
/// all contents (one text part each); a given `config` sets temperature,
/// maxOutputTokens, topP and topK (absent keys are cleared). Returns the new
/// request and the hook's `model`, if it named one.
pub fn from_hook_llm_request(
    hook: &Map<String, Value>,
    base: &GenerateContentRequest,
) -> (GenerateContentRequest, Option<String>) {
    let mut req = base.clone();
    if let Some(messages) = hook.get("messages").and_then(Value::as_array) {
        req.contents = messages
            .iter()
            .map(|m| {
                let role = match m.get("role") {
                    Some(Value::String(r)) => r.clone(),
                    _ => "user".to_string(),
                };
                let text = match m.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => js_string(other),
                    None => "undefined".to_string(),
                };
                Content {
                    role: Some(role),
                    parts: vec![Part::text(text)],
                    extra: Default::default(),
                }
            })
            .collect();
    }
    if let Some(cfg) = hook.get("config").and_then(Value::as_object) {
        let num = |k: &str| cfg.get(k).and_then(Value::as_number).cloned();
        let g = req
            .generation_config
            .get_or_insert_with(GenerationConfig::default);
        g.temperature = num("temperature");
        g.max_output_tokens = num("maxOutputTokens");
        g.top_p = num("topP");
        g.top_k = num("topK");
    }
    let model = hook
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    (req, model)
}

/// `String(value)` for a JSON value.
fn js_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(js_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".into(),
        other => other.to_string(),
    }
}

/// `fromHookLLMResponse`: candidates with text parts, finishReason, index,
/// safetyRatings, and usageMetadata. `None` when it is not an object.
pub fn from_hook_llm_response(hook: &Value) -> Option<GenerateContentResponse> {
    let obj = hook.as_object()?;
    let candidates = obj
        .get("candidates")
        .and_then(Value::as_array)
        .map(|cands| {
            cands
                .iter()
                .map(|c| {
                    let parts = c
                        .pointer("/content/parts")
                        .and_then(Value::as_array)
                        .map(|ps| ps.iter().map(|p| Part::text(js_string(p))).collect())
                        .unwrap_or_default();
                    Candidate {
                        content: Some(Content {
                            role: Some("model".into()),
                            parts,
                            extra: Default::default(),
                        }),
                        finish_reason: c
                            .get("finishReason")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        index: c
                            .get("index")
                            .and_then(Value::as_u64)
                            .and_then(|i| u32::try_from(i).ok()),
                        safety_ratings: c.get("safetyRatings").and_then(Value::as_array).cloned(),
                        ..Candidate::default()
                    }
                })
                .collect()
        });
    let usage_metadata = obj
        .get("usageMetadata")
        .and_then(|u| serde_json::from_value::<UsageMetadata>(u.clone()).ok());
    Some(GenerateContentResponse {
        candidates,
        usage_metadata,
        ..GenerateContentResponse::default()
    })
}

/// `fromHookToolConfig`: `{functionCallingConfig: {mode, allowedFunctionNames}}`,
/// or no functionCallingConfig when both are absent.
pub fn from_hook_tool_config(hook: &Value) -> ToolConfig {
    let mode = hook.get("mode").and_then(Value::as_str).map(str::to_string);
    let names = hook
        .get("allowedFunctionNames")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect::<Vec<_>>()
        });
    let function_calling_config =
        (mode.is_some() || names.is_some()).then(|| FunctionCallingConfig {
            mode,
            allowed_function_names: names,
            extra: Default::default(),
        });
    ToolConfig {
        function_calling_config,
        extra: Default::default(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn request() -> GenerateContentRequest {
        serde_json::from_value(json!({
            "contents": [
                {"role": "user", "parts": [{"text": "This is the Gemini CLI. "}, {"text": "ctx"}]},
                {"role": "user", "parts": [{"text": "go"}]},
                {"role": "model", "parts": [{"text": "thinking "}, {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}}]},
                {"role": "user", "parts": [{"functionResponse": {"name": "read_file", "response": {"output": "A"}}}]}
            ],
            "generationConfig": {"temperature": 1, "topP": 0.95, "topK": 64, "thinkingConfig": {"includeThoughts": true}},
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}}
        }))
        .unwrap()
    }

    #[test]
    fn request_to_hook_matches_a19() {
        let v = to_hook_llm_request(&request(), Some("gemini-3-flash-preview"));
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"model":"gemini-3-flash-preview","messages":[{"role":"user","content":"This is the Gemini CLI. ctx"},{"role":"user","content":"go"},{"role":"model","content":"thinking "}],"config":{"temperature":1,"topP":0.95,"topK":64}}"#
        );
        let v = to_hook_llm_request(&GenerateContentRequest::default(), None);
        assert_eq!(
            v,
            json!({"model": "gemini-2.5-flash", "messages": [], "config": {}})
        );
    }

    #[test]
    fn response_to_hook_matches_a19() {
        let r: GenerateContentResponse = serde_json::from_value(json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": "think", "thought": true}, {"text": "done"}]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110, "thoughtsTokenCount": 3}
        }))
        .unwrap();
        let v = to_hook_llm_response(&r);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"text":"done","candidates":[{"content":{"role":"model","parts":["think","done"]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"totalTokenCount":110}}"#
        );
        let fc: GenerateContentResponse = serde_json::from_value(json!({
            "candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "x"}}]}}]
        }))
        .unwrap();
        assert_eq!(
            to_hook_llm_response(&fc),
            json!({"candidates": [{"content": {"role": "model", "parts": []}}]})
        );
    }

    #[test]
    fn request_from_hook() {
        let base = request();
        let hook = json!({"model": "m2", "messages": [{"role": "user", "content": "only"}, {"role": "model", "content": 5}],
                          "config": {"temperature": 0.5}});
        let (req, model) = from_hook_llm_request(hook.as_object().unwrap(), &base);
        assert_eq!(model.as_deref(), Some("m2"));
        assert_eq!(
            serde_json::to_value(&req.contents).unwrap(),
            json!([{"role": "user", "parts": [{"text": "only"}]}, {"role": "model", "parts": [{"text": "5"}]}])
        );
        let g = req.generation_config.unwrap();
        assert_eq!(
            serde_json::to_value(&g).unwrap(),
            json!({"temperature": 0.5, "thinkingConfig": {"includeThoughts": true}})
        );
        assert_eq!(req.tool_config, base.tool_config);
        // partial: only config untouched when absent
        let (req, model) = from_hook_llm_request(&Map::new(), &base);
        assert_eq!(req, base);
        assert_eq!(model, None);
    }

    #[test]
    fn response_from_hook_and_tool_config() {
        let r = from_hook_llm_response(&json!({"text": "hi", "candidates": [{"content": {"role": "model", "parts": ["hi", "!"]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"totalTokenCount": 3}}))
        .unwrap();
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}, {"text": "!"}]}, "finishReason": "STOP", "index": 0}],
                   "usageMetadata": {"totalTokenCount": 3}})
        );
        assert_eq!(r.text(), "hi!");
        let tc =
            from_hook_tool_config(&json!({"mode": "ANY", "allowedFunctionNames": ["read_file"]}));
        assert_eq!(
            serde_json::to_value(&tc).unwrap(),
            json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}})
        );
        assert_eq!(
            from_hook_tool_config(&json!({})).function_calling_config,
            None
        );
    }
}
