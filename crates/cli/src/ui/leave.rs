//! What leaving the terminal UI prints below the conversation: the
//! session's summary (time, tool calls, tokens and cost per model) and
//! the command that resumes it.

use gemini_rs_protocol::events::SessionStats;
use std::fmt::Write as _;
use std::time::Duration;

/// The summary printed on leaving; `resumable` adds how to come back.
pub fn summary(stats: &SessionStats, wall: Duration, session_id: &str, resumable: bool) -> String {
    let mut out = String::new();
    let tools = &stats.tools;
    let _ = writeln!(out, "Session {session_id} ended.");
    let _ = writeln!(out, "  {:<18}{}", "Duration", fmt_wall(wall));
    let rate = if tools.total_calls == 0 {
        String::new()
    } else {
        format!(
            ", {:.1}% succeeded",
            tools.total_success as f64 * 100.0 / tools.total_calls as f64
        )
    };
    let _ = writeln!(
        out,
        "  {:<18}{} (✓ {} ✗ {}){rate}",
        "Tool calls", tools.total_calls, tools.total_success, tools.total_fail
    );
    if !stats.models.is_empty() {
        let _ = writeln!(
            out,
            "  {:<28}{:>6}{:>14}{:>12}{:>14}{:>10}",
            "Model", "Reqs", "Input tokens", "Cached", "Output tokens", "Cost"
        );
        for (name, m) in &stats.models {
            let t = &m.tokens;
            let tilde = if t.estimated { "~" } else { "" };
            let cost = m
                .cost_usd
                .map(crate::ui::commands::info::format_usd)
                .unwrap_or_else(|| "-".to_string());
            let _ = writeln!(
                out,
                "  {:<28}{:>6}{:>14}{:>12}{:>14}{:>10}",
                name,
                m.api.total_requests,
                format!("{tilde}{}", t.prompt),
                format!("{tilde}{}", t.cached),
                format!("{tilde}{}", t.candidates),
                cost
            );
        }
        if stats.tokens_estimated() {
            let _ = writeln!(
                out,
                "  ~ estimated from the text's size: the server sent no token counts"
            );
        }
        if let Some(usd) = stats.total_cost_usd() {
            let _ = writeln!(
                out,
                "  {:<18}{}",
                "Cost",
                crate::ui::commands::info::format_usd(usd)
            );
        }
    }
    if resumable {
        let _ = writeln!(out, "To resume: gemini-rs --resume {session_id}");
    }
    out
}

fn fmt_wall(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{:.1}s", d.as_secs_f64()),
        60..3600 => format!("{}m {}s", s / 60, s % 60),
        _ => format!("{}h {}m {}s", s / 3600, s % 3600 / 60, s % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gemini_rs_protocol::UsageMetadata;
    use gemini_rs_protocol::events::Decision;

    #[test]
    fn the_summary_counts_calls_tokens_and_says_how_to_resume() {
        let mut s = SessionStats::default();
        let usage = UsageMetadata {
            prompt_token_count: Some(1200),
            candidates_token_count: Some(34),
            total_token_count: Some(1234),
            ..UsageMetadata::default()
        };
        s.record_request(
            "gemini-2.5-flash",
            Duration::from_millis(5),
            Some(&usage),
            false,
            false,
        );
        s.record_cost("gemini-2.5-flash", 0.0012);
        s.record_tool(
            "read_file",
            true,
            Duration::ZERO,
            Some(Decision::AutoAccept),
        );
        s.record_tool("run_shell_command", false, Duration::ZERO, None);
        let text = summary(&s, Duration::from_secs(75), "abc", true);
        assert!(text.contains("Session abc ended."), "{text}");
        assert!(text.contains("1m 15s"), "{text}");
        assert!(text.contains("2 (✓ 1 ✗ 1), 50.0% succeeded"), "{text}");
        let row = text
            .lines()
            .find(|l| l.contains("gemini-2.5-flash"))
            .unwrap();
        assert!(
            row.contains("1200") && row.contains("34") && row.contains("$0.0012"),
            "{row}"
        );
        assert!(
            text.ends_with("To resume: gemini-rs --resume abc\n"),
            "{text}"
        );
        let quiet = summary(&SessionStats::default(), Duration::ZERO, "abc", false);
        assert!(!quiet.contains("To resume"), "{quiet}");
    }
}
