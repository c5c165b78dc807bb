//! `web_fetch`: answers a prompt about the URLs it contains, as Gemini CLI
//! v0.27.4 does. A private or localhost first URL is fetched directly;
//! otherwise the model reads the pages through its URL-context tool, and a
//! direct fetch of the first URL is the fallback when that yields nothing.

mod fetch;
mod hosts;
#[cfg(test)]
pub(crate) mod test_support;
#[cfg(test)]
mod tests;

use super::common::parse_params;
use super::grounding::{Offsets, cite, has_sources};
use super::{Builtin, Make};
use crate::catalogue::builtins::WEB_FETCH as SPEC;
use crate::config::lenient::{from_object, wrong_type_as_none as lenient};
use crate::model::{ContentGenerator, ModelError};
use crate::tools::spec::identity_from_spec;
use crate::tools::{
    ConfirmationDetails, Tool, ToolContext, ToolError, ToolErrorKind, ToolInvocation, ToolResult,
};
use fetch::{FetchError, FetchLimits, fetch, github_raw, is_private_url, page_text};
use futures::future::BoxFuture;
use gemini_rs_protocol::{
    Content, GenerateContentRequest, GenerateContentResponse, GenerationConfig, Tool as ApiTool,
};
use reqwest::Url;
use serde::Deserialize;
use serde_json::{Map, Number, Value, json};
use std::sync::{Arc, LazyLock};
use tokio_util::sync::CancellationToken;

/// The model both `web_fetch` calls go to (model configs `web-fetch` and
/// `web-fetch-fallback`).
const MODEL: &str = "gemini-2.5-flash";

/// Characters of page text handed to the model.
const MAX_CONTENT_LENGTH: usize = 100_000;

const DESCRIPTION: &str = "Processes content from URL(s), including local and private network addresses (e.g., localhost), embedded in a prompt. Include up to 20 URLs and instructions (e.g., summarize, extract specific data) directly in the 'prompt' parameter.";

static SCHEMA: LazyLock<Value> = LazyLock::new(|| {
    json!({
        "properties": {
            "prompt": {
                "description": "A comprehensive prompt that includes the URL(s) (up to 20) to fetch and specific instructions on how to process their content (e.g., \"Summarize https://example.com/article and extract key points from https://another.com/data\"). All URLs to be fetched must be valid and complete, starting with \"http://\" or \"https://\", and be fully-formed with a valid hostname (e.g., a domain name like \"example.com\" or an IP address). For example, \"https://example.com\" is valid, but \"example.com\" is not.",
                "type": "string"
            }
        },
        "required": ["prompt"],
        "type": "object"
    })
});

/// The `web_fetch` tool (display name `WebFetch`, kind fetch).
pub struct WebFetchTool;

/// The http(s) URLs of a prompt and the errors of its other `://` tokens.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct ParsedPrompt {
    /// Valid URLs, normalised as WHATWG `href`s.
    pub urls: Vec<String>,
    /// One message per bad token.
    pub errors: Vec<String>,
}

/// Splits the prompt on whitespace and checks every token containing `://`.
pub(crate) fn parse_prompt(text: &str) -> ParsedPrompt {
    let mut out = ParsedPrompt::default();
    for token in text.split_whitespace().filter(|t| t.contains("://")) {
        match Url::parse(token) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => out.urls.push(url.to_string()),
            Ok(_) => out.errors.push(format!(
                "Unsupported protocol in URL: \"{token}\". Only http and https are supported."
            )),
            Err(_) => out
                .errors
                .push(format!("Malformed URL detected: \"{token}\".")),
        }
    }
    out
}

/// Why a `web_fetch` prompt was refused (Gemini CLI's texts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum PromptError {
    /// The prompt is blank.
    #[error("The 'prompt' parameter cannot be empty and must contain URL(s) and instructions.")]
    Empty,
    /// Some URL-like words are not URLs; one message each.
    #[error("Error(s) in prompt URLs:\n- {}", .0.join("\n- "))]
    BadUrls(Vec<String>),
    /// No URL at all.
    #[error(
        "The 'prompt' must contain at least one valid URL (starting with http:// or https://)."
    )]
    NoUrl,
}

/// The prompt's URLs, or why it was refused.
fn validate(prompt: &str) -> Result<Vec<String>, PromptError> {
    if prompt.trim().is_empty() {
        return Err(PromptError::Empty);
    }
    let parsed = parse_prompt(prompt);
    if !parsed.errors.is_empty() {
        return Err(PromptError::BadUrls(parsed.errors));
    }
    if parsed.urls.is_empty() {
        return Err(PromptError::NoUrl);
    }
    Ok(parsed.urls)
}

