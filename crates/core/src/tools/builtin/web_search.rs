//! `google_web_search`: one model call with the Google Search grounding
//! tool; the answer with `[n]` citation markers and a `Sources:` list, as
//! Gemini CLI v0.27.4 formats it.

use super::common::parse_params;
use super::grounding::{Offsets, cite};
use super::{Builtin, Make};
use crate::catalogue::builtins::WEB_SEARCH as SPEC;
use crate::tools::spec::identity_from_spec;
use crate::tools::{Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult};
use futures::future::BoxFuture;
use gemini_rs_protocol::{Content, GenerateContentRequest, GenerationConfig, Tool as ApiTool};
use serde::Deserialize;
use serde_json::{Map, Number, Value, json};
use std::sync::Arc;
use std::sync::LazyLock;
use tokio_util::sync::CancellationToken;

/// The model the search goes to (model config `web-search`).
const MODEL: &str = "gemini-2.5-flash";

const DESCRIPTION: &str = "Performs a web search using Google Search (via the Gemini API) and returns the results. This tool is useful for finding information on the internet based on a query.";

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "The search query to find information on the web."
            }
        },
        "required": ["query"]
    })
});

/// The `google_web_search` tool (display name `GoogleSearch`, kind search).
pub struct WebSearchTool;

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(WebSearchTool)),
};

impl Tool for WebSearchTool {
    identity_from_spec!(SPEC);
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn parameter_schema(&self) -> &Value {
        &SCHEMA
    }
    fn build(
        &self,
        args: &Map<String, Value>,
        _ctx: &ToolContext,
    ) -> Result<Box<dyn ToolInvocation>, ToolError> {
        let Params { query } = parse_params(args, &[])?;
        if query.trim().is_empty() {
            return Err(ToolError::invalid_params(
                "The 'query' parameter cannot be empty.",
            ));
        }
        Ok(Box::new(WebSearchInvocation { query }))
    }
}

/// The arguments of one call, after schema validation.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    /// What to search for.
    query: String,
}

struct WebSearchInvocation {
    query: String,
}

impl WebSearchInvocation {
    fn request(&self) -> GenerateContentRequest {
        GenerateContentRequest {
            contents: vec![Content::user_text(self.query.clone())],
            tools: Some(vec![ApiTool {
                google_search: Some(json!({})),
                ..ApiTool::default()
            }]),
            generation_config: Some(GenerationConfig {
                temperature: Some(Number::from(0)),
                top_p: Some(Number::from(1)),
                ..GenerationConfig::default()
            }),
            ..GenerateContentRequest::default()
        }
    }

    fn failure(&self, message: &str) -> ToolResult {
        let text = format!(
            "Error during web search for query \"{}\": {message}",
            self.query
        );
        ToolResult::error(
            ToolErrorKind::WebSearchFailed,
            text,
            "Error performing web search.",
        )
    }

    async fn run(&self, ctx: &ToolContext, cancel: CancellationToken) -> ToolResult {
        let Some(generator) = ctx.generator.clone() else {
            return self.failure("no model client is available to run the search.");
        };
        let response = match generator.generate(MODEL, &self.request(), cancel).await {
            Ok(r) => r,
            Err(e) => return self.failure(&e.to_string()),
        };
        let text = response.text();
        if text.trim().is_empty() {
            return ToolResult::text(
                format!(
                    "No search results or information found for query: \"{}\"",
                    self.query
                ),
                "No information found.",
            );
        }
        let meta = response
            .first_candidate()
            .and_then(|c| c.grounding_metadata.as_ref());
        let body = cite(&text, meta, Offsets::Utf8Bytes, "No URI");
        ToolResult::text(
            format!("Web search results for \"{}\":\n\n{body}", self.query),
            format!("Search results for \"{}\" returned.", self.query),
        )
    }
}

