//! `@path` imports inside context files, resolved as Gemini CLI 0.61 does:
//! an `@` at the start of the text or after a space, tab or line break,
//! followed by a path that starts with `.`, `/` or an ASCII letter and runs
//! to the next white space, anywhere in a line. An import inside a code span
//! or block (text between two equal runs of backticks) stays as written.
//!
//! Each imported file's own imports are expanded in turn; a file five
//! imports deep is taken as written (its `@` lines stay literal text). A
//! file already being imported further up the chain is answered
//! `<!-- File already processed: <path> -->` (the context file at the top
//! of the chain is not in that chain, so importing it again expands it once
//! more, to the depth limit). An import must resolve, symlinks followed,
//! inside the project root of the context file (the nearest folder above it
//! holding `.git`, else its own folder): anything else, a URL included, is
//! `<!-- Import failed: <path> - Path traversal attempt -->`.
//!
//! A deliberate difference: a FIFO, device or a file over the size limit is
//! refused with its reason instead of being read (0.61 would hang on a FIFO).

use super::{Refusal, read_allowed};
use crate::workspace::realpath_lenient;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Deepest chain of `@file` imports followed (0.61's `maxDepth`).
const MAX_IMPORT_DEPTH: usize = 5;

/// The project root of a context file in `dir`: the nearest folder at or
/// above it holding `.git`, else `dir` itself.
pub(super) fn project_root(dir: &Path) -> PathBuf {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(dir)
        .to_path_buf()
}

/// Import resolution for one context file: its project root, and the
/// warnings so far.
pub(super) struct Imports<'a> {
    /// The real path of the context file's project root.
    pub root: PathBuf,
    /// One line per refused or failed import.
    pub warnings: &'a mut Vec<String>,
}

impl Imports<'_> {
    /// Expands the imports of `content` (the text of `file`, in folder
    /// `base`), `depth` imports down from the context file; `chain` holds the
    /// files being imported above this one.
    pub fn expand(
        &mut self,
        content: &str,
        file: &Path,
        base: &Path,
        chain: &HashSet<PathBuf>,
        depth: usize,
    ) -> String {
        if depth >= MAX_IMPORT_DEPTH {
            return content.to_string();
        }
        let code = code_regions(content);
        let mut out = String::with_capacity(content.len());
        let mut last = 0;
        for (start, end) in find_imports(content) {
            out.push_str(&content[last..start]);
            last = end;
            let target = &content[start + 1..end];
            if code.iter().any(|&(s, e)| start >= s && start < e) {
                out.push('@');
                out.push_str(target);
                continue;
            }
            let line = content[..start].matches('\n').count() + 1;
            let full = crate::tools::plan::normalize(&base.join(target));
            let is_url = ["file://", "http://", "https://"]
                .iter()
                .any(|p| target.starts_with(p));
            if is_url || !realpath_lenient(&full).starts_with(&self.root) {
                self.refuse(file, line, target, &Refusal::Outside, &mut out);
                continue;
            }
            if chain.contains(&full) {
                out.push_str(&format!("<!-- File already processed: {target} -->"));
                continue;
            }
            match read_allowed(&full, std::slice::from_ref(&self.root)) {
                Ok(text) => {
                    let mut inner_chain = chain.clone();
                    inner_chain.insert(full.clone());
                    let dir = full.parent().unwrap_or(base);
                    let inner = self.expand(&text, &full, dir, &inner_chain, depth + 1);
                    out.push_str(&format!(
                        "<!-- Imported from: {target} -->\n{inner}\n<!-- End of import from: {target} -->"
                    ));
                }
                Err(Refusal::Io(e)) => {
                    let message = node_message(&e, &full);
                    self.warnings.push(format!(
                        "{}:{line}: import @{target} failed: {message}",
                        file.display()
                    ));
                    out.push_str(&format!("<!-- Import failed: {target} - {message} -->"));
                }
                Err(refusal) => self.refuse(file, line, target, &refusal, &mut out),
            }
        }
        out.push_str(&content[last..]);
        out
    }

    /// Records a refused import: a warning naming the file and line, and
    /// Gemini CLI's comment in the text.
    fn refuse(&mut self, file: &Path, line: usize, target: &str, why: &Refusal, out: &mut String) {
        let reason = match why {
            Refusal::Outside => format!(
                "it resolves outside the project root {}",
                self.root.display()
            ),
            other => other.reason(),
        };
        self.warnings.push(format!(
            "{}:{line}: import @{target} refused: {reason}",
            file.display()
        ));
        out.push_str(&format!(
            "<!-- Import failed: {target} - {} -->",
            why.comment_reason()
        ));
    }
}

/// An I/O error in the words Node gives it (what 0.61 writes in its
/// comment): `ENOENT: no such file or directory, access '<path>'`.
fn node_message(e: &std::io::Error, path: &Path) -> String {
    let shown = path.display();
    match e.raw_os_error() {
        Some(libc::ENOENT) => format!("ENOENT: no such file or directory, access '{shown}'"),
        Some(libc::ENOTDIR) => format!("ENOTDIR: not a directory, access '{shown}'"),
        Some(libc::EACCES) => format!("EACCES: permission denied, open '{shown}'"),
        Some(libc::EISDIR) => "EISDIR: illegal operation on a directory, read".to_string(),
        _ => e.to_string(),
    }
}

/// The `(start, end)` byte ranges of the imports in `content`: from the `@`
/// to the next white space.
fn find_imports(content: &str) -> Vec<(usize, usize)> {
    let bytes = content.as_bytes();
    let space = |b: u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = content[i..].find('@').map(|k| k + i) {
        if at > 0 && !space(bytes[at - 1]) {
            i = at + 1;
            continue;
        }
        let end = bytes[at + 1..]
            .iter()
            .position(|&b| space(b))
            .map_or(bytes.len(), |k| at + 1 + k);
        let first = bytes.get(at + 1).copied();
        if first.is_some_and(|b| b == b'.' || b == b'/' || b.is_ascii_alphabetic()) {
            out.push((at, end));
        }
        i = end + 1;
        if i >= bytes.len() {
            break;
        }
    }
    out
}

/// The code spans and blocks of `content`: from a run of backticks to the
/// next run as long (0.61's ``(`+)([\s\S]*?)\1``), as byte ranges.
fn code_regions(content: &str) -> Vec<(usize, usize)> {
    let bytes = content.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        // The longest run that closes wins, as the regex backtracks.
        let found = (1..=run).rev().find_map(|n| {
            let fence = "`".repeat(n);
            content[i + n..].find(&fence).map(|k| (n, i + n + k + n))
        });
        match found {
            Some((_, end)) => {
                out.push((i, end));
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_imports_as_0_61_does() {
        let text = "@a.md x@b.md see @docs/c.md\n@ @1.md `@d.md`\t@/abs.md";
        let found: Vec<&str> = find_imports(text)
            .iter()
            .map(|&(s, e)| &text[s..e])
            .collect();
        assert_eq!(found, ["@a.md", "@docs/c.md", "@/abs.md"]);
        let regions = code_regions("a `x` b ```\ncode ``y``\n``` c `open");
        assert_eq!(regions, [(2, 5), (8, 26)]);
    }
}
