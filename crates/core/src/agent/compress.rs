//! History compression: when the conversation nears the model's context
//! window, the older part is summarised by one model call and replaced by
//! the summary; recent turns stay as they were.

use crate::model::{ContentGenerator, ModelError};
use gemini_rs_protocol::{Content, GenerateContentRequest, GenerationConfig, Part, Role};
use tokio_util::sync::CancellationToken;

/// Share of the history (by size) kept verbatim after compression.
const PRESERVE_FRACTION: f64 = 0.3;
/// `model.compressionThreshold` when unset: compress at half the window.
pub const DEFAULT_THRESHOLD: f64 = crate::config::defaults::COMPRESSION_THRESHOLD;

/// Why a compression did not happen; the history is left untouched.
#[derive(Debug, thiserror::Error)]
pub enum CompressError {
    /// Too little history to summarise.
    #[error("Nothing to compress: the conversation is too short.")]
    TooShort,
    /// The summary call failed.
    #[error("Compression failed: {0}")]
    Model(#[from] ModelError),
    /// The model answered with no text.
    #[error("Compression failed: the model returned an empty summary.")]
    EmptySummary,
}

/// A rough token count of some contents (4 characters a token).
pub fn estimate_tokens(contents: &[Content]) -> u64 {
    let chars: usize = contents
        .iter()
        .flat_map(|c| c.parts.iter())
        .map(|p| serde_json::to_string(p).map(|s| s.len()).unwrap_or(0))
        .sum();
    (chars / 4) as u64
}

/// True when `tokens` has reached `threshold` of a `window`-token context.
pub fn should_compress(tokens: u64, window: u64, threshold: f64) -> bool {
    threshold > 0.0 && tokens as f64 >= threshold * window as f64
}

/// Where the kept part starts: the first user turn holding a plain prompt
/// (not function responses) after `1 - PRESERVE_FRACTION` of the size.
pub fn split_point(history: &[Content]) -> Option<usize> {
    let sizes: Vec<usize> = history
        .iter()
        .map(|c| serde_json::to_string(c).map(|s| s.len()).unwrap_or(0))
        .collect();
    let total: usize = sizes.iter().sum();
    let target = (total as f64 * (1.0 - PRESERVE_FRACTION)) as usize;
    let mut seen = 0;
    for (i, content) in history.iter().enumerate() {
        let is_prompt = content.role.as_deref() == Some("user")
            && content.parts.iter().all(|p| p.function_response.is_none());
        if seen >= target && is_prompt && i > 0 {
            return Some(i);
        }
        seen += sizes[i];
    }
    // No later prompt to keep: when the model had the last word (and is not
    // waiting for tool results), everything can be summarised.
    let last = history.last()?;
    let finished = last.role.as_deref() == Some("model")
        && last.parts.iter().all(|p| p.function_call.is_none());
    if finished && history.len() > 1 {
        return Some(history.len());
    }
    // The latest prompt is itself most of the size (a large paste that
    // overflows the window): everything before it is summarised.
    history
        .iter()
        .rposition(|c| {
            c.role.as_deref() == Some("user")
                && c.parts.iter().all(|p| p.function_response.is_none())
        })
        .filter(|&i| i > 0)
}

const SUMMARY_PROMPT: &str = "Summarise the conversation so far for your own later use; it will replace the \
earlier turns. Keep what matters to finish the work: the user's goals and constraints, decisions taken, \
files read or changed (with paths), commands run and their outcomes, errors still open, and the next \
steps. Be concise and factual; use short Markdown sections. Do not address the user.";

/// What the compressed history's first entry starts with.
const SUMMARY_HEAD: &str = "Summary of the earlier conversation:\n\n";

/// The summary a compressed `history` starts with (empty when it does not).
pub fn summary_of(history: &[Content]) -> String {
    history
        .first()
        .map(Content::text)
        .and_then(|t| t.strip_prefix(SUMMARY_HEAD).map(str::to_string))
        .unwrap_or_default()
}

/// Summarises the part of `history` before the split point and returns
/// the new history: the summary turn, an acknowledgement, the kept turns.
pub async fn compress(
    generator: &dyn ContentGenerator,
    model: &str,
    history: &[Content],
    cancel: CancellationToken,
) -> Result<Vec<Content>, CompressError> {
    let split = split_point(history).ok_or(CompressError::TooShort)?;
    let (old, kept) = history.split_at(split);
    let mut contents = old.to_vec();
    contents.push(Content::user_text(SUMMARY_PROMPT));
    let request = GenerateContentRequest {
        contents,
        generation_config: Some(GenerationConfig::default()),
        ..GenerateContentRequest::default()
    };
    let response = generator.generate(model, &request, cancel).await?;
    let summary = response.text();
    if summary.trim().is_empty() {
        return Err(CompressError::EmptySummary);
    }
    let mut out = vec![
        Content::user_text(format!("{SUMMARY_HEAD}{}", summary.trim())),
        Content::new(
            Role::Model,
            vec![Part::text("Understood; I will continue from this summary.")],
        ),
    ];
    out.extend_from_slice(kept);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_and_split() {
        assert!(should_compress(600_000, 1_048_576, 0.5));
        assert!(!should_compress(100, 1_048_576, 0.5));
        assert!(!should_compress(600_000, 1_048_576, 0.0));
        let turn = |role: Role, t: &str| Content::new(role, vec![Part::text(t)]);
        let big = "x".repeat(1000);
        let history = vec![
            turn(Role::User, &big),
            turn(Role::Model, &big),
            turn(Role::User, &big),
            turn(Role::Model, &big),
            turn(Role::User, "recent"),
            turn(Role::Model, "ok"),
        ];
        assert_eq!(split_point(&history), Some(4));
        assert_eq!(split_point(&history[..1]), None);
        // Only the model's answer after the prompt: all of it is summarised.
        assert_eq!(split_point(&history[..2]), Some(2));
        // A last prompt larger than everything before it: the turns before
        // it are summarised, it is kept.
        let mut overflow = history[..4].to_vec();
        overflow.push(turn(Role::User, &"y".repeat(20_000)));
        assert_eq!(split_point(&overflow), Some(4));
    }
}
