//! The parameters today's Gemini CLI gives `grep_search` (0.32 and later):
//! `exclude_pattern`, `names_only`, `max_matches_per_file`,
//! `total_max_matches`, `case_sensitive`, `fixed_strings`, `context`,
//! `after`, `before` and `no_ignore`. The tool is still declared with the
//! seeds' schema; these are accepted from whoever sends them (a model
//! trained on today's tool, a recording, a hook rewriting `tool_input`),
//! checked against their own schema with the same error texts, and each
//! changes the search as it does in Gemini CLI 0.61.

use super::jsregex::{self, InvalidRegex, Translation};
use crate::tools::ToolError;
use crate::tools::builtin::common::parse_params;
use crate::tools::validate::ArgsValidator;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::sync::OnceLock;

/// Today's optional parameters of one call.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(default)]
pub(super) struct Options {
    /// Matching lines that also match this regex are left out.
    pub exclude_pattern: Option<String>,
    /// Only the paths of the files with matches.
    pub names_only: bool,
    /// At most this many matches per file.
    pub max_matches_per_file: Option<f64>,
    /// At most this many matches in all.
    pub total_max_matches: Option<f64>,
    /// Case-sensitive or not (unset: v0.27.4's rule, insensitive in a git
    /// repository).
    pub case_sensitive: Option<bool>,
    /// The pattern is a literal string.
    pub fixed_strings: bool,
    /// Lines of context on both sides.
    pub context: Option<f64>,
    /// Lines of context after each match.
    pub after: Option<f64>,
    /// Lines of context before each match.
    pub before: Option<f64>,
    /// Ignore files and the usual excluded folders are not honoured.
    pub no_ignore: bool,
}

/// The schema today's Gemini CLI declares for these parameters.
fn validator() -> &'static ArgsValidator {
    static V: OnceLock<ArgsValidator> = OnceLock::new();
    V.get_or_init(|| {
        let count = |min: u64| json!({"type": "integer", "minimum": min});
        ArgsValidator::new(&json!({
            "type": "object",
            "properties": {
                "exclude_pattern": {"type": "string"},
                "names_only": {"type": "boolean"},
                "case_sensitive": {"type": "boolean"},
                "fixed_strings": {"type": "boolean"},
                "no_ignore": {"type": "boolean"},
                "context": count(0),
                "after": count(0),
                "before": count(0),
                "max_matches_per_file": count(1),
                "total_max_matches": count(1)
            }
        }))
    })
}

impl Options {
    /// Reads and checks today's parameters of `args`.
    pub fn parse(args: &Map<String, Value>) -> Result<Options, ToolError> {
        validator()
            .validate(&Value::Object(args.clone()))
            .map_err(|e| ToolError::invalid_params(e.to_string()))?;
        let options: Options = parse_params(args, &[])?;
        if let Some(p) = &options.exclude_pattern {
            options.exclude_regex(p, false).map_err(|e| {
                ToolError::invalid_params(format!(
                    "Invalid exclude regular expression pattern provided: {p}. Error: {e}"
                ))
            })?;
        }
        Ok(options)
    }

    /// Context lines `(before, after)`: `before`/`after`, else `context`.
    pub fn context_lines(&self) -> (usize, usize) {
        let n = |v: Option<f64>| v.map(|v| v as usize);
        let both = n(self.context).unwrap_or(0);
        (
            n(self.before).unwrap_or(both).max(both),
            n(self.after).unwrap_or(both).max(both),
        )
    }

    /// The match cap: `total_max_matches`, else `default`.
    pub fn total(&self, default: usize) -> usize {
        self.total_max_matches.map_or(default, |v| v as usize)
    }

    /// `max_matches_per_file`.
    pub fn per_file(&self) -> Option<u64> {
        self.max_matches_per_file.map(|v| v as u64)
    }

    /// The search pattern in `regex` syntax: the literal, escaped, with
    /// `fixed_strings`; else the JavaScript regex translated.
    pub fn pattern(&self, pattern: &str) -> Result<Translation, InvalidRegex> {
        if self.fixed_strings {
            return Ok(Translation::Rust(regex::escape(pattern)));
        }
        jsregex::translate(pattern)
    }

    /// Whether matching ignores case: `case_sensitive` when given, else
    /// `default` (the dialect's rule: 0.27.4 ignored case only in a git
    /// repository, 0.61 everywhere).
    pub fn case_insensitive(&self, default: bool) -> bool {
        self.case_sensitive.map_or(default, |s| !s)
    }

    /// `exclude_pattern` compiled (a JavaScript regex, as in Gemini CLI).
    pub fn exclude_regex(
        &self,
        pattern: &str,
        insensitive: bool,
    ) -> Result<regex::Regex, ExcludePatternError> {
        let rust = match jsregex::translate(pattern)? {
            Translation::Rust(p) => p,
            Translation::Unsupported(why) => return Err(ExcludePatternError::Unsupported(why)),
        };
        Ok(regex::RegexBuilder::new(&rust)
            .case_insensitive(insensitive)
            .build()?)
    }
}

/// Why `exclude_pattern` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ExcludePatternError {
    /// Not a valid JavaScript regular expression.
    #[error(transparent)]
    Invalid(#[from] InvalidRegex),
    /// Valid, but needs what the search engine lacks.
    #[error("{0}")]
    Unsupported(String),
    /// The translated expression does not compile (too large, ...).
    #[error(transparent)]
    Regex(#[from] regex::Error),
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: Value) -> Result<Options, String> {
        Options::parse(v.as_object().unwrap()).map_err(|e| e.message)
    }

    #[test]
    fn bad_values_are_named() {
        assert_eq!(
            parse(json!({"total_max_matches": 0})).unwrap_err(),
            "params/total_max_matches must be >= 1"
        );
        assert_eq!(
            parse(json!({"context": -1})).unwrap_err(),
            "params/context must be >= 0"
        );
        assert_eq!(
            parse(json!({"names_only": "yes"})).unwrap_err(),
            "params/names_only must be boolean"
        );
        assert!(
            parse(json!({"exclude_pattern": "("}))
                .unwrap_err()
                .starts_with("Invalid exclude regular expression pattern provided: (. Error: ")
        );
    }

    #[test]
    fn context_and_caps() {
        let o = parse(json!({"context": 2, "after": 5, "total_max_matches": 3})).unwrap();
        assert_eq!(o.context_lines(), (2, 5));
        assert_eq!(o.total(20_000), 3);
        assert_eq!(parse(json!({})).unwrap().context_lines(), (0, 0));
        let fixed = parse(json!({"fixed_strings": true})).unwrap();
        assert_eq!(
            fixed.pattern("a.b(").unwrap(),
            Translation::Rust("a\\.b\\(".into())
        );
    }
}
