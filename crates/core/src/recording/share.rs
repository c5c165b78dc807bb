//! `/chat share <file>`: the conversation written as Gemini CLI 0.61
//! writes it, Markdown for `.md` (one `## ROLE icon` section per message,
//! calls and results as JSON blocks) and the history array for `.json`.

use gemini_rs_protocol::Content;
use std::path::Path;

/// Why the conversation could not be shared.
#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    /// The file name ends neither in `.md` nor in `.json` (0.61's text).
    #[error("Invalid file format. Only .md and .json are supported.")]
    Format,
    /// The file could not be written.
    #[error("could not write {path}: {source}")]
    Write {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

/// Writes `history` to `path` (its folder made when missing).
pub fn share(path: &Path, history: &[Content]) -> Result<(), ShareError> {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let text = match ext {
        "md" => markdown(history),
        "json" => serde_json::to_string_pretty(history).unwrap_or_default(),
        _ => return Err(ShareError::Format),
    };
    let failed = |source| ShareError::Write {
        path: path.display().to_string(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    crate::workspace::write_atomic(path, text.as_bytes()).map_err(failed)
}

/// Gemini CLI's `serializeHistoryToMarkdown`.
pub fn markdown(history: &[Content]) -> String {
    history
        .iter()
        .map(|item| {
            let text: String = item
                .parts
                .iter()
                .map(|part| {
                    if let Some(t) = part.text.as_deref().filter(|t| !t.is_empty()) {
                        t.to_string()
                    } else if let Some(call) = &part.function_call {
                        json_block("Tool Command", call)
                    } else if let Some(response) = &part.function_response {
                        json_block("Tool Response", response)
                    } else {
                        String::new()
                    }
                })
                .collect();
            let role = item.role.as_deref().unwrap_or("model");
            let icon = if role == "user" {
                "\u{1F9D1}\u{200D}\u{1F4BB}"
            } else {
                "\u{2728}"
            };
            format!("## {} {icon}\n\n{text}", role.to_uppercase())
        })
        .collect::<Vec<_>>()
        .join("\n\n---\n\n")
}

fn json_block(title: &str, value: &impl serde::Serialize) -> String {
    let json = serde_json::to_string_pretty(value).unwrap_or_default();
    format!("**{title}**:\n```json\n{json}\n```")
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemini_rs_protocol::{Part, Role};

    #[test]
    fn markdown_is_gemini_clis() {
        let history = vec![
            Content::new(Role::User, vec![Part::text("hi")]),
            Content::new(Role::Model, vec![Part::text("hello")]),
        ];
        assert_eq!(
            markdown(&history),
            "## USER \u{1F9D1}\u{200D}\u{1F4BB}\n\nhi\n\n---\n\n## MODEL \u{2728}\n\nhello"
        );
    }

    #[test]
    fn other_extensions_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = share(&dir.path().join("x.txt"), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Invalid file format. Only .md and .json are supported."
        );
    }
}
