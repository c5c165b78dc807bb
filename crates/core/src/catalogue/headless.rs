//! What each dialect's headless output (`-o json`, `-o stream-json`)
//! holds, as data: recorded from the references by the `json-stats` and
//! `stream-two-tools` scenarios (`e2e/reference/record.sh`).

use super::builtins::spec;
use super::dialect::Dialect;

/// The shape of one dialect's headless output.
#[derive(Debug)]
pub struct Headless {
    /// Whether a model's `api` stats carry `errorsByType` (0.61: always,
    /// `{}` when nothing failed).
    pub errors_by_type: bool,
    /// Whether a model's stats carry `roles` (0.61: `main`, `subagent`).
    pub roles: bool,
    /// Whether the stream's `result` stats carry `models` (0.61).
    pub stream_models: bool,
    /// Built-in tools (their catalogue names) whose successful
    /// `tool_result` line carries no `output`: 0.61 prints the display
    /// only when it is text, and these display a list (its
    /// `list_directory`, `grep_search` and `read_many_files` return a
    /// summary with the entries; an edit, a diff; `write_todos`, the list).
    pub structured_display: &'static [&'static str],
}

/// Gemini CLI 0.61's output.
static TODAY: Headless = Headless {
    errors_by_type: true,
    roles: true,
    stream_models: true,
    structured_display: &["list_directory", "search_file_content", "read_many_files"],
};

/// Gemini CLI 0.27.4's output.
static V027: Headless = Headless {
    errors_by_type: false,
    roles: false,
    stream_models: false,
    structured_display: &[],
};

impl Dialect {
    /// The shape of the dialect's headless output.
    pub fn headless(self) -> &'static Headless {
        match self {
            Dialect::Today => &TODAY,
            Dialect::V027 => &V027,
        }
    }
}

impl Headless {
    /// Whether a successful call of `tool` (as called, in either
    /// dialect's names) shows its text display as the stream's `output`.
    pub fn shows_output(&self, tool: &str) -> bool {
        spec(tool).is_none_or(|s| !self.structured_display.contains(&s.name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_show_no_output_today_only() {
        let today = Dialect::Today.headless();
        assert!(!today.shows_output("list_directory"));
        assert!(!today.shows_output("grep_search") && !today.shows_output("search_file_content"));
        assert!(today.shows_output("read_file") && today.shows_output("mcp_s_list_directory"));
        assert!(Dialect::V027.headless().shows_output("list_directory"));
    }
}
