//! Unified diffs in the format of jsdiff's `createPatch` (what Gemini CLI
//! shows for file edits), computed with `similar`.

use similar::{Algorithm, DiffOp, DiffableStr, TextDiff};
use std::time::Duration;

/// Lines of context around a change, as jsdiff's default.
const CONTEXT: usize = 3;
/// Largest changed region (old plus new bytes, after the common head and
/// tail are split off) that gets a line diff. Above it the diff is a
/// summary: a line diff of two unrelated 50 MB files took 38 s and would
/// be a 100 MB text nobody reads.
pub const MAX_DIFF_BYTES: usize = 4 * 1024 * 1024;
/// Longest the line diff may search for a minimal diff; past it `similar`
/// settles for a coarser (still correct) one.
const DIFF_TIMEOUT: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Same,
    Removed,
    Added,
}

/// The line diff as jsdiff's change list: consecutive blocks, removals
/// before additions. Lines keep their `\n`.
///
/// The common head and tail (whole lines) are split off first and only the
/// middle goes to `similar`, so an edit in a large file costs a scan of it,
/// not a hash of every line.
fn blocks<'a>(old: &'a str, new: &'a str) -> Vec<(Kind, Vec<&'a str>)> {
    let (head, tail) = common_lines(old, new);
    let (old_mid, new_mid) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old_mid, new_mid);
    let old_lines = diff.old_slices();
    let new_lines = diff.new_slices();
    let mut out: Vec<(Kind, Vec<&'a str>)> = Vec::new();
    if head > 0 {
        out.push((Kind::Same, old[..head].tokenize_lines()));
    }
    let mut push = |kind: Kind, lines: &[&'a str]| {
        if lines.is_empty() {
            return;
        }
        match out.last_mut() {
            Some((k, v)) if *k == kind => v.extend_from_slice(lines),
            _ => out.push((kind, lines.to_vec())),
        }
    };
    for op in diff.ops() {
        match *op {
            DiffOp::Equal { old_index, len, .. } => {
                push(Kind::Same, &old_lines[old_index..old_index + len])
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => push(Kind::Removed, &old_lines[old_index..old_index + old_len]),
            DiffOp::Insert {
                new_index, new_len, ..
            } => push(Kind::Added, &new_lines[new_index..new_index + new_len]),
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                push(Kind::Removed, &old_lines[old_index..old_index + old_len]);
                push(Kind::Added, &new_lines[new_index..new_index + new_len]);
            }
        }
    }
    if tail > 0 {
        push(Kind::Same, &old[old.len() - tail..].tokenize_lines());
    }
    out
}