/// Its registration (every session registers it).
pub(super) const BUILTIN: Builtin = Builtin {
    make: Make::Always(|| Arc::new(WebFetchTool)),
};

impl Tool for WebFetchTool {
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
        let Params { prompt } = parse_params(args, &[])?;
        let urls = validate(&prompt).map_err(|e| ToolError::invalid_params(e.to_string()))?;
        Ok(Box::new(WebFetchInvocation::new(
            &prompt,
            urls,
            FetchLimits::default(),
        )))
    }
}

/// The arguments of one call, after schema validation.
#[derive(Debug, Default, PartialEq, Deserialize)]
#[serde(default)]
struct Params {
    /// Instructions with the URLs to fetch.
    prompt: String,
}

/// `{"temperature":0,"topP":1}`, the utility model config.
fn utility_config() -> GenerationConfig {
    GenerationConfig {
        temperature: Some(Number::from(0)),
        top_p: Some(Number::from(1)),
        ..GenerationConfig::default()
    }
}

/// The user text of the fallback request: the prompt and the fetched text.
fn fallback_prompt(prompt: &str, text: &str) -> String {
    format!(
        "The user asked: \"{prompt}\".\n\nThe page could not be fetched through the URL tool, so its raw \
         content was fetched directly and is given below. Answer the request from this content only; do \
         not try to open the URL again.\n\n---\n{text}\n---\n"
    )
}

/// A candidate's `urlContextMetadata`; a field of the wrong type reads as
/// absent.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct UrlContext {
    #[serde(deserialize_with = "lenient")]
    url_metadata: Option<Vec<Value>>,
}

/// One URL's entry of [`UrlContext`].
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct UrlMeta {
    #[serde(deserialize_with = "lenient")]
    url_retrieval_status: Option<String>,
}

/// True when the URL-context answer is unusable: every URL failed to load,
/// or there is neither text nor a source.
fn primary_failed(response: &GenerateContentResponse) -> bool {
    let candidate = response.first_candidate();
    let statuses: Vec<Option<String>> = candidate
        .and_then(|c| c.url_context_metadata.as_ref())
        .map(from_object::<UrlContext>)
        .and_then(|m| m.url_metadata)
        .map(|list| {
            list.iter()
                .map(|m| from_object::<UrlMeta>(m).url_retrieval_status)
                .collect()
        })
        .unwrap_or_default();
    if !statuses.is_empty()
        && statuses
            .iter()
            .all(|s| s.as_deref() != Some("URL_RETRIEVAL_STATUS_SUCCESS"))
    {
        return true;
    }
    let sources = has_sources(candidate.and_then(|c| c.grounding_metadata.as_ref()));
    response.text().trim().is_empty() && !sources
}

struct WebFetchInvocation {
    prompt: String,
    urls: Vec<String>,
    limits: FetchLimits,
}

impl WebFetchInvocation {
    fn new(prompt: &str, urls: Vec<String>, limits: FetchLimits) -> Self {
        WebFetchInvocation {
            prompt: prompt.to_string(),
            urls,
            limits,
        }
    }

    /// 0.61's way: private and local hosts are skipped (an error when
    /// every URL is), the rest read through the model, with a warning
    /// naming the skipped ones.
    async fn execute_today(&self, ctx: &ToolContext, cancel: CancellationToken) -> ToolResult {
        let mut skipped = Vec::new();
        let mut kept = Vec::new();
        for url in hosts::normalized(&self.urls) {
            if hosts::is_blocked_host(&url).await {
                skipped.push(format!("[Blocked Host] {url}"));
            } else {
                kept.push(url);
            }
        }
        if kept.is_empty() && !skipped.is_empty() {
            let text = format!("All requested URLs were skipped: {}", skipped.join(", "));
            return ToolResult::error(
                ToolErrorKind::WebFetchProcessingError,
                text.clone(),
                format!("Error: {text}"),
            );
        }
        let rest = WebFetchInvocation::new(&self.prompt, kept, self.limits.clone());
        let mut result = rest.primary(ctx, cancel).await;
        if !skipped.is_empty() && result.error.is_none() {
            let warning = format!(
                "[Warning] The following URLs were skipped:\n{}\n\n",
                skipped.join("\n")
            );
            if let Some(text) = result.llm_content.first_mut().and_then(|p| p.text.as_mut()) {
                text.insert_str(0, &warning);
            }
        }
        result
    }

