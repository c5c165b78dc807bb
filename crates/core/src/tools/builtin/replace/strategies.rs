//! How `replace` finds `old_string`: exact, then whitespace-flexible line
//! windows, then a token regex, then a bounded fuzzy match (Gemini CLI's
//! `calculateReplacement` chain). Content, old and new strings are LF-only
//! here; the caller restores CRLF.

/// How many occurrences the call accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expected {
    /// Exactly this many (`expected_replacements`, default 1).
    Exactly(u64),
    /// Any number from 1 (`allow_multiple: true`).
    AnyAtLeastOne,
}

use std::time::{Duration, Instant};

/// The outcome of the chain: the new content and how many places matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Replacement {
    /// The content after the edit (unchanged when nothing matched).
    pub content: String,
    /// Matches found (0 = not found).
    pub occurrences: u64,
    /// 1-based line ranges of fuzzy matches (empty for other strategies).
    pub fuzzy_ranges: Vec<(usize, usize)>,
}

/// Fuzzy matches may differ by at most this share of `old_string`'s length.
const FUZZY_MATCH_THRESHOLD: f64 = 0.1;
/// Whitespace-only differences count this much.
const WHITESPACE_PENALTY_FACTOR: f64 = 0.1;
/// Fuzzy matching is skipped above `lines * len^2` of this.
const FUZZY_WORK_LIMIT: f64 = 400_000_000.0;
/// Fuzzy matching gives up (no match) after this long, so one `replace`
/// call never spends more than a second on it.
const FUZZY_TIME_BUDGET: Duration = Duration::from_millis(700);

/// Runs the strategies in order; the first that matches wins.
pub(crate) fn calculate(content: &str, old: &str, new: &str, expected: Expected) -> Replacement {
    if old.is_empty() {
        return none(content);
    }
    let n = content.matches(old).count() as u64;
    if n > 0 {
        let replaced = content.replace(old, new);
        return done(content, replaced, n, Vec::new());
    }
    if let Some((replaced, n)) = flexible(content, old, new) {
        return done(content, replaced, n, Vec::new());
    }
    if let Some((replaced, n)) = token_regex(content, old, new, expected) {
        return done(content, replaced, n, Vec::new());
    }
    if let Some((replaced, n, ranges)) = fuzzy(content, old, new) {
        return done(content, replaced, n, ranges);
    }
    none(content)
}

fn none(content: &str) -> Replacement {
    Replacement {
        content: content.to_string(),
        occurrences: 0,
        fuzzy_ranges: Vec::new(),
    }
}

fn done(
    original: &str,
    modified: String,
    occurrences: u64,
    fuzzy_ranges: Vec<(usize, usize)>,
) -> Replacement {
    Replacement {
        content: restore_trailing_newline(original, modified),
        occurrences,
        fuzzy_ranges,
    }
}

/// The original's trailing-newline state wins.
fn restore_trailing_newline(original: &str, mut modified: String) -> String {
    let had = original.ends_with('\n');
    if had && !modified.ends_with('\n') {
        modified.push('\n');
    } else if !had && modified.ends_with('\n') {
        modified.pop();
    }
    modified
}

/// Lines with their `\n` (JS `content.match(/.*(?:\n|$)/g).slice(0, -1)`).
fn lines_with_endings(content: &str) -> Vec<&str> {
    content.split_inclusive('\n').collect()
}

/// The leading white space of `line` (any Unicode white space but line
/// breaks, so a line indented with no-break spaces keeps them).
fn leading_indent(line: &str) -> &str {
    let end = line
        .find(|c: char| !c.is_whitespace() || c == '\n' || c == '\r')
        .unwrap_or(line.len());
    &line[..end]
}

/// Re-indents `lines` to `target`, keeping indentation relative to the
/// first line; blank lines become empty.
fn apply_indentation(lines: &[&str], target: &str) -> Vec<String> {
    let reference = lines.first().map_or("", |l| leading_indent(l));
    lines
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                String::new()
            } else if let Some(rest) = line.strip_prefix(reference) {
                format!("{target}{rest}")
            } else {
                format!("{target}{}", line.trim_start())
            }
        })
        .collect()
}

