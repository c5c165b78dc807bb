//! The Stable Model API of hooks: Appendix A.19's values as goldens, the
//! conversions of §9.8, and round trips Gemini -> hook -> Gemini.

use gemini_rs_protocol::hook_api::{
    DEFAULT_HOOK_MODEL, from_hook_llm_request, from_hook_llm_response, from_hook_tool_config,
    to_hook_llm_request, to_hook_llm_response,
};
use gemini_rs_protocol::{
    GenerateContentRequest, GenerateContentResponse, HookToolConfig, LLMRequest, LLMResponse,
};
use serde_json::{Value, json};

/// A.19's first request: the context turn and the prompt, gemini-3 config.
const A19_REQUEST: &str = r#"{"model":"gemini-3-flash-preview","messages":[{"role":"user","content":"This is the Gemini CLI. We are setting up the context for our chat."},{"role":"user","content":"go"}],"config":{"temperature":1,"topP":0.95,"topK":64}}"#;

/// A.19's AfterModel `llm_response`.
const A19_RESPONSE: &str = r#"{"text":"thinking ","candidates":[{"content":{"role":"model","parts":["thinking "]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"totalTokenCount":110}}"#;

fn req(v: Value) -> GenerateContentRequest {
    serde_json::from_value(v).unwrap()
}

fn resp(v: Value) -> GenerateContentResponse {
    serde_json::from_value(v).unwrap()
}

/// The A.19 run's second request, as sent to Gemini.
fn a19_gemini_request() -> GenerateContentRequest {
    req(json!({
        "contents": [
            {"role": "user", "parts": [{"text": "This is the Gemini CLI. "}, {"text": "We are setting up the context for our chat."}]},
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"text": "thinking "}, {"functionCall": {"name": "read_file", "args": {"file_path": "a.txt"}}, "thoughtSignature": "skip_thought_signature_validator"}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read_file", "response": {"output": "A"}}}]}
        ],
        "systemInstruction": {"role": "user", "parts": [{"text": "sys"}]},
        "tools": [{"functionDeclarations": [{"name": "read_file"}]}],
        "generationConfig": {"temperature": 1, "topP": 0.95, "topK": 64,
            "thinkingConfig": {"includeThoughts": true, "thinkingLevel": "HIGH"}},
        "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}}
    }))
}

#[test]
fn request_golden_a19() {
    let mut first = a19_gemini_request();
    first.contents.truncate(2);
    let hook = to_hook_llm_request(&first, Some("gemini-3-flash-preview"));
    // v0.27.4 produced no toolConfig key; the seeds list it in LLMRequest,
    // so gemini-rs adds the request's function-calling config after A.19's
    // keys.
    let golden_with_tool_config = A19_REQUEST.replace(
        r#""topK":64}}"#,
        r#""topK":64},"toolConfig":{"mode":"AUTO"}}"#,
    );
    assert_eq!(
        serde_json::to_string(&hook).unwrap(),
        golden_with_tool_config
    );
    // Without a toolConfig in the request, the output is A.19's exactly.
    first.tool_config = None;
    let hook = to_hook_llm_request(&first, Some("gemini-3-flash-preview"));
    assert_eq!(serde_json::to_string(&hook).unwrap(), A19_REQUEST);
    // The second round adds the model text; the functionResponse turn has
    // no text and is absent; the toolConfig comes along.
    let hook = to_hook_llm_request(&a19_gemini_request(), Some("gemini-3-flash-preview"));
    let v = serde_json::to_value(&hook).unwrap();
    assert_eq!(v["messages"].as_array().unwrap().len(), 3);
    assert_eq!(
        v["messages"][2],
        json!({"role": "model", "content": "thinking "})
    );
    assert_eq!(v["toolConfig"], json!({"mode": "AUTO"}));
    // Parsing the golden gives the same value back.
    let parsed: LLMRequest = serde_json::from_str(A19_REQUEST).unwrap();
    assert_eq!(serde_json::to_string(&parsed).unwrap(), A19_REQUEST);
}

#[test]
fn request_defaults() {
    let hook = to_hook_llm_request(&GenerateContentRequest::default(), None);
    assert_eq!(
        serde_json::to_value(&hook).unwrap(),
        json!({"model": DEFAULT_HOOK_MODEL, "messages": [], "config": {}})
    );
    let hook = to_hook_llm_request(&GenerateContentRequest::default(), Some(""));
    assert_eq!(hook.model.as_deref(), Some("gemini-2.5-flash"));
    let sys = req(
        json!({"contents": [{"role": "system", "parts": [{"text": "s"}]}, {"parts": [{"text": "u"}]}]}),
    );
    let v = serde_json::to_value(to_hook_llm_request(&sys, Some("m"))).unwrap();
    assert_eq!(
        v["messages"],
        json!([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}])
    );
}

