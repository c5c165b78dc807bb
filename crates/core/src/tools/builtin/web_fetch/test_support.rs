//! Test helpers shared by the web tools' tests: a scripted model client that
//! records its requests and a tool context. Pages are served by
//! `gemini_rs_test_support::FakeServer`.

use crate::config::Settings;
use crate::model::{ChunkStream, ContentGenerator, ModelError};
use crate::tools::ToolContext;
use crate::workspace::Workspace;
use futures::future::BoxFuture;
use gemini_rs_protocol::{GenerateContentRequest, GenerateContentResponse};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio_util::sync::CancellationToken;

/// A model client answering `generate` from a script, recording every
/// `(model, request)` it gets.
pub(crate) struct FakeGenerator {
    replies: Mutex<VecDeque<Result<GenerateContentResponse, ModelError>>>,
    requests: Mutex<Vec<(String, GenerateContentRequest)>>,
}

impl FakeGenerator {
    /// A client that gives `replies` in order.
    pub(crate) fn new(replies: Vec<Result<GenerateContentResponse, ModelError>>) -> Arc<Self> {
        Arc::new(FakeGenerator {
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
        })
    }

    /// The requests so far.
    pub(crate) fn requests(&self) -> Vec<(String, GenerateContentRequest)> {
        self.requests.lock().unwrap().clone()
    }

    /// The user text of request `i`.
    pub(crate) fn user_text(&self, i: usize) -> String {
        self.requests()[i].1.contents[0].text()
    }
}

impl ContentGenerator for FakeGenerator {
    fn generate_stream<'a>(
        &'a self,
        _model: &'a str,
        _request: &'a GenerateContentRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<ChunkStream, ModelError>> {
        Box::pin(async {
            Err(ModelError::Replay {
                message: "streaming is not scripted".into(),
            })
        })
    }

    fn generate<'a>(
        &'a self,
        model: &'a str,
        request: &'a GenerateContentRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'a, Result<GenerateContentResponse, ModelError>> {
        self.requests
            .lock()
            .unwrap()
            .push((model.to_string(), request.clone()));
        let reply = self.replies.lock().unwrap().pop_front().unwrap_or_else(|| {
            Err(ModelError::Replay {
                message: "no more scripted replies".into(),
            })
        });
        Box::pin(async move { reply })
    }
}

/// A response from its JSON form.
pub(crate) fn response(v: Value) -> GenerateContentResponse {
    serde_json::from_value(v).unwrap()
}

/// A response with one text part.
pub(crate) fn text_response(text: &str) -> GenerateContentResponse {
    response(json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}]}))
}

/// A tool context in a temp dir, with the given model client.
pub(crate) fn context(generator: Option<Arc<FakeGenerator>>) -> (ToolContext, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let ws = Workspace::new(root.clone(), vec![], root.join(".tmp"));
    let mut ctx = ToolContext::new(
        Arc::new(ws),
        Arc::new(Settings::from_value(json!({}))),
        "gemini-2.5-flash",
    );
    ctx.generator = generator.map(|g| g as Arc<dyn ContentGenerator>);
    (ctx, dir)
}

/// True when an HTTP client can be built in this test binary. reqwest needs
/// a rustls crypto provider installed process-wide (the binary does that at
/// start); without one the direct-fetch tests cannot run and are skipped.
pub(crate) fn http_ready() -> bool {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let ok = crate::model::http::build_client(reqwest::Client::builder()).is_ok();
    if !ok {
        eprintln!("skipped: no rustls crypto provider is installed in this test binary");
    }
    ok
}
