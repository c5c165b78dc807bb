//! Token estimates for servers that send no usage (many local servers):
//! the same heuristic as Gemini CLI's, about four ASCII characters a
//! token, one and a half tokens for any other character, fixed sizes for
//! images and PDFs, and JSON length over four for everything else.

use gemini_rs_protocol::{GenerateContentRequest, Part, UsageMetadata};

/// Characters per token of ASCII text (and of JSON).
const CHARS_PER_TOKEN: f64 = 4.0;
/// Tokens per character outside ASCII.
const NON_ASCII_TOKENS_PER_CHAR: f64 = 1.5;
/// Text longer than this is counted at the flat rate, without a scan.
const MAX_CHARS_FOR_SCAN: usize = 100_000;
/// An inline or referenced image.
const IMAGE_TOKENS: f64 = 3_000.0;
/// An inline or referenced PDF.
const PDF_TOKENS: f64 = 25_800.0;

fn text_tokens(text: &str) -> f64 {
    if text.len() > MAX_CHARS_FOR_SCAN {
        return text.chars().count() as f64 / CHARS_PER_TOKEN;
    }
    text.chars()
        .map(|c| {
            if c.is_ascii() {
                1.0 / CHARS_PER_TOKEN
            } else {
                NON_ASCII_TOKENS_PER_CHAR
            }
        })
        .sum()
}

/// Counts the bytes written to it (JSON's length without building it).
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The estimated tokens of `value` as JSON (its length over four).
pub(crate) fn json_tokens<T: serde::Serialize>(value: &T) -> f64 {
    let mut count = ByteCount(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0 as f64 / CHARS_PER_TOKEN,
        Err(_) => 0.0,
    }
}

fn part_tokens(part: &Part) -> f64 {
    if let Some(text) = &part.text {
        return text_tokens(text);
    }
    if let Some(fr) = &part.function_response {
        return fr.name.len() as f64 / CHARS_PER_TOKEN + json_tokens(&fr.response);
    }
    let mime = part
        .inline_data
        .as_ref()
        .map(|d| d.mime_type.as_str())
        .or_else(|| part.file_data.as_ref().and_then(|d| d.mime_type.as_deref()));
    match mime {
        Some(m) if m.starts_with("image/") => IMAGE_TOKENS,
        Some(m) if m.starts_with("application/pdf") => PDF_TOKENS,
        _ => json_tokens(part),
    }
}

/// The estimated tokens of `parts`.
pub fn parts_tokens(parts: &[Part]) -> u64 {
    parts.iter().map(part_tokens).sum::<f64>() as u64
}

/// The estimated prompt of `request`: its system instruction, its
/// contents and its tool declarations.
pub fn request_tokens(request: &GenerateContentRequest) -> u64 {
    let system = request
        .system_instruction
        .as_ref()
        .map_or(0, |c| parts_tokens(&c.parts));
    let contents: u64 = request
        .contents
        .iter()
        .map(|c| parts_tokens(&c.parts))
        .sum();
    let tools = request.tools.as_ref().map_or(0.0, json_tokens) as u64;
    system + contents + tools
}

/// The usage a server that sent none would have reported: prompt from
/// the request, candidates from the answer's parts.
pub fn usage(request: &GenerateContentRequest, answer: &[Part]) -> UsageMetadata {
    let prompt = request_tokens(request);
    let candidates = parts_tokens(answer);
    UsageMetadata {
        prompt_token_count: Some(prompt),
        candidates_token_count: Some(candidates),
        total_token_count: Some(prompt + candidates),
        ..UsageMetadata::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemini_rs_protocol::{Content, Role};

    #[test]
    fn ascii_is_four_characters_a_token_and_other_text_costs_more() {
        assert_eq!(parts_tokens(&[Part::text("a".repeat(400))]), 100);
        assert_eq!(parts_tokens(&[Part::text("ü".repeat(10))]), 15);
        let long = "x".repeat(MAX_CHARS_FOR_SCAN + 4);
        assert_eq!(parts_tokens(&[Part::text(long)]), 25_001);
    }

    #[test]
    fn a_request_counts_system_contents_and_tools() {
        let request = GenerateContentRequest {
            contents: vec![Content::new(Role::User, vec![Part::text("b".repeat(80))])],
            system_instruction: Some(Content::new(Role::User, vec![Part::text("a".repeat(40))])),
            ..GenerateContentRequest::default()
        };
        assert_eq!(request_tokens(&request), 30);
        let u = usage(&request, &[Part::text("c".repeat(20))]);
        assert_eq!(u.prompt_token_count, Some(30));
        assert_eq!(u.candidates_token_count, Some(5));
        assert_eq!(u.total_token_count, Some(35));
    }
}
