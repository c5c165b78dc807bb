//! The result and error texts of the built-in tools that differ between
//! the dialects, as data: each dialect has one [`Texts`], recorded from
//! its release (`e2e/reference/record.sh`, the `texts` and `untrusted`
//! scenarios). Templates name their inputs `{like_this}`; [`fill`] puts
//! them in. Tools read their texts here and hold no dialect branches of
//! their own.

use super::dialect::Dialect;

/// How `grep_search` matches letters when the call does not say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrepCase {
    /// Case-insensitive everywhere (0.61: `git grep --ignore-case`,
    /// `grep -i` and its JavaScript fallback alike).
    Insensitive,
    /// Case-insensitive inside a git repository, sensitive outside
    /// (0.27.4: only its `git grep` strategy ignored case).
    InsensitiveInGit,
}

/// The stream a listing subcommand prints on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error (Gemini CLI prints through its debug logger there).
    Stderr,
}

/// One dialect's texts.
#[derive(Debug)]
pub struct Texts {
    /// `read_file`'s note over a part of a file: `{start}`, `{end}`,
    /// `{total}`, `{next_line}` (the first line not shown), `{next_offset}`
    /// (0.27.4's offset to read on from) and `{body}`.
    pub read_file_truncated: &'static str,
    /// Whether `list_directory` follows a file's name with ` (N bytes)`.
    pub list_directory_sizes: bool,
    /// The default letter case of `grep_search`.
    pub grep_case: GrepCase,
    /// Whether `grep_search` shows context lines around one to three
    /// matches when the call asks for no context (0.61: 50 lines around a
    /// single match, 15 around two or three).
    pub grep_auto_context: bool,
    /// Whether `grep_search` keeps a line's leading white space (0.61 cuts
    /// only the trailing; 0.27.4 trimmed both ends unless context was
    /// asked for).
    pub grep_keep_indent: bool,
    /// `replace` found no occurrence: `{path}` (the absolute path) and
    /// `{file_path}` (as the call gave it).
    pub replace_no_match: &'static str,
    /// `replace` found another count than expected: `{expected}`,
    /// `{term}` (`occurrence`/`occurrences`), `{found}`, `{path}`,
    /// `{file_path}`.
    pub replace_count_mismatch: &'static str,
    /// `replace` of text in a file that does not exist, named by a
    /// relative path (0.27.4's path correction found no such file):
    /// `{file_path}`; `None`: `File not found: <absolute path>`.
    pub replace_not_found_relative: Option<&'static str>,
    /// `old_string` and `new_string` are the same: `{path}`, `{file_path}`.
    pub replace_identical: &'static str,
    /// Whether a successful `replace` adds `Here is the updated code:` and
    /// the changed lines with five lines of context.
    pub replace_snippet: bool,
    /// Whether a successful `write_file` adds `Here is the updated code:`
    /// and the lines written around the changes (as `replace` does).
    pub write_file_snippet: bool,
    /// The cap on `grep_search`'s matches when the call sets no
    /// `total_max_matches`.
    pub grep_default_max_matches: usize,
    /// Whether `web_fetch` skips private and local hosts (0.61:
    /// `[Blocked Host] <url>`); 0.27.4 fetched them itself.
    pub web_fetch_blocks_private_hosts: bool,
    /// The note when the user edited `new_string` while confirming:
    /// `{new_string}`.
    pub replace_user_modified: &'static str,
    /// Where `mcp list` prints.
    pub mcp_list: Stream,
    /// Where `skills list` prints.
    pub skills_list: Stream,
    /// Whether `extensions list` shows an extension's `Settings:` when
    /// `experimental.extensionConfig` is not set (0.61 defaults it on,
    /// 0.27.4 off).
    pub extension_settings_default: bool,
    /// Whether `extensions list` shows an empty setting as `[not set]`
    /// (0.61) rather than as nothing (0.27.4).
    pub extension_empty_is_unset: bool,
}

