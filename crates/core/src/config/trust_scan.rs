//! What a folder would bring if it were trusted: the trust dialog lists it
//! before the user decides. Only names are read (the project settings file
//! as JSON, directory listings); nothing is run or loaded.

use super::layer_view::{CommandEntry, HookGroupView};
use super::lenient::from_object;
use serde_json::Value;
use std::path::Path;

/// The project-level things a folder carries, by kind, names sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FolderContents {
    /// Custom commands (`.gemini/commands/**/*.toml`, as `/a:b`).
    pub commands: Vec<String>,
    /// MCP servers of `.gemini/settings.json`.
    pub mcp_servers: Vec<String>,
    /// Hooks of `.gemini/settings.json` (`Event: command`).
    pub hooks: Vec<String>,
    /// Skills (`.gemini/skills/<name>`, `.agents/skills/<name>`).
    pub skills: Vec<String>,
    /// Agents (`.gemini/agents/*.md`).
    pub agents: Vec<String>,
    /// The other top-level keys of `.gemini/settings.json`.
    pub settings: Vec<String>,
}

impl FolderContents {
    /// Scans `root`. A missing or unreadable part counts as empty: the
    /// dialog shows what can be seen, the decision is the user's.
    pub fn scan(root: &Path) -> FolderContents {
        let gemini = root.join(".gemini");
        let settings = std::fs::read_to_string(gemini.join("settings.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&super::jsonc::strip_comments(&t)).ok())
            .unwrap_or(Value::Null);
        let mut contents = FolderContents {
            commands: commands(&gemini.join("commands")),
            skills: entries(&gemini.join("skills"), Path::is_dir),
            agents: entries(&gemini.join("agents"), |p| {
                p.extension().is_some_and(|e| e == "md")
            }),
            ..Default::default()
        };
        contents
            .skills
            .extend(entries(&root.join(".agents/skills"), Path::is_dir));
        for (key, value) in settings.as_object().into_iter().flatten() {
            match key.as_str() {
                "mcpServers" => contents.mcp_servers.extend(
                    value
                        .as_object()
                        .into_iter()
                        .flatten()
                        .map(|(k, _)| k.clone()),
                ),
                "hooks" => contents.hooks.extend(hooks(value)),
                _ => contents.settings.push(key.clone()),
            }
        }
        for list in [
            &mut contents.commands,
            &mut contents.mcp_servers,
            &mut contents.hooks,
            &mut contents.skills,
            &mut contents.agents,
            &mut contents.settings,
        ] {
            list.sort();
            list.dedup();
        }
        contents
    }

    /// True when the folder brings nothing of the above.
    pub fn is_empty(&self) -> bool {
        self == &FolderContents::default()
    }
}

/// Names in `dir` (without extension) of the entries `keep` accepts.
fn entries(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| keep(p))
        .filter_map(|p| Some(p.file_stem()?.to_string_lossy().into_owned()))
        .collect()
}

/// `/name` for each TOML file below `dir`, subfolders joined with `:`.
fn commands(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in read.filter_map(Result::ok) {
            let path = entry.path();
            let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
                continue;
            };
            if path.is_dir() {
                stack.push((path, format!("{prefix}{stem}:")));
            } else if path.extension().is_some_and(|e| e == "toml") {
                out.push(format!("/{prefix}{stem}"));
            }
        }
    }
    out
}

/// `Event: command` for each command hook of a settings `hooks` object.
fn hooks(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for (event, groups) in value.as_object().into_iter().flatten() {
        let Some(groups) = groups.as_array() else {
            continue;
        };
        for group in groups {
            let group: HookGroupView = from_object(group);
            for hook in group.hooks.iter().flatten() {
                if let Some(command) = CommandEntry::command_of(hook) {
                    out.push(format!("{event}: {command}"));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_what_the_folder_brings() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert!(FolderContents::scan(root).is_empty());
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write(
            ".gemini/settings.json",
            r#"{"mcpServers": {"db": {"command": "x"}}, "model": {"name": "m"},
                "hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": "./h.sh"}]}]}}"#,
        );
        write(".gemini/commands/git/commit.toml", "prompt = 'x'");
        write(".gemini/skills/review/SKILL.md", "---\nname: review\n---");
        write(".agents/skills/lint/SKILL.md", "---\nname: lint\n---");
        write(".gemini/agents/helper.md", "---\nname: helper\n---");
        let c = FolderContents::scan(root);
        assert_eq!(c.commands, ["/git:commit"]);
        assert_eq!(c.mcp_servers, ["db"]);
        assert_eq!(c.hooks, ["BeforeTool: ./h.sh"]);
        assert_eq!(c.skills, ["lint", "review"]);
        assert_eq!(c.agents, ["helper"]);
        assert_eq!(c.settings, ["model"]);
    }
}
