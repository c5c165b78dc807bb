//! Replay of recorded model answers (Gemini CLI's `--fake-responses`).

use super::{ChunkStream, ContentGenerator, ModelError};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use gemini_rs_protocol::{
    GenerateContentRequest, GenerateContentResponse, RecordedMethod, RecordedResponse,
};
use serde::Serialize;
use std::path::Path;
use std::sync::Mutex;
use tokio_util::sync::CancellationToken;

/// How recorded lines are matched to calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayMode {
    /// The i-th call gets line i; a method mismatch is an error.
    Strict,
    /// Each call gets the first unused line of the same method.
    NonStrict,
}

/// A [`ContentGenerator`] answering from a JSONL file of recorded responses.
#[derive(Debug)]
pub struct ReplayGenerator {
    mode: ReplayMode,
    lines: Vec<Line>,
    /// The file, for errors.
    origin: String,
    /// Strict: index of the next line. Non-strict: which lines were used.
    state: Mutex<ReplayState>,
}

/// One recorded answer: checked when the file is loaded and kept as text,
/// parsed again when its call comes (parsed answers take many times the
/// room of their text, and a long replay holds thousands).
#[derive(Debug)]
struct Line {
    method: RecordedMethod,
    text: Box<str>,
    /// Its line number in the file.
    number: usize,
}

#[derive(Debug, Default)]
struct ReplayState {
    next: usize,
    used: Vec<bool>,
}

impl ReplayGenerator {
    /// Reads and parses the whole file (blank lines skipped).
    pub fn from_file(path: &Path, mode: ReplayMode) -> Result<ReplayGenerator, ModelError> {
        use crate::config::input_file::{MAX_RESPONSES_BYTES, read_input};
        let text =
            read_input(path, None, MAX_RESPONSES_BYTES).map_err(|e| ModelError::ResponsesFile {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
        Self::from_jsonl(&text, &path.display().to_string(), mode)
    }

    /// Parses JSONL text; `origin` names it in errors (`<origin>:<line>: ...`).
    pub fn from_jsonl(
        text: &str,
        origin: &str,
        mode: ReplayMode,
    ) -> Result<ReplayGenerator, ModelError> {
        let mut lines = Vec::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let parsed: RecordedResponse =
                serde_json::from_str(line).map_err(|e| ModelError::ResponsesLine {
                    path: origin.to_string(),
                    line: index + 1,
                    message: e.to_string(),
                })?;
            lines.push(Line {
                method: parsed.method(),
                text: line.into(),
                number: index + 1,
            });
        }
        let state = ReplayState {
            next: 0,
            used: vec![false; lines.len()],
        };
        Ok(ReplayGenerator {
            mode,
            lines,
            origin: origin.to_string(),
            state: Mutex::new(state),
        })
    }

    #[cfg(test)]
    /// How many recorded answers were loaded.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Takes the answer for the next call of `method`.
    fn take<R: Serialize>(
        &self,
        method: RecordedMethod,
        request: &R,
    ) -> Result<RecordedResponse, ModelError> {
        let mut state = self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let index = match self.mode {
            ReplayMode::Strict => {
                let index = state.next;
                state.next += 1;
                let recorded = self.lines.get(index).map(|l| l.method);
                if let Some(recorded) = recorded.filter(|m| !answers(*m, method)) {
                    return Err(ModelError::Replay {
                        message: format!(
                            "Unexpected response type, next response was for {} but expected {}",
                            recorded.as_str(),
                            method.as_str()
                        ),
                    });
                }
                (index < self.lines.len()).then_some(index)
            }
            ReplayMode::NonStrict => {
                let found = self
                    .lines
                    .iter()
                    .zip(&state.used)
                    .position(|(line, used)| !used && answers(line.method, method));
                if let Some(i) = found {
                    state.used[i] = true;
                }
                found
            }
        };
        match index.and_then(|i| self.lines.get(i)) {
            Some(line) => serde_json::from_str(&line.text).map_err(|e| ModelError::ResponsesLine {
                path: self.origin.clone(),
                line: line.number,
                message: e.to_string(),
            }),
            None => Err(ModelError::Replay {
                message: format!(
                    "No more mock responses for {}, got request:\n{}",
                    method.as_str(),
                    serde_json::to_string(request).unwrap_or_default()
                ),
            }),
        }
    }
}

impl ContentGenerator for ReplayGenerator {
    fn generate_stream<'a>(
        &'a self,
        _model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        async move {
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            match self.take(RecordedMethod::GenerateContentStream, request)? {
                RecordedResponse::GenerateContentStream(chunks) => {
                    Ok(futures::stream::iter(chunks.into_iter().map(Ok)).boxed())
                }
                RecordedResponse::OpenAiChatStream(events) => {
                    Ok(super::openai_chat::replay(events))
                }
                RecordedResponse::AnthropicMessagesStream(events) => {
                    Ok(super::anthropic::replay(events))
                }
                other => Err(wrong_line(other.method())),
            }
        }
        .boxed()
    }

    fn generate<'a>(
        &'a self,
        _model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>> {
        async move {
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            match self.take(RecordedMethod::GenerateContent, request)? {
                RecordedResponse::GenerateContent(response) => Ok(*response),
                RecordedResponse::OpenAiChatStream(events) => {
                    super::wire::collect(super::openai_chat::replay(events)).await
                }
                RecordedResponse::AnthropicMessagesStream(events) => {
                    super::wire::collect(super::anthropic::replay(events)).await
                }
                other => Err(wrong_line(other.method())),
            }
        }
        .boxed()
    }
}