#[test]
fn response_golden_a19() {
    let chunk = resp(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "thinking "}]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110, "thoughtsTokenCount": 3},
        "modelVersion": "gemini-3-flash-preview", "responseId": "r1"
    }));
    let hook = to_hook_llm_response(&chunk);
    assert_eq!(serde_json::to_string(&hook).unwrap(), A19_RESPONSE);
    let parsed: LLMResponse = serde_json::from_str(A19_RESPONSE).unwrap();
    assert_eq!(parsed, hook);
}

#[test]
fn response_text_skips_thoughts_and_function_calls() {
    let r = resp(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "think", "thought": true}, {"text": "done"}]},
            "finishReason": "STOP", "index": 0,
            "safetyRatings": [{"category": "HARM", "probability": "LOW", "blocked": false}]}]
    }));
    assert_eq!(
        serde_json::to_value(to_hook_llm_response(&r)).unwrap(),
        json!({"text": "done", "candidates": [{"content": {"role": "model", "parts": ["think", "done"]},
            "finishReason": "STOP", "index": 0, "safetyRatings": [{"category": "HARM", "probability": "LOW"}]}]})
    );
    let fc = resp(
        json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "x"}}]}}]}),
    );
    assert_eq!(
        serde_json::to_value(to_hook_llm_response(&fc)).unwrap(),
        json!({"candidates": [{"content": {"role": "model", "parts": []}}]})
    );
}

#[test]
fn text_only_request_round_trips() {
    let original = req(json!({
        "contents": [
            {"role": "user", "parts": [{"text": "ctx"}]},
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"text": "thinking "}]},
            {"role": "user", "parts": [{"text": "more"}]}
        ],
        "generationConfig": {"temperature": 0.5, "maxOutputTokens": 100, "topP": 0.9, "topK": 10}
    }));
    let hook = to_hook_llm_request(&original, Some("gemini-2.5-pro"));
    // Through JSON, as a hook would echo it.
    let echoed: LLMRequest = serde_json::from_str(&serde_json::to_string(&hook).unwrap()).unwrap();
    assert_eq!(echoed, hook);
    let (back, model) = from_hook_llm_request(&echoed, &GenerateContentRequest::default());
    assert_eq!(back, original);
    assert_eq!(model.as_deref(), Some("gemini-2.5-pro"));
    // Applied over the real request, everything the hook cannot see stays.
    let base = a19_gemini_request();
    let hook = to_hook_llm_request(&base, Some("m"));
    let (back, _) = from_hook_llm_request(&hook, &base);
    assert_eq!(back.system_instruction, base.system_instruction);
    assert_eq!(back.tools, base.tools);
    assert_eq!(back.tool_config, base.tool_config);
    assert_eq!(back.generation_config, base.generation_config);
    // Lossy where §9.8 is: parts are joined, non-text turns dropped.
    assert_eq!(back.contents.len(), 3);
    assert_eq!(
        serde_json::to_value(&back.contents[0]).unwrap(),
        json!({"role": "user", "parts": [{"text": "This is the Gemini CLI. We are setting up the context for our chat."}]})
    );
}