/// Line windows equal to `old`'s lines after trimming each line.
fn flexible(content: &str, old: &str, new: &str) -> Option<(String, u64)> {
    let mut source: Vec<String> = lines_with_endings(content)
        .into_iter()
        .map(str::to_string)
        .collect();
    let search: Vec<&str> = old.split('\n').map(str::trim).collect();
    let replace: Vec<&str> = new.split('\n').collect();
    let mut count = 0u64;
    let mut i = 0usize;
    while i + search.len() <= source.len() {
        let is_match = source[i..i + search.len()]
            .iter()
            .zip(&search)
            .all(|(line, s)| line.trim() == *s);
        if is_match {
            count += 1;
            let indent = leading_indent(&source[i]).to_string();
            let mut block = apply_indentation(&replace, &indent).join("\n");
            if source[i + search.len() - 1].ends_with('\n') {
                block.push('\n');
            }
            source.splice(i..i + search.len(), std::iter::once(block));
            i += 1;
        } else {
            i += 1;
        }
    }
    (count > 0).then(|| (source.concat(), count))
}

/// `old` split into tokens at whitespace and around `( ) : [ ] { } > < =`,
/// matched with `\s*` between tokens at a line start. v0.27.4 replaces the
/// first match only (occurrences 1); with "any count" every match.
fn token_regex(content: &str, old: &str, new: &str, expected: Expected) -> Option<(String, u64)> {
    let mut spaced = old.to_string();
    for d in ['(', ')', ':', '[', ']', '{', '}', '>', '<', '='] {
        spaced = spaced.replace(d, &format!(" {d} "));
    }
    let tokens: Vec<String> = spaced.split_whitespace().map(regex::escape).collect();
    if tokens.is_empty() {
        return None;
    }
    let re = regex::Regex::new(&format!("(?m)^([ \\t]*){}", tokens.join("\\s*"))).ok()?;
    let total = re.find_iter(content).count() as u64;
    if total == 0 {
        return None;
    }
    let new_lines: Vec<&str> = new.split('\n').collect();
    let limit = match expected {
        Expected::AnyAtLeastOne => 0,
        Expected::Exactly(_) => 1,
    };
    let replaced = re.replacen(content, limit, |caps: &regex::Captures<'_>| {
        let indent = caps.get(1).map_or("", |m| m.as_str());
        apply_indentation(&new_lines, indent).join("\n")
    });
    let occurrences = if limit == 1 { 1 } else { total };
    Some((replaced.into_owned(), occurrences))
}

/// A fuzzy result: new content, matches, 1-based line ranges.
type FuzzyHit = (String, u64, Vec<(usize, usize)>);

