//! Custom slash commands: TOML files under `~/.gemini/commands/` and
//! `<project>/.gemini/commands/` (the project's win on a clash), a folder
//! making a namespace (`git/commit.toml` is `/git:commit`), with a required
//! `prompt` and an optional `description`, as Gemini CLI reads them.

mod error;
mod expand;
mod folders;
mod mcp_prompts;

pub use error::{CommandError, CommandFileError};
pub use expand::{AskCommand, Expansion, expand};
pub use folders::{CommandFolder, CommandFolders, reloaded};
pub use mcp_prompts::{connection_prompt_commands, mcp_prompt_commands, prompt_turn};

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// The name typed after `/` (`git:commit`).
    pub name: String,
    /// What `/help` and completion show.
    pub description: String,
    /// Where its prompt comes from.
    pub source: CommandSource,
}

/// Where a command's prompt comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandSource {
    /// A TOML file's template.
    File {
        /// The template.
        prompt: String,
        /// The file.
        path: PathBuf,
    },
    /// A prompt of a connected MCP server.
    McpPrompt {
        /// The server.
        server: String,
        /// The prompt's arguments in order.
        arguments: Vec<PromptArgument>,
    },
}

/// One argument of an MCP prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptArgument {
    /// Its name (`--name=value`).
    pub name: String,
    /// Whether it must be given.
    pub required: bool,
}

/// The fields of a command file.
#[derive(Debug, Deserialize)]
struct CommandFile {
    prompt: String,
    description: Option<String>,
}

/// The commands of the extensions' `commands/` folders (`(name, dir)`,
/// lowest precedence, described as `[name] ...`), the user's and the
/// project's folders (the project's only when the folder is trusted),
/// sorted by name, and a warning for each file that could not be used.
pub fn load(
    extension_dirs: &[(String, PathBuf)],
    user_dir: &Path,
    project_dir: Option<&Path>,
) -> (Vec<CustomCommand>, Vec<String>) {
    let mut commands: Vec<CustomCommand> = Vec::new();
    let mut warnings = Vec::new();
    for (extension, dir) in extension_dirs {
        let mut files = Vec::new();
        collect_toml(dir, &mut files);
        files.sort();
        for file in files {
            match read_command(dir, &file) {
                Ok(mut cmd) => {
                    cmd.description = format!("[{extension}] {}", cmd.description);
                    commands.retain(|c| c.name != cmd.name);
                    commands.push(cmd);
                }
                Err(warning) => warnings.push(warning.to_string()),
            }
        }
    }
    for dir in std::iter::once(user_dir).chain(project_dir) {
        let mut files = Vec::new();
        collect_toml(dir, &mut files);
        files.sort();
        for file in files {
            match read_command(dir, &file) {
                Ok(cmd) => {
                    commands.retain(|c| c.name != cmd.name);
                    commands.push(cmd);
                }
                Err(warning) => warnings.push(warning.to_string()),
            }
        }
    }
    commands.sort_by(|a, b| a.name.cmp(&b.name));
    (commands, warnings)
}

/// The `.toml` files beneath `dir`, at any depth.
fn collect_toml(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => collect_toml(&path, out),
            // Symlinks and special files too: the read refuses them by name.
            Ok(_) if path.extension().is_some_and(|e| e == "toml") => out.push(path),
            _ => {}
        }
    }
}

/// One file as a command, or the warning that names what is wrong.
fn read_command(base: &Path, file: &Path) -> Result<CustomCommand, CommandFileError> {
    use crate::config::input_file::{MAX_INPUT_BYTES, MAX_NESTING, check_nesting, read_input};
    let text = read_input(file, Some(base), MAX_INPUT_BYTES)?;
    check_nesting(&text, MAX_NESTING).map_err(|source| CommandFileError::TooDeep {
        path: file.to_path_buf(),
        source,
    })?;
    let parsed: CommandFile = toml::from_str(&text).map_err(|e| {
        let line = e.span().map_or(1, |span| {
            text[..span.start.min(text.len())].lines().count().max(1)
        });
        CommandFileError::Toml {
            path: file.to_path_buf(),
            line,
            message: e.message().to_string(),
        }
    })?;
    let relative = file.strip_prefix(base).unwrap_or(file).with_extension("");
    let name = relative
        .components()
        .map(|c| sanitize(&c.as_os_str().to_string_lossy()))
        .collect::<Vec<_>>()
        .join(":");
    let file_name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let description = parsed
        .description
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| format!("Custom command from {file_name}"));
    Ok(CustomCommand {
        name,
        description: one_line(&description, 100),
        source: CommandSource::File {
            prompt: parsed.prompt,
            path: file.to_path_buf(),
        },
    })
}

