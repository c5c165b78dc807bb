//! Session metrics in the shape of Gemini CLI's `SessionMetrics` JSON
//! (`-o json`'s `stats`): model requests and tokens per model, tool calls
//! and decisions, lines changed.

use crate::UsageMetadata;
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// How a call was approved, counted in `decisions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Approved (by the user or by policy).
    Accept,
    /// Refused.
    Reject,
    /// Approved after the user edited it.
    Modify,
    /// Approved automatically.
    AutoAccept,
}

/// Everything counted during a session, keyed in first-use order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionStats {
    /// Requests and tokens per model id.
    pub models: IndexMap<String, ModelMetrics>,
    /// Tool calls, in total and per tool.
    pub tools: ToolMetrics,
    /// Lines changed by edits.
    pub files: FileMetrics,
    /// The session's peak memory in MiB: the process's resident set (its
    /// own share over ACP is not separable and is left out there) plus its
    /// children's, as measured.
    #[serde(
        rename = "peakMemoryMb",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub peak_memory_mb: Option<u64>,
    /// CPU time in milliseconds: the process's and its children's
    /// (headless), or the session's children's (ACP).
    #[serde(rename = "cpuMs", default, skip_serializing_if = "Option::is_none")]
    pub cpu_ms: Option<u64>,
    /// Attempts that failed and were retried, not yet given a role.
    #[serde(skip)]
    pending: Vec<PendingFailure>,
}

/// One model's requests and tokens.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelMetrics {
    /// Requests, errors and latency.
    pub api: ApiMetrics,
    /// Token counts, summed over requests.
    pub tokens: TokenMetrics,
    /// The same per role of the requests (`main`: the session's agent,
    /// `subagent`: a sub-agent's), as Gemini CLI 0.61 counts them.
    #[serde(default)]
    pub roles: IndexMap<String, RoleMetrics>,
    /// What the requests cost in US dollars, from the model's price
    /// (absent when it has none).
    #[serde(rename = "costUsd", default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// Requests to one model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApiMetrics {
    /// Requests sent.
    pub total_requests: u64,
    /// Requests that failed.
    pub total_errors: u64,
    /// Summed latency in milliseconds.
    pub total_latency_ms: u64,
    /// Failed requests and answers by kind, as Gemini CLI 0.61 counts
    /// them (`ApiError`: an HTTP error status, a retried one too;
    /// `NO_RESPONSE_TEXT`: the model's answer stayed empty).
    #[serde(default)]
    pub errors_by_type: IndexMap<String, u64>,
}

/// The requests of one role to one model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoleMetrics {
    /// Requests sent.
    pub total_requests: u64,
    /// Requests that failed.
    pub total_errors: u64,
    /// Summed latency in milliseconds.
    pub total_latency_ms: u64,
    /// Token counts of the answered requests.
    pub tokens: TokenMetrics,
}

/// A failed attempt a retry hid from the agent, counted when the agent
/// records its request (which knows the request's role).
#[derive(Debug, Clone, PartialEq)]
struct PendingFailure {
    model: String,
    kind: String,
    latency_ms: u64,
}

/// Tokens of one model, as the API reported them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TokenMetrics {
    /// Prompt tokens not served from the cache (`prompt - cached`).
    pub input: u64,
    /// Prompt tokens.
    pub prompt: u64,
    /// Answer tokens.
    pub candidates: u64,
    /// All tokens.
    pub total: u64,
    /// Prompt tokens served from the cache.
    pub cached: u64,
    /// Thinking tokens.
    pub thoughts: u64,
    /// Tokens of tool-use prompts.
    pub tool: u64,
    /// True when some of these counts are estimates: the server sent no
    /// usage for at least one request (absent when all were reported).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl TokenMetrics {
    /// Adds one request's usage.
    fn add(&mut self, u: &UsageMetadata, estimated: bool) {
        self.prompt += u.prompt_token_count.unwrap_or(0);
        self.candidates += u.candidates_token_count.unwrap_or(0);
        self.total += u.total_token_count.unwrap_or(0);
        self.cached += u.cached_content_token_count.unwrap_or(0);
        self.thoughts += u.thoughts_token_count.unwrap_or(0);
        self.tool += u.tool_use_prompt_token_count.unwrap_or(0);
        self.input = self.prompt.saturating_sub(self.cached);
        self.estimated |= estimated;
    }
}

/// One model request to count: its model, role, latency and, when it
/// failed, its error type ([`ModelError::error_type`](super::ModelError::error_type)).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The model asked.
    pub model: &'a str,
    /// `main` (the session's agent) or `subagent`.
    pub role: &'a str,
    /// How long it took.
    pub latency: Duration,
    /// The error type of a failed request.
    pub error: Option<&'a str>,
}

