//! The built-in tools, and helpers they share (settings-level ignore
//! options, Node-style I/O error texts, Gemini CLI's `shortenPath`).

// Other built-in tool modules (declared by their authors; one line each).
mod activate_skill;
mod ask_user;
mod background;
pub(crate) mod common;
mod delegate;
mod glob;
mod grep;
mod grounding;
mod internal_docs;
mod list_directory;
mod mcp_resources;
mod memory;
mod plan_mode;
mod read_many_files;
mod replace;
pub mod shell;
mod web_fetch;
mod web_search;
mod write_todos;

mod read_file;
mod write_file;

pub use activate_skill::ActivateSkillTool;
pub use ask_user::{AskUserTool, Asker};
pub(crate) use delegate::invoke_agent;
pub use delegate::{INVOKE_AGENT, SubagentTool};
pub use internal_docs::InternalDocsTool;
pub use mcp_resources::resource_tools;
pub use memory::MemoryTool;
pub use read_many_files::ReadManyFilesTool;
pub use shell::ShellTool;
#[cfg(test)]
pub use {replace::ReplaceTool, write_file::WriteFileTool};

use super::Tool;
use crate::config::Settings;
use crate::workspace::FilterOptions;
use std::path::PathBuf;
use std::sync::Arc;

/// One built-in tool: what it declares, and how a session gets it.
#[derive(Clone, Copy)]
pub struct Builtin {
    /// How it is made.
    pub make: Make,
}

/// How a session gets a built-in tool.
#[derive(Clone, Copy)]
pub enum Make {
    /// Every session registers it, made by this function.
    Always(fn() -> Arc<dyn Tool>),
    /// The session makes it when it has what the tool needs (skills for
    /// `activate_skill`, a built-in agent naming `get_internal_docs`).
    WithSessionData,
}

/// Every built-in tool, the ones every session registers in Gemini CLI's
/// registration order (`activate_skill` and the sub-agents follow them).
/// Adding a built-in tool: its spec in the catalogue
/// (`catalogue/builtins.rs`, listed in `SPECS` in this order), its file
/// (with its `BUILTIN`), its `mod` line and one line here.
pub const BUILTINS: &[Builtin] = &[
    list_directory::BUILTIN,
    read_file::BUILTIN,
    grep::BUILTIN,
    glob::BUILTIN,
    replace::BUILTIN,
    write_file::BUILTIN,
    web_fetch::BUILTIN,
    mcp_resources::READ_BUILTIN,
    mcp_resources::LIST_BUILTIN,
    shell::BUILTIN,
    background::LIST_BUILTIN,
    background::READ_BUILTIN,
    memory::BUILTIN,
    web_search::BUILTIN,
    ask_user::BUILTIN,
    write_todos::BUILTIN,
    plan_mode::EXIT_BUILTIN,
    plan_mode::ENTER_BUILTIN,
    read_many_files::BUILTIN,
    activate_skill::BUILTIN,
    internal_docs::BUILTIN,
];

pub use crate::catalogue::builtins::specs;

/// The built-in tools every session registers, in Gemini CLI's
/// registration order: `list_directory, read_file, search_file_content,
/// glob, replace, write_file, web_fetch, run_shell_command,
/// list_background_processes, read_background_output, save_memory,
/// google_web_search, write_todos, read_many_files` (then sub-agents and
/// `activate_skill`).
pub fn builtin_tools() -> Vec<Arc<dyn Tool>> {
    BUILTINS
        .iter()
        .filter_map(|b| match b.make {
            Make::Always(make) => Some(make()),
            Make::WithSessionData => None,
        })
        .collect()
}

/// The session's ignore options from `context.fileFiltering.*`
/// (`respectGitIgnore`, `respectGeminiIgnore`: default true;
/// `customIgnoreFilePaths`: default none).
/// Built once per session into the [`crate::workspace::Workspace`]
/// (`with_filter_options`); tools read them from there.
pub fn filter_options_from_settings(settings: &Settings) -> FilterOptions {
    let filtering = &settings.typed().context.file_filtering;
    FilterOptions {
        respect_git_ignore: filtering.respect_git_ignore.unwrap_or(true),
        respect_gemini_ignore: filtering.respect_gemini_ignore.unwrap_or(true),
        custom_ignore_files: filtering
            .custom_ignore_file_paths
            .iter()
            .map(PathBuf::from)
            .collect(),
    }
}