/// The lines of `new` that an edit of `old` changed, with `context`
/// lines around each, runs that meet merged and `...` where lines are
/// left out: Gemini CLI 0.61's `getDiffContextSnippet`, which `replace`
/// shows the model after an edit. An empty `old` gives `new` whole.
pub fn context_snippet(old: &str, new: &str, context: usize) -> String {
    if old.is_empty() {
        return new.to_string();
    }
    let new_lines: Vec<&str> = new
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    for (kind, lines) in blocks(old, new) {
        match kind {
            Kind::Added => {
                ranges.push((at, at + lines.len()));
                at += lines.len();
            }
            Kind::Removed => ranges.push((at, at)),
            Kind::Same => at += lines.len(),
        }
    }
    if ranges.is_empty() {
        return new.to_string();
    }
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (start, end) in ranges {
        let (start, end) = (
            start.saturating_sub(context),
            new_lines.len().min(end + context),
        );
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let mut parts: Vec<String> = Vec::new();
    let mut last_end = 0;
    for (start, end) in merged {
        if start > last_end {
            parts.push("...".into());
        }
        parts.push(new_lines[start..end].join("\n"));
        last_end = end;
    }
    if last_end < new_lines.len() {
        parts.push("...".into());
    }
    parts.join("\n")
}

/// Lines of `s` as `similar` counts them (a last line without `\n`
/// counts).
fn count_lines(s: &str) -> usize {
    let newlines = s.bytes().filter(|&b| b == b'\n').count();
    newlines + usize::from(!s.is_empty() && !s.ends_with('\n'))
}

/// When the changed region of `old` -> `new` is over [`MAX_DIFF_BYTES`]:
/// its first line number and line count in old and in new, and its size.
fn oversized(old: &str, new: &str) -> Option<(usize, usize, usize, usize, usize)> {
    let (head, tail) = common_lines(old, new);
    let (old_mid, new_mid) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let size = old_mid.len() + new_mid.len();
    if size <= MAX_DIFF_BYTES {
        return None;
    }
    let start = count_lines(&old[..head]) + 1;
    Some((
        start,
        count_lines(old_mid),
        start,
        count_lines(new_mid),
        size,
    ))
}

/// Byte lengths of the longest common head and tail of `old` and `new`
/// that are whole lines: each cut falls right after a `\n` (or at the
/// start), which is a line boundary for `similar` too, and the two never
/// overlap.
fn common_lines(old: &str, new: &str) -> (usize, usize) {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let head = a[..same]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let room = a.len().min(b.len()) - head;
    let same_end = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(room)
        .take_while(|(x, y)| x == y)
        .count();
    // The tail must start a line in both: right after a `\n`, or where
    // the head ends.
    let mut tail = same_end;
    while tail > 0 {
        let (sa, sb) = (a.len() - tail, b.len() - tail);
        let starts_line = |bytes: &[u8], at: usize| at == head || bytes[at - 1] == b'\n';
        if starts_line(a, sa) && starts_line(b, sb) {
            break;
        }
        tail -= 1;
    }
    (head, tail)
}

struct Hunk {
    old_start: usize,
    old_lines: usize,
    new_start: usize,
    new_lines: usize,
    lines: Vec<String>,
}

/// jsdiff's `structuredPatch` hunks (3 lines of context).
fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    let mut diff = blocks(old, new);
    diff.push((Kind::Same, Vec::new()));
    let mut hunks = Vec::new();
    let (mut old_range_start, mut new_range_start) = (0usize, 0usize);
    let mut cur: Vec<String> = Vec::new();
    let (mut old_line, mut new_line) = (1usize, 1usize);
    let total = diff.len();
    for i in 0..total {
        let (kind, lines) = (&diff[i].0, &diff[i].1);
        match kind {
            Kind::Added | Kind::Removed => {
                if old_range_start == 0 {
                    old_range_start = old_line;
                    new_range_start = new_line;
                    if i > 0 {
                        let prev = &diff[i - 1].1;
                        let ctx = &prev[prev.len().saturating_sub(CONTEXT)..];
                        cur = ctx.iter().map(|l| format!(" {l}")).collect();
                        old_range_start -= cur.len();
                        new_range_start -= cur.len();
                    }
                }
                let sign = if *kind == Kind::Added { '+' } else { '-' };
                cur.extend(lines.iter().map(|l| format!("{sign}{l}")));
                if *kind == Kind::Added {
                    new_line += lines.len();
                } else {
                    old_line += lines.len();
                }
            }
            Kind::Same => {
                if old_range_start != 0 {
                    if lines.len() <= CONTEXT * 2 && i + 2 < total {
                        cur.extend(lines.iter().map(|l| format!(" {l}")));
                    } else {
                        let size = lines.len().min(CONTEXT);
                        cur.extend(lines[..size].iter().map(|l| format!(" {l}")));
                        hunks.push(Hunk {
                            old_start: old_range_start,
                            old_lines: old_line - old_range_start + size,
                            new_start: new_range_start,
                            new_lines: new_line - new_range_start + size,
                            lines: std::mem::take(&mut cur),
                        });
                        old_range_start = 0;
                        new_range_start = 0;
                    }
                }
                old_line += lines.len();
                new_line += lines.len();
            }
        }
    }
    hunks
}

