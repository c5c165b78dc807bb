use gemini_rs_protocol::{GenerateContentRequest, RecordedResponse};
use serde_json::Value;
use std::path::PathBuf;

fn upstream_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/upstream")
}

#[test]
fn every_recorded_line_round_trips_without_loss() {
    let dir = upstream_dir();
    let mut lines = 0;
    for entry in std::fs::read_dir(&dir).expect("shared/conformance/upstream exists") {
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