/// Windows of `old`'s line count whose weighted edit distance to `old`
/// (whitespace differences weigh 0.1) is at most 10 % of its length.
///
/// Bounded three ways: the later spec's `lines * len^2` work limit, a
/// banded edit distance that gives up past the threshold (the weighted
/// score is never below the whitespace-free distance, so windows whose
/// whitespace-free distance exceeds 10 % are dropped early), and a wall
/// clock budget of [`FUZZY_TIME_BUDGET`] after which no fuzzy match is
/// reported.
fn fuzzy(content: &str, old: &str, new: &str) -> Option<FuzzyHit> {
    let started = Instant::now();
    let old_len = old.chars().count();
    if old_len < 10 {
        return None;
    }
    let mut source: Vec<String> = lines_with_endings(content)
        .into_iter()
        .map(str::to_string)
        .collect();
    if source.len() as f64 * (old_len as f64).powi(2) > FUZZY_WORK_LIMIT {
        return None;
    }
    let search_lines: Vec<&str> = old.split_inclusive('\n').map(str::trim_end).collect();
    let n = search_lines.len();
    if n == 0 || n > source.len() {
        return None;
    }
    let block: Vec<char> = search_lines.join("\n").chars().collect();
    let block_len = block.len().max(1) as f64;
    let block_stripped: Vec<char> = block
        .iter()
        .copied()
        .filter(|c| !c.is_whitespace())
        .collect();
    // The largest whitespace-free distance that can still score <= 10 %.
    let max_norm = (FUZZY_MATCH_THRESHOLD * block_len).floor() as usize;
    let trimmed: Vec<Vec<char>> = source
        .iter()
        .map(|l| l.trim_end().chars().collect())
        .collect();
    let (mut window, mut stripped) = (Vec::new(), Vec::new());
    let mut candidates: Vec<(usize, f64)> = Vec::new();
    for i in 0..=source.len() - n {
        if started.elapsed() > FUZZY_TIME_BUDGET {
            return None;
        }
        window.clear();
        for (k, line) in trimmed[i..i + n].iter().enumerate() {
            if k > 0 {
                window.push('\n');
            }
            window.extend_from_slice(line);
        }
        let diff = (window.len() as f64 - block.len() as f64).abs();
        if diff / block_len > FUZZY_MATCH_THRESHOLD / WHITESPACE_PENALTY_FACTOR {
            continue;
        }
        stripped.clear();
        stripped.extend(window.iter().copied().filter(|c| !c.is_whitespace()));
        let Some(norm) = bounded_levenshtein(&stripped, &block_stripped, max_norm) else {
            continue;
        };
        let raw = levenshtein(&window, &block) as f64;
        let score = (norm as f64 + (raw - norm as f64) * WHITESPACE_PENALTY_FACTOR) / block_len;
        if score <= FUZZY_MATCH_THRESHOLD {
            candidates.push((i, score));
        }
    }
    if candidates.is_empty() {
        return None;
    }
    candidates.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let mut selected: Vec<usize> = Vec::new();
    for (i, _) in candidates {
        if selected.iter().all(|s| s.abs_diff(i) >= n) {
            selected.push(i);
        }
    }
    let mut ranges: Vec<(usize, usize)> = selected.iter().map(|i| (i + 1, i + n)).collect();
    ranges.sort_unstable();
    selected.sort_unstable_by(|a, b| b.cmp(a));
    let new_lines: Vec<&str> = new.split('\n').collect();
    for i in &selected {
        let indent = leading_indent(&source[*i]).to_string();
        let mut text = apply_indentation(&new_lines, &indent).join("\n");
        if source[i + n - 1].ends_with('\n') {
            text.push('\n');
        }
        source.splice(*i..*i + n, std::iter::once(text));
    }
    Some((source.concat(), selected.len() as u64, ranges))
}

/// Levenshtein distance over characters (two rows).
fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The Levenshtein distance when it is at most `max`, else `None`: only
/// the diagonal band of width `2 * max + 1` is computed, so the cost is
/// `O(len * max)` instead of `O(len^2)`.
fn bounded_levenshtein(a: &[char], b: &[char], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let inf = max + 1;
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(inf)).collect();
    let mut cur = vec![inf; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        let row = i + 1;
        let lo = row.saturating_sub(max).max(1);
        let hi = (row + max).min(b.len());
        cur[0] = if row <= max { row } else { inf };
        if lo > 1 {
            cur[lo - 1] = inf;
        }
        let mut best = cur[0];
        for j in lo..=hi {
            let cost = usize::from(*ca != b[j - 1]);
            let v = (prev[j - 1] + cost)
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(inf);
            cur[j] = v;
            best = best.min(v);
        }
        if hi < b.len() {
            cur[hi + 1] = inf;
        }
        if best > max {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    (prev[b.len()] <= max).then_some(prev[b.len()])
}

/// `Applied fuzzy match at line(s) <a-b, c>.` for fuzzy results.
pub(crate) fn fuzzy_note(ranges: &[(usize, usize)]) -> Option<String> {
    if ranges.is_empty() {
        return None;
    }
    let list: Vec<String> = ranges
        .iter()
        .map(|(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        })
        .collect();
    Some(format!(
        "Applied fuzzy match at line{} {}.",
        if ranges.len() > 1 { "s" } else { "" },
        list.join(", ")
    ))
}

#[cfg(test)]
mod tests;