/// A unified diff like jsdiff's `createPatch(fileName, old, new, oldHeader,
/// newHeader)`: an `Index:` line, `=`-rule, `--- name\theader`,
/// `+++ name\theader`, hunks with 3 lines of context, and
/// `\ No newline at end of file` after a last line without newline.
pub fn unified_diff(
    old: &str,
    new: &str,
    old_header: &str,
    new_header: &str,
    file_name: &str,
) -> String {
    let mut out = vec![
        format!("Index: {file_name}"),
        "===================================================================".to_string(),
        format!("--- {file_name}\t{old_header}"),
        format!("+++ {file_name}\t{new_header}"),
    ];
    if let Some((old_start, old_lines, new_start, new_lines, size)) = oversized(old, new) {
        let mb = size as f64 / (1024.0 * 1024.0);
        out.push(format!(
            "@@ -{old_start},{old_lines} +{new_start},{new_lines} @@"
        ));
        out.push(format!(
            "\\ Diff not shown: the changed region is {mb:.2}MB, over the {}MB limit.",
            MAX_DIFF_BYTES / (1024 * 1024)
        ));
        let mut text = out.join("\n");
        text.push('\n');
        return text;
    }
    for hunk in hunks(old, new) {
        // Unified diff quirk: an empty range starts one line earlier.
        let old_start = if hunk.old_lines == 0 {
            hunk.old_start - 1
        } else {
            hunk.old_start
        };
        let new_start = if hunk.new_lines == 0 {
            hunk.new_start - 1
        } else {
            hunk.new_start
        };
        out.push(format!(
            "@@ -{old_start},{} +{new_start},{} @@",
            hunk.old_lines, hunk.new_lines
        ));
        for line in hunk.lines {
            match line.strip_suffix('\n') {
                Some(l) => out.push(l.to_string()),
                None => {
                    out.push(line);
                    out.push("\\ No newline at end of file".to_string());
                }
            }
        }
    }
    let mut text = out.join("\n");
    text.push('\n');
    text
}

/// A diff that only says why there is none: the headers of
/// [`unified_diff`] and a `\ Diff not shown: <reason>` line.
pub fn summary_diff(file_name: &str, old_header: &str, new_header: &str, reason: &str) -> String {
    format!(
        "Index: {file_name}\n===================================================================\n--- {file_name}\t{old_header}\n+++ {file_name}\t{new_header}\n\\ Diff not shown: {reason}\n"
    )
}

