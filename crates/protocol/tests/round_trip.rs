use gemini_rs_protocol::{GenerateContentRequest, RecordedResponse};
use serde_json::Value;
use std::path::PathBuf;

fn upstream_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/upstream")
}

#[test]
fn every_recorded_line_round_trips_without_loss() {
    let dir = upstream_dir();
    let mut lines = 0;
    for entry in std::fs::read_dir(&dir).expect("conformance/upstream exists") {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("responses") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (n, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let original: Value = serde_json::from_str(line).unwrap();
            let parsed: RecordedResponse = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
            let again = serde_json::to_value(&parsed).unwrap();
            assert_eq!(original, again, "{}:{} lost data", path.display(), n + 1);
            lines += 1;
        }
    }
    assert!(lines > 40, "only {lines} recorded lines found");
}

#[test]
fn request_with_unknown_fields_round_trips() {
    let body = serde_json::json!({
        "contents": [{"role": "user", "parts": [{"text": "hi", "videoMetadata": {"fps": 2}}]}],
        "systemInstruction": {"parts": [{"text": "sys"}]},
        "tools": [{"functionDeclarations": [{"name": "f", "parametersJsonSchema": {"type": "object"}}]}, {"googleSearch": {}}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
        "generationConfig": {"temperature": 1, "topP": 0.95, "topK": 64,
            "thinkingConfig": {"includeThoughts": true, "thinkingLevel": "HIGH"}, "seed": 7},
        "safetySettings": []
    });
    let parsed: GenerateContentRequest = serde_json::from_value(body.clone()).unwrap();
    assert_eq!(serde_json::to_value(&parsed).unwrap(), body);
}

/// Property: any `.responses` line of the shapes Gemini CLI records reads
/// into a [`RecordedResponse`] and writes back as the same JSON.
mod responses_file_properties {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn part() -> impl Strategy<Value = Value> {
        let name = "[a-z_]{1,10}";
        prop_oneof![
            "\\PC{0,20}".prop_map(|t| json!({"text": t})),
            "\\PC{0,20}".prop_map(|t| json!({"text": t, "thought": true})),
            (name, "\\PC{0,8}", any::<i32>()).prop_map(|(n, s, i)| {
                json!({"functionCall": {"name": n, "args": {"s": s, "i": i, "l": [true, null]}}})
            }),
            (name, "[A-Za-z0-9+/]{0,12}").prop_map(|(n, sig)| {
                json!({"functionCall": {"name": n, "args": {}}, "thoughtSignature": sig})
            }),
            "[A-Za-z0-9+/]{0,16}"
                .prop_map(|d| json!({"inlineData": {"mimeType": "image/png", "data": d}})),
        ]
    }

    fn response() -> impl Strategy<Value = Value> {
        (
            // At least one part: an empty `parts` list is left out when
            // written (the same content, but not the same bytes).
            proptest::collection::vec(part(), 1..4),
            proptest::option::of(prop_oneof![Just("STOP"), Just("MAX_TOKENS"), Just("SAFETY")]),
            proptest::option::of((0u32..5000, 0u32..5000)),
            proptest::option::of("[a-z0-9-]{1,12}"),
        )
            .prop_map(|(parts, finish, usage, version)| {
                let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
                if let Some(f) = finish {
                    candidate["finishReason"] = json!(f);
                }
                let mut r = json!({"candidates": [candidate]});
                if let Some((p, c)) = usage {
                    r["usageMetadata"] = json!({"promptTokenCount": p, "candidatesTokenCount": c, "totalTokenCount": p + c});
                }
                if let Some(v) = version {
                    r["modelVersion"] = json!(v);
                }
                r
            })
    }

    fn line() -> impl Strategy<Value = Value> {
        prop_oneof![
            proptest::collection::vec(response(), 1..4)
                .prop_map(|rs| json!({"method": "generateContentStream", "response": rs})),
            response().prop_map(|r| json!({"method": "generateContent", "response": r})),
            (0u64..100_000)
                .prop_map(|n| json!({"method": "countTokens", "response": {"totalTokens": n}})),
            proptest::collection::vec(-1000i32..1000, 0..6).prop_map(
                |v| json!({"method": "embedContent", "response": {"embedding": {"values": v}}})
            ),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn a_recorded_line_round_trips(original in line()) {
            let text = serde_json::to_string(&original).unwrap();
            let parsed: RecordedResponse = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(parsed.method().as_str(), original["method"].as_str().unwrap());
            let again = serde_json::to_string(&parsed).unwrap();
            prop_assert_eq!(serde_json::from_str::<Value>(&again).unwrap(), original);
            let reparsed: RecordedResponse = serde_json::from_str(&again).unwrap();
            prop_assert_eq!(reparsed, parsed);
        }
    }
}
