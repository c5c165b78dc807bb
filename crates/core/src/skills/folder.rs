//! A skill folder's files as Gemini CLI lists them for `activate_skill`:
//! breadth first, files before folders, alphabetical, at most 200 items,
//! `node_modules`, `.git`, `dist` and `__pycache__` shown but not entered.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

const MAX_ITEMS: usize = 200;
const TRUNCATED: &str = "...";
const SKIPPED: [&str; 4] = ["node_modules", ".git", "dist", "__pycache__"];

/// One folder of the listing.
#[derive(Default)]
struct Node {
    name: String,
    files: Vec<String>,
    folders: Vec<usize>,
    more_files: bool,
    more_folders: bool,
    skipped: bool,
}

/// The listing of `dir` with its header.
pub fn folder_structure(dir: &Path) -> String {
    let mut nodes = vec![Node {
        name: dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        ..Node::default()
    }];
    let mut queue: VecDeque<(usize, PathBuf)> = VecDeque::from([(0, dir.to_path_buf())]);
    let mut count = 0;
    while let Some((at, path)) = queue.pop_front() {
        if count >= MAX_ITEMS {
            continue;
        }
        let Ok(read) = std::fs::read_dir(&path) else {
            if at == 0 {
                return format!(
                    "Error: Could not read directory \"{}\". Check path and permissions.",
                    dir.display()
                );
            }
            continue;
        };
        let mut entries: Vec<(String, bool)> = read
            .flatten()
            .map(|e| {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                (e.file_name().to_string_lossy().into_owned(), is_dir)
            })
            .collect();
        entries.sort();
        for (name, _) in entries.iter().filter(|(_, d)| !d) {
            if count >= MAX_ITEMS {
                nodes[at].more_files = true;
                break;
            }
            nodes[at].files.push(name.clone());
            count += 1;
        }
        for (name, _) in entries.iter().filter(|(_, d)| *d) {
            if count >= MAX_ITEMS {
                nodes[at].more_folders = true;
                break;
            }
            let skipped = SKIPPED.contains(&name.as_str());
            nodes.push(Node {
                name: name.clone(),
                skipped,
                ..Node::default()
            });
            let id = nodes.len() - 1;
            nodes[at].folders.push(id);
            count += 1;
            if !skipped {
                queue.push_back((id, path.join(name)));
            }
        }
    }
    let mut lines = Vec::new();
    render(&nodes, 0, "", true, true, &mut lines);
    let truncated = nodes
        .iter()
        .any(|n| n.more_files || n.more_folders || n.skipped);
    let mut summary = format!("Showing up to {MAX_ITEMS} items (files + folders).");
    if truncated {
        summary.push_str(&format!(
            " Folders or files indicated with {TRUNCATED} contain more items not shown, were ignored, or the display limit ({MAX_ITEMS} items) was reached."
        ));
    }
    format!("{summary}\n\n{}/\n{}", dir.display(), lines.join("\n"))
}

fn render(nodes: &[Node], at: usize, indent: &str, last: bool, root: bool, out: &mut Vec<String>) {
    let node = &nodes[at];
    let connector = if last { "└───" } else { "├───" };
    if !root || node.skipped {
        let mark = if node.skipped { TRUNCATED } else { "" };
        out.push(format!("{indent}{connector}{}/{mark}", node.name));
    }
    let child_indent = if root {
        String::new()
    } else {
        format!("{indent}{}", if last { "    " } else { "│   " })
    };
    let n = node.files.len();
    for (i, file) in node.files.iter().enumerate() {
        let last_file = i + 1 == n && node.folders.is_empty() && !node.more_folders;
        let c = if last_file {
            "└───"
        } else {
            "├───"
        };
        out.push(format!("{child_indent}{c}{file}"));
    }
    if node.more_files {
        let c = if node.folders.is_empty() && !node.more_folders {
            "└───"
        } else {
            "├───"
        };
        out.push(format!("{child_indent}{c}{TRUNCATED}"));
    }
    let m = node.folders.len();
    for (i, id) in node.folders.iter().enumerate() {
        let last_folder = i + 1 == m && !node.more_folders;
        render(nodes, *id, &child_indent, last_folder, false, out);
    }
    if node.more_folders {
        out.push(format!("{child_indent}└───{TRUNCATED}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_files_before_folders_like_the_reference() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("SKILL.md"), "x").unwrap();
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/run.sh"), "x").unwrap();
        std::fs::write(root.join("scripts/a.py"), "x").unwrap();
        std::fs::create_dir_all(root.join("node_modules/x")).unwrap();
        let text = folder_structure(root);
        let expected = format!(
            "Showing up to 200 items (files + folders). Folders or files indicated with ... contain more items not shown, were ignored, or the display limit (200 items) was reached.\n\n{}/\n├───SKILL.md\n├───node_modules/...\n└───scripts/\n    ├───a.py\n    └───run.sh",
            root.display()
        );
        assert_eq!(text, expected);
    }
}