#[test]
fn text_only_response_round_trips() {
    let original = resp(json!({
        "candidates": [{"content": {"role": "model", "parts": [{"text": "a"}, {"text": "b"}]}, "finishReason": "STOP", "index": 0,
            "safetyRatings": [{"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}]}],
        "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110}
    }));
    let hook = to_hook_llm_response(&original);
    let echoed: LLMResponse = serde_json::from_str(&serde_json::to_string(&hook).unwrap()).unwrap();
    assert_eq!(from_hook_llm_response(&echoed), original);
    let golden: LLMResponse = serde_json::from_str(A19_RESPONSE).unwrap();
    let back = from_hook_llm_response(&golden);
    assert_eq!(back.text(), "thinking ");
    assert_eq!(to_hook_llm_response(&back), golden);
}

#[test]
fn partial_request_from_hook() {
    let base = a19_gemini_request();
    let hook: LLMRequest = serde_json::from_value(json!({"model": "m2",
        "messages": [{"role": "user", "content": "only"}, {"role": "model", "content": 5}, {"content": ["a", 1]}, {}],
        "config": {"temperature": 0.5, "topK": "x"}}))
    .unwrap();
    let (r, model) = from_hook_llm_request(&hook, &base);
    assert_eq!(model.as_deref(), Some("m2"));
    assert_eq!(
        serde_json::to_value(&r.contents).unwrap(),
        json!([{"role": "user", "parts": [{"text": "only"}]}, {"role": "model", "parts": [{"text": "5"}]},
               {"role": "user", "parts": [{"text": "a,1"}]}, {"role": "user", "parts": [{"text": "undefined"}]}])
    );
    assert_eq!(
        serde_json::to_value(r.generation_config.unwrap()).unwrap(),
        json!({"temperature": 0.5, "thinkingConfig": {"includeThoughts": true, "thinkingLevel": "HIGH"}})
    );
    // Nothing given: nothing changes.
    let (r, model) = from_hook_llm_request(&LLMRequest::default(), &base);
    assert_eq!(r, base);
    assert_eq!(model, None);
    // Wrong types are ignored, not errors.
    let odd: LLMRequest =
        serde_json::from_value(json!({"model": 3, "messages": "x", "config": []})).unwrap();
    assert_eq!(odd, LLMRequest::default());
    assert!(serde_json::from_value::<LLMRequest>(json!("x")).is_err());
}

#[test]
fn synthetic_response_from_hook() {
    let hook: LLMResponse = serde_json::from_value(json!({"text": "ignored",
        "candidates": [{"content": {"parts": ["hi", 1, {"a": 1}]}, "index": 0}, "junk"],
        "usageMetadata": {"totalTokenCount": 3}}))
    .unwrap();
    assert!(hook.has_parts());
    let r = from_hook_llm_response(&hook);
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"candidates": [
            {"content": {"role": "model", "parts": [{"text": "hi"}, {"text": "1"}, {"text": "[object Object]"}]}, "index": 0},
            {"content": {"role": "model"}}],
            "usageMetadata": {"totalTokenCount": 3}})
    );
    let empty: LLMResponse = serde_json::from_value(json!({"candidates": []})).unwrap();
    assert!(!empty.has_parts());
    assert_eq!(
        serde_json::to_value(from_hook_llm_response(&empty)).unwrap(),
        json!({"candidates": []})
    );
}

#[test]
fn tool_config_from_hook() {
    let tc: HookToolConfig =
        serde_json::from_value(json!({"mode": "ANY", "allowedFunctionNames": ["read_file", 3]}))
            .unwrap();
    assert_eq!(
        serde_json::to_value(from_hook_tool_config(&tc)).unwrap(),
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}})
    );
    let none: HookToolConfig = serde_json::from_value(json!({})).unwrap();
    assert_eq!(from_hook_tool_config(&none).function_calling_config, None);
    let req: LLMRequest =
        serde_json::from_value(json!({"toolConfig": {"mode": "NONE", "allowedFunctionNames": []}}))
            .unwrap();
    assert_eq!(
        serde_json::to_value(&req).unwrap(),
        json!({"toolConfig": {"mode": "NONE", "allowedFunctionNames": []}})
    );
}

#[test]
fn tool_config_goes_to_the_hook_and_back() {
    let original = req(json!({
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file", "glob"]},
            "retrievalConfig": {"languageCode": "en"}},
        "generationConfig": {"temperature": 1}
    }));
    let hook = to_hook_llm_request(&original, Some("m"));
    let json = serde_json::to_value(&hook).unwrap();
    assert_eq!(
        json["toolConfig"],
        json!({"mode": "ANY", "allowedFunctionNames": ["read_file", "glob"]})
    );
    // Echoed through JSON, as a hook would: the request comes back whole.
    let echoed: LLMRequest = serde_json::from_value(json).unwrap();
    assert_eq!(echoed, hook);
    let (back, _) = from_hook_llm_request(&echoed, &original);
    assert_eq!(back, original);
    // Onto a request without one, only the function-calling config comes.
    let (back, _) = from_hook_llm_request(&echoed, &GenerateContentRequest::default());
    assert_eq!(
        serde_json::to_value(back.tool_config).unwrap(),
        json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file", "glob"]}})
    );
}

#[test]
fn a_request_without_tool_config_has_no_tool_config_key() {
    let r = req(
        json!({"contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "toolConfig": {"retrievalConfig": {"languageCode": "en"}}}),
    );
    let json = serde_json::to_value(to_hook_llm_request(&r, None)).unwrap();
    assert!(json.get("toolConfig").is_none(), "{json}");
}

#[test]
fn hook_tool_config_replaces_the_function_calling_config() {
    let base = req(json!({
        "contents": [{"role": "user", "parts": [{"text": "go"}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["a"]},
            "retrievalConfig": {"languageCode": "en"}}
    }));
    let hook: LLMRequest = serde_json::from_value(json!({"toolConfig": {"mode": "NONE"}})).unwrap();
    let (r, _) = from_hook_llm_request(&hook, &base);
    assert_eq!(r.contents, base.contents);
    assert_eq!(
        serde_json::to_value(r.tool_config).unwrap(),
        json!({"functionCallingConfig": {"mode": "NONE"}, "retrievalConfig": {"languageCode": "en"}})
    );
    // An empty toolConfig clears it; nothing else is left, so none is sent.
    let only_fcc = req(json!({"contents": [],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}}}));
    let hook: LLMRequest = serde_json::from_value(json!({"toolConfig": {}})).unwrap();
    let (r, _) = from_hook_llm_request(&hook, &only_fcc);
    assert_eq!(r.tool_config, None);
    // No toolConfig given: the request's stays.
    let (r, _) = from_hook_llm_request(&LLMRequest::default(), &base);
    assert_eq!(r.tool_config, base.tool_config);
}
