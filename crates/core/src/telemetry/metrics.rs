//! Metrics with Gemini CLI's instrument names: token usage, request and
//! tool-call counts (errors are the count with a failing status) and
//! latency histograms in milliseconds.

use gemini_rs_protocol::UsageMetadata;
use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider as _};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use std::time::Duration;

pub(super) struct Metrics {
    pub session_count: Counter<u64>,
    tokens: Counter<u64>,
    api_requests: Counter<u64>,
    api_latency: Histogram<f64>,
    tool_calls: Counter<u64>,
    tool_latency: Histogram<f64>,
}

impl Metrics {
    pub(super) fn new(provider: &SdkMeterProvider) -> Metrics {
        let meter = provider.meter(super::SCOPE);
        Metrics {
            session_count: meter
                .u64_counter("gemini_cli.session.count")
                .with_description("Count of CLI sessions started.")
                .build(),
            tokens: meter
                .u64_counter("gemini_cli.token.usage")
                .with_description("Counts the total number of tokens used.")
                .build(),
            api_requests: meter
                .u64_counter("gemini_cli.api.request.count")
                .with_description("Counts API requests, tagged by model and status.")
                .build(),
            api_latency: meter
                .f64_histogram("gemini_cli.api.request.latency")
                .with_unit("ms")
                .with_description("Latency of API requests in milliseconds.")
                .build(),
            tool_calls: meter
                .u64_counter("gemini_cli.tool.call.count")
                .with_description("Counts tool calls, tagged by function name and success.")
                .build(),
            tool_latency: meter
                .f64_histogram("gemini_cli.tool.call.latency")
                .with_unit("ms")
                .with_description("Latency of tool calls in milliseconds.")
                .build(),
        }
    }

    pub(super) fn api_response(&self, model: &str, usage: &UsageMetadata, took: Duration) {
        let model_attr = KeyValue::new("model", model.to_string());
        self.api_requests
            .add(1, &[model_attr.clone(), KeyValue::new("status_code", 200)]);
        self.api_latency.record(
            took.as_secs_f64() * 1000.0,
            std::slice::from_ref(&model_attr),
        );
        for (kind, n) in [
            ("input", usage.prompt_token_count),
            ("output", usage.candidates_token_count),
            ("thought", usage.thoughts_token_count),
            ("cache", usage.cached_content_token_count),
            ("tool", usage.tool_use_prompt_token_count),
        ] {
            if let Some(n) = n.filter(|n| *n > 0) {
                self.tokens
                    .add(n, &[model_attr.clone(), KeyValue::new("type", kind)]);
            }
        }
    }

    pub(super) fn api_error(&self, model: &str) {
        self.api_requests.add(
            1,
            &[
                KeyValue::new("model", model.to_string()),
                KeyValue::new("status_code", "error"),
            ],
        );
    }

    pub(super) fn tool_call(
        &self,
        name: &str,
        success: bool,
        decision: &'static str,
        took: Duration,
    ) {
        let attrs = [
            KeyValue::new("function_name", name.to_string()),
            KeyValue::new("success", success),
            KeyValue::new("decision", decision),
        ];
        self.tool_calls.add(1, &attrs);
        self.tool_latency
            .record(took.as_secs_f64() * 1000.0, &attrs[..1]);
    }
}