/// Whether a recorded line of method `recorded` answers a call of `asked`:
/// a streamed call takes a stream recorded on any provider's wire; a
/// one-shot call takes a provider's stream too (those wires answer one-shot
/// calls by collecting a stream, and record it as such).
fn answers(recorded: RecordedMethod, asked: RecordedMethod) -> bool {
    let provider_stream = matches!(
        recorded,
        RecordedMethod::OpenAiChatStream | RecordedMethod::AnthropicMessagesStream
    );
    recorded == asked
        || (asked.is_stream() && recorded.is_stream())
        || (asked == RecordedMethod::GenerateContent && provider_stream)
}

/// Unreachable in practice: `take` only returns lines of the asked method.
fn wrong_line(method: RecordedMethod) -> ModelError {
    ModelError::Replay {
        message: format!("Internal replay error: got a line for {}", method.as_str()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemini_rs_protocol::Content;

    const STREAM: &str = r#"{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"a"}]}}]},{"candidates":[{"content":{"role":"model","parts":[{"text":"b"}]}}]}]}"#;
    const ONE: &str = r#"{"method":"generateContent","response":{"candidates":[{"content":{"role":"model","parts":[{"text":"one"}]}}]}}"#;
    const COUNT: &str = r#"{"method":"countTokens","response":{"totalTokens":42}}"#;

    fn request() -> GenerateContentRequest {
        GenerateContentRequest {
            contents: vec![Content::user_text("hi")],
            ..Default::default()
        }
    }

    async fn stream_text(g: &ReplayGenerator) -> Result<String, ModelError> {
        let s = g
            .generate_stream("m", &request(), CancellationToken::new())
            .await?;
        let chunks: Vec<_> = s.collect().await;
        Ok(chunks.into_iter().map(|c| c.unwrap().text()).collect())
    }

    #[tokio::test]
    async fn strict_replays_in_order_and_reports_mismatch() {
        let text = format!("{STREAM}\n\n{ONE}\n   \n{COUNT}\n{STREAM}\n");
        let g = ReplayGenerator::from_jsonl(&text, "f", ReplayMode::Strict).unwrap();
        assert_eq!(g.len(), 4);
        assert_eq!(stream_text(&g).await.unwrap(), "ab");
        let err = stream_text(&g).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "Unexpected response type, next response was for generateContent but expected generateContentStream"
        );
        // The counter moved before the check: the generateContent line is lost.
        let err = g
            .generate("m", &request(), CancellationToken::new())
            .await
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Unexpected response type, next response was for countTokens but expected generateContent"
        );
        assert_eq!(stream_text(&g).await.unwrap(), "ab");
        let err = stream_text(&g).await.unwrap_err();
        assert_eq!(
            err.to_string(),
            "No more mock responses for generateContentStream, got request:\n{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"hi\"}]}]}"
        );
    }

    #[tokio::test]
    async fn non_strict_takes_first_unused_of_same_method() {
        let text = format!("{COUNT}\n{STREAM}\n{ONE}\n");
        let g = ReplayGenerator::from_jsonl(&text, "f", ReplayMode::NonStrict).unwrap();
        let one = g
            .generate("m", &request(), CancellationToken::new())
            .await
            .unwrap();
        assert_eq!(one.text(), "one");
        assert_eq!(stream_text(&g).await.unwrap(), "ab");
    }

    #[test]
    fn malformed_line_names_its_number() {
        let text = format!("{STREAM}\n\n{{\"method\":\"generateContent\",\"response\":[\n");
        let err = ReplayGenerator::from_jsonl(&text, "rec.responses", ReplayMode::Strict)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("rec.responses:3: "), "{err}");
    }

    #[test]
    fn unreadable_file_names_path() {
        let err =
            ReplayGenerator::from_file(Path::new("/nonexistent/x.responses"), ReplayMode::Strict)
                .unwrap_err()
                .to_string();
        assert!(err.contains("/nonexistent/x.responses"), "{err}");
        assert!(err.contains("does not exist"), "{err}");
    }

    #[tokio::test]
    async fn replays_every_upstream_recording() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance/upstream");
        let mut files = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "responses") {
                continue;
            }
            files += 1;
            let g = ReplayGenerator::from_file(&path, ReplayMode::NonStrict).unwrap();
            let recorded: Vec<RecordedResponse> = g
                .lines
                .iter()
                .map(|l| serde_json::from_str(&l.text).unwrap())
                .collect();
            for line in recorded {
                let name = path.display();
                match line {
                    RecordedResponse::GenerateContentStream(chunks) => {
                        let s = g
                            .generate_stream("m", &request(), CancellationToken::new())
                            .await
                            .unwrap();
                        let got: Vec<_> = s.map(|c| c.unwrap()).collect().await;
                        assert_eq!(got, chunks, "{name}");
                    }
                    RecordedResponse::GenerateContent(r) => {
                        let req = request();
                        let got = g.generate("m", &req, CancellationToken::new());
                        assert_eq!(got.await.unwrap(), *r, "{name}");
                    }
                    // Nothing in gemini-rs counts tokens or embeds.
                    RecordedResponse::CountTokens(_) | RecordedResponse::EmbedContent(_) => {}
                    RecordedResponse::OpenAiChatStream(_)
                    | RecordedResponse::AnthropicMessagesStream(_) => {
                        panic!("{name}: upstream recordings are Gemini-only")
                    }
                }
            }
        }
        assert!(
            files >= 30,
            "only {files} recordings found in {}",
            dir.display()
        );
    }
}