    fn first_url(&self) -> &str {
        self.urls.first().map(String::as_str).unwrap_or_default()
    }

    fn processing_error(&self, message: &str) -> ToolResult {
        let head: String = self.prompt.chars().take(50).collect();
        let text = format!("Error processing web content for prompt \"{head}...\": {message}");
        ToolResult::error(
            ToolErrorKind::WebFetchProcessingError,
            text.clone(),
            format!("Error: {text}"),
        )
    }

    /// The URL-context path: one model call that reads the pages itself.
    async fn primary(&self, ctx: &ToolContext, cancel: CancellationToken) -> ToolResult {
        let Some(generator) = ctx.generator.clone() else {
            return self.processing_error("no model client is available to process web content.");
        };
        let request = GenerateContentRequest {
            contents: vec![Content::user_text(self.prompt.clone())],
            tools: Some(vec![ApiTool {
                url_context: Some(json!({})),
                ..ApiTool::default()
            }]),
            generation_config: Some(utility_config()),
            ..GenerateContentRequest::default()
        };
        let response = match generator.generate(MODEL, &request, cancel.clone()).await {
            Ok(r) => r,
            Err(ModelError::Cancelled) => {
                return self.processing_error(&ModelError::Cancelled.to_string());
            }
            Err(e) => {
                tracing::debug!("web_fetch: URL-context call failed ({e}); fetching directly");
                return self.fallback(Some(generator), cancel).await;
            }
        };
        if primary_failed(&response) {
            tracing::debug!("web_fetch: URL-context call gave nothing usable; fetching directly");
            return self.fallback(Some(generator), cancel).await;
        }
        let meta = response
            .first_candidate()
            .and_then(|c| c.grounding_metadata.as_ref());
        let text = cite(&response.text(), meta, Offsets::Utf16Units, "Unknown URI");
        ToolResult::text(text, "Content processed from prompt.")
    }

    /// The direct path: fetch the first URL, then one model call over its text.
    async fn fallback(
        &self,
        generator: Option<Arc<dyn ContentGenerator>>,
        cancel: CancellationToken,
    ) -> ToolResult {
        let url = github_raw(self.first_url());
        match self.fetch_and_answer(&url, generator, cancel).await {
            Ok(text) => ToolResult::text(
                text,
                format!("Content for {url} processed using fallback fetch."),
            ),
            Err(message) => {
                let text = format!("Error during fallback fetch for {url}: {message}");
                ToolResult::error(
                    ToolErrorKind::WebFetchFallbackFailed,
                    text.clone(),
                    format!("Error: {text}"),
                )
            }
        }
    }

    async fn fetch_and_answer(
        &self,
        url: &str,
        generator: Option<Arc<dyn ContentGenerator>>,
        cancel: CancellationToken,
    ) -> Result<String, FetchError> {
        let generator = generator.ok_or(FetchError::NoModel)?;
        let fetched = fetch(url, &self.limits, &cancel).await?;
        let text = page_text(&fetched, MAX_CONTENT_LENGTH)?;
        let request = GenerateContentRequest {
            contents: vec![Content::user_text(fallback_prompt(&self.prompt, &text))],
            generation_config: Some(utility_config()),
            ..GenerateContentRequest::default()
        };
        let response = generator.generate(MODEL, &request, cancel).await?;
        Ok(response.text())
    }
}

impl ToolInvocation for WebFetchInvocation {
    fn description(&self) -> String {
        let shown = if self.prompt.chars().count() > 100 {
            format!("{}...", self.prompt.chars().take(97).collect::<String>())
        } else {
            self.prompt.clone()
        };
        format!("Processing URLs and instructions from prompt: \"{shown}\"")
    }

    fn confirmation<'a>(
        &'a self,
        _ctx: &'a ToolContext,
    ) -> BoxFuture<'a, Option<ConfirmationDetails>> {
        Box::pin(async move {
            Some(ConfirmationDetails::Info {
                title: "Confirm Web Fetch".to_string(),
                prompt: self.prompt.clone(),
                urls: self.urls.iter().map(|u| github_raw(u)).collect(),
            })
        })
    }

    fn execute<'a>(
        &'a self,
        ctx: &'a ToolContext,
        cancel: CancellationToken,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            if ctx.dialect.texts().web_fetch_blocks_private_hosts {
                return self.execute_today(ctx, cancel).await;
            }
            if is_private_url(self.first_url()) {
                return self.fallback(ctx.generator.clone(), cancel).await;
            }
            self.primary(ctx, cancel).await
        })
    }
}
