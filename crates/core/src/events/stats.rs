//! Session metrics: model requests and tokens, tool calls and decisions,
//! lines changed. Rendered as Gemini CLI's `SessionMetrics` JSON.

use gemini_rs_protocol::UsageMetadata;
use serde_json::{Map, Value, json};
use std::time::Duration;

#[derive(Debug, Clone, Default, PartialEq)]
struct ModelStats {
    requests: u64,
    errors: u64,
    latency_ms: u64,
    prompt: u64,
    candidates: u64,
    total: u64,
    cached: u64,
    thoughts: u64,
    tool: u64,
}

/// How a call was approved, for `totalDecisions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

#[derive(Debug, Clone, Default, PartialEq)]
struct ToolStats {
    count: u64,
    success: u64,
    fail: u64,
    duration_ms: u64,
    decisions: [u64; 4],
}

/// Everything counted during a session.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionStats {
    models: Vec<(String, ModelStats)>,
    tools: Vec<(String, ToolStats)>,
    lines_added: u64,
    lines_removed: u64,
}

impl SessionStats {
    fn model(&mut self, model: &str) -> &mut ModelStats {
        if let Some(i) = self.models.iter().position(|(m, _)| m == model) {
            return &mut self.models[i].1;
        }
        self.models.push((model.to_string(), ModelStats::default()));
        let last = self.models.len() - 1;
        &mut self.models[last].1
    }

    fn tool(&mut self, name: &str) -> &mut ToolStats {
        if let Some(i) = self.tools.iter().position(|(n, _)| n == name) {
            return &mut self.tools[i].1;
        }
        self.tools.push((name.to_string(), ToolStats::default()));
        let last = self.tools.len() - 1;
        &mut self.tools[last].1
    }

    /// Counts one model request: its latency, whether it failed, and the
    /// usage of its last chunk.
    pub fn record_request(
        &mut self,
        model: &str,
        latency: Duration,
        usage: Option<&UsageMetadata>,
        failed: bool,
    ) {
        let m = self.model(model);
        m.requests += 1;
        m.errors += u64::from(failed);
        m.latency_ms += latency.as_millis() as u64;
        if let Some(u) = usage {
            m.prompt += u.prompt_token_count.unwrap_or(0);
            m.candidates += u.candidates_token_count.unwrap_or(0);
            m.total += u.total_token_count.unwrap_or(0);
            m.cached += u.cached_content_token_count.unwrap_or(0);
            m.thoughts += u.thoughts_token_count.unwrap_or(0);
            m.tool += u.tool_use_prompt_token_count.unwrap_or(0);
        }
    }

    /// Counts one finished tool call.
    pub fn record_tool(
        &mut self,
        name: &str,
        success: bool,
        duration: Duration,
        decision: Option<Decision>,
    ) {
        let t = self.tool(name);
        t.count += 1;
        if success {
            t.success += 1;
        } else {
            t.fail += 1;
        }
        t.duration_ms += duration.as_millis() as u64;
        if let Some(d) = decision {
            t.decisions[d as usize] += 1;
        }
    }

    /// Counts lines changed by an edit.
    pub fn record_lines(&mut self, added: u64, removed: u64) {
        self.lines_added += added;
        self.lines_removed += removed;
    }

    /// Total tool calls.
    pub fn tool_calls(&self) -> u64 {
        self.tools.iter().map(|(_, t)| t.count).sum()
    }

    /// `(total, prompt, candidates, cached)` token sums over all models.
    pub fn token_totals(&self) -> (u64, u64, u64, u64) {
        self.models.iter().fold((0, 0, 0, 0), |acc, (_, m)| {
            (
                acc.0 + m.total,
                acc.1 + m.prompt,
                acc.2 + m.candidates,
                acc.3 + m.cached,
            )
        })
    }

    /// Gemini CLI's `SessionMetrics` JSON.
    pub fn to_json(&self) -> Value {
        let decisions = |d: &[u64; 4]| json!({"accept": d[0], "reject": d[1], "modify": d[2], "auto_accept": d[3]});
        let mut models = Map::new();
        for (name, m) in &self.models {
            models.insert(
                name.clone(),
                json!({
                    "api": {"totalRequests": m.requests, "totalErrors": m.errors, "totalLatencyMs": m.latency_ms},
                    "tokens": {"input": m.prompt.saturating_sub(m.cached), "prompt": m.prompt,
                        "candidates": m.candidates, "total": m.total, "cached": m.cached,
                        "thoughts": m.thoughts, "tool": m.tool}
                }),
            );
        }
        let mut by_name = Map::new();
        let mut totals = ToolStats::default();
        for (name, t) in &self.tools {
            totals.count += t.count;
            totals.success += t.success;
            totals.fail += t.fail;
            totals.duration_ms += t.duration_ms;
            for i in 0..4 {
                totals.decisions[i] += t.decisions[i];
            }
            by_name.insert(
                name.clone(),
                json!({"count": t.count, "success": t.success, "fail": t.fail,
                    "durationMs": t.duration_ms, "decisions": decisions(&t.decisions)}),
            );
        }
        json!({
            "models": models,
            "tools": {"totalCalls": totals.count, "totalSuccess": totals.success, "totalFail": totals.fail,
                "totalDurationMs": totals.duration_ms, "totalDecisions": decisions(&totals.decisions),
                "byName": by_name},
            "files": {"totalLinesAdded": self.lines_added, "totalLinesRemoved": self.lines_removed}
        })
    }
}
