//! The system prompt and the environment-context turn that opens every
//! conversation.

use crate::workspace::Workspace;
use std::collections::VecDeque;
use std::path::Path;

/// Most entries shown in the directory overview.
pub const TREE_LIMIT: usize = 200;
/// Folders never worth listing.
const SKIPPED_DIRS: [&str; 5] = [".git", "node_modules", "target", "bower_components", ".svn"];

/// What the system prompt mentions beyond the always-present tools.
#[derive(Debug, Clone, Default)]
pub struct PromptFeatures {
    /// `write_todos` is declared.
    pub write_todos: bool,
    /// The skills `activate_skill` offers: name, description, `SKILL.md`
    /// path (none for built-ins).
    pub skills: Vec<(String, String, Option<String>)>,
    /// The sub-agents declared as tools: `(name, description)`.
    pub agents: Vec<(String, String)>,
}

/// gemini-rs's own system prompt: tools, workspace, safety, style.
pub fn system_prompt(features: PromptFeatures) -> String {
    let mut prompt = base_prompt();
    if features.write_todos {
        prompt.push_str("\n\n# Planning\n- For a request with several distinct steps, list its subtasks with write_todos first, keep exactly one in progress while you work, and update the list whenever a subtask starts, finishes or is dropped. Skip it for simple requests.");
    }
    if !features.agents.is_empty() {
        prompt.push_str("\n\n# Sub-agents\nThese tools start a sub-agent: a specialist that works on its own, with its own tools, and hands back one result, which keeps this conversation short. When a task fits one, delegate it to the closest match, even if its expertise is broader than the task.");
        for (name, description) in &features.agents {
            let first = description.lines().next().unwrap_or_default();
            prompt.push_str(&format!("\n- {name}: {first}"));
        }
        if features
            .agents
            .iter()
            .any(|(n, _)| n == "codebase_investigator")
        {
            prompt.push_str("\nFor broad or unclear work on the code (finding a root cause, mapping an architecture, a change that reaches many files), start with codebase_investigator and build your plan on its report. For a targeted lookup (one name, one path), use glob or search_file_content directly.");
        }
    }
    if !features.skills.is_empty() {
        prompt.push_str("\n\n# Agent skills\nThese skills hold specialised instructions. When a task matches a skill's description, call `activate_skill` with its name to load them before you start.\n\n<available_skills>");
        for (name, description, location) in &features.skills {
            prompt.push_str(&format!(
                "\n  <skill>\n    <name>{name}</name>\n    <description>{description}</description>"
            ));
            if let Some(location) = location {
                prompt.push_str(&format!("\n    <location>{location}</location>"));
            }
            prompt.push_str("\n  </skill>");
        }
        prompt.push_str("\n</available_skills>");
    }
    prompt
}

fn base_prompt() -> String {
    "You are an interactive command-line agent that helps with software engineering work.

# How to work
- Understand before you change: read the relevant files with the tools before editing, and follow the project's existing conventions, style, libraries and structure.
- Use absolute paths or paths relative to the project root. Tools cannot reach outside the workspace directories.
- Prefer the dedicated file tools (read_file, write_file, replace, list_directory, glob, search_file_content, read_many_files) over shell commands for reading, searching and editing files.
- Make small, verifiable changes. After a change, run the project's own build, tests or linters when you can.
- Independent read-only tool calls may be issued together in one turn; they run concurrently.

# Safety
- Before running a shell command that modifies files or the system, say briefly what it does and why.
- Never expose, log or commit secrets or credentials.
- A call the user declines is final: do not retry it in another form; ask instead.

# Style
- Be concise and direct; plain text or GitHub-flavoured Markdown suitable for a terminal.
- Do not explain what you are about to do at length: do it, then report the result briefly."
        .to_string()
}

/// The first user turn: date, operating system, workspace directories and
/// an overview of the project root (at most `limit` entries, breadth
/// first; [`TREE_LIMIT`] in a full request).
pub fn environment_context(workspace: &Workspace, today: &str, limit: usize) -> String {
    let dirs: Vec<String> = workspace
        .dirs()
        .iter()
        .map(|d| format!("  - {}", d.display()))
        .collect();
    format!(
        "This is gemini-rs, setting up the context for this session.\nToday's date is {today}.\nThe operating system is {}.\nThe workspace directories are:\n{}\nThe project root is {}. Its files, breadth first ({} entries at most):\n{}",
        std::env::consts::OS,
        dirs.join("\n"),
        workspace.target_dir().display(),
        limit,
        directory_overview(workspace.target_dir(), limit)
    )
}

/// Breadth-first listing of `root`, one relative path per line, folders
/// ending in `/`, cut at `limit` entries.
fn directory_overview(root: &Path, limit: usize) -> String {
    let mut lines = Vec::new();
    let mut queue = VecDeque::from([root.to_path_buf()]);
    'outer: while let Some(dir) = queue.pop_front() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<(String, bool)> = read
            .filter_map(Result::ok)
            .map(|e| {
                let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
                (e.file_name().to_string_lossy().into_owned(), is_dir)
            })
            .collect();
        entries.sort();
        for (name, is_dir) in entries {
            if lines.len() >= limit {
                lines.push("...".to_string());
                break 'outer;
            }
            let path = dir.join(&name);
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .display()
                .to_string();
            if is_dir {
                lines.push(format!("{rel}/"));
                if !SKIPPED_DIRS.contains(&name.as_str()) {
                    queue.push_back(path);
                }
            } else {
                lines.push(rel);
            }
        }
    }
    if lines.is_empty() {
        "(empty)".to_string()
    } else {
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overview_is_breadth_first_and_capped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        std::fs::write(dir.path().join("src/deep/x.rs"), "").unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "").unwrap();
        let out = directory_overview(dir.path(), 200);
        assert_eq!(out, ".git/\na.txt\nsrc/\nsrc/deep/\nsrc/deep/x.rs");
        let capped = directory_overview(dir.path(), 2);
        assert_eq!(capped, ".git/\na.txt\n...");
    }
}