impl ToolInvocation for WebSearchInvocation {
    fn description(&self) -> String {
        format!("Searching the web for: \"{}\"", self.query)
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(self.run(ctx, cancel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelError;
    use crate::tools::builtin::web_fetch::test_support::{FakeGenerator, context, response};

    fn args(query: &str) -> Map<String, Value> {
        json!({"query": query}).as_object().unwrap().clone()
    }

    async fn search(fake: &std::sync::Arc<FakeGenerator>, query: &str) -> ToolResult {
        let (ctx, _dir) = context(Some(fake.clone()));
        let inv = WebSearchTool.build(&args(query), &ctx).unwrap();
        inv.execute(&ctx, CancellationToken::new()).await
    }

    #[tokio::test]
    async fn a11_web_search_and_request_shape() {
        let fake = FakeGenerator::new(vec![Ok(response(json!({
            "candidates": [{
                "content": {"role": "model", "parts": [{"text": "Rust is a language."}]},
                "groundingMetadata": {
                    "groundingChunks": [{"web": {"uri": "https://rust-lang.org", "title": "Rust"}}],
                    "groundingSupports": [{"segment": {"startIndex": 0, "endIndex": 7, "text": "Rust is"}, "groundingChunkIndices": [0]}]
                }
            }]
        })))]);
        let r = search(&fake, "rust").await;
        assert_eq!(r.error, None);
        assert_eq!(
            r.llm_text(),
            "Web search results for \"rust\":\n\nRust is[1] a language.\n\nSources:\n[1] Rust (https://rust-lang.org)"
        );
        assert_eq!(
            r.display.as_text(),
            Some("Search results for \"rust\" returned.")
        );
        let requests = fake.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].0, "gemini-2.5-flash");
        assert_eq!(
            serde_json::to_value(&requests[0].1).unwrap(),
            json!({
                "contents": [{"role": "user", "parts": [{"text": "rust"}]}],
                "tools": [{"googleSearch": {}}],
                "generationConfig": {"temperature": 0, "topP": 1}
            })
        );
    }

    #[tokio::test]
    async fn a11_web_search_empty() {
        let fake = FakeGenerator::new(vec![Ok(response(json!({
            "candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}]
        })))]);
        let r = search(&fake, "nothing").await;
        assert_eq!(r.error, None);
        assert_eq!(
            r.llm_text(),
            "No search results or information found for query: \"nothing\""
        );
        assert_eq!(r.display.as_text(), Some("No information found."));
    }

    #[tokio::test]
    async fn markers_use_utf8_byte_offsets() {
        // "Grüße sind" — "Grüße" is 7 bytes (5 chars, 5 UTF-16 units).
        let fake = FakeGenerator::new(vec![Ok(response(json!({
            "candidates": [{
                "content": {"parts": [{"text": "Grüße sind nett."}]},
                "groundingMetadata": {
                    "groundingChunks": [{"web": {"title": "A", "uri": "https://a"}}, {"web": {"title": ""}}],
                    "groundingSupports": [
                        {"segment": {"endIndex": 7}, "groundingChunkIndices": [0]},
                        {"segment": {"endIndex": 18}, "groundingChunkIndices": [0, 1]}
                    ]
                }
            }]
        })))]);
        let r = search(&fake, "q").await;
        assert_eq!(
            r.llm_text(),
            "Web search results for \"q\":\n\nGrüße[1] sind nett.[1][2]\n\nSources:\n[1] A (https://a)\n[2] Untitled (No URI)"
        );
    }

    #[tokio::test]
    async fn model_failure_and_missing_client() {
        let fake = FakeGenerator::new(vec![Err(ModelError::Api {
            status: 500,
            message: "boom".into(),
        })]);
        let r = search(&fake, "q").await;
        let err = r.error.clone().unwrap();
        assert_eq!(err.kind, ToolErrorKind::WebSearchFailed);
        assert_eq!(
            err.message,
            "Error during web search for query \"q\": The Gemini API returned HTTP 500: boom"
        );
        assert_eq!(r.display.as_text(), Some("Error performing web search."));

        let (ctx, _dir) = context(None);
        let inv = WebSearchTool.build(&args("q"), &ctx).unwrap();
        assert_eq!(inv.description(), "Searching the web for: \"q\"");
        let r = inv.execute(&ctx, CancellationToken::new()).await;
        assert_eq!(
            r.error.unwrap().message,
            "Error during web search for query \"q\": no model client is available to run the search."
        );
    }

    #[test]
    fn blank_query_is_rejected() {
        let (ctx, _dir) = context(None);
        let err = WebSearchTool.build(&args(" \n"), &ctx).err().unwrap();
        assert_eq!(err.message, "The 'query' parameter cannot be empty.");
    }
}