/// How many calls were approved which way.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Decisions {
    /// Approved.
    pub accept: u64,
    /// Refused.
    pub reject: u64,
    /// Approved after an edit.
    pub modify: u64,
    /// Approved without asking.
    pub auto_accept: u64,
}

impl Decisions {
    fn count(&mut self, decision: Decision) {
        match decision {
            Decision::Accept => self.accept += 1,
            Decision::Reject => self.reject += 1,
            Decision::Modify => self.modify += 1,
            Decision::AutoAccept => self.auto_accept += 1,
        }
    }
}

/// Tool calls over the session.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolMetrics {
    /// Calls made.
    pub total_calls: u64,
    /// Calls that succeeded.
    pub total_success: u64,
    /// Calls that failed.
    pub total_fail: u64,
    /// Summed execution time in milliseconds.
    pub total_duration_ms: u64,
    /// How the calls were approved.
    pub total_decisions: Decisions,
    /// The same per tool name.
    pub by_name: IndexMap<String, ToolCallMetrics>,
}

/// One tool's calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallMetrics {
    /// Calls made.
    pub count: u64,
    /// Calls that succeeded.
    pub success: u64,
    /// Calls that failed.
    pub fail: u64,
    /// Summed execution time in milliseconds.
    pub duration_ms: u64,
    /// How the calls were approved.
    pub decisions: Decisions,
}

/// Lines changed by edits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileMetrics {
    /// Lines added.
    pub total_lines_added: u64,
    /// Lines removed.
    pub total_lines_removed: u64,
}

/// Summed token counts over every model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TokenTotals {
    /// All tokens.
    pub total: u64,
    /// Prompt tokens.
    pub prompt: u64,
    /// Answer tokens.
    pub candidates: u64,
    /// Cached prompt tokens.
    pub cached: u64,
}

impl SessionStats {
    /// Counts one request of the session's agent (role `main`): its
    /// latency, whether it failed, and the usage of its last chunk
    /// (`estimated` when the server sent none and it was estimated).
    pub fn record_request(
        &mut self,
        model: &str,
        latency: Duration,
        usage: Option<&UsageMetadata>,
        failed: bool,
        estimated: bool,
    ) {
        let request = Request {
            model,
            role: "main",
            latency,
            error: failed.then_some("ModelError"),
        };
        self.record(&request, usage, estimated);
    }

    /// Counts one model request of `request.role`, first the attempts of
    /// that model a retry hid ([`SessionStats::record_retried_failure`]);
    /// a failed one is also counted by its error type.
    pub fn record(&mut self, request: &Request, usage: Option<&UsageMetadata>, estimated: bool) {
        let (model, role) = (request.model, request.role);
        let (pending, rest) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition::<Vec<_>, _>(|p| p.model == model);
        self.pending = rest;
        for p in pending {
            self.count(model, role, p.latency_ms, Some(&p.kind));
        }
        self.count(model, role, millis(request.latency), request.error);
        let m = self.models.entry(model.to_string()).or_default();
        if let Some(u) = usage {
            m.tokens.add(u, estimated);
            let r = m.roles.entry(role.to_string()).or_default();
            r.tokens.add(u, estimated);
        }
    }

    /// Counts an attempt of `model` that failed as `kind` and was retried
    /// (the agent never saw it); its role is given by the agent's next
    /// request of that model.
    pub fn record_retried_failure(&mut self, model: &str, kind: &str, latency: Duration) {
        self.pending.push(PendingFailure {
            model: model.to_string(),
            kind: kind.to_string(),
            latency_ms: millis(latency),
        });
    }

    /// One request of `role` to `model`; a failed one by its `error` type.
    fn count(&mut self, model: &str, role: &str, latency_ms: u64, error: Option<&str>) {
        let m = self.models.entry(model.to_string()).or_default();
        let failed = u64::from(error.is_some());
        m.api.total_requests += 1;
        m.api.total_errors += failed;
        m.api.total_latency_ms += latency_ms;
        if let Some(kind) = error {
            *m.api.errors_by_type.entry(kind.to_string()).or_default() += 1;
        }
        let r = m.roles.entry(role.to_string()).or_default();
        r.total_requests += 1;
        r.total_errors += failed;
        r.total_latency_ms += latency_ms;
    }

    /// Counts an answer of `model` that failed as `kind` (an error too).
    pub fn record_error_type(&mut self, model: &str, kind: &str) {
        let m = self.models.entry(model.to_string()).or_default();
        m.api.total_errors += 1;
        *m.api.errors_by_type.entry(kind.to_string()).or_default() += 1;
    }

    /// Adds `usd` to what `model` cost so far.
    pub fn record_cost(&mut self, model: &str, usd: f64) {
        let m = self.models.entry(model.to_string()).or_default();
        m.cost_usd = Some(m.cost_usd.unwrap_or(0.0) + usd);
    }