/// Node's error code and message text for an I/O error of `syscall` on
/// `path`, e.g. `("EACCES", "EACCES: permission denied, open '/w/a'")`.
/// `None` for errors without an OS error number.
pub(crate) fn node_error(
    err: &std::io::Error,
    syscall: &str,
    path: &std::path::Path,
) -> Option<(String, String)> {
    let errno = err.raw_os_error()?;
    let (code, text) = match errno {
        libc::ENOENT => ("ENOENT", "no such file or directory"),
        libc::EACCES => ("EACCES", "permission denied"),
        libc::EPERM => ("EPERM", "operation not permitted"),
        libc::EISDIR => ("EISDIR", "illegal operation on a directory"),
        libc::ENOTDIR => ("ENOTDIR", "not a directory"),
        libc::ENOSPC => ("ENOSPC", "no space left on device"),
        libc::EROFS => ("EROFS", "read-only file system"),
        libc::EEXIST => ("EEXIST", "file already exists"),
        libc::ELOOP => ("ELOOP", "too many symbolic links encountered"),
        libc::EMFILE => ("EMFILE", "too many open files"),
        libc::ENAMETOOLONG => ("ENAMETOOLONG", "name too long"),
        libc::EIO => ("EIO", "i/o error"),
        libc::EDQUOT => ("EDQUOT", "disk quota exceeded"),
        libc::EFBIG => ("EFBIG", "file too large"),
        libc::EBUSY => ("EBUSY", "resource busy or locked"),
        _ => {
            let code = format!("E{errno}");
            let message = format!("{code}: {err}, {syscall} '{}'", path.display());
            return Some((code, message));
        }
    };
    Some((
        code.to_string(),
        format!("{code}: {text}, {syscall} '{}'", path.display()),
    ))
}

/// Gemini CLI's `shortenPath(p, 35)`: paths longer than 35 characters keep
/// their first directory and as many trailing segments as fit, with `...`
/// in between.
pub(crate) fn shorten_path(p: &str) -> String {
    const MAX: usize = 35;
    let len = p.chars().count();
    if len <= MAX {
        return p.to_string();
    }
    let simple = || {
        let keep = (MAX - 3) / 2;
        let chars: Vec<char> = p.chars().collect();
        let start: String = chars[..keep].iter().collect();
        let end: String = chars[chars.len() - keep..].iter().collect();
        format!("{start}...{end}")
    };
    let root = if p.starts_with('/') { "/" } else { "" };
    let segments: Vec<&str> = p[root.len()..]
        .split('/')
        .filter(|s| !s.is_empty())
        .collect();
    if segments.len() <= 1 {
        return simple();
    }
    let first = segments[0];
    let last = segments[segments.len() - 1];
    let start_component = format!("{root}{first}");
    let mut end_parts: Vec<&str> = Vec::new();
    let mut current = start_component.chars().count() + 1 + 3 + 1 + last.chars().count();
    for seg in segments[1..segments.len() - 1].iter().rev() {
        let with = current + 1 + seg.chars().count();
        if with <= MAX {
            end_parts.insert(0, seg);
            current = with;
        } else {
            break;
        }
    }
    let mut tail = end_parts.join("/");
    if !tail.is_empty() {
        tail.push('/');
    }
    tail.push_str(last);
    if current > MAX {
        return simple();
    }
    format!("{start_component}/.../{tail}")
}

#[cfg(test)]
mod spec_tests;
#[cfg(test)]
pub(crate) mod test_fixture;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::Path;

    #[test]
    fn registration_order() {
        let names: Vec<String> = builtin_tools()
            .iter()
            .map(|t| t.name().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "list_directory",
                "read_file",
                "search_file_content",
                "glob",
                "replace",
                "write_file",
                "web_fetch",
                "run_shell_command",
                "list_background_processes",
                "read_background_output",
                "save_memory",
                "google_web_search",
                "write_todos",
                "exit_plan_mode",
                "enter_plan_mode",
                "read_many_files"
            ]
        );
    }

    #[test]
    fn settings_filter_options() {
        let s = Settings::from_value(json!({}));
        assert_eq!(filter_options_from_settings(&s), FilterOptions::default());
        let s = Settings::from_value(json!({"context": {"fileFiltering": {
            "respectGitIgnore": false, "customIgnoreFilePaths": ["a.ignore"]}}}));
        let o = filter_options_from_settings(&s);
        assert!(!o.respect_git_ignore);
        assert!(o.respect_gemini_ignore);
        assert_eq!(o.custom_ignore_files, [PathBuf::from("a.ignore")]);
    }

    #[test]
    fn node_errors() {
        let e = std::io::Error::from_raw_os_error(libc::EACCES);
        assert_eq!(
            node_error(&e, "open", Path::new("/w/a")),
            Some((
                "EACCES".into(),
                "EACCES: permission denied, open '/w/a'".into()
            ))
        );
        assert_eq!(
            node_error(&std::io::Error::other("x"), "open", Path::new("/a")),
            None
        );
    }

    #[test]
    fn shortening() {
        assert_eq!(shorten_path("src/a.txt"), "src/a.txt");
        assert_eq!(
            shorten_path("very/long/path/with/many/segments/and/file.txt"),
            "very/.../many/segments/and/file.txt"
        );
        let single = "a".repeat(40);
        assert_eq!(
            shorten_path(&single),
            format!("{}...{}", "a".repeat(16), "a".repeat(16))
        );
    }
}
