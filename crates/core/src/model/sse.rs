//! Server-sent events of `streamGenerateContent?alt=sse` to response chunks.

use super::error::ModelError;
use super::retry::error_for_status;
use super::wire::{Sse, SseEvent};
use bytes::Bytes;
use futures::stream::{BoxStream, Stream, StreamExt};
use gemini_rs_protocol::GenerateContentResponse;
use serde::Deserialize;
use serde_json::Value;

/// An error reported inside the stream (`{"error": {...}}`). Its leaves
/// stay lenient: an odd code is a 500, a missing message a generic one.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct StreamError {
    code: Value,
    message: Value,
}

/// One event as a response chunk, parsed once; an `{"error": {...}}`
/// event (an unmodelled field of a chunk) is the error it reports.
pub(crate) fn chunk_of(
    event: &SseEvent,
    model: &str,
) -> Result<GenerateContentResponse, ModelError> {
    let mut chunk: GenerateContentResponse = event.parse()?;
    if let Some(err) = chunk.extra.remove("error") {
        if !err.is_object() {
            chunk.extra.insert("error".into(), err);
            return Ok(chunk);
        }
        let err = StreamError::deserialize(&err).map_err(|e| event.malformed(&e))?;
        let status = err
            .code
            .as_u64()
            .and_then(|c| u16::try_from(c).ok())
            .unwrap_or(500);
        let message = err
            .message
            .as_str()
            .unwrap_or("error reported inside the response stream")
            .to_string();
        return Err(error_for_status(status, message, model));
    }
    Ok(chunk)
}

