//! Recording of model answers (Gemini CLI's `--record-responses`).

use super::{ChunkStream, ContentGenerator, ModelError};
use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse, RecordedResponse};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// Wraps a generator and appends each successful answer to a JSONL file in
/// the format [`super::ReplayGenerator`] reads.
pub struct RecordingGenerator {
    inner: Arc<dyn ContentGenerator>,
    sink: Arc<ResponseSink>,
}

/// A `--record-responses` file; the mutex keeps concurrent lines whole.
/// Provider wires that record their raw stream events append here directly.
pub struct ResponseSink {
    path: PathBuf,
    lock: Mutex<()>,
}

impl ResponseSink {
    /// A sink appending to `path` (created on the first line).
    pub fn new(path: PathBuf) -> ResponseSink {
        ResponseSink {
            path,
            lock: Mutex::new(()),
        }
    }

    /// Appends one compact JSON line. Failures are logged, never returned.
    pub fn append(&self, record: &RecordedResponse) {
        let _guard = self
            .lock
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Err(e) = write_line(&self.path, record) {
            tracing::warn!(
                path = %self.path.display(),
                "could not record a model response: {e}"
            );
        }
    }
}

fn write_line(path: &Path, record: &RecordedResponse) -> std::io::Result<()> {
    let mut line = serde_json::to_string(record)?;
    line.push('\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(line.as_bytes())?;
    file.flush()
}

impl RecordingGenerator {
    #[cfg(test)]
    /// Records the answers of `inner` to `path` (created if missing, appended to).
    pub fn new(inner: Arc<dyn ContentGenerator>, path: PathBuf) -> RecordingGenerator {
        RecordingGenerator {
            inner,
            sink: Arc::new(ResponseSink::new(path)),
        }
    }

    /// Records the answers of `inner` to an open sink (shared with the
    /// other wires of a session).
    pub fn with_sink(inner: Arc<dyn ContentGenerator>, sink: Arc<ResponseSink>) -> Self {
        RecordingGenerator { inner, sink }
    }
}

/// Passes `stream` through, collecting its chunks; writes them once it ends
/// without an error.
fn recording_stream(stream: ChunkStream, sink: Arc<ResponseSink>) -> ChunkStream {
    let state = Some((stream, Vec::new(), sink));
    futures::stream::unfold(state, |state| async move {
        let (mut stream, mut chunks, sink) = state?;
        match stream.next().await {
            Some(Ok(chunk)) => {
                chunks.push(chunk.clone());
                Some((Ok(chunk), Some((stream, chunks, sink))))
            }
            Some(Err(e)) => Some((Err(e), None)),
            None => {
                sink.append(&RecordedResponse::GenerateContentStream(chunks));
                None
            }
        }
    })
    .boxed()
}

impl ContentGenerator for RecordingGenerator {
    fn generate_stream<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        async move {
            let stream = self.inner.generate_stream(model, request, cancel).await?;
            Ok(recording_stream(stream, self.sink.clone()))
        }
        .boxed()
    }

    fn generate<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>> {
        async move {
            let response = self.inner.generate(model, request, cancel).await?;
            self.sink
                .append(&RecordedResponse::GenerateContent(Box::new(
                    response.clone(),
                )));
            Ok(response)
        }
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ReplayGenerator, ReplayMode};

    const LINES: &str = concat!(
        r#"{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"text":"a"}]}}]},{"usageMetadata":{"totalTokenCount":3}}]}"#,
        "\n",
        r#"{"method":"generateContent","response":{"candidates":[{"content":{"role":"model","parts":[{"text":"one"}]}}]}}"#,
        "\n",
    );

    #[tokio::test]
    async fn records_what_replays_back_identically() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("rec.responses");
        let replay = ReplayGenerator::from_jsonl(LINES, "src", ReplayMode::Strict).unwrap();
        let rec = RecordingGenerator::new(Arc::new(replay), out.clone());
        let req = GenerateContentRequest::default();
        let s = rec
            .generate_stream("m", &req, CancellationToken::new())
            .await
            .unwrap();
        let chunks: Vec<_> = s.collect().await;
        assert_eq!(chunks.len(), 2);
        rec.generate("m", &req, CancellationToken::new())
            .await
            .unwrap();
        assert_eq!(std::fs::read_to_string(&out).unwrap(), LINES);
        // A failed call records nothing.
        assert!(
            rec.generate("m", &req, CancellationToken::new())
                .await
                .is_err()
        );
        assert_eq!(std::fs::read_to_string(&out).unwrap(), LINES);
    }

    #[tokio::test]
    async fn write_failure_is_not_fatal() {
        let replay = ReplayGenerator::from_jsonl(LINES, "src", ReplayMode::NonStrict).unwrap();
        let out = PathBuf::from("/nonexistent-dir/out.responses");
        let rec = RecordingGenerator::new(Arc::new(replay), out);
        let one = rec
            .generate(
                "m",
                &GenerateContentRequest::default(),
                CancellationToken::new(),
            )
            .await
            .unwrap();
        assert_eq!(one.text(), "one");
    }

    #[tokio::test]
    async fn failed_stream_is_not_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("x.responses");
        let sink = Arc::new(ResponseSink::new(out.clone()));
        let inner: ChunkStream = futures::stream::iter(vec![
            Ok(GenerateContentResponse::default()),
            Err(ModelError::StreamCut {
                message: "cut".into(),
            }),
        ])
        .boxed();
        let items: Vec<_> = recording_stream(inner, sink).collect().await;
        assert_eq!(items.len(), 2);
        assert!(!out.exists());
    }
}
