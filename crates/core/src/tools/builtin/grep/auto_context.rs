//! Today's automatic context (Gemini CLI 0.61's `enrichWithAutoContext`):
//! when a search that asked for no context finds one to three matches, each
//! match is shown with the lines around it, 50 on each side of a single
//! match, 15 around two or three.

use super::search::{FileMatches, Hit};

/// Whether `count` matches get automatic context.
pub(super) fn applies(count: usize) -> bool {
    (1..=3).contains(&count)
}

/// Replaces each file's lines with its matches and the lines around them
/// (`count` is the number of matches in all files). A file that cannot be
/// read again keeps its lines.
pub(super) fn enrich(files: &mut [FileMatches], count: usize) {
    let around = if count == 1 { 50 } else { 15 };
    for file in files {
        let Ok(content) = std::fs::read(&file.abs) else {
            continue;
        };
        let content = String::from_utf8_lossy(&content);
        let lines: Vec<&str> = content
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        file.lines = with_context(&file.lines, &lines, around);
    }
}

/// The matches of `hits` with `around` lines of `lines` on each side, in
/// line order, each line once, trailing white space cut.
fn with_context(hits: &[Hit], lines: &[&str], around: usize) -> Vec<Hit> {
    let matches: Vec<u64> = hits.iter().filter(|h| !h.context).map(|h| h.line).collect();
    let mut shown = std::collections::BTreeMap::new();
    for &m in &matches {
        let at = usize::try_from(m).unwrap_or(usize::MAX).saturating_sub(1);
        let from = at.saturating_sub(around);
        let to = lines.len().min(at.saturating_add(around).saturating_add(1));
        for (i, line) in lines.iter().enumerate().take(to).skip(from) {
            let n = i as u64 + 1;
            shown.entry(n).or_insert_with(|| {
                line.trim_end_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
                    .to_string()
            });
        }
    }
    shown
        .into_iter()
        .map(|(line, text)| Hit {
            line,
            text,
            context: !matches.contains(&line),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_match_gets_the_lines_around_it_including_the_empty_last() {
        let hits = [Hit {
            line: 2,
            text: "b".into(),
            context: false,
        }];
        let got = with_context(&hits, &["a ", "b", ""], 50);
        let shown: Vec<(u64, &str, bool)> = got
            .iter()
            .map(|h| (h.line, h.text.as_str(), h.context))
            .collect();
        assert_eq!(shown, [(1, "a", true), (2, "b", false), (3, "", true)]);
    }

    #[test]
    fn only_one_to_three_matches_get_context() {
        assert!(!applies(0) && applies(1) && applies(3) && !applies(4));
    }
}