/// A name segment with characters other than letters, digits, `_`, `-`
/// and `.` replaced by `_` (so `:` stays the namespace separator).
fn sanitize(segment: &str) -> String {
    let clean: String = segment
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.chars().count() > 50 {
        format!("{}...", clean.chars().take(47).collect::<String>())
    } else {
        clean
    }
}

/// `text` on one line, cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() > max {
        format!("{}...", flat.chars().take(max - 3).collect::<String>())
    } else {
        flat
    }
}

/// Appends the commands of `extra` whose names `commands` does not have
/// yet: the ones already there win (file commands over MCP prompts, the
/// earlier prompt over a later one).
pub fn add_unnamed(
    commands: &mut Vec<CustomCommand>,
    extra: impl IntoIterator<Item = CustomCommand>,
) {
    for cmd in extra {
        if !commands.iter().any(|c| c.name == cmd.name) {
            commands.push(cmd);
        }
    }
}

/// The command a prompt invokes: `/name args` with `name` a known command.
pub fn invoked<'a>(
    commands: &'a [CustomCommand],
    text: &'a str,
) -> Option<(&'a CustomCommand, &'a str)> {
    let rest = text.trim_start().strip_prefix('/')?;
    let (name, args) = match rest.split_once(char::is_whitespace) {
        Some((name, args)) => (name, args.trim()),
        None => (rest.trim_end(), ""),
    };
    commands.iter().find(|c| c.name == name).map(|c| (c, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn folders_make_namespaces_and_the_project_wins() {
        let user = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        write(user.path(), "git/commit.toml", "prompt = \"user commit\"");
        write(
            user.path(),
            "hi.toml",
            "prompt = \"hello\"\ndescription = \"Says hi\"",
        );
        write(
            project.path(),
            "git/commit.toml",
            "prompt = \"project commit\"",
        );
        write(project.path(), "bad.toml", "description = \"no prompt\"\n");
        write(
            project.path(),
            "broken.toml",
            "prompt = \"x\"\n\nprompt = = 3\n",
        );
        let ext = tempfile::tempdir().unwrap();
        write(ext.path(), "deploy.toml", "prompt = \"ship it\"");
        write(ext.path(), "hi.toml", "prompt = \"extension hello\"");
        let exts = [("tools".to_string(), ext.path().to_path_buf())];
        let (cmds, warnings) = load(&exts, user.path(), Some(project.path()));
        let names: Vec<&str> = cmds.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["deploy", "git:commit", "hi"]);
        assert_eq!(
            cmds[0].description,
            "[tools] Custom command from deploy.toml"
        );
        assert!(
            matches!(&cmds[1].source, CommandSource::File { prompt, .. } if prompt == "project commit")
        );
        assert_eq!(cmds[1].description, "Custom command from commit.toml");
        // The user's command wins over the extension's.
        assert_eq!(cmds[2].description, "Says hi");
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("bad.toml") && w.contains("prompt"))
        );
        assert!(
            warnings.iter().any(|w| w.contains("broken.toml (line 3)")),
            "{warnings:?}"
        );
        let (cmd, args) = invoked(&cmds, "/git:commit fix the typo").unwrap();
        assert_eq!((cmd.name.as_str(), args), ("git:commit", "fix the typo"));
        assert!(invoked(&cmds, "/nope").is_none());
        assert!(invoked(&cmds, "hi").is_none());
    }
}