    /// What the session cost in US dollars: `None` when a model used has
    /// no price (or none was used).
    pub fn total_cost_usd(&self) -> Option<f64> {
        if self.models.is_empty() {
            return None;
        }
        self.models.values().map(|m| m.cost_usd).sum()
    }

    /// What the priced models cost so far, in US dollars.
    pub fn spent_usd(&self) -> f64 {
        self.models.values().filter_map(|m| m.cost_usd).sum()
    }

    /// Counts one finished tool call.
    pub fn record_tool(
        &mut self,
        name: &str,
        success: bool,
        duration: Duration,
        decision: Option<Decision>,
    ) {
        let ms = millis(duration);
        let totals = &mut self.tools;
        totals.total_calls += 1;
        totals.total_duration_ms += ms;
        let t = totals.by_name.entry(name.to_string()).or_default();
        t.count += 1;
        t.duration_ms += ms;
        if success {
            t.success += 1;
            totals.total_success += 1;
        } else {
            t.fail += 1;
            totals.total_fail += 1;
        }
        if let Some(d) = decision {
            t.decisions.count(d);
            totals.total_decisions.count(d);
        }
    }

    /// Counts lines changed by an edit.
    pub fn record_lines(&mut self, added: u64, removed: u64) {
        self.files.total_lines_added += added;
        self.files.total_lines_removed += removed;
    }

    /// Total tool calls.
    pub fn tool_calls(&self) -> u64 {
        self.tools.total_calls
    }

    /// True when any model's token counts are estimates.
    pub fn tokens_estimated(&self) -> bool {
        self.models.values().any(|m| m.tokens.estimated)
    }

    /// Token sums over all models.
    pub fn token_totals(&self) -> TokenTotals {
        self.models
            .values()
            .fold(TokenTotals::default(), |acc, m| TokenTotals {
                total: acc.total + m.tokens.total,
                prompt: acc.prompt + m.tokens.prompt,
                candidates: acc.candidates + m.tokens.candidates,
                cached: acc.cached + m.tokens.cached,
            })
    }

    /// Gemini CLI's `SessionMetrics` JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_json_has_gemini_clis_shape() {
        let mut s = SessionStats::default();
        let usage = UsageMetadata {
            prompt_token_count: Some(10),
            candidates_token_count: Some(5),
            total_token_count: Some(15),
            cached_content_token_count: Some(4),
            ..UsageMetadata::default()
        };
        s.record_request("m", Duration::from_millis(7), Some(&usage), false, false);
        s.record_tool(
            "read_file",
            true,
            Duration::from_millis(3),
            Some(Decision::AutoAccept),
        );
        s.record_tool("read_file", false, Duration::from_millis(1), None);
        s.record_lines(2, 1);
        assert_eq!(
            s.to_json(),
            json!({
                "models": {"m": {
                    "api": {"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 7,
                        "errorsByType": {}},
                    "tokens": {"input": 6, "prompt": 10, "candidates": 5, "total": 15, "cached": 4,
                        "thoughts": 0, "tool": 0},
                    "roles": {"main": {"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 7,
                        "tokens": {"input": 6, "prompt": 10, "candidates": 5, "total": 15,
                            "cached": 4, "thoughts": 0, "tool": 0}}}}},
                "tools": {"totalCalls": 2, "totalSuccess": 1, "totalFail": 1, "totalDurationMs": 4,
                    "totalDecisions": {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 1},
                    "byName": {"read_file": {"count": 2, "success": 1, "fail": 1, "durationMs": 4,
                        "decisions": {"accept": 0, "reject": 0, "modify": 0, "auto_accept": 1}}}},
                "files": {"totalLinesAdded": 2, "totalLinesRemoved": 1}
            })
        );
        assert_eq!(s.token_totals().total, 15);
        assert_eq!(s.tool_calls(), 2);
    }

    #[test]
    fn a_retried_failure_counts_by_type_under_the_next_requests_role() {
        let mut s = SessionStats::default();
        s.record_retried_failure("m", "ApiError", Duration::from_millis(2));
        s.record_retried_failure("other", "ApiError", Duration::from_millis(2));
        let request = Request {
            model: "m",
            role: "subagent",
            latency: Duration::from_millis(5),
            error: None,
        };
        s.record(&request, None, false);
        let json = s.to_json();
        let m = &json["models"]["m"];
        assert_eq!(
            m["api"],
            json!({"totalRequests": 2, "totalErrors": 1, "totalLatencyMs": 7,
                "errorsByType": {"ApiError": 1}})
        );
        assert_eq!(m["roles"]["subagent"]["totalErrors"], 1);
        assert_eq!(m["roles"]["subagent"]["totalRequests"], 2);
        // Another model's failure waits for a request of that model.
        assert!(json["models"].get("other").is_none());
    }
}