/// Lines added and removed between `old` and `new` (a line diff; above
/// [`MAX_DIFF_BYTES`] every line of the changed region counts).
pub fn line_changes(old: &str, new: &str) -> (u64, u64) {
    if let Some((_, removed, _, added, _)) = oversized(old, new) {
        return (added as u64, removed as u64);
    }
    let mut added = 0u64;
    let mut removed = 0u64;
    for (kind, lines) in blocks(old, new) {
        match kind {
            Kind::Added => added += lines.len() as u64,
            Kind::Removed => removed += lines.len() as u64,
            Kind::Same => {}
        }
    }
    (added, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_snippet_shows_the_changed_lines_with_context() {
        let old = "Hello World\nhello again\n";
        let new = "Hello World\nbye again\n";
        assert_eq!(context_snippet(old, new, 5), new);
        let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
        let new = old.replace("10\n", "ten\n");
        assert_eq!(
            context_snippet(&old, &new, 2),
            "...\n8\n9\nten\n11\n12\n..."
        );
        assert_eq!(context_snippet("", "x", 5), "x");
    }

    /// The diff with the common head and tail split off equals the one
    /// `similar` gives on the whole texts.
    #[test]
    fn splitting_off_common_lines_changes_nothing() {
        let whole = |old: &str, new: &str| {
            let diff = TextDiff::configure()
                .algorithm(Algorithm::Myers)
                .diff_lines(old, new);
            let (mut add, mut del) = (0u64, 0u64);
            for c in diff.iter_all_changes() {
                match c.tag() {
                    similar::ChangeTag::Insert => add += 1,
                    similar::ChangeTag::Delete => del += 1,
                    similar::ChangeTag::Equal => {}
                }
            }
            (add, del)
        };
        let texts = [
            "",
            "a",
            "a\n",
            "a\nb\nc\n",
            "a\nb\nc",
            "a\r\nb\r\n",
            "a\rb\n",
            "x\na\nb\nc\n",
            "a\nb\nX\nc\n",
            "a\nb\n",
            "b\nc\n",
            "a\nbc\n",
            "a\nb\nc\nc\n",
            "\n\n",
        ];
        for old in texts {
            for new in texts {
                assert_eq!(
                    line_changes(old, new),
                    whole(old, new),
                    "{old:?} -> {new:?}"
                );
                let joined: String = blocks(old, new)
                    .into_iter()
                    .filter(|(k, _)| *k != Kind::Added)
                    .flat_map(|(_, l)| l)
                    .collect();
                assert_eq!(joined, old, "{old:?} -> {new:?}");
            }
        }
        let big = "line\n".repeat(1000);
        let p = unified_diff(
            &format!("{big}old\n{big}"),
            &format!("{big}new\n{big}"),
            "C",
            "P",
            "f",
        );
        assert!(
            p.ends_with(
                "@@ -998,7 +998,7 @@\n line\n line\n line\n-old\n+new\n line\n line\n line\n"
            ),
            "{p}"
        );
    }

    const HEAD: &str = "Index: f.txt\n===================================================================\n--- f.txt\tCurrent\n+++ f.txt\tProposed\n";

    fn patch(old: &str, new: &str) -> String {
        unified_diff(old, new, "Current", "Proposed", "f.txt")
    }

    #[test]
    fn identical_has_no_hunks() {
        assert_eq!(patch("a\n", "a\n"), HEAD);
        assert_eq!(patch("", ""), HEAD);
    }

    #[test]
    fn new_file_without_trailing_newline() {
        assert_eq!(
            patch("", "a\nb"),
            format!("{HEAD}@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n")
        );
    }

    #[test]
    fn deleted_content() {
        assert_eq!(
            patch("a\nb\n", ""),
            format!("{HEAD}@@ -1,2 +0,0 @@\n-a\n-b\n")
        );
    }

    #[test]
    fn trailing_newline_change() {
        assert_eq!(
            patch("old\n", "new"),
            format!("{HEAD}@@ -1,1 +1,1 @@\n-old\n+new\n\\ No newline at end of file\n")
        );
        assert_eq!(
            patch("x\ny", "x\ny\n"),
            format!("{HEAD}@@ -1,2 +1,2 @@\n x\n-y\n\\ No newline at end of file\n+y\n")
        );
    }

    #[test]
    fn context_and_separate_hunks() {
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l2\n", "L2\n").replace("l18\n", "L18\n");
        let expected = format!(
            "{HEAD}@@ -1,5 +1,5 @@\n l1\n-l2\n+L2\n l3\n l4\n l5\n@@ -15,6 +15,6 @@\n l15\n l16\n l17\n-l18\n+L18\n l19\n l20\n"
        );
        assert_eq!(patch(&old, &new), expected);
        // Changes 6 lines apart share one hunk.
        let new = old.replace("l2\n", "L2\n").replace("l9\n", "L9\n");
        let p = patch(&old, &new);
        assert_eq!(p.matches("@@ -").count(), 1);
        assert!(p.contains("@@ -1,12 +1,12 @@\n"));
    }

    #[test]
    fn headers_and_name() {
        let p = unified_diff("a\n", "b\n", "Original", "Written", "d/x.rs");
        assert!(p.starts_with("Index: d/x.rs\n====="));
        assert!(
            p.contains("\n--- d/x.rs\tOriginal\n+++ d/x.rs\tWritten\n@@ -1,1 +1,1 @@\n-a\n+b\n")
        );
    }

    #[test]
    fn a_large_changed_region_gets_a_summary() {
        let old: String = (0..400_000).map(|i| format!("old line {i}\n")).collect();
        let new: String = (0..400_000).map(|i| format!("new line {i}\n")).collect();
        let (old, new) = (format!("a\nb\n{old}z\n"), format!("a\nb\n{new}z\n"));
        assert!(old.len() + new.len() > MAX_DIFF_BYTES);
        let p = patch(&old, &new);
        let mb = (old.len() + new.len() - 12) as f64 / (1024.0 * 1024.0);
        assert_eq!(
            p,
            format!(
                "{HEAD}@@ -3,400000 +3,400000 @@\n\\ Diff not shown: the changed region is {mb:.2}MB, over the 4MB limit.\n"
            )
        );
        assert_eq!(line_changes(&old, &new), (400_000, 400_000));
        // Below the limit, unrelated texts are still counted whole.
        let old: String = (0..40_000).map(|i| format!("o{i}\n")).collect();
        let new: String = (0..40_000).map(|i| format!("n{i}\n")).collect();
        assert_eq!(line_changes(&old, &new), (40_000, 40_000));
    }

    #[test]
    fn counts() {
        assert_eq!(line_changes("", "a\nb"), (2, 0));
        assert_eq!(line_changes("a\nb\nc\n", "a\nc\nd\n"), (1, 1));
        assert_eq!(line_changes("same", "same"), (0, 0));
    }
}