/// Turns a byte stream of SSE into response chunks. The stream ends after the
/// first error it yields. A stream that gave content but no `finishReason`
/// ends with [`ModelError::Incomplete`]; one that gave nothing ends quietly
/// (the agent retries such an empty answer as Gemini CLI does).
pub(crate) fn chunk_stream<S>(
    bytes: S,
    model: String,
) -> BoxStream<'static, Result<GenerateContentResponse, ModelError>>
where
    S: Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
{
    let events = super::wire::sse_events(bytes);
    // (events, content seen, finish reason seen)
    futures::stream::unfold(Some((events, false, false)), move |state| {
        let model = model.clone();
        async move {
            let (mut events, mut said, mut finished) = state?;
            let item = loop {
                match events.next().await {
                    Some(Ok(Sse::Done)) => continue,
                    Some(Ok(Sse::Event(e))) => break chunk_of(&e, &model),
                    Some(Err(e)) => break Err(e),
                    None if said && !finished => {
                        break Err(ModelError::Incomplete {
                            marker: "a finishReason".to_string(),
                        });
                    }
                    None => return None,
                }
            };
            if let Ok(chunk) = &item {
                for candidate in chunk.candidates.iter().flatten() {
                    finished |= candidate.finish_reason.is_some();
                    said |= candidate
                        .content
                        .as_ref()
                        .is_some_and(|c| !c.parts.is_empty());
                }
            }
            let next = item.is_ok().then_some((events, said, finished));
            Some((item, next))
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body_stream(
        parts: Vec<Result<&'static str, ModelError>>,
    ) -> impl Stream<Item = Result<Bytes, ModelError>> + Send + 'static {
        futures::stream::iter(
            parts
                .into_iter()
                .map(|p| p.map(|s| Bytes::from_static(s.as_bytes()))),
        )
    }

    #[tokio::test]
    async fn parses_multi_event_body_split_anywhere() {
        let body = vec![
            Ok(
                "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel",
            ),
            Ok("lo\"}]}}]}\r\n\r\n: keep-alive\r\n\r\ndata: {\"usageMetadata\":"),
            Ok(
                "{\"totalTokenCount\":3},\"candidates\":[{\"finishReason\":\"STOP\"}]}\n\ndata: [DONE]\n\n",
            ),
        ];
        let chunks: Vec<_> = chunk_stream(body_stream(body), "m".into()).collect().await;
        assert_eq!(chunks.len(), 2);
        let first = chunks[0].as_ref().unwrap();
        assert_eq!(first.text(), "Hello");
        let second = chunks[1].as_ref().unwrap();
        assert_eq!(
            second.usage_metadata.as_ref().unwrap().total_token_count,
            Some(3)
        );
    }

    #[tokio::test]
    async fn malformed_event_is_named_and_ends_stream() {
        let body = vec![Ok("data: {\"candidates\": [\n\ndata: {}\n\n")];
        let chunks: Vec<_> = chunk_stream(body_stream(body), "m".into()).collect().await;
        assert_eq!(chunks.len(), 1);
        let err = chunks[0].as_ref().unwrap_err();
        assert!(matches!(err, ModelError::MalformedChunk { .. }));
        assert!(err.to_string().contains("{\"candidates\": ["), "{err}");
    }

    #[tokio::test]
    async fn transport_error_is_a_cut() {
        let body = vec![
            Ok("data: {}\n\n"),
            Err(ModelError::StreamCut {
                message: "reset".into(),
            }),
        ];
        let chunks: Vec<_> = chunk_stream(body_stream(body), "m".into()).collect().await;
        assert_eq!(chunks.len(), 2);
        assert!(chunks[0].is_ok());
        assert!(matches!(chunks[1], Err(ModelError::StreamCut { .. })));
    }

    #[tokio::test]
    async fn content_without_a_finish_reason_is_incomplete() {
        let text = "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]}}]}\n\n";
        let chunks: Vec<_> = chunk_stream(body_stream(vec![Ok(text)]), "m".into())
            .collect()
            .await;
        assert_eq!(chunks.len(), 2);
        assert!(matches!(chunks[1], Err(ModelError::Incomplete { .. })));
        // Nothing at all is left to the agent's retry of empty answers.
        let chunks: Vec<_> = chunk_stream(body_stream(vec![Ok("data: {}\n\n")]), "m".into())
            .collect()
            .await;
        assert_eq!(chunks.len(), 1);
    }

    #[test]
    fn error_objects_in_stream_map_to_statuses() {
        let e = chunk_of(
            &SseEvent::from_value(
                &serde_json::json!({"error": {"code": 503, "message": "overloaded"}}),
            ),
            "m",
        )
        .unwrap_err();
        assert!(e.is_retryable());
        assert!(e.to_string().contains("overloaded"));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;
        use serde_json::json;

        /// The texts of the chunks `body` yields when it arrives in pieces
        /// cut at `cuts` (byte offsets, any order, duplicates allowed).
        fn texts(body: &[u8], cuts: &[usize]) -> Vec<Result<String, String>> {
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut from = 0;
            for cut in cuts.into_iter().chain([body.len()]) {
                pieces.push(Ok::<_, ModelError>(Bytes::copy_from_slice(
                    &body[from..cut],
                )));
                from = cut;
            }
            let stream = chunk_stream(futures::stream::iter(pieces), "m".into());
            futures::executor::block_on(stream.collect::<Vec<_>>())
                .into_iter()
                .map(|r| r.map(|c| c.text()).map_err(|e| e.to_string()))
                .collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]

            /// Cutting a stream at arbitrary byte boundaries (inside lines,
            /// inside UTF-8 characters, between CR and LF) yields the same
            /// events as reading it whole.
            #[test]
            fn splitting_anywhere_yields_the_same_events(
                events in proptest::collection::vec(("\\PC{0,12}", any::<bool>(), any::<bool>()), 1..6),
                cuts in proptest::collection::vec(any::<usize>(), 0..12),
            ) {
                let mut body = String::new();
                let mut want = Vec::new();
                for (text, crlf, keep_alive) in &events {
                    let nl = if *crlf { "\r\n" } else { "\n" };
                    if *keep_alive {
                        body.push_str(&format!(": keep-alive{nl}{nl}"));
                    }
                    let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]});
                    body.push_str(&format!("data: {chunk}{nl}{nl}"));
                    want.push(Ok(text.clone()));
                }
                body.push_str("data: {\"candidates\": [{\"finishReason\": \"STOP\"}]}\n\n");
                want.push(Ok(String::new()));
                let whole = texts(body.as_bytes(), &[]);
                prop_assert_eq!(&whole, &want);
                prop_assert_eq!(texts(body.as_bytes(), &cuts), want);
            }
        }
    }
}
