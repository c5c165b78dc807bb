//! Context-window overflows as servers report them: the window and the
//! tokens the request needed, read from llama.cpp's
//! `exceed_context_size_error` (`n_ctx`, `n_prompt_tokens`), OpenAI's
//! `context_length_exceeded` text, llama-cpp-python's, Ollama's and
//! Anthropic's messages.

use super::ModelError;
use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// What an overflow answer said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overflow {
    /// The model's context window, in tokens.
    pub window: Option<u64>,
    /// The tokens the request needed.
    pub needed: Option<u64>,
}

/// `(needed, window)` patterns of the known servers' messages.
static PATTERNS: LazyLock<Vec<(Regex, bool)>> = LazyLock::new(|| {
    [
        // OpenAI: "maximum context length is 8192 tokens. However, your
        // messages resulted in 21808 tokens" (window first).
        (
            r"(?i)maximum context length is (\d+) tokens.*?(?:resulted in|requested) (\d+) tokens",
            false,
        ),
        // llama-cpp-python: "Requested tokens (21808) exceed context window of 8192".
        (
            r"(?i)requested tokens \((\d+)\) exceed context window of (\d+)",
            true,
        ),
        // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum".
        (r"(?i)prompt is too long: (\d+) tokens > (\d+)", true),
    ]
    .into_iter()
    .filter_map(|(p, needed_first)| Regex::new(p).ok().map(|r| (r, needed_first)))
    .collect()
});

/// True when an error answer (its JSON body and message) says the
/// request does not fit the model's context.
pub fn is_overflow(json: Option<&Value>, message: &str) -> bool {
    let field = |ptr: &str| {
        json.and_then(|v| v.pointer(ptr))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let lower = message.to_ascii_lowercase();
    field("/error/code") == "context_length_exceeded"
        || field("/error/type") == "exceed_context_size_error"
        || [
            "context length",
            "context window",
            "context size",
            "prompt is too long",
            "maximum context",
        ]
        .iter()
        .any(|w| lower.contains(w))
}

/// The window and needed tokens an overflow answer names, where it does.
pub fn numbers(json: Option<&Value>, message: &str) -> Overflow {
    let num = |ptr: &str| json.and_then(|v| v.pointer(ptr)).and_then(Value::as_u64);
    let mut out = Overflow {
        window: num("/error/n_ctx"),
        needed: num("/error/n_prompt_tokens"),
    };
    if out.window.is_some() && out.needed.is_some() {
        return out;
    }
    for (re, needed_first) in PATTERNS.iter() {
        let Some(c) = re.captures(message) else {
            continue;
        };
        let a = c.get(1).and_then(|m| m.as_str().parse().ok());
        let b = c.get(2).and_then(|m| m.as_str().parse().ok());
        let (needed, window) = if *needed_first { (a, b) } else { (b, a) };
        out.needed = out.needed.or(needed);
        out.window = out.window.or(window);
        break;
    }
    out
}

/// Fills in what an overflow error left out: the window the session
/// knows for the model and the request's estimated size.
pub fn fill(error: &mut ModelError, known_window: u64, estimated: u64) {
    match error {
        ModelError::ContextTooLong { window, needed, .. } => {
            window.get_or_insert(known_window);
            needed.get_or_insert(estimated);
        }
        ModelError::AtProvider { error, .. } => fill(error, known_window, estimated),
        ModelError::RetriesExhausted { last, .. } => fill(last, known_window, estimated),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn llama_cpp_names_both_numbers_in_fields() {
        let body = json!({"error": {"code": 400, "type": "exceed_context_size_error",
            "message": "the request exceeds the available context size, try increasing it",
            "n_prompt_tokens": 21808, "n_ctx": 8192}});
        let msg = body["error"]["message"].as_str().unwrap();
        assert!(is_overflow(Some(&body), msg));
        assert_eq!(
            numbers(Some(&body), msg),
            Overflow {
                window: Some(8192),
                needed: Some(21808)
            }
        );
    }

    #[test]
    fn other_servers_name_them_in_text() {
        let openai = "This model's maximum context length is 8192 tokens. However, your messages resulted in 21808 tokens. Please reduce the length of the messages.";
        let py = "Requested tokens (21808) exceed context window of 8192";
        let anthropic = "prompt is too long: 21808 tokens > 8192 maximum";
        for m in [openai, py, anthropic] {
            assert!(is_overflow(None, m), "{m}");
            let n = numbers(None, m);
            assert_eq!((n.window, n.needed), (Some(8192), Some(21808)), "{m}");
        }
        assert!(is_overflow(
            None,
            "the input length exceeds the context length"
        ));
        assert!(!is_overflow(None, "model not found"));
        assert_eq!(numbers(None, "too long"), Overflow::default());
    }
}
