//! Completion of `/commands` and `@paths` (workspace entries, respecting
//! the ignore files).

use crate::ui::input::line_editor::Editor;
use gemini_rs_core::PathEntry;
use gemini_rs_protocol::events::CommandInfo;

/// Lists the workspace folder typed so far (`dir`, relative) for the
/// entries starting with `prefix` (the session's view answers it).
pub type ListDir<'a> = &'a dyn Fn(&str, &str) -> Vec<PathEntry>;

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

/// Computes suggestions for the editor's state: `commands` are the
/// built-in slash commands (name, help) and the custom ones.
pub fn compute(
    input: &Editor,
    list_dir: Option<ListDir<'_>>,
    (builtin, custom): (&[(&str, &str)], &[CommandInfo]),
    resources: &[(String, String)],
) -> Option<Completion> {
    let (start, token) = input.token_at_cursor();
    if start == 0 && token.starts_with('/') && !input.text()[..input.cursor()].contains('\n') {
        let typed = &token[1..];
        let custom = custom
            .iter()
            .filter(|c| !builtin.iter().any(|(name, _)| *name == c.name))
            .map(|c| (c.name.as_str(), c.description.as_str()));
        let items: Vec<Suggestion> = builtin
            .iter()
            .map(|(name, detail)| (*name, *detail))
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
    if let Some(list_dir) = list_dir {
        items.extend(paths(list_dir, rest));
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

fn paths(list_dir: ListDir<'_>, typed: &str) -> Vec<Suggestion> {
    let (dir, prefix) = match typed.rfind('/') {
        Some(i) => (&typed[..=i], &typed[i + 1..]),
        None => ("", typed),
    };
    list_dir(dir, prefix)
        .into_iter()
        .map(|e| {
            let suffix = if e.is_dir { "/" } else { "" };
            Suggestion {
                value: format!("@{dir}{}{suffix}", escape(&e.name)),
                detail: if e.is_dir {
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
        let c = compute(&e, None, (&[("help", "Show help")], &[]), &[]).unwrap();
        assert_eq!(c.items[0].value, "/help");
        // A workspace of `src/main.rs` and `README.md`.
        let list = |dir: &str, prefix: &str| -> Vec<PathEntry> {
            let entries: &[(&str, bool)] = match dir {
                "" => &[("README.md", false), ("src", true)],
                "src/" => &[("main.rs", false)],
                _ => &[],
            };
            entries
                .iter()
                .filter(|(name, _)| name.to_lowercase().starts_with(&prefix.to_lowercase()))
                .map(|(name, is_dir)| PathEntry {
                    name: name.to_string(),
                    is_dir: *is_dir,
                })
                .collect()
        };
        let ws: ListDir<'_> = &list;
        e.set("look at @sr");
        let c = compute(&e, Some(ws), (&[], &[]), &[]).unwrap();
        assert_eq!(c.items[0].value, "@src/");
        e.set("look at @src/m");
        let c = compute(&e, Some(ws), (&[], &[]), &[]).unwrap();
        assert_eq!(c.items[0].value, "@src/main.rs");
        // MCP resources and templates by server prefix.
        let resources = vec![
            ("docs:demo://a.md".to_string(), "a".to_string()),
            ("docs:demo://t/{id}".to_string(), "t".to_string()),
        ];
        e.set("read @docs:");
        let c = compute(&e, Some(ws), (&[], &[]), &resources).unwrap();
        let values: Vec<&str> = c.items.iter().map(|i| i.value.as_str()).collect();
        assert_eq!(values, ["@docs:demo://a.md", "@docs:demo://t/{id}"]);
    }
}