/// Gemini CLI 0.61's texts.
static TODAY: Texts = Texts {
    read_file_truncated: "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines {start}-{end} of {total} total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: {next_line}.\n\n--- FILE CONTENT (truncated) ---\n{body}",
    list_directory_sizes: true,
    grep_case: GrepCase::Insensitive,
    grep_auto_context: true,
    grep_keep_indent: true,
    replace_no_match: "Could not find an exact match for 'old_string' in '{file_path}'. If previous edits modified the file or you are modifying lines outside your recent read window, please use ReadFile to inspect the target lines before retrying with an exact 'old_string'.",
    replace_count_mismatch: "Failed to edit, Expected {expected} {term} but found {found} for old_string in file: {file_path}. If you intended to replace multiple occurrences, set 'allow_multiple' to true.",
    replace_not_found_relative: None,
    replace_identical: "No changes to apply. The old_string and new_string are identical in file: {file_path}",
    replace_snippet: true,
    write_file_snippet: true,
    grep_default_max_matches: 100,
    web_fetch_blocks_private_hosts: true,
    replace_user_modified: "The confirmation step modified the `new_string` content to be: {new_string}.",
    mcp_list: Stream::Stderr,
    skills_list: Stream::Stdout,
    extension_settings_default: true,
    extension_empty_is_unset: true,
};

/// Gemini CLI 0.27.4's texts.
static V027: Texts = Texts {
    read_file_truncated: "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines {start}-{end} of {total} total lines.\nAction: To read more of the file, you can use the 'offset' and 'limit' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use offset: {next_offset}.\n\n--- FILE CONTENT (truncated) ---\n{body}",
    list_directory_sizes: false,
    grep_case: GrepCase::InsensitiveInGit,
    grep_auto_context: false,
    grep_keep_indent: false,
    replace_no_match: "Failed to edit, 0 occurrences found for old_string in {path}. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify.",
    replace_count_mismatch: "Failed to edit, Expected {expected} {term} but found {found} for old_string in file: {path}",
    replace_not_found_relative: Some("File not found for '{file_path}' and path is not absolute."),
    replace_identical: "No changes to apply. The old_string and new_string are identical in file: {path}",
    replace_snippet: false,
    write_file_snippet: false,
    grep_default_max_matches: 20_000,
    web_fetch_blocks_private_hosts: false,
    replace_user_modified: "User modified the `new_string` content to be: {new_string}.",
    mcp_list: Stream::Stderr,
    skills_list: Stream::Stderr,
    extension_settings_default: false,
    extension_empty_is_unset: false,
};

/// Built-in tools whose successful output reaches the model as untrusted
/// context (`<untrusted_context>`), in every dialect: what a command
/// printed and what a web page said may carry instructions nobody gave.
pub const UNTRUSTED_OUTPUT: &[&str] = &["run_shell_command", "web_fetch"];

impl Dialect {
    /// The dialect's result and error texts.
    pub fn texts(self) -> &'static Texts {
        match self {
            Dialect::Today => &TODAY,
            Dialect::V027 => &V027,
        }
    }
}

/// `template` with each `{name}` of `values` replaced by its value (a
/// value's own braces are left alone).
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let hit = after.find('}').and_then(|close| {
            let name = &after[..close];
            values
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (close, *v))
        });
        match hit {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_named_inputs_and_leaves_other_braces() {
        assert_eq!(
            fill("a {x} b {y} {z}", &[("x", "{y}"), ("y", "2")]),
            "a {y} b 2 {z}"
        );
    }

    #[test]
    fn each_dialect_has_its_range_note() {
        let values = [
            ("start", "2"),
            ("end", "3"),
            ("total", "5"),
            ("next_line", "4"),
            ("next_offset", "3"),
            ("body", "b"),
        ];
        let today = fill(Dialect::Today.texts().read_file_truncated, &values);
        assert!(today.contains("use start_line: 4."), "{today}");
        let old = fill(Dialect::V027.texts().read_file_truncated, &values);
        assert!(old.contains("use offset: 3."), "{old}");
    }
}
