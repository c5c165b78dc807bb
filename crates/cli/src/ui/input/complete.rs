//! Completion of `/commands` and `@paths` (workspace entries, respecting
//! the ignore files).

use crate::ui::commands::parse::COMMANDS;
use crate::ui::input::line_editor::Editor;
use gemini_rs_core::session::custom_commands::CustomCommand;
use gemini_rs_core::workspace::Workspace;

/// One suggestion.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// Text that replaces the token.
    pub value: String,
    /// Short description.
    pub detail: String,
}

/// Suggestions for the token before the cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// Where the token starts (byte offset).
    pub start: usize,
    /// The token as typed.
    pub token: String,
    /// Candidates.
    pub items: Vec<Suggestion>,
    /// The highlighted one.
    pub selected: usize,
}

impl Completion {
    /// The highlighted suggestion.
    pub fn current(&self) -> Option<&Suggestion> {
        self.items.get(self.selected)
    }

    /// Moves the highlight.
    pub fn step(&mut self, down: bool) {
        let n = self.items.len().max(1);
        self.selected = if down {
            (self.selected + 1) % n
        } else {
            (self.selected + n - 1) % n
        };
    }
}

/// Computes suggestions for the editor's state.
pub fn compute(
    input: &Editor,
    workspace: Option<&Workspace>,
    custom: &[CustomCommand],
    resources: &[(String, String)],
) -> Option<Completion> {
    let (start, token) = input.token_at_cursor();
    if start == 0 && token.starts_with('/') && !input.text()[..input.cursor()].contains('\n') {
        let typed = &token[1..];
        let builtin = COMMANDS.iter().map(|(name, detail)| (*name, *detail));
        let custom = custom
            .iter()
            .filter(|c| !COMMANDS.iter().any(|(name, _)| *name == c.name))
            .map(|c| (c.name.as_str(), c.description.as_str()));
        let items: Vec<Suggestion> = builtin
            .chain(custom)
            .filter(|(name, _)| name.starts_with(typed))
            .map(|(name, detail)| Suggestion {
                value: format!("/{name}"),
                detail: detail.to_string(),
            })
            .collect();
        if items.is_empty() || (items.len() == 1 && items[0].value == token) {
            return None;
        }
        return Some(Completion {
            start,
            token: token.to_string(),
            items,
            selected: 0,
        });
    }
    let rest = token.strip_prefix('@')?;
    // MCP resources (`server:uri`, templates with their `{...}` to fill).
    let mut items: Vec<Suggestion> = resources
        .iter()
        .filter(|(reference, _)| !rest.is_empty() && reference.starts_with(rest))
        .map(|(reference, name)| Suggestion {
            value: format!("@{reference}"),
            detail: format!("MCP resource: {name}"),
        })
        .collect();
    if let Some(ws) = workspace {
        items.extend(paths(ws, rest));
    }
    if items.is_empty() {
        return None;
    }
    Some(Completion {
        start,
        token: token.to_string(),
        items,
        selected: 0,
    })
}

fn paths(ws: &Workspace, typed: &str) -> Vec<Suggestion> {
    let (dir, prefix) = match typed.rfind('/') {
        Some(i) => (&typed[..=i], &typed[i + 1..]),
        None => ("", typed),
    };
    let abs_dir = if dir.is_empty() {
        ws.target_dir().to_path_buf()
    } else {
        ws.resolve(dir)
    };
    let Ok(entries) = std::fs::read_dir(&abs_dir) else {
        return Vec::new();
    };
    let lower = prefix.to_lowercase();
    let mut out: Vec<(bool, String)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') && !prefix.starts_with('.') {
                return None;
            }
            if !name.to_lowercase().starts_with(&lower) {
                return None;
            }
            let path = e.path();
            if ws.is_ignored(&path, ws.filter_options()) {
                return None;
            }
            let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
            Some((is_dir, name))
        })
        .collect();
    out.sort_by(|a, b| a.1.cmp(&b.1));
    out.truncate(50);
    out.into_iter()
        .map(|(is_dir, name)| {
            let suffix = if is_dir { "/" } else { "" };
            Suggestion {
                value: format!("@{dir}{}{suffix}", escape(&name)),
                detail: if is_dir {
                    "directory".into()
                } else {
                    String::new()
                },
            }
        })
        .collect()
}

/// Escapes spaces as `\ ` the way `@path` references expect.
fn escape(name: &str) -> String {
    name.replace(' ', "\\ ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completes_commands_and_paths() {
        let mut e = Editor::default();
        e.set("/he");
        let c = compute(&e, None, &[], &[]).unwrap();
        assert_eq!(c.items[0].value, "/help");
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/main.rs"), "").unwrap();
        std::fs::write(root.join("README.md"), "").unwrap();
        let ws = Workspace::new(root.clone(), Vec::new(), root.join(".tmp"));
        e.set("look at @sr");
        let c = compute(&e, Some(&ws), &[], &[]).unwrap();
        assert_eq!(c.items[0].value, "@src/");
        e.set("look at @src/m");
        let c = compute(&e, Some(&ws), &[], &[]).unwrap();
        assert_eq!(c.items[0].value, "@src/main.rs");
        // MCP resources and templates by server prefix.
        let resources = vec![
            ("docs:demo://a.md".to_string(), "a".to_string()),
            ("docs:demo://t/{id}".to_string(), "t".to_string()),
        ];
        e.set("read @docs:");
        let c = compute(&e, Some(&ws), &[], &resources).unwrap();
        let values: Vec<&str> = c.items.iter().map(|i| i.value.as_str()).collect();
        assert_eq!(values, ["@docs:demo://a.md", "@docs:demo://t/{id}"]);
    }
}
